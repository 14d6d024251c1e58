; Branch payloads.
bits 64
default rel
%include "abi.inc"
section .payload

%macro TAKEN 0
	jmp %%next
%%next:
%endmacro

; 4 unconditional taken jumps per iteration (plus the taken loop branch). 6/iter.
global pl_br_taken
align 64
pl_br_taken:
.loop:
	TAKEN
	TAKEN
	TAKEN
	TAKEN
	dec rsi
	jnz .loop
	ret

; A conditional branch on bit 0 of a xorshift64 sequence (Marsaglia 2003): about half
; the outcomes are unpredictable. Both paths execute 4 instructions, so the count per
; iteration is fixed: 9 (xorshift) + 4 (test, jz, two on either path) + 2 = 15.
%macro BRANCH_ON_BIT 1
	mov rax, 0x9e3779b97f4a7c15
.loop:
	mov rdx, rax
	shl rdx, 13
	xor rax, rdx
	mov rdx, rax
	shr rdx, 7
	xor rax, rdx
	mov rdx, rax
	shl rdx, 17
	xor rax, rdx
	test al, %1
	jz .zero
	add rcx, 1
	jmp .join
.zero:
	add r8, 1
	nop
.join:
	dec rsi
	jnz .loop
	ret
%endmacro

global pl_br_random
align 64
pl_br_random:
	BRANCH_ON_BIT 1

; The same code with "test al, 0": the branch is always taken, so the difference to
; br_random is the cost of the mispredictions.
global pl_br_predictable
align 64
pl_br_predictable:
	BRANCH_ON_BIT 0

section .note.GNU-stack noalloc noexec nowrite progbits
