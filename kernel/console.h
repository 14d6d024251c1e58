/* Kernel output: the serial console (and later the framebuffer). */
#ifndef KERNEL_CONSOLE_H
#define KERNEL_CONSOLE_H
#include <stdarg.h>
#include <stdint.h>

int kprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int kvprintf(const char *fmt, va_list ap);
void kputs(const char *s);             /* no newline added */
/* Line sink for lib/ callbacks that emit one line (no '\n'). */
void console_line(void *ctx, const char *line);
/* Everything sent to serial so far, as serial carried it (at most RESULTS_LOG_BYTES; the
 * bytes past that in *dropped). */
const char *console_log(uint32_t *len, uint32_t *dropped);
/* Send everything the console has printed so far to the UART now in use, as serial
 * carried it (for a console found after the boot began: kernel/serial-console.c). */
void console_replay(void);

#endif
