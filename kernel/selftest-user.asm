; Code the self-test runs at CPL 3 (and CPL 0): small functions in .payload, each
; callable with the payload convention (arch/x86/word.inc), each exercising one thing
; the kernel must catch or allow. One source for both kernels.
%include "word.inc"
%include "abi.inc"

global st_add, st_priv_insn, st_read_addr, st_ud, st_div0, st_int3, st_rdpmc
global st_sgdt, st_syscall_null, st_int80, st_int3_loop, st_step_loop, st_spin
global st_priv_insn_rip, st_ud_rip, st_div0_rip, st_int3_rip, st_read_rip, st_rdpmc_rip
global st_sgdt_rip, st_push_pop, st_lose_stack, st_int_stray, st_int_stray_rip
global st_int81, st_int81_rip

section .payload
align 16
st_add:                       ; (a, b) -> a + b
	lea xax, [xdi + xsi]
	ret

st_priv_insn:                 ; HLT at CPL 3: #GP
st_priv_insn_rip:
	hlt
	ret

st_read_addr:                 ; (addr) -> *addr
st_read_rip:
	mov xax, [xdi]
	ret

st_ud:
st_ud_rip:
	ud2
	ret

st_div0:                      ; (a) -> a / 0 : #DE
	mov xax, xdi
	xor edx, edx
	xor ecx, ecx
st_div0_rip:
	div xcx
	ret

st_int3:
st_int3_rip:
	int3
	ret

st_rdpmc:                     ; (index) -> RDPMC, as a uint64_t
	mov ecx, edi
st_rdpmc_rip:
	rdpmc
	EDX_EAX_RESULT
	ret

st_sgdt:                      ; SGDT at CPL 3: #GP when UMIP is on
	sub xsp, 2 * WORD_SIZE        ; room for the 6- or 10-byte pseudo-descriptor
st_sgdt_rip:
	sgdt [xsp]
	add xsp, 2 * WORD_SIZE
	xor eax, eax
	ret

; (n) SYSCALL round trips, returns n. The counter lives in XBX: SYSCALL takes RCX and R11
; in long mode (ECX in protected mode). The i686 kernel sets up no SYSCALL.
st_syscall_null:
	push xbx
	mov xbx, xdi
.loop:	mov eax, SYS_NULL
	syscall
	dec xbx
	jnz .loop
	mov xax, xdi
	pop xbx
	ret

st_int80:                     ; (n) INT 0x80 round trips
	mov xcx, xdi
.loop:	int VEC_INT_ROUNDTRIP
	dec xcx
	jnz .loop
	mov xax, xdi
	ret

st_int3_loop:                 ; (n) int3 round trips (kernel resumes each)
	mov xcx, xdi
.loop:	int3
	dec xcx
	jnz .loop
	mov xax, xdi
	ret

; (n): set TF, run n iterations of a 2-instruction loop, clear TF. Single-stepped
; instruction count = 2n + fixed overhead (the caller cancels it with two lengths).
st_step_loop:
	mov xcx, xdi
	pushf
	or xword [xsp], RFLAGS_TF
	popf
.loop:	dec xcx
	jnz .loop
	pushf
	and xword [xsp], ~RFLAGS_TF
	popf
	mov xax, xdi
	ret

st_push_pop:                  ; (n) push n words, then pop them: returns n
	mov xcx, xdi
.push:	push xcx
	dec xcx
	jnz .push
	mov xcx, xdi
.pop:	pop xax
	dec xcx
	jnz .pop
	mov xax, xdi
	ret

st_lose_stack:                ; at CPL 0: no stack to deliver the #PF on, so #DF
	xor esp, esp
	push xax
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
