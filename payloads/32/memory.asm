; Memory payloads of the i686 kernel: payloads/memory.asm in 32-bit form, under the same
; names and with the same instruction counts per iteration. The chain links and the
; {base, end} descriptor are machine words, 4 bytes here (payloads/catalogue.c).
bits 32
%include "abi.inc"
section .payload

; fn(start, iters): one load per iteration, each address from the previous load, over a
; random cyclic permutation of the buffer's cache lines: load-to-use latency. 3/iter.
global pl_mem_chase
align 64
pl_mem_chase:
	mov eax, edi
.loop:
	mov eax, [eax]
	dec esi
	jnz .loop
	ret

; fn(desc, iters), desc = {base, end}: one 64-byte line per iteration, 8 independent
; 32-bit loads (one per 8 bytes, as the x86-64 body's 64-bit loads), then advance and
; wrap without a branch (CMOV). 13/iter. Base and end live in EBX and EBP (saved), so
; the loads rotate over three registers (EAX, ECX, EDI) instead of four.
global pl_mem_seq_read
align 64
pl_mem_seq_read:
	push ebx
	push ebp
	mov ebx, [edi]
	mov ebp, [edi + 4]
	mov edx, ebx
.loop:
	mov eax, [edx]
	mov ecx, [edx + 8]
	mov edi, [edx + 16]
	mov eax, [edx + 24]
	mov ecx, [edx + 32]
	mov edi, [edx + 40]
	mov eax, [edx + 48]
	mov ecx, [edx + 56]
	add edx, 64
	cmp edx, ebp
	cmovae edx, ebx
	dec esi
	jnz .loop
	pop ebp
	pop ebx
	ret

section .note.GNU-stack noalloc noexec nowrite progbits
