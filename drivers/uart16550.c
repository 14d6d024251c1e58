#include "drivers/uart16550.h"
#include "arch/x86/cpu.h"
#include "lib/pc-io.h"

#define MCR_RTS   0x02
#define MCR_OUT2  0x08
#define MCR_LOOP  0x10
#define LSR_NOTHING 0xff        /* an open bus: no device decodes the port */
/* In loopback the modem-status inputs mirror the MCR outputs: RTS -> CTS (bit 4),
 * OUT2 -> DCD (bit 7). Linux's autoconfig tests the same (8250_port.c). */
#define MSR_INPUTS_MASK 0xf0
#define MSR_CTS_DCD     0x90

/* At 9600 baud one character takes ~1 ms; a port read ~1 us. Give up well after that. */
#define TX_SPIN_LIMIT 200000

static uint16_t base;
static bool present;

bool uart_init(uint16_t port, uint32_t baud)
{
	present = false;
	if (baud == 0 || UART_BASE_BAUD % baud)
		return false;
	uint16_t div = UART_BASE_BAUD / baud;
	outb(port + UART_SCR, 0x5a);
	if (inb(port + UART_SCR) != 0x5a)
		return false;
	outb(port + UART_IER, 0);
	outb(port + UART_LCR, UART_LCR_DLAB);
	outb(port + UART_DLL, div & 0xff);
	outb(port + UART_DLM, div >> 8);
	outb(port + UART_LCR, UART_LCR_8N1);
	outb(port + UART_FCR, UART_FCR_ENABLE_CLEAR);
	/* Loopback check. Plain latches (DMA page registers at 0x80-0x8f, port 0x92) pass
	 * the scratch test and echo a byte written to "THR", so the UART must also show its
	 * modem inputs following MCR, a line status that is not an open bus, and DR clear
	 * once the byte sent has come back and been read. */
	outb(port + UART_MCR, MCR_LOOP | MCR_OUT2 | MCR_RTS);
	if (inb(port + UART_LSR) == LSR_NOTHING ||
	    (inb(port + UART_MSR) & MSR_INPUTS_MASK) != MSR_CTS_DCD)
		return false;
	outb(port + UART_THR, 0xa5);
	bool echoed = false;
	for (int i = 0; i < 100000 && !echoed; i++)
		echoed = inb(port + UART_LSR) & UART_LSR_DR;
	if (!echoed || inb(port + UART_THR) != 0xa5 || (inb(port + UART_LSR) & UART_LSR_DR))
		return false;
	outb(port + UART_MCR, UART_MCR_DTR_RTS_OUT2);
	base = port;
	present = true;
	return true;
}

uint16_t uart_port(void) { return base; }

bool uart_present(void) { return present; }

void uart_putc(char c)
{
	if (!present)
		return;
	for (int i = 0; !(inb(base + UART_LSR) & UART_LSR_THRE); i++) {
		if (i == TX_SPIN_LIMIT)
			return;         /* the transmitter never became ready: drop the character */
	}
	outb(base + UART_THR, (uint8_t)c);
}

void uart_write(const char *s, unsigned long n)
{
	for (unsigned long i = 0; i < n; i++) {
		if (s[i] == '\n')
			uart_putc('\r');
		uart_putc(s[i]);
	}
}
