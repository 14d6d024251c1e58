; Ring 3 side of run_call in the i686 kernel: user_entry (EDI = fn, ESI = a0, EDX = a1)
; calls fn with a0 in EDI and a1 in ESI (the payload convention, arch/x86/32/entry.asm)
; and leaves ring 3 through INT VEC_USER_EXIT with the result in EDI.
bits 32
%include "abi.inc"

global user_entry, user_exit_ret
section .payload
align 16
user_entry:
	mov eax, edi
	mov edi, esi
	mov esi, edx
	and esp, -16
	call eax
	mov edi, eax
	int VEC_USER_EXIT
user_exit_ret:              ; the RIP the exit's interrupt frame holds (arch/x86/run.c)
	ud2                 ; not reached: VEC_USER_EXIT never returns to ring 3

section .note.GNU-stack noalloc noexec nowrite progbits
