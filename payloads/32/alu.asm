; Arithmetic payloads of the i686 kernel: payloads/alu.asm in 32-bit form, under the same
; names and with the same instruction counts per iteration (payloads/catalogue.c). Where
; the x86-64 bodies use 64-bit registers these use 32-bit ones (ADD r32, IMUL r32, DIV
; r32, LEA r32, POPCNT r32), and the registers R8-R9 become EDI and EBX (saved around
; the loop: the payload convention keeps EBX). Each iteration is an unrolled body plus
; "dec esi; jnz" (2 instructions). Convention: arch/x86/32/entry.asm.
bits 32
%include "abi.inc"
section .payload

%macro PAYLOAD 1
global %1
align 64
%1:
%endmacro
%macro LOOP_END 0
	dec esi
	jnz .loop
%endmacro

PAYLOAD pl_empty                    ; 2 insns/iter: the loop alone
.loop:	LOOP_END
	ret

PAYLOAD pl_add_chain                ; 8 dependent ADD r32: 10/iter
	xor eax, eax
.loop:
%rep 8
	add eax, 1
%endrep
	LOOP_END
	ret

PAYLOAD pl_add_indep                ; 8 ADD r32 over 4 registers: 10/iter
	xor eax, eax
.loop:
%rep 2
	add eax, 1
	add ecx, 1
	add edx, 1
	add edi, 1
%endrep
	LOOP_END
	ret

PAYLOAD pl_imul_chain               ; 8 dependent IMUL r32: 10/iter
	mov eax, 3
	mov ecx, 1
.loop:
%rep 8
	imul eax, ecx
%endrep
	LOOP_END
	ret

PAYLOAD pl_imul_indep               ; 8 IMUL r32 over 4 registers: 10/iter
	push ebx
	mov ecx, 1
.loop:
%rep 2
	imul eax, ecx
	imul edx, ecx
	imul edi, ecx
	imul ebx, ecx
%endrep
	LOOP_END
	pop ebx
	ret

PAYLOAD pl_div_chain                ; 4 x (xor edx; div): DIV r32 chained through EAX: 10/iter
	mov eax, 0x89abcdef
	mov ecx, 1
.loop:
%rep 4
	xor edx, edx
	div ecx
%endrep
	LOOP_END
	ret

PAYLOAD pl_div_indep                ; 4 DIV r32 whose inputs do not depend on each other: 14/iter
	mov ecx, 1
	mov edi, 0x89abcdef
.loop:
%rep 4
	mov eax, edi
	xor edx, edx
	div ecx
%endrep
	LOOP_END
	ret

PAYLOAD pl_lea_chain                ; 8 dependent 3-component LEA r32: 10/iter
	xor eax, eax
.loop:
%rep 8
	lea eax, [eax + eax * 2 + 1]
%endrep
	LOOP_END
	ret

PAYLOAD pl_lea_indep                ; 8 LEA r32 writing 4 registers from one input: 10/iter
	push ebx
	xor eax, eax
.loop:
%rep 2
	lea ecx, [eax + eax * 2 + 1]
	lea edx, [eax + eax * 2 + 1]
	lea edi, [eax + eax * 2 + 1]
	lea ebx, [eax + eax * 2 + 1]
%endrep
	LOOP_END
	pop ebx
	ret

PAYLOAD pl_popcnt_chain             ; 8 dependent POPCNT r32: 10/iter
	mov eax, edi
.loop:
%rep 8
	popcnt eax, eax
%endrep
	LOOP_END
	ret

PAYLOAD pl_popcnt_indep             ; 8 POPCNT r32 from one input into 4 registers: 10/iter
	push ebx
	mov eax, edi
.loop:
%rep 2
	popcnt ecx, eax
	popcnt edx, eax
	popcnt edi, eax
	popcnt ebx, eax
%endrep
	LOOP_END
	pop ebx
	ret

; SSE2 (PL_NEEDS_SSE2): the same bytes as the x86-64 bodies, XMM0-7 exist in both modes.
PAYLOAD pl_fp_chain                 ; 8 dependent ADDSDs (SSE2 double): 10/iter
	xorpd xmm0, xmm0
	xorpd xmm1, xmm1
.loop:
%rep 8
	addsd xmm0, xmm1
%endrep
	LOOP_END
	ret

PAYLOAD pl_fp_indep                 ; 8 ADDSDs into 4 accumulators: 10/iter
	xorpd xmm0, xmm0
	xorpd xmm1, xmm1
	xorpd xmm2, xmm2
	xorpd xmm3, xmm3
	xorpd xmm4, xmm4
.loop:
%rep 2
	addsd xmm0, xmm4
	addsd xmm1, xmm4
	addsd xmm2, xmm4
	addsd xmm3, xmm4
%endrep
	LOOP_END
	ret

section .note.GNU-stack noalloc noexec nowrite progbits
