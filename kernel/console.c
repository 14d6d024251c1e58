#include "kernel/console.h"
#include "drivers/uart16550.h"
#include "lib/format.h"
#include "lib/str.h"

static void put(void *ctx, char c)
{
	(void)ctx;
	if (c == '\n')
		uart_putc('\r');
	uart_putc(c);
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
}

void console_line(void *ctx, const char *line)
{
	(void)ctx;
	kputs(line);
	kputs("\n");
}
