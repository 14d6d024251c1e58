/* The loader's SBAT metadata (shim's SBAT.md: one CSV line per component, the first
 * naming the format), in a section of its own: shim refuses a second stage without one.
 * SBAT_CSV is the file the Makefile writes with the version in it. gnu-efi's linker
 * script does not name .sbat: ld places it after .dynstr, and the alignment below puts
 * it on a page of its own, as each PE section must start. */
	.section .sbat, "a"
	.balign 4096
	.incbin SBAT_CSV
	.byte 0
	.section .note.GNU-stack, "", @progbits
