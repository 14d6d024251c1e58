; The measuring loop, run at CPL 0 or CPL 3 from the same bytes; one source for both
; kernels (arch/x86/word.inc). One call measures a whole batch: for every repetition it
; runs the payload at n and at 2n iterations and records, for each, the difference of
; every counter (RDPMC), every free-running MSR (RDMSR, CPL 0 only) and the TSC around
; it. At CPL 3 everything here (loop, reads, result buffer) is in user pages: no ring
; transition happens inside a batch. No absolute address of this file is used: the code
; also runs from its user alias.
;
; struct harness (kernel/engine.c; HARNESS_* in arch/x86/abi.h) has one layout in both
; builds: its fields are 64 bits wide. Pointers and counts are read as a machine word,
; which on i686 is their low dword; the recorded values are full 64-bit EDX:EAX pairs
; (RDPMC returns a 40-bit P6 or K7 counter there, bits 39:32 in EDX).
;
; Only XBX and XBP survive a payload call on both kernels (the payload convention,
; arch/x86/word.inc), so they hold the harness and the output cursor; the loop state
; lives on the stack.
%include "word.inc"
%include "abi.inc"

; Serialising a counter read (SDM Vol. 3B 20.x / AMD APM Vol. 3 RDPMC, RDTSC): LFENCE
; where it is dispatch-serialising (Intel, AMD with it enabled; never without SSE2, where
; it is #UD: arch/x86/setup.c cpu_lfence_serializing), CPUID elsewhere.
%macro SER_LFENCE 0
	lfence
%endmacro
%macro SER_CPUID 0
	push xbx
	xor eax, eax
	cpuid
	pop xbx
%endmacro

; read_counters_X: dst in XDI, harness in XBX; writes nctr values by RDPMC, then nmsr by
; RDMSR, then the TSC, 8 bytes each. Uses XAX, XCX, XDX, XSI, XDI. Start and end use the
; same code, so its cost is identical at n and 2n and cancels in the difference.
%macro READ_COUNTERS 2
%1:
	xor esi, esi
.ctr:
	cmp xsi, [xbx + HARNESS_NCTR]
	jae .msr
	%2
	mov ecx, [xbx + HARNESS_IDX + xsi * 4]
	rdpmc
	STORE_EDX_EAX xdi
	add xdi, 8
	inc xsi
	jmp .ctr
.msr:
	xor esi, esi
.msrloop:
	cmp xsi, [xbx + HARNESS_NMSR]
	jae .tsc
	%2
	mov ecx, [xbx + HARNESS_MSR + xsi * 4]
	rdmsr
	STORE_EDX_EAX xdi
	add xdi, 8
	inc xsi
	jmp .msrloop
.tsc:
	%2
	rdtsc
	STORE_EDX_EAX xdi
	%2
	ret
%endmacro

; Stack slots of HARNESS below (XSP-relative), a machine word each.
%define REP_DONE  (0 * WORD_SIZE)      ; repetitions done
%define ITERS     (1 * WORD_SIZE)      ; n, then 2n: what the payload gets in XSI
%define LEN       (2 * WORD_SIZE)      ; 0 for the n run, 1 for the 2n run
%define LOCALS    (3 * WORD_SIZE)

; uint64_t NAME(struct harness *h in XDI) -> repetitions done (in XAX, EDX clear)
%macro HARNESS 2
global %1
%1:
	push xbx
	push xbp
	sub xsp, LOCALS
	mov xbx, xdi
	mov xbp, [xbx + HARNESS_OUT]
	mov xword [xsp + REP_DONE], 0
.rep:
	mov xax, [xbx + HARNESS_N]
	mov [xsp + ITERS], xax
	mov xword [xsp + LEN], 0
.len:
	lea xdi, [xbx + HARNESS_START]
	call %2
	mov xdi, [xbx + HARNESS_ARG]
	mov xsi, [xsp + ITERS]
	call [xbx + HARNESS_FN]
	mov xdi, xbp
	call %2
	; out[i] -= start[i] for the nctr + nmsr + 1 values, 64 bits each
	mov xcx, [xbx + HARNESS_NCTR]
	add xcx, [xbx + HARNESS_NMSR]
	xor esi, esi
.sub:
	SUB64_MEM xbp + xsi * 8, xbx + HARNESS_START + xsi * 8
	inc xsi
	cmp xsi, xcx
	jbe .sub
	lea xbp, [xbp + xcx * 8 + 8]
	shl xword [xsp + ITERS], 1
	inc xword [xsp + LEN]
	cmp xword [xsp + LEN], 2
	jb .len
	inc xword [xsp + REP_DONE]
	mov xax, [xsp + REP_DONE]
	cmp xax, [xbx + HARNESS_REPS]
	jb .rep
	xor edx, edx
	add xsp, LOCALS
	pop xbp
	pop xbx
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
	pushf
	or xword [xsp], RFLAGS_AC
	popf
	call %2
	pushf
	and xword [xsp], ~RFLAGS_AC
	popf
	ret
%endmacro
CPL0_WRAPPER bp_harness_lfence_cpl0, bp_harness_lfence
CPL0_WRAPPER bp_harness_cpuid_cpl0, bp_harness_cpuid

; uint64_t bp_step(struct harness *h in XDI): one call of fn(arg, n) with RFLAGS.TF set,
; for counting instructions by single-step traps. The fixed instructions around the call
; are the same for any n, so counts at n and 2n differ by exactly n x insns_per_iter.
global bp_step, bp_step_cpl0
align 16
bp_step:
	push xbx
	mov xbx, xdi
	mov xdi, [xbx + HARNESS_ARG]
	mov xsi, [xbx + HARNESS_N]
	pushf
	or xword [xsp], RFLAGS_TF
	popf
	call [xbx + HARNESS_FN]
	pushf
	and xword [xsp], ~RFLAGS_TF
	popf
	pop xbx
	ret
CPL0_WRAPPER bp_step_cpl0, bp_step

section .note.GNU-stack noalloc noexec nowrite progbits
