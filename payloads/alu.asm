; Arithmetic payloads: fn(arg, iters). Each iteration is an unrolled body plus
; "dec rsi; jnz" (2 instructions); payloads/catalogue.c declares the per-iteration
; instruction count, which the icount test holds them to.
bits 64
default rel
%include "abi.inc"
section .payload

%macro PAYLOAD 1
global %1
align 64
%1:
%endmacro
%macro LOOP_END 0
	dec rsi
	jnz .loop
%endmacro

PAYLOAD pl_empty                    ; 2 insns/iter: the loop alone
.loop:	LOOP_END
	ret

PAYLOAD pl_add_chain                ; 8 dependent ADDs: 10/iter
	xor eax, eax
.loop:
%rep 8
	add rax, 1
%endrep
	LOOP_END
	ret

PAYLOAD pl_add_indep                ; 8 ADDs over 4 registers: 10/iter
	xor eax, eax
.loop:
%rep 2
	add rax, 1
	add rcx, 1
	add rdx, 1
	add r8, 1
%endrep
	LOOP_END
	ret

PAYLOAD pl_imul_chain               ; 8 dependent IMULs: 10/iter
	mov eax, 3
	mov ecx, 1
.loop:
%rep 8
	imul rax, rcx
%endrep
	LOOP_END
	ret

PAYLOAD pl_imul_indep               ; 8 IMULs over 4 registers: 10/iter
	mov ecx, 1
.loop:
%rep 2
	imul rax, rcx
	imul rdx, rcx
	imul r8, rcx
	imul r9, rcx
%endrep
	LOOP_END
	ret

PAYLOAD pl_div_chain                ; 4 x (xor edx; div): 64-bit DIV chained through RAX: 10/iter
	mov rax, 0x123456789abcdef
	mov ecx, 1
.loop:
%rep 4
	xor edx, edx
	div rcx
%endrep
	LOOP_END
	ret

PAYLOAD pl_div_indep                ; 4 DIVs whose inputs do not depend on each other: 14/iter
	mov ecx, 1
	mov r8, 0x123456789abcdef
.loop:
%rep 4
	mov rax, r8
	xor edx, edx
	div rcx
%endrep
	LOOP_END
	ret

PAYLOAD pl_lea_chain                ; 8 dependent 3-operand LEAs: 10/iter
	xor eax, eax
.loop:
%rep 8
	lea rax, [rax + rax * 2 + 1]
%endrep
	LOOP_END
	ret

PAYLOAD pl_lea_indep                ; 8 LEAs writing 4 registers from one input: 10/iter
	xor eax, eax
.loop:
%rep 2
	lea rcx, [rax + rax * 2 + 1]
	lea rdx, [rax + rax * 2 + 1]
	lea r8, [rax + rax * 2 + 1]
	lea r9, [rax + rax * 2 + 1]
%endrep
	LOOP_END
	ret

PAYLOAD pl_popcnt_chain             ; 8 dependent POPCNTs: 10/iter
	mov rax, rdi
.loop:
%rep 8
	popcnt rax, rax
%endrep
	LOOP_END
	ret

PAYLOAD pl_popcnt_indep             ; 8 POPCNTs from one input into 4 registers: 10/iter
	mov rax, rdi
.loop:
%rep 2
	popcnt rcx, rax
	popcnt rdx, rax
	popcnt r8, rax
	popcnt r9, rax
%endrep
	LOOP_END
	ret

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
