; The i686 kernel's entry: GRUB (i386-pc) starts bareperf32.elf by Multiboot2 in 32-bit
; protected mode, paging off, flat segments, EAX = MB2_LOADER_MAGIC, EBX = the boot
; information (Multiboot2 spec 1.0, 3.2). The image is linked where it is loaded
; (KERNEL_BIOS_PHYS), so no address needs translating: switch to the kernel stack and
; call mb2_boot(magic, info) (arch/x86/32/mb2-boot.c), which checks the CPU, fills
; struct boot_info and calls kernel_main.
bits 32
%include "abi.inc"

extern mb2_boot, kernel_stack
global mb2_entry32, kernel_entry

section .text.mb2 progbits alloc exec nowrite align=8
mb2_header:
	dd MB2_HEADER_MAGIC
	dd MB2_ARCH_I386
	dd mb2_header_end - mb2_header
	dd 0x100000000 - (MB2_HEADER_MAGIC + MB2_ARCH_I386 + (mb2_header_end - mb2_header))
	align 8
	dw MB2_HTAG_ENTRY, 0
	dd 12
	dd mb2_entry32
	align 8
	; Framebuffer tag: a graphics mode of GRUB's choice for the screen console; optional,
	; so GRUB that finds none leaves text mode (the kernel then draws in VGA text).
	dw MB2_HTAG_FRAMEBUFFER, MB2_HTAG_OPTIONAL
	dd 20
	dd 0, 0, 0                      ; width, height, depth: no preference
	align 8
	dw MB2_HTAG_END, 0
	dd 8
mb2_header_end:

section .text.entry
kernel_entry:
mb2_entry32:
	cli
	cld
	mov esp, kernel_stack + GUARD_SIZE + KERNEL_STACK_SIZE
	xor ebp, ebp
	push ebx
	push eax
	call mb2_boot                   ; does not return
.halt:	cli
	hlt
	jmp .halt

section .note.GNU-stack noalloc noexec nowrite progbits
