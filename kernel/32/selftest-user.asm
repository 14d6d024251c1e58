; Code the i686 self-test runs at CPL 3 (and CPL 0): the functions of
; kernel/selftest-user.asm in 32-bit form, under the same names, with the payload
; convention of arch/x86/32/entry.asm (EDI = first argument, ESI = second, result in
; EAX; EBX and EBP preserved).
bits 32
%include "abi.inc"

global st_add, st_priv_insn, st_read_addr, st_ud, st_div0, st_int3, st_rdpmc
global st_sgdt, st_syscall_null, st_int80, st_int3_loop, st_step_loop, st_spin
global st_priv_insn_rip, st_ud_rip, st_div0_rip, st_int3_rip, st_read_rip, st_rdpmc_rip
global st_sgdt_rip, st_push_pop, st_lose_stack, st_int_stray, st_int_stray_rip
global st_int81, st_int81_rip

section .payload
align 16
st_add:                       ; (a, b) -> a + b
	lea eax, [edi + esi]
	ret

st_priv_insn:                 ; HLT at CPL 3: #GP
st_priv_insn_rip:
	hlt
	ret

st_read_addr:                 ; (addr) -> *addr
st_read_rip:
	mov eax, [edi]
	ret

st_ud:
st_ud_rip:
	ud2
	ret

st_div0:                      ; (a) -> a / 0 : #DE
	mov eax, edi
	xor edx, edx
	xor ecx, ecx
st_div0_rip:
	div ecx
	ret

st_int3:
st_int3_rip:
	int3
	ret

st_rdpmc:                     ; (index) -> RDPMC, 64 bits in EDX:EAX
	mov ecx, edi
st_rdpmc_rip:
	rdpmc
	ret

st_sgdt:                      ; SGDT at CPL 3: #GP when UMIP is on
	sub esp, 8
st_sgdt_rip:
	sgdt [esp]
	add esp, 8
	xor eax, eax
	ret

; (n) SYSCALL round trips, returns n. The i686 kernel sets up no SYSCALL (protected-mode
; SYSCALL exists on AMD CPUs only); the self-test calls this only where CPUID reports it.
st_syscall_null:
	mov ecx, edi
.loop:	mov eax, SYS_NULL
	push ecx
	syscall
	pop ecx
	dec ecx
	jnz .loop
	mov eax, edi
	ret

st_int80:                     ; (n) INT 0x80 round trips
	mov ecx, edi
.loop:	int VEC_INT_ROUNDTRIP
	dec ecx
	jnz .loop
	mov eax, edi
	ret

st_int3_loop:                 ; (n) int3 round trips (kernel resumes each)
	mov ecx, edi
.loop:	int3
	dec ecx
	jnz .loop
	mov eax, edi
	ret

; (n): set TF, run n iterations of a 2-instruction loop, clear TF. Single-stepped
; instruction count = 2n + fixed overhead (the caller cancels it with two lengths).
st_step_loop:
	mov ecx, edi
	pushfd
	or dword [esp], RFLAGS_TF
	popfd
.loop:	dec ecx
	jnz .loop
	pushfd
	and dword [esp], ~RFLAGS_TF
	popfd
	mov eax, edi
	ret

st_push_pop:                  ; (n) push n words, then pop them: returns n
	mov ecx, edi
.push:	push ecx
	dec ecx
	jnz .push
	mov ecx, edi
.pop:	pop eax
	dec ecx
	jnz .pop
	mov eax, edi
	ret

st_lose_stack:                ; at CPL 0: no stack to deliver the #PF on, so #DF
	xor esp, esp
	push eax
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
