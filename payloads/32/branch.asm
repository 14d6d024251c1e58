; Branch payloads of the i686 kernel: payloads/branch.asm in 32-bit form, under the same
; names and with the same instruction counts per iteration.
bits 32
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
	dec esi
	jnz .loop
	ret

; A conditional branch on bit 0 of a xorshift32 sequence (Marsaglia 2003, shifts 13, 17,
; 5; the x86-64 body runs xorshift64 in the same 9 instructions): about half the outcomes
; are unpredictable. Both paths execute 4 instructions, so the count per iteration is
; fixed: 9 (xorshift) + 4 (test, jz, two on either path) + 2 = 15. The path counters
; RCX and R8 become ECX and EDI.
%macro BRANCH_ON_BIT 1
	mov eax, 0x9e3779b9
.loop:
	mov edx, eax
	shl edx, 13
	xor eax, edx
	mov edx, eax
	shr edx, 17
	xor eax, edx
	mov edx, eax
	shl edx, 5
	xor eax, edx
	test al, %1
	jz .zero
	add ecx, 1
	jmp .join
.zero:
	add edi, 1
	nop
.join:
	dec esi
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
