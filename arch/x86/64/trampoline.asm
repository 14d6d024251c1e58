; Application processor start-up (x86-64 kernel): kernel/smp.c copies smp_trampoline to a
; free page below 1 MiB, writes the TRAMP_* parameters into it and sends INIT-SIPI-SIPI
; with that page as the start-up vector (SDM Vol. 3A 9.4.4.1). The processor starts in
; real mode at CS:IP = page:0 and goes protected mode (9.9.1), then with the kernel's
; page tables and EFER.LME to long mode (10.8.5), and jumps to smp_ap_entry. The page is
; mapped executable in the kernel's identity map only while processors are started.
%include "abi.inc"
%include "trampoline-rm.inc"

extern smp_ap_main
global smp_trampoline, smp_trampoline_end, smp_ap_entry

section .rodata
align 16
TRAMP_REAL_TO_PM32
	mov eax, [ebx + TRAMP_CR4]
	mov cr4, eax
	mov eax, [ebx + TRAMP_CR3]
	mov cr3, eax
	mov ecx, MSR_EFER
	mov eax, [ebx + TRAMP_EFER]
	xor edx, edx
	wrmsr
	mov eax, cr0
	or eax, CR0_PG | CR0_PE
	mov cr0, eax                        ; IA-32e mode, compatibility mode for now
	lea eax, [ebx + lm64 - smp_trampoline]
	mov [ebx + TRAMP_FAR], eax
	mov word [ebx + TRAMP_FAR + 4], TRAMP_SEL_CODE64
	jmp dword far [ebx + TRAMP_FAR]

bits 64
lm64:
	xor eax, eax
	mov ds, ax
	mov es, ax
	mov ss, ax
	lea rdi, [rel smp_trampoline]
	mov rax, [rdi + TRAMP_ENTRY]
	jmp rax

TRAMP_GDT_FLAT32
	dq 0x00af9a000000ffff               ; TRAMP_SEL_CODE64: 64-bit code (L)
tramp_gdt_end:
smp_trampoline_end:

section .text
; RDI = the start-up page (identity-mapped, its parameters in it). The kernel's tables
; are loaded; switch to this processor's own stack and never return.
smp_ap_entry:
	mov rsp, [rdi + TRAMP_STACK]
	mov edi, [rdi + TRAMP_CPU]
	xor ebp, ebp
	call smp_ap_main
.halt:	cli
	hlt
	jmp .halt

section .note.GNU-stack noalloc noexec nowrite progbits
