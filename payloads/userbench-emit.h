/* Writing machine code byte by byte, for the user benchmark wrappers (payloads/userbench-64.c,
 * payloads/userbench-32.c). A write past cap sets full and writes nothing. */
#ifndef PAYLOADS_USERBENCH_EMIT_H
#define PAYLOADS_USERBENCH_EMIT_H
#include <stddef.h>
#include <stdint.h>
#include "lib/str.h"

struct emit {
	uint8_t *p;
	size_t o, cap;
	int full;
};

static inline void put(struct emit *e, const uint8_t *b, size_t n)
{
	if (e->o + n > e->cap) {
		e->full = 1;
		return;
	}
	memcpy(e->p + e->o, b, n);
	e->o += n;
}

#define PUT(e, ...) do { static const uint8_t b_[] = { __VA_ARGS__ }; put(e, b_, sizeof(b_)); } while (0)

static inline void put32(struct emit *e, uint32_t v)
{
	uint8_t b[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };
	put(e, b, 4);
}

static inline void patch32(struct emit *e, size_t at, uint32_t v)
{
	if (e->full || at + 4 > e->cap)
		return;
	e->p[at] = (uint8_t)v;
	e->p[at + 1] = (uint8_t)(v >> 8);
	e->p[at + 2] = (uint8_t)(v >> 16);
	e->p[at + 3] = (uint8_t)(v >> 24);
}

#endif
