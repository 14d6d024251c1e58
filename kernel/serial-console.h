/* Which UART carries the console (docs/config.md, serial.port): the one ACPI's SPCR
 * names, COM1-COM4, or a PCI 16550, in that order unless serial.port says otherwise. */
#ifndef KERNEL_SERIAL_CONSOLE_H
#define KERNEL_SERIAL_CONSOLE_H

/* Until ACPI and PCI can be read: COM1, or the first of COM2-4 that answers. */
void serial_console_early(void);
/* Once paging is up (MMIO can be mapped uncached): the console serial.port asks for, the
 * reason it is that one printed as console.serial=...; what was printed before goes to
 * it again when it is another UART than the early one. A serial.port that cannot be
 * honoured is a configuration error (error()), and the search goes on in order. */
void serial_console_choose(void (*error)(void *ctx, const char *msg));

#endif
