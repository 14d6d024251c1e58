#include "drivers/uart16550.h"
#include "arch/x86/cpu.h"
#include "lib/format.h"
#include "lib/pc-io.h"

#define MCR_RTS   0x02
#define MCR_OUT2  0x08
#define MCR_LOOP  0x10
#define LSR_TEMT  0x40          /* transmitter empty: holding and shift register */
#define LSR_NOTHING 0xff        /* an open bus: no device decodes the port */
/* In loopback the modem-status inputs mirror the MCR outputs: RTS -> CTS (bit 4),
 * OUT2 -> DCD (bit 7). Linux's autoconfig tests the same (8250_port.c). */
#define MSR_INPUTS_MASK 0xf0
#define MSR_CTS_DCD     0x90

/* At 9600 baud one character takes ~1 ms; a port read ~1 us. Give up well after that. */
#define TX_SPIN_LIMIT 200000

static struct uart_regs cur;
static bool present;

static uint8_t reg_read(const struct uart_regs *r, unsigned reg)
{
	if (r->space == UART_SPACE_IO)
		return inb((uint16_t)(r->base + reg));
	uintptr_t a = r->base + ((uintptr_t)reg << r->shift);
	if (r->access_bytes == 4)
		return (uint8_t)*(volatile uint32_t *)a;
	return *(volatile uint8_t *)a;
}

static void reg_write(const struct uart_regs *r, unsigned reg, uint8_t v)
{
	if (r->space == UART_SPACE_IO) {
		outb((uint16_t)(r->base + reg), v);
		return;
	}
	uintptr_t a = r->base + ((uintptr_t)reg << r->shift);
	if (r->access_bytes == 4)
		*(volatile uint32_t *)a = v;
	else
		*(volatile uint8_t *)a = v;
}

/* Loopback check. Plain latches (DMA page registers at 0x80-0x8f, port 0x92, RAM behind
 * an MMIO address) pass the scratch test and echo a byte written to "THR", so the UART
 * must also show its modem inputs following MCR, a line status that is not an open bus,
 * and DR clear once the byte sent has come back and been read. */
static bool loopback_answers(const struct uart_regs *r)
{
	reg_write(r, UART_MCR, MCR_LOOP | MCR_OUT2 | MCR_RTS);
	if (reg_read(r, UART_LSR) == LSR_NOTHING ||
	    (reg_read(r, UART_MSR) & MSR_INPUTS_MASK) != MSR_CTS_DCD)
		return false;
	reg_write(r, UART_THR, 0xa5);
	bool echoed = false;
	for (int i = 0; i < 100000 && !echoed; i++)
		echoed = reg_read(r, UART_LSR) & UART_LSR_DR;
	return echoed && reg_read(r, UART_THR) == 0xa5 && !(reg_read(r, UART_LSR) & UART_LSR_DR);
}

static bool same_uart(const struct uart_regs *a, const struct uart_regs *b)
{
	return a->space == b->space && a->phys == b->phys;
}

bool uart_probe(const struct uart_regs *r, uint32_t baud)
{
	if (baud != 0 && UART_BASE_BAUD % baud)
		return false;
	/* The console itself: let its last character leave before loopback cuts it off. */
	for (int i = 0; present && same_uart(r, &cur) && i < TX_SPIN_LIMIT &&
	     !(reg_read(r, UART_LSR) & LSR_TEMT); i++)
		;
	reg_write(r, UART_SCR, 0x5a);
	if (reg_read(r, UART_SCR) != 0x5a)
		return false;
	reg_write(r, UART_IER, 0);
	if (baud != 0) {
		uint16_t div = (uint16_t)(UART_BASE_BAUD / baud);
		reg_write(r, UART_LCR, UART_LCR_DLAB);
		reg_write(r, UART_DLL, div & 0xff);
		reg_write(r, UART_DLM, div >> 8);
	}
	reg_write(r, UART_LCR, UART_LCR_8N1);
	reg_write(r, UART_FCR, UART_FCR_ENABLE_CLEAR);
	if (!loopback_answers(r))
		return false;
	reg_write(r, UART_MCR, UART_MCR_DTR_RTS_OUT2);
	return true;
}

void uart_select(const struct uart_regs *r)
{
	cur = *r;
	present = true;
}

bool uart_init(const struct uart_regs *r, uint32_t baud)
{
	if (!uart_probe(r, baud))
		return false;
	uart_select(r);
	return true;
}

bool uart_init_io(uint16_t port, uint32_t baud)
{
	const struct uart_regs r = { .space = UART_SPACE_IO, .base = port, .phys = port,
				     .access_bytes = 1 };
	return uart_init(&r, baud);
}

const struct uart_regs *uart_current(void) { return &cur; }

void uart_describe(const struct uart_regs *r, char *buf, size_t len)
{
	if (r->space == UART_SPACE_IO)
		bp_snprintf(buf, len, "io 0x%llx", (unsigned long long)r->phys);
	else if (r->shift == (r->access_bytes == 4 ? 2 : 0))  /* Linux earlycon's two kinds */
		bp_snprintf(buf, len, "%s 0x%llx", r->access_bytes == 4 ? "mmio32" : "mmio",
			    (unsigned long long)r->phys);
	else
		bp_snprintf(buf, len, "mmio 0x%llx (%u-byte registers %u bytes apart)",
			    (unsigned long long)r->phys, r->access_bytes, 1u << r->shift);
}

uint16_t uart_port(void) { return cur.space == UART_SPACE_IO ? (uint16_t)cur.base : 0; }

bool uart_present(void) { return present; }

void uart_putc(char c)
{
	if (!present)
		return;
	for (int i = 0; !(reg_read(&cur, UART_LSR) & UART_LSR_THRE); i++) {
		if (i == TX_SPIN_LIMIT)
			return;         /* the transmitter never became ready: drop the character */
	}
	reg_write(&cur, UART_THR, (uint8_t)c);
}

void uart_write(const char *s, unsigned long n)
{
	for (unsigned long i = 0; i < n; i++) {
		if (s[i] == '\n')
			uart_putc('\r');
		uart_putc(s[i]);
	}
}
