/*
 * The refusal of a CPU or a hand-over the kernel cannot run on, before anything else has
 * run (arch/x86/32/mb2-boot.c calls it, declaring it there as it declares kernel_main):
 * one line on COM1 and the screen (VGA text, or GRUB's framebuffer where the boot
 * information names one), then a stop. The i686 kernel builds it for the i486 (Makefile
 * K32_I486_OBJ), as it runs on CPUs older than the P6.
 */
#include <stdbool.h>
#include "arch/x86/abi.h"
#include "arch/x86/cpu.h"
#include "drivers/i8042.h"
#include "drivers/qemu-fwcfg.h"
#include "drivers/screen.h"
#include "lib/bootinfo.h"
#include "lib/pc-io.h"
#include "lib/str.h"

void boot_refuse(const struct boot_info *bi, const char *why) __attribute__((noreturn));

static void serial_puts(const char *s)
{
	static volatile uint16_t *const screen = (volatile uint16_t *)VGA_TEXT_BASE;
	static unsigned col;
	for (; *s; s++) {
		for (unsigned spins = 0; spins < 100000 && !(inb(UART_COM1 + UART_LSR) & UART_LSR_THRE); spins++)
			;
		outb(UART_COM1, *s);
		if (*s >= 0x20 && col < VGA_TEXT_COLS * VGA_TEXT_ROWS)
			screen[col++] = 0x0f00 | (uint8_t)*s;     /* white on black */
	}
}

/* QEMU is known by its fw_cfg signature (docs/specs/fw_cfg.rst), whatever CPUID says. */
static bool qemu_fw_cfg(void)
{
	char sig[4];
	outw(QEMU_FW_CFG_PORT_SEL, 0);
	for (int i = 0; i < 4; i++)
		sig[i] = (char)inb(QEMU_FW_CFG_PORT_DATA);
	return sig[0] == 'Q' && sig[1] == 'E' && sig[2] == 'M' && sig[3] == 'U';
}

/* The reason on GRUB's framebuffer too, when GRUB set one up (serial_puts writes VGA text):
 * a title, the reason wrapped at the screen's width, "Stopped.". */
static void refusal_on_screen(const struct boot_info *bi, const char *why)
{
	char err[160], part[SCR_COLS_MAX + 1];
	const uint8_t attr = SCR_ATTR(SCR_WHITE, SCR_BLACK);
	if (!bi || bi->fb_layout.kind == BI_FB_NONE || bi->fb_layout.kind == BI_FB_EGA_TEXT)
		return;
	struct fbcon *c = screen_dev_attach(bi, err, sizeof(err));
	if (!c || c->cols < 3)
		return;
	fbcon_clear_rows(c, 0, 1, SCR_ATTR(SCR_WHITE, SCR_RED));
	fbcon_text(c, 1, 0, "bareperf cannot run on this CPU", SCR_ATTR(SCR_WHITE, SCR_RED));
	unsigned width = c->cols - 2, row = 2;
	for (size_t at = 0, len = strlen(why); at < len && row < c->rows; at += width, row++) {
		while (why[at] == ' ')
			at++;       /* a wrapped line starts at a word */
		size_t n = len - at < width ? len - at : width;
		memcpy(part, why + at, n);
		part[n] = 0;
		fbcon_text(c, 1, row, part, attr);
	}
	fbcon_text(c, 1, row + 1, "Stopped.", attr);
	screen_dev_flush();
}

/* Say why in one line, then stop as the kernel stops on a fatal error: through
 * isa-debug-exit under QEMU, else halt for good. Under scripts/qemu-run --screen, wait for
 * its key first, as kernel/platform.c does. */
void boot_refuse(const struct boot_info *bi, const char *why)
{
	bool qemu = qemu_fw_cfg();
	char flag[4];
	bool hold = qemu && fwcfg_read_file(SCREEN_HOLD_FWCFG, flag, sizeof(flag)) > 0;
	refusal_on_screen(bi, why);
	if (hold)
		i8042_drain();
	/* COM1 at 115200 8N1, FIFOs on: the kernel's UART driver has not run yet. */
	outb(UART_COM1 + UART_IER, 0);
	outb(UART_COM1 + UART_LCR, UART_LCR_DLAB);
	outb(UART_COM1 + UART_DLL, 1);
	outb(UART_COM1 + UART_DLM, 0);
	outb(UART_COM1 + UART_LCR, UART_LCR_8N1);
	outb(UART_COM1 + UART_FCR, UART_FCR_ENABLE_CLEAR);
	serial_puts("\r\nbareperf: ");
	serial_puts(why);
	serial_puts(" Stopped.\r\n");
	if (hold)
		i8042_wait_byte(SCREEN_HOLD_POLLS);
	if (qemu)
		outl(QEMU_DEBUG_EXIT_PORT, QEMU_DEBUG_EXIT_BASE + EXIT_CODE_FATAL);
	for (;;) {
		irq_disable();
		halt();
	}
}

