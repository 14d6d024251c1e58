; Kernel entry, the 256 trap entry points, SYSCALL entry, and the ring-switching run calls.
; SDM Vol. 3A 6.14 (64-bit interrupt frames), 5.8.8 (SYSCALL/SYSRET).
bits 64
default rel
%include "abi.inc"
%include "trap-stubs.inc"

extern kernel_main, kernel_stack, trap_dispatch

global kernel_entry, trap_entries, syscall_entry, int80_fast, bp_entry, bp_fast_resume
global user_exit_entry
global run_cpl0, run_cpl3, run_resume, run_saved_rsp, run_exit_rip, run_exit_rsp

section .text.entry
; RDI = physical address of struct boot_info (identity-mapped by the loader).
kernel_entry:
	cli
	cld
	lea rsp, [kernel_stack + GUARD_SIZE + KERNEL_STACK_SIZE]
	xor ebp, ebp
	call kernel_main
.halt:	cli
	hlt
	jmp .halt

section .text
TRAP_STUBS

; Frame built here is struct trap_frame (arch/x86/traps.h), lowest address first.
trap_common:
	push rax
	push rbx
	push rcx
	push rdx
	push rsi
	push rdi
	push rbp
	push r8
	push r9
	push r10
	push r11
	push r12
	push r13
	push r14
	push r15
	cld
	mov rdi, rsp
	mov rbx, rsp
	and rsp, -16
	call trap_dispatch
	mov rsp, rbx
	pop r15
	pop r14
	pop r13
	pop r12
	pop r11
	pop r10
	pop r9
	pop r8
	pop rbp
	pop rdi
	pop rsi
	pop rdx
	pop rcx
	pop rbx
	pop rax
	add rsp, 16
	iretq

; INT 0x80 from CPL 3 (the INT n/IRETQ round-trip benchmark): nothing but IRETQ.
int80_fast:
	iretq

; #BP: from CPL 3 while a run asked for it (the exception round-trip benchmark), return
; at once; anything else takes the normal path and is reported.
bp_entry:
	test byte [rsp + 8], 3
	jz trap_entry_3
	cmp byte [bp_fast_resume], 0
	je trap_entry_3
	iretq

; SYSCALL from CPL 3, only in runs that ask for it (EFER.SCE is clear otherwise, and
; SYSCALL #UD: arch/x86/64/run-word.c): RAX = SYS_NULL returns at once (the round-trip
; benchmark keeps the kernel side to one compare and SYSRET); any other number returns -1.
; IF, TF, AC and DF are masked by IA32_FMASK on the way in.
syscall_entry:
	cmp rax, SYS_NULL
	jne .unknown
	o64 sysret
.unknown:
	mov rax, -1
	o64 sysret

; INT VEC_USER_EXIT: how user_entry ends a CPL 3 run, with RDI as its result. Only from
; CPL 3, from user_entry's own INT (the RIP after it is run_exit_rip) and with the stack
; as user_entry aligned it (run_exit_rsp): arch/x86/run.c sets both. Anything else is a
; payload's INT 0x81, which takes the ordinary path and ends the run as its fault. The
; interrupt gate cleared IF and TF; AC and DF go too, as IA32_FMASK does for SYSCALL.
%assign USER_EXIT_VECTOR VEC_USER_EXIT
user_exit_entry:
	test byte [rsp + 8], 3
	jz .stray
	push rax
	mov rax, [rsp + 8]
	cmp rax, [run_exit_rip]
	jne .stray_pop
	mov rax, [rsp + 32]
	cmp rax, [run_exit_rsp]
	jne .stray_pop
	pop rax
	push RFLAGS_RESERVED1
	popfq
	mov rax, rdi
	jmp run_resume
.stray_pop:
	pop rax
.stray:
	jmp trap_entry_%[USER_EXIT_VECTOR]

; uint64_t run_cpl3(rip, rsp, a0, a1, a2, rflags): enter ring 3 at rip with the given
; stack and RFLAGS, a0-a2 in RDI/RSI/RDX. Returns through run_resume.
run_cpl3:
	push rbp
	push rbx
	push r12
	push r13
	push r14
	push r15
	mov [run_saved_rsp], rsp
	push SEL_UDATA | RPL3
	push rsi
	push r9
	push SEL_UCODE | RPL3
	push rdi
	mov rdi, rdx
	mov rsi, rcx
	mov rdx, r8
	xor eax, eax
	xor ebx, ebx
	xor ecx, ecx
	xor ebp, ebp
	xor r8d, r8d
	xor r9d, r9d
	xor r10d, r10d
	xor r11d, r11d
	xor r12d, r12d
	xor r13d, r13d
	xor r14d, r14d
	xor r15d, r15d
	iretq

; uint64_t run_cpl0(fn, a0, a1, stack): call fn(a0, a1) in ring 0 on the given stack
; (the payloads' own, arch/x86/stacks.c: what it does to it cannot reach this one), with
; the same recovery point as run_cpl3, so a fault or the watchdog ends it cleanly.
; Entered with interrupts off; they go on only once the recovery point is saved (STI's
; shadow covers the call), so a watchdog already pending cannot resume a stale one.
run_cpl0:
	push rbp
	push rbx
	push r12
	push r13
	push r14
	push r15
	mov [run_saved_rsp], rsp
	mov rax, rdi
	mov rdi, rsi
	mov rsi, rdx
	xor edx, edx
	mov rsp, rcx
	sti
	call rax
	; fall through with the result in RAX

; Ring 0, RAX = result. Also the target the trap handler redirects a fault to.
run_resume:
	mov rsp, [run_saved_rsp]
	pop r15
	pop r14
	pop r13
	pop r12
	pop rbx
	pop rbp
	ret

section .rodata
TRAP_ENTRY_TABLE

section .bss
align 8
run_saved_rsp: resq 1
run_exit_rip: resq 1
run_exit_rsp: resq 1
bp_fast_resume: resb 1

section .note.GNU-stack noalloc noexec nowrite progbits
