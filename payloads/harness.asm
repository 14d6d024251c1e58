; The measuring loop, run at CPL 0 or CPL 3 from the same bytes. One call measures a
; whole batch: for every repetition it runs the payload at n and at 2n iterations and
; records, for each, the difference of every counter (RDPMC) and of the TSC around it.
; At CPL 3 everything here (loop, reads, result buffer) is in user pages: no ring
; transition happens inside a batch. Layout of struct harness: HARNESS_* in arch/x86/abi.h.
bits 64
default rel
%include "abi.inc"

; Serialising a counter read (SDM Vol. 3B 20.x / AMD APM Vol. 3 RDPMC, RDTSC): LFENCE
; where it is dispatch-serialising (Intel; AMD with it enabled), CPUID elsewhere.
%macro SER_LFENCE 0
	lfence
%endmacro
%macro SER_CPUID 0
	push rbx
	xor eax, eax
	cpuid
	pop rbx
%endmacro

; read_counters_X: dst in RDI, harness in R12; dst[0..nctr) by RDPMC, then nmsr values by
; RDMSR, then the TSC. Start and end use the same code, so its cost is identical at n and
; 2n and cancels in the difference.
%macro READ_COUNTERS 2
%1:
	mov r8, [r12 + HARNESS_NCTR]
	xor r9d, r9d
.ctr:
	cmp r9, r8
	jae .msr
	%2
	mov ecx, [r12 + HARNESS_IDX + r9 * 4]
	rdpmc
	shl rdx, 32
	or rax, rdx
	mov [rdi + r9 * 8], rax
	inc r9
	jmp .ctr
.msr:
	mov r10, [r12 + HARNESS_NMSR]
	xor r11d, r11d
.msrloop:
	cmp r11, r10
	jae .tsc
	%2
	mov ecx, [r12 + HARNESS_MSR + r11 * 4]
	rdmsr
	shl rdx, 32
	or rax, rdx
	lea rcx, [r8 + r11]
	mov [rdi + rcx * 8], rax
	inc r11
	jmp .msrloop
.tsc:
	%2
	rdtsc
	shl rdx, 32
	or rax, rdx
	lea rcx, [r8 + r10]
	mov [rdi + rcx * 8], rax
	%2
	ret
%endmacro

; uint64_t NAME(struct harness *h) -> repetitions done
%macro HARNESS 2
global %1
%1:
	push rbx
	push rbp
	push r12
	push r13
	push r14
	push r15
	mov r12, rdi
	xor r13d, r13d
	mov rbp, [r12 + HARNESS_OUT]
.rep:
	mov r14, [r12 + HARNESS_N]
	xor r15d, r15d
.len:
	lea rdi, [r12 + HARNESS_START]
	call %2
	mov rdi, [r12 + HARNESS_ARG]
	mov rsi, r14
	call [r12 + HARNESS_FN]
	mov rdi, rbp
	call %2
	mov rcx, [r12 + HARNESS_NCTR]
	add rcx, [r12 + HARNESS_NMSR]
	xor ebx, ebx
.sub:
	mov rax, [rbp + rbx * 8]
	sub rax, [r12 + HARNESS_START + rbx * 8]
	mov [rbp + rbx * 8], rax
	inc rbx
	cmp rbx, rcx
	jbe .sub
	lea rbp, [rbp + rcx * 8 + 8]
	shl r14, 1
	inc r15
	cmp r15, 2
	jb .len
	inc r13
	cmp r13, [r12 + HARNESS_REPS]
	jb .rep
	mov rax, r13
	pop r15
	pop r14
	pop r13
	pop r12
	pop rbp
	pop rbx
	ret
%endmacro

section .payload
align 64
READ_COUNTERS read_counters_lfence, SER_LFENCE
align 64
READ_COUNTERS read_counters_cpuid, SER_CPUID
align 64
HARNESS bp_harness_lfence, read_counters_lfence
align 64
HARNESS bp_harness_cpuid, read_counters_cpuid

; CPL 0 entry: the harness data lives in user pages, so set RFLAGS.AC for SMAP
; (SDM Vol. 3A 4.6.1) for the duration; CR0.AM is clear, so AC checks no alignment.
%macro CPL0_WRAPPER 2
global %1
align 16
%1:
	pushfq
	or qword [rsp], RFLAGS_AC
	popfq
	call %2
	pushfq
	and qword [rsp], ~RFLAGS_AC
	popfq
	ret
%endmacro
CPL0_WRAPPER bp_harness_lfence_cpl0, bp_harness_lfence
CPL0_WRAPPER bp_harness_cpuid_cpl0, bp_harness_cpuid

; uint64_t bp_step(struct harness *h): one call of fn(arg, n) with RFLAGS.TF set, for
; counting instructions by single-step traps. The fixed instructions around the call
; are the same for any n, so counts at n and 2n differ by exactly n x insns_per_iter.
global bp_step, bp_step_cpl0
align 16
bp_step:
	push r12
	mov r12, rdi
	mov rdi, [r12 + HARNESS_ARG]
	mov rsi, [r12 + HARNESS_N]
	pushfq
	or qword [rsp], RFLAGS_TF
	popfq
	call [r12 + HARNESS_FN]
	pushfq
	and qword [rsp], ~RFLAGS_TF
	popfq
	pop r12
	ret
CPL0_WRAPPER bp_step_cpl0, bp_step

section .note.GNU-stack noalloc noexec nowrite progbits
