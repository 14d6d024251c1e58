/* The kernel's output: serial, byte for byte, and each line also to the screen's log
 * (kernel/screen.c), which draws it only at its own moments. */
#include "kernel/console.h"
#include "drivers/uart16550.h"
#include "kernel/screen.h"
#include "lib/fbcon.h"
#include "lib/format.h"
#include "lib/str.h"

static char line[SCR_COLS_MAX];
static unsigned line_len;

/* The screen's copy: printable characters, a line at a time (longer ones cut). */
static void screen_char(char c)
{
	if (c == '\n') {
		line[line_len] = 0;
		screen_log_line(line);
		line_len = 0;
	} else if (c == '\t' && line_len < sizeof(line) - 1) {
		line[line_len++] = ' ';
	} else if ((unsigned char)c >= 0x20 && (unsigned char)c < 0x7f && line_len < sizeof(line) - 1) {
		line[line_len++] = c;
	}
}

static void put(void *ctx, char c)
{
	(void)ctx;
	if (c == '\n')
		uart_putc('\r');
	uart_putc(c);
	screen_char(c);
}

int kvprintf(const char *fmt, va_list ap)
{
	return fmt_vformat(put, 0, fmt, ap);
}

int kprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = kvprintf(fmt, ap);
	va_end(ap);
	return n;
}

void kputs(const char *s)
{
	uart_write(s, strlen(s));
	for (; *s; s++)
		screen_char(*s);
}

void console_line(void *ctx, const char *line)
{
	(void)ctx;
	kputs(line);
	kputs("\n");
}
