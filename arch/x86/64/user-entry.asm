; Ring 3 side of run_call: user_entry(fn, a0, a1) calls fn(a0, a1) and leaves ring 3
; through INT VEC_USER_EXIT with the result (an interrupt gate works on every CPU;
; SYSCALL does not exist on all of them). Lives in .payload, which is mapped user-executable.
bits 64
default rel
%include "abi.inc"

global user_entry
section .payload
align 16
user_entry:
	mov rax, rdi
	mov rdi, rsi
	mov rsi, rdx
	and rsp, -16
	call rax
	mov rdi, rax
	int VEC_USER_EXIT
	ud2                 ; not reached: VEC_USER_EXIT never returns to ring 3

section .note.GNU-stack noalloc noexec nowrite progbits
