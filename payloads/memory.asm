; Memory payloads. The buffer lives in the user data region, at the same address for
; CPL 0 and CPL 3 runs; payloads/catalogue.c builds its contents before each size.
bits 64
default rel
%include "abi.inc"
section .payload

; fn(start, iters): one load per iteration, each address from the previous load, over a
; random cyclic permutation of the buffer's cache lines: load-to-use latency. 3/iter.
global pl_mem_chase
align 64
pl_mem_chase:
	mov rax, rdi
.loop:
	mov rax, [rax]
	dec rsi
	jnz .loop
	ret

; fn(desc, iters), desc = {base, end}: one 64-byte line per iteration, 8 independent
; loads, then advance and wrap without a branch (CMOV). 13/iter.
global pl_mem_seq_read
align 64
pl_mem_seq_read:
	mov r8, [rdi]
	mov r9, [rdi + 8]
	mov rdx, r8
.loop:
	mov rax, [rdx]
	mov rcx, [rdx + 8]
	mov r10, [rdx + 16]
	mov r11, [rdx + 24]
	mov rax, [rdx + 32]
	mov rcx, [rdx + 40]
	mov r10, [rdx + 48]
	mov r11, [rdx + 56]
	add rdx, 64
	cmp rdx, r9
	cmovae rdx, r8
	dec rsi
	jnz .loop
	ret

section .note.GNU-stack noalloc noexec nowrite progbits
