; The i686 kernel's entry: GRUB (i386-pc) starts bareperf32.elf by Multiboot2 in 32-bit
; protected mode, paging off, flat segments, EAX = MB2_LOADER_MAGIC, EBX = the boot
; information (Multiboot2 spec 1.0, 3.2). QEMU's -kernel starts it by PVH (lib/pvh.h) at
; pvh_entry32 in the same state with EBX = the start information; that stub says so in
; EAX (PVH_START_MAGIC). The image is linked where it is loaded
; (KERNEL_BIOS_PHYS), so no address needs translating: switch to the kernel stack and
; call mb2_boot(magic, info) (arch/x86/32/mb2-boot.c), which checks the CPU, fills
; struct boot_info and calls kernel_main.
bits 32
%include "abi.inc"
%include "mb2-header.inc"
%include "pvh-note.inc"

extern mb2_boot, kernel_stack
global mb2_entry32, pvh_entry32, kernel_entry

PVH_NOTE pvh_entry32, dd
MB2_HEADER mb2_entry32

section .text.entry
pvh_entry32:
	mov eax, PVH_START_MAGIC
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
