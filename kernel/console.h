/* Kernel output: the serial console, the copy kept for the results area, and the line
 * sinks (the screen). */
#ifndef KERNEL_CONSOLE_H
#define KERNEL_CONSOLE_H
#include <stdarg.h>
#include <stdint.h>

int kprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int kvprintf(const char *fmt, va_list ap);
void kputs(const char *s);             /* no newline added */
/* Each line printed, as printable characters without its '\n', goes to every line sink
 * (kernel/main.c registers the screen's log). At most CONSOLE_LINE_SINKS; -1 past them. */
#define CONSOLE_LINE_SINKS 4
#define CONSOLE_LINE_MAX   256
typedef void (*console_line_fn)(const char *line);
int console_add_line_sink(console_line_fn fn);
/* Line sink for lib/ callbacks that emit one line (no '\n'). */
void console_line(void *ctx, const char *line);
/* Everything sent to serial so far, as serial carried it (at most RESULTS_LOG_BYTES; the
 * bytes past that in *dropped). */
const char *console_log(uint32_t *len, uint32_t *dropped);
/* Send everything the console has printed so far to the UART now in use, as serial
 * carried it (for a console found after the boot began: kernel/serial-console.c). */
void console_replay(void);

#endif
