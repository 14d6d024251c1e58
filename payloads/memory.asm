; Memory payloads, one source for both kernels (arch/x86/word.inc). The buffer lives in
; the user data region, at the same address for CPL 0 and CPL 3 runs; payloads/catalogue.c
; builds its contents before each size. Chain links and the {base, end} descriptor are
; machine words.
%include "word.inc"
%include "abi.inc"
section .payload

; fn(start, iters): one load per iteration, each address from the previous load, over a
; random cyclic permutation of the buffer's cache lines: load-to-use latency. 3/iter.
global pl_mem_chase
align 64
pl_mem_chase:
	mov xax, xdi
.loop:
	mov xax, [xax]
	dec xsi
	jnz .loop
	ret

; fn(desc, iters), desc = {base, end}: one 64-byte line per iteration, 8 independent
; word loads 8 bytes apart (they touch every 8-byte chunk on x86-64, every other 4-byte
; one on i686, and every line either way), then advance and wrap without a branch
; (CMOV). 13/iter. Base and end live in XBX and XBP (saved), so the loads rotate over
; three registers.
global pl_mem_seq_read
align 64
pl_mem_seq_read:
	push xbx
	push xbp
	mov xbx, [xdi]
	mov xbp, [xdi + WORD_SIZE]
	mov xdx, xbx
.loop:
	mov xax, [xdx]
	mov xcx, [xdx + 8]
	mov xdi, [xdx + 16]
	mov xax, [xdx + 24]
	mov xcx, [xdx + 32]
	mov xdi, [xdx + 40]
	mov xax, [xdx + 48]
	mov xcx, [xdx + 56]
	add xdx, 64
	cmp xdx, xbp
	cmovae xdx, xbx
	dec xsi
	jnz .loop
	pop xbp
	pop xbx
	ret

section .note.GNU-stack noalloc noexec nowrite progbits
