; Application processor start-up (i686 kernel): kernel/smp.c copies smp_trampoline to a
; free page below 1 MiB and sends INIT-SIPI-SIPI with it as the start-up vector (SDM
; Vol. 3A 9.4.4.1). Real mode -> flat protected mode (9.9.1), then a jump into the image
; (linked virtual = physical), where smp_ap_entry turns on paging as the boot CPU runs it:
; PAE or two-level (CR4 from TRAMP_CR4), EFER.NXE where the boot CPU set it.
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
	mov eax, [ebx + TRAMP_ENTRY]
	jmp eax

; Flat segments, SDM Vol. 3A Figure 3-8: limit 4 GiB, G; 32-bit code (D), data (B).
align 8
tramp_gdt:
	dq 0
	dq 0x00cf9a000000ffff
	dq 0x00cf92000000ffff
tramp_gdt_end:
smp_trampoline_end:

section .text
; EBX = the start-up page, paging off: load the kernel's paging state, switch to this
; processor's own stack and never return.
smp_ap_entry:
	mov eax, [ebx + TRAMP_EFER]
	test eax, eax
	jz .paging
	mov ecx, MSR_EFER
	xor edx, edx
	wrmsr
.paging:
	mov eax, [ebx + TRAMP_CR4]
	mov cr4, eax
	mov eax, [ebx + TRAMP_CR3]
	mov cr3, eax
	mov eax, cr0
	or eax, CR0_PG
	mov cr0, eax
	mov esp, [ebx + TRAMP_STACK]
	push dword [ebx + TRAMP_CPU]
	xor ebp, ebp
	call smp_ap_main
.halt:	cli
	hlt
	jmp .halt

section .note.GNU-stack noalloc noexec nowrite progbits
