/* The kernel's output: serial, byte for byte, a copy of it for the results area, and each
 * line to the line sinks registered (the screen's log, kernel/screen-ui.c, which draws it
 * only at its own moments). */
#include "kernel/console.h"
#include "drivers/uart16550.h"
#include "lib/format.h"
#include "lib/results-area.h"
#include "lib/str.h"

/* A copy of every byte the console sends to serial, \r included, for the results area
 * (kernel/storage.c). A reservation by atomic add keeps CPUs printing at once inside
 * the buffer; what does not fit is counted. */
static char log_copy[RESULTS_LOG_BYTES];
static uint32_t log_reserved;

static void keep(char c)
{
	uint32_t i = __atomic_fetch_add(&log_reserved, 1, __ATOMIC_RELAXED);
	if (i < sizeof(log_copy))
		log_copy[i] = c;
}

const char *console_log(uint32_t *len, uint32_t *dropped)
{
	uint32_t n = __atomic_load_n(&log_reserved, __ATOMIC_RELAXED);
	*len = n < sizeof(log_copy) ? n : sizeof(log_copy);
	*dropped = n - *len;
	return log_copy;
}

void console_replay(void)
{
	uint32_t n = __atomic_load_n(&log_reserved, __ATOMIC_RELAXED);
	for (uint32_t i = 0; i < n && i < sizeof(log_copy); i++)
		uart_putc(log_copy[i]);
}

static console_line_fn line_sinks[CONSOLE_LINE_SINKS];
static unsigned nline_sinks;
static char line[CONSOLE_LINE_MAX];
static unsigned line_len;

int console_add_line_sink(console_line_fn fn)
{
	if (nline_sinks == CONSOLE_LINE_SINKS)
		return -1;
	line_sinks[nline_sinks++] = fn;
	return 0;
}

/* The line sinks' copy: printable characters, tabs as blanks, a line at a time (a longer
 * one cut at CONSOLE_LINE_MAX - 1). */
static void line_char(char c)
{
	if (c == '\n') {
		line[line_len] = 0;
		for (unsigned i = 0; i < nline_sinks; i++)
			line_sinks[i](line);
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
	if (c == '\n') {
		keep('\r');
		uart_putc('\r');
	}
	keep(c);
	uart_putc(c);
	line_char(c);
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
	for (const char *p = s; *p; p++) {
		if (*p == '\n')
			keep('\r');
		keep(*p);
	}
	uart_write(s, strlen(s));
	for (; *s; s++)
		line_char(*s);
}

void console_line(void *ctx, const char *line)
{
	(void)ctx;
	kputs(line);
	kputs("\n");
}
