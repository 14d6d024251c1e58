; The measuring loop of the i686 kernel: payloads/harness.asm in 32-bit form, under the
; same names. One call measures a whole batch: for every repetition it runs the payload
; at n and at 2n iterations and records, for each, the difference of every counter
; (RDPMC), every free-running MSR (RDMSR, CPL 0 only) and the TSC around it. At CPL 3
; everything here is in user pages and no ring transition happens inside a batch.
;
; struct harness (kernel/engine.c, HARNESS_* in arch/x86/abi.h) has the same layout in
; both builds: its fields are 64 bits wide. Pointers and counts are read from their low
; dword; the recorded values are full 64-bit EDX:EAX pairs (RDPMC returns a 40-bit P6 or
; K7 counter there, bits 39:32 in EDX), differences taken with SUB/SBB.
;
; Payload convention (arch/x86/32/entry.asm): EDI = arg, ESI = iterations; EBX, EBP and
; ESP kept, everything else may change. Only EBX and EBP survive a payload call, so they
; hold the harness and the output cursor; the loop state lives on the stack. No absolute
; address of this file is used: the code also runs from its user alias.
bits 32
%include "abi.inc"

; Serialising a counter read (SDM Vol. 3B 20.x / AMD APM Vol. 3 RDPMC, RDTSC): LFENCE
; where it is dispatch-serialising (Intel, AMD with it enabled; never without SSE2, where
; it is #UD: arch/x86/setup.c cpu_lfence_serializing), CPUID elsewhere.
%macro SER_LFENCE 0
	lfence
%endmacro
%macro SER_CPUID 0
	push ebx
	xor eax, eax
	cpuid
	pop ebx
%endmacro

; read_counters_X: dst in EDI, harness in EBX; writes nctr values by RDPMC, then nmsr by
; RDMSR, then the TSC, 8 bytes each. Uses EAX, ECX, EDX, ESI, EDI. Start and end use the
; same code, so its cost is identical at n and 2n and cancels in the difference.
%macro READ_COUNTERS 2
%1:
	xor esi, esi
.ctr:
	cmp esi, [ebx + HARNESS_NCTR]
	jae .msr
	%2
	mov ecx, [ebx + HARNESS_IDX + esi * 4]
	rdpmc
	mov [edi], eax
	mov [edi + 4], edx
	add edi, 8
	inc esi
	jmp .ctr
.msr:
	xor esi, esi
.msrloop:
	cmp esi, [ebx + HARNESS_NMSR]
	jae .tsc
	%2
	mov ecx, [ebx + HARNESS_MSR + esi * 4]
	rdmsr
	mov [edi], eax
	mov [edi + 4], edx
	add edi, 8
	inc esi
	jmp .msrloop
.tsc:
	%2
	rdtsc
	mov [edi], eax
	mov [edi + 4], edx
	%2
	ret
%endmacro

; Stack slots of HARNESS below (ESP-relative).
%define REP_DONE  0            ; repetitions done
%define ITERS     4            ; n, then 2n: what the payload gets in ESI
%define LEN       8            ; 0 for the n run, 1 for the 2n run
%define LOCALS    12

; uint64_t NAME(struct harness *h in EDI) -> repetitions done in EDX:EAX
%macro HARNESS 2
global %1
%1:
	push ebx
	push ebp
	sub esp, LOCALS
	mov ebx, edi
	mov ebp, [ebx + HARNESS_OUT]
	mov dword [esp + REP_DONE], 0
.rep:
	mov eax, [ebx + HARNESS_N]
	mov [esp + ITERS], eax
	mov dword [esp + LEN], 0
.len:
	lea edi, [ebx + HARNESS_START]
	call %2
	mov edi, [ebx + HARNESS_ARG]
	mov esi, [esp + ITERS]
	call [ebx + HARNESS_FN]
	mov edi, ebp
	call %2
	; out[i] -= start[i] for the nctr + nmsr + 1 values, 64 bits each
	mov ecx, [ebx + HARNESS_NCTR]
	add ecx, [ebx + HARNESS_NMSR]
	xor esi, esi
.sub:
	mov eax, [ebp + esi * 8]
	mov edx, [ebp + esi * 8 + 4]
	sub eax, [ebx + HARNESS_START + esi * 8]
	sbb edx, [ebx + HARNESS_START + esi * 8 + 4]
	mov [ebp + esi * 8], eax
	mov [ebp + esi * 8 + 4], edx
	inc esi
	cmp esi, ecx
	jbe .sub
	lea ebp, [ebp + ecx * 8 + 8]
	shl dword [esp + ITERS], 1
	inc dword [esp + LEN]
	cmp dword [esp + LEN], 2
	jb .len
	inc dword [esp + REP_DONE]
	mov eax, [esp + REP_DONE]
	cmp eax, [ebx + HARNESS_REPS]
	jb .rep
	xor edx, edx
	add esp, LOCALS
	pop ebp
	pop ebx
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

; CPL 0 entry: the harness data lives in user pages, so set EFLAGS.AC for SMAP
; (SDM Vol. 3A 4.6.1) for the duration; CR0.AM is clear, so AC checks no alignment.
%macro CPL0_WRAPPER 2
global %1
align 16
%1:
	pushfd
	or dword [esp], RFLAGS_AC
	popfd
	call %2
	pushfd
	and dword [esp], ~RFLAGS_AC
	popfd
	ret
%endmacro
CPL0_WRAPPER bp_harness_lfence_cpl0, bp_harness_lfence
CPL0_WRAPPER bp_harness_cpuid_cpl0, bp_harness_cpuid

; uint64_t bp_step(struct harness *h in EDI): one call of fn(arg, n) with EFLAGS.TF set,
; for counting instructions by single-step traps. The fixed instructions around the
; call are the same for any n, so counts at n and 2n differ by exactly n x insns_per_iter.
global bp_step, bp_step_cpl0
align 16
bp_step:
	push ebx
	mov ebx, edi
	mov edi, [ebx + HARNESS_ARG]
	mov esi, [ebx + HARNESS_N]
	pushfd
	or dword [esp], RFLAGS_TF
	popfd
	call [ebx + HARNESS_FN]
	pushfd
	and dword [esp], ~RFLAGS_TF
	popfd
	pop ebx
	ret
CPL0_WRAPPER bp_step_cpl0, bp_step

section .note.GNU-stack noalloc noexec nowrite progbits
