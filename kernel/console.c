/* The kernel's output: serial, byte for byte, and each line also to the screen's log
 * (kernel/screen-ui.c), which draws it only at its own moments. */
#include "kernel/console.h"
#include "drivers/uart16550.h"
#include "kernel/screen-ui.h"
#include "lib/fbcon.h"
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
	if (c == '\n') {
		keep('\r');
		uart_putc('\r');
	}
	keep(c);
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
	for (const char *p = s; *p; p++) {
		if (*p == '\n')
			keep('\r');
		keep(*p);
	}
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
