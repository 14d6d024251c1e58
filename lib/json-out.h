/* JSON text built into a caller's buffer: the bodies of the "@" records (docs/results.md),
 * for the kernel and for lib/ code that formats its own (lib/c2c.c). Freestanding. */
#ifndef LIB_JSON_OUT_H
#define LIB_JSON_OUT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Appends to buf[0..len): pos is the length so far; full once anything did not fit (the
 * text then holds what fit, NUL-terminated). */
struct json_out {
	char *buf;
	size_t len, pos;
	bool full;
};

struct json_out json_out_start(char *buf, size_t len);
void json_put(struct json_out *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A quoted, escaped string. */
void json_put_str(struct json_out *j, const char *s);
/* A fixed-point value in thousandths, as 3 decimals ("12.345"). */
void json_put_milli(struct json_out *j, int64_t milli);
/* The length written, or -1 when the buffer was too small. */
int json_out_end(const struct json_out *j);

/* The body of a JSON string: '"' and '\' escaped, control characters as \u00XX, each byte
 * that is not part of a well-formed UTF-8 character as \ufffd (so the text is UTF-8), into buf.
 * Stops while 7 bytes are left, so an escape is never cut in half. Returns the length, or
 * -1 when s did not fit (buf then holds a NUL-terminated prefix). */
int json_escape(const char *s, char *buf, size_t len);

#endif
