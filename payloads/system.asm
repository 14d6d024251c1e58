; Privilege transitions (CPL 3 only; kernel sides in each word size's entry.asm kept to a
; handful of instructions), the measuring instructions themselves, and fault payloads: one
; source for both kernels (arch/x86/word.inc).
%include "word.inc"
%include "abi.inc"
section .payload

%macro PAYLOAD 1
global %1
align 64
%1:
%endmacro

; SYSCALL is set up in long mode only (protected mode has none on Intel CPUs): the i686
; kernel skips this payload (payload_unsupported), and a SYSCALL there would be a #UD.
PAYLOAD pl_sys_syscall             ; SYSCALL/SYSRET round trip: 4 user insns/iter
.loop:	mov eax, SYS_NULL
	syscall
	dec xsi
	jnz .loop
	ret

PAYLOAD pl_sys_int80               ; INT 0x80/IRET round trip: 3 user insns/iter
.loop:	int VEC_INT_ROUNDTRIP
	dec xsi
	jnz .loop
	ret

PAYLOAD pl_sys_int3                ; #BP exception round trip: 3 user insns/iter
.loop:	int3
	dec xsi
	jnz .loop
	ret

PAYLOAD pl_cost_rdtsc              ; 4 RDTSC: 6/iter
.loop:
%rep 4
	rdtsc
%endrep
	dec xsi
	jnz .loop
	ret

PAYLOAD pl_cost_rdtscp             ; 4 RDTSCP: 6/iter
.loop:
%rep 4
	rdtscp
%endrep
	dec xsi
	jnz .loop
	ret

PAYLOAD pl_cost_rdpmc              ; 4 RDPMC of counter arg: 6/iter
	mov xcx, xdi
.loop:
%rep 4
	rdpmc
%endrep
	dec xsi
	jnz .loop
	ret

PAYLOAD pl_cost_cpuid              ; 2 x (xor eax; xor ecx; CPUID leaf 0): 8/iter
	push xbx
.loop:
%rep 2
	xor eax, eax
	xor ecx, ecx
	cpuid
%endrep
	dec xsi
	jnz .loop
	pop xbx
	ret

PAYLOAD pl_cost_lfence             ; 4 LFENCE (SSE2): 6/iter
.loop:
%rep 4
	lfence
%endrep
	dec xsi
	jnz .loop
	ret

PAYLOAD pl_cost_mfence             ; 4 MFENCE (SSE2): 6/iter
.loop:
%rep 4
	mfence
%endrep
	dec xsi
	jnz .loop
	ret

PAYLOAD pl_cost_rdmsr              ; CPL 0: 4 RDMSR of IA32_TIME_STAMP_COUNTER: 6/iter
	mov ecx, MSR_IA32_TSC
.loop:
%rep 4
	rdmsr
%endrep
	dec xsi
	jnz .loop
	ret

; Fault payloads: the kernel must report each and carry on.
PAYLOAD pl_fault_priv              ; HLT at CPL 3: #GP
.loop:	hlt
	dec xsi
	jnz .loop
	ret

PAYLOAD pl_fault_kaddr             ; load from arg, a kernel address: #PF at CPL 3
.loop:	mov xax, [xdi]
	dec xsi
	jnz .loop
	ret

PAYLOAD pl_fault_div0              ; DIV by zero: #DE at any CPL
	xor ecx, ecx
.loop:	mov eax, 1
	xor edx, edx
	div xcx
	dec xsi
	jnz .loop
	ret

PAYLOAD pl_fault_ud                ; UD2: #UD at any CPL
.loop:	ud2
	dec xsi
	jnz .loop
	ret

PAYLOAD pl_fault_hang              ; never ends: only the watchdog stops it
.loop:	jmp .loop

section .note.GNU-stack noalloc noexec nowrite progbits
