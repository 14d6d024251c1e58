; Code the self-test runs at CPL 3 (and CPL 0): small functions in .payload, each
; SysV-callable, each exercising one thing the kernel must catch or allow.
bits 64
default rel
%include "abi.inc"

global st_add, st_priv_insn, st_read_addr, st_ud, st_div0, st_int3, st_rdpmc
global st_sgdt, st_syscall_null, st_int80, st_int3_loop, st_step_loop, st_spin
global st_priv_insn_rip, st_ud_rip, st_div0_rip, st_int3_rip, st_read_rip, st_rdpmc_rip
global st_sgdt_rip, st_push_pop, st_lose_stack, st_int_stray, st_int_stray_rip
global st_int81, st_int81_rip

section .payload
align 16
st_add:                       ; (a, b) -> a + b
	lea rax, [rdi + rsi]
	ret

st_priv_insn:                 ; HLT at CPL 3: #GP
st_priv_insn_rip:
	hlt
	ret

st_read_addr:                 ; (addr) -> *addr
st_read_rip:
	mov rax, [rdi]
	ret

st_ud:
st_ud_rip:
	ud2
	ret

st_div0:                      ; (a) -> a / 0 : #DE
	mov rax, rdi
	xor edx, edx
	xor ecx, ecx
st_div0_rip:
	div rcx
	ret

st_int3:
st_int3_rip:
	int3
	ret

st_rdpmc:                     ; (index) -> RDPMC
	mov ecx, edi
st_rdpmc_rip:
	rdpmc
	shl rdx, 32
	or rax, rdx
	ret

st_sgdt:                      ; SGDT at CPL 3: #GP when UMIP is on
	sub rsp, 16
st_sgdt_rip:
	sgdt [rsp]
	add rsp, 16
	xor eax, eax
	ret

st_syscall_null:              ; (n) SYSCALL round trips, returns n
	push rbx
	mov rbx, rdi
.loop:	mov eax, SYS_NULL
	syscall
	dec rbx
	jnz .loop
	mov rax, rdi
	pop rbx
	ret

st_int80:                     ; (n) INT 0x80 round trips
	mov rcx, rdi
.loop:	int VEC_INT_ROUNDTRIP
	dec rcx
	jnz .loop
	mov rax, rdi
	ret

st_int3_loop:                 ; (n) int3 round trips (kernel resumes each)
	mov rcx, rdi
.loop:	int3
	dec rcx
	jnz .loop
	mov rax, rdi
	ret

; (n): set TF, run n iterations of a 2-instruction loop, clear TF. Single-stepped
; instruction count = 2n + fixed overhead (the caller cancels it with two lengths).
st_step_loop:
	mov rcx, rdi
	pushfq
	or qword [rsp], RFLAGS_TF
	popfq
.loop:	dec rcx
	jnz .loop
	pushfq
	and qword [rsp], ~RFLAGS_TF
	popfq
	mov rax, rdi
	ret

st_push_pop:                  ; (n) push n words, then pop them: returns n
	mov rcx, rdi
.push:	push rcx
	dec rcx
	jnz .push
	mov rcx, rdi
.pop:	pop rax
	dec rcx
	jnz .pop
	mov rax, rdi
	ret

st_lose_stack:                ; at CPL 0: no stack to deliver the #PF on, so #DF
	xor esp, esp
	push rax
	ud2

st_int_stray:                 ; INT n to a vector nothing handles
st_int_stray_rip:
	int VEC_SELFTEST_STRAY
	ret

st_int81:                     ; the harness's exit vector, raised by a payload: a fault
st_int81_rip:
	int VEC_USER_EXIT
	ret

st_spin:                      ; never returns: the watchdog must stop it
	jmp st_spin

section .note.GNU-stack noalloc noexec nowrite progbits
