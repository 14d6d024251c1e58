; Arithmetic payloads: fn(arg, iters), one source for both kernels (arch/x86/word.inc).
; Each iteration is an unrolled body plus "dec xsi; jnz" (2 instructions);
; payloads/catalogue.c declares the per-iteration instruction count, which the icount
; test holds them to on both kernels. The operations are word-sized (ADD, IMUL, DIV, LEA,
; POPCNT on RAX or EAX); the "indep" bodies spread over four of the registers both modes
; have, XBX among them (saved around the loop: the payload convention keeps it).
%include "word.inc"
%include "abi.inc"
section .payload

%macro PAYLOAD 1
global %1
align 64
%1:
%endmacro
%macro LOOP_END 0
	dec xsi
	jnz .loop
%endmacro

; A dividend that fills the word: 0x0123456789abcdef, or its low half 0x89abcdef.
%define DIVIDEND (0x0123456789abcdef & WORD_MASK)

PAYLOAD pl_empty                    ; 2 insns/iter: the loop alone
.loop:	LOOP_END
	ret

PAYLOAD pl_add_chain                ; 8 dependent ADDs: 10/iter
	xor eax, eax
.loop:
%rep 8
	add xax, 1
%endrep
	LOOP_END
	ret

PAYLOAD pl_add_indep                ; 8 ADDs over 4 registers: 10/iter
	xor eax, eax
.loop:
%rep 2
	add xax, 1
	add xcx, 1
	add xdx, 1
	add xdi, 1
%endrep
	LOOP_END
	ret

PAYLOAD pl_imul_chain               ; 8 dependent IMULs: 10/iter
	mov eax, 3
	mov ecx, 1
.loop:
%rep 8
	imul xax, xcx
%endrep
	LOOP_END
	ret

PAYLOAD pl_imul_indep               ; 8 IMULs over 4 registers: 10/iter
	push xbx
	mov ecx, 1
.loop:
%rep 2
	imul xax, xcx
	imul xdx, xcx
	imul xdi, xcx
	imul xbx, xcx
%endrep
	LOOP_END
	pop xbx
	ret

PAYLOAD pl_div_chain                ; 4 x (xor edx; div): word-sized DIV chained through XAX: 10/iter
	mov xax, DIVIDEND
	mov ecx, 1
.loop:
%rep 4
	xor edx, edx
	div xcx
%endrep
	LOOP_END
	ret

PAYLOAD pl_div_indep                ; 4 DIVs whose inputs do not depend on each other: 14/iter
	mov ecx, 1
	mov xdi, DIVIDEND
.loop:
%rep 4
	mov xax, xdi
	xor edx, edx
	div xcx
%endrep
	LOOP_END
	ret

PAYLOAD pl_lea_chain                ; 8 dependent 3-component LEAs: 10/iter
	xor eax, eax
.loop:
%rep 8
	lea xax, [xax + xax * 2 + 1]
%endrep
	LOOP_END
	ret

PAYLOAD pl_lea_indep                ; 8 LEAs writing 4 registers from one input: 10/iter
	push xbx
	xor eax, eax
.loop:
%rep 2
	lea xcx, [xax + xax * 2 + 1]
	lea xdx, [xax + xax * 2 + 1]
	lea xdi, [xax + xax * 2 + 1]
	lea xbx, [xax + xax * 2 + 1]
%endrep
	LOOP_END
	pop xbx
	ret

PAYLOAD pl_popcnt_chain             ; 8 dependent POPCNTs: 10/iter
	mov xax, xdi
.loop:
%rep 8
	popcnt xax, xax
%endrep
	LOOP_END
	ret

PAYLOAD pl_popcnt_indep             ; 8 POPCNTs from one input into 4 registers: 10/iter
	push xbx
	mov xax, xdi
.loop:
%rep 2
	popcnt xcx, xax
	popcnt xdx, xax
	popcnt xdi, xax
	popcnt xbx, xax
%endrep
	LOOP_END
	pop xbx
	ret

; SSE2 (PL_NEEDS_SSE2): XMM0-7 exist in both modes, so these are the same bytes in each.
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
