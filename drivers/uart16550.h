/* 16550 UART on I/O ports or memory-mapped (PC16550D datasheet: registers THR/RBR 0,
 * IER 1, FCR 2, LCR 3, MCR 4, LSR 5, MSR 6, SCR 7). A memory-mapped one may space its
 * registers 1, 2 or 4 bytes apart and want 8- or 32-bit accesses (ACPI's SPCR says which
 * by its Generic Address Structure; Linux's earlycon calls these mmio and mmio32). */
#ifndef DRIVERS_UART16550_H
#define DRIVERS_UART16550_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "lib/pc-io.h"       /* UART_COM1-4, UART_BASE_BAUD, registers */

enum uart_space { UART_SPACE_IO, UART_SPACE_MMIO };

/* Where a UART's registers are: an I/O port, or (MMIO) the virtual address the kernel
 * reaches it at and the physical one it is known by; register n is at base + (n << shift),
 * read and written access_bytes (1 or 4) at a time. */
struct uart_regs {
	enum uart_space space;
	uintptr_t base;
	uint64_t phys;
	uint8_t shift;
	uint8_t access_bytes;
};

/* Probe (scratch register, then loopback: modem inputs, echo, line status) and program
 * 8N1 at baud (0: keep the divisor as the firmware left it). False if absent or the baud
 * rate does not divide UART_BASE_BAUD. The console stays where it was. */
bool uart_probe(const struct uart_regs *r, uint32_t baud);
/* From now on the console is r (which uart_probe accepted). */
void uart_select(const struct uart_regs *r);
/* uart_probe, then uart_select when it answers. */
bool uart_init(const struct uart_regs *r, uint32_t baud);
/* uart_init for the 16550 at an I/O port, 8-bit registers side by side. */
bool uart_init_io(uint16_t port, uint32_t baud);
const struct uart_regs *uart_current(void);
/* The current UART as the report names it: "io 0x3f8", "mmio 0xfe030000", "mmio32 ...". */
void uart_describe(const struct uart_regs *r, char *buf, size_t len);
uint16_t uart_port(void);             /* its I/O port; 0 for a memory-mapped UART */
bool uart_present(void);              /* a UART answered at uart_current() */
void uart_putc(char c);
void uart_write(const char *s, unsigned long n);

#endif
