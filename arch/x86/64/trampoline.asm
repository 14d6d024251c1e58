; Application processor start-up (x86-64 kernel): kernel/smp.c copies smp_trampoline to a
; free page below 1 MiB, writes the TRAMP_* parameters into it and sends INIT-SIPI-SIPI
; with that page as the start-up vector (SDM Vol. 3A 9.4.4.1). The processor starts in
; real mode at CS:IP = page:0 and goes protected mode (9.9.1), then with the kernel's
; page tables and EFER.LME to long mode (10.8.5), and jumps to smp_ap_entry. The page is
; mapped executable in the kernel's identity map only while processors are started.
bits 16
%include "abi.inc"

extern smp_ap_main
global smp_trampoline, smp_trampoline_end, smp_ap_entry

section .rodata
align 16
smp_trampoline:
	cli
	cld
	mov ax, cs
	mov ds, ax
	movzx ebx, ax
	shl ebx, 4                          ; EBX = the page's physical address
	mov word [TRAMP_GDTR], tramp_gdt_end - tramp_gdt - 1
	lea eax, [ebx + tramp_gdt - smp_trampoline]
	mov dword [TRAMP_GDTR + 2], eax
	lgdt [TRAMP_GDTR]
	lea eax, [ebx + pm32 - smp_trampoline]
	mov dword [TRAMP_FAR], eax
	mov word [TRAMP_FAR + 4], TRAMP_SEL_CODE32
	mov eax, cr0
	or eax, CR0_PE
	mov cr0, eax
	jmp dword far [TRAMP_FAR]

bits 32
pm32:
	mov ax, TRAMP_SEL_DATA
	mov ds, ax
	mov es, ax
	mov ss, ax
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

; Flat segments, SDM Vol. 3A Figure 3-8: limit 4 GiB, G; 32-bit code (D), data (B),
; 64-bit code (L).
align 8
tramp_gdt:
	dq 0
	dq 0x00cf9a000000ffff
	dq 0x00cf92000000ffff
	dq 0x00af9a000000ffff
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
