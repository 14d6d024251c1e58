/* Freestanding printf family, shared by the kernel and the host tools. */
#ifndef LIB_FORMAT_H
#define LIB_FORMAT_H
#include <stdarg.h>
#include <stddef.h>

/* Character sink: called once per output character. */
typedef void (*fmt_putc_fn)(void *ctx, char c);

/*
 * Conversions: %d %i %u %x %X %o %c %s %p %%, length modifiers hh h l ll z (and j t),
 * flags '-' '0' '+' ' ' '#', field width and precision, both possibly '*'.
 * %p prints 0x followed by 16 hex digits. A NULL %s prints "(null)".
 * An unknown conversion ("%q", "%5w") is printed as written and consumes no argument.
 * Returns the number of characters produced.
 */
int fmt_vformat(fmt_putc_fn putc, void *ctx, const char *fmt, va_list ap);
int fmt_format(fmt_putc_fn putc, void *ctx, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* snprintf semantics: always NUL-terminates when size > 0, returns the untruncated length. */
int bp_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int bp_snprintf(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A message: bp_snprintf, except that a text longer than buf ends at the last whole word
 * that fits, then "..." (never "did not finish w"). */
int fmt_vtext(char *buf, size_t size, const char *fmt, va_list ap);
int fmt_text(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The same, appended to the text in buf; returns the appended text's untruncated length. */
int fmt_append(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Format an error message into err (when err and errlen are set, cut as fmt_text cuts)
 * and return -1, so that parsers can write "return fmt_error(err, errlen, ...);". */
int fmt_error(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
