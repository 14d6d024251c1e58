/* 16550 UART on an I/O port (PC16550D datasheet: registers THR/RBR 0, IER 1, FCR 2, LCR 3, MCR 4, LSR 5, SCR 7). */
#ifndef DRIVERS_UART16550_H
#define DRIVERS_UART16550_H
#include <stdbool.h>
#include <stdint.h>
#include "lib/pc-io.h"       /* UART_COM1-4, UART_BASE_BAUD, registers */


/* Probe (scratch register, then loopback: modem inputs, echo, line status) and program
 * 8N1 at baud. False if absent or the baud rate does not divide UART_BASE_BAUD. */
bool uart_init(uint16_t port, uint32_t baud);
uint16_t uart_port(void);
bool uart_present(void);              /* a UART answered at uart_port() */
void uart_putc(char c);
void uart_write(const char *s, unsigned long n);

#endif
