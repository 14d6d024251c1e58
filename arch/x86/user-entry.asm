; Ring 3 side of run_call, one source for both kernels (arch/x86/word.inc):
; user_entry(fn, a0, a1) calls fn(a0, a1) with the payload convention and leaves ring 3
; through INT VEC_USER_EXIT with the result in XDI (an interrupt gate works on every CPU;
; SYSCALL does not exist on all of them). Lives in .payload, which is mapped
; user-executable. On i686 only EAX comes back: the kernel side clears EDX.
%include "word.inc"
%include "abi.inc"

global user_entry, user_exit_ret
section .payload
align 16
user_entry:
	mov xax, xdi
	mov xdi, xsi
	mov xsi, xdx
	and xsp, -16
	call xax
	mov xdi, xax
	int VEC_USER_EXIT
user_exit_ret:              ; the RIP the exit's interrupt frame holds (arch/x86/run.c)
	ud2                 ; not reached: VEC_USER_EXIT never returns to ring 3

section .note.GNU-stack noalloc noexec nowrite progbits
