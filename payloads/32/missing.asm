; Placeholders for the i686 kernel: the payload bodies and the measuring harness are not
; yet written in 32-bit form (issue 8, item 3). These labels let payloads/catalogue.c and
; kernel/engine.c link, so mode=list shows the catalogue the i686 engine is to run; the
; i686 kernel refuses mode=run before any of them could be reached (kernel/main.c), and
; each is a UD2, so a call that slipped through would end as a reported #UD, not run
; something else. Replace this file by the real bodies, one per 64-bit file.
bits 32

%macro MISSING 1-*
%rep %0
global %1
align 16
%1:
	ud2
%rotate 1
%endrep
%endmacro

section .payload
MISSING pl_empty, pl_add_chain, pl_add_indep, pl_imul_chain, pl_imul_indep
MISSING pl_div_chain, pl_div_indep, pl_lea_chain, pl_lea_indep
MISSING pl_popcnt_chain, pl_popcnt_indep, pl_fp_chain, pl_fp_indep
MISSING pl_mem_chase, pl_mem_seq_read, pl_br_taken, pl_br_random
MISSING pl_br_predictable, pl_sys_syscall, pl_sys_int80, pl_sys_int3
MISSING pl_cost_rdtsc, pl_cost_rdtscp, pl_cost_rdpmc, pl_cost_cpuid
MISSING pl_cost_lfence, pl_cost_mfence, pl_cost_rdmsr
MISSING pl_fault_priv, pl_fault_kaddr, pl_fault_div0, pl_fault_ud, pl_fault_hang
MISSING bp_harness_lfence, bp_harness_cpuid, bp_harness_lfence_cpl0, bp_harness_cpuid_cpl0
MISSING bp_step, bp_step_cpl0

section .note.GNU-stack noalloc noexec nowrite progbits
