/* The kernel ELF, embedded in the loader so one BOOTX64.EFI is the whole program. */
	.section .rodata
	.balign 16
	.globl kernel_elf_start, kernel_elf_end
kernel_elf_start:
	.incbin KERNEL_ELF
kernel_elf_end:
	.section .note.GNU-stack, "", @progbits
