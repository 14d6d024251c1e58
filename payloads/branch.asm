; Branch payloads, one source for both kernels (arch/x86/word.inc).
%include "word.inc"
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
	dec xsi
	jnz .loop
	ret

; A conditional branch on bit 0 of a xorshift sequence over the machine word (Marsaglia
; 2003: xorshift64 with shifts 13, 7, 17; xorshift32 with 13, 17, 5), seeded from the
; golden ratio: about half the outcomes are unpredictable. Both paths execute 4
; instructions, so the count per iteration is fixed: 9 (xorshift) + 4 (test, jz, two on
; either path) + 2 = 15.
%if WORD_BITS == 64
%define XS_SEED 0x9e3779b97f4a7c15
%define XS_SHIFTS 13, 7, 17
%else
%define XS_SEED 0x9e3779b9
%define XS_SHIFTS 13, 17, 5
%endif

%macro XORSHIFT 3
	mov xdx, xax
	shl xdx, %1
	xor xax, xdx
	mov xdx, xax
	shr xdx, %2
	xor xax, xdx
	mov xdx, xax
	shl xdx, %3
	xor xax, xdx
%endmacro

%macro BRANCH_ON_BIT 1
	mov xax, XS_SEED
.loop:
	XORSHIFT XS_SHIFTS
	test al, %1
	jz .zero
	add xcx, 1
	jmp .join
.zero:
	add xdi, 1
	nop
.join:
	dec xsi
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
