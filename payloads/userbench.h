/*
 * A user benchmark's code as the kernel builds it from the configuration (docs/bench.md):
 * fn(arg, n) like every payload, where n = 1 runs the code unrolled `unroll` times (in
 * `loop` iterations, when loop > 0) and n = 2 runs it unrolled 2 x `unroll` times. The
 * engine's count(2n) - count(n) is then exactly unroll x max(loop, 1) copies: the
 * wrapper, the init code and the loop's own instructions cancel.
 */
#ifndef PAYLOADS_USERBENCH_H
#define PAYLOADS_USERBENCH_H
#include <stddef.h>
#include <stdint.h>
#include "lib/config.h"

struct userbench_layout {
	uint32_t size;             /* bytes of generated code */
	uint32_t entry;            /* fn(arg, n) */
	uint32_t init[2];          /* each variant's copy of the init code */
	uint32_t top[2];           /* each variant's first copy (aligned as configured) */
	uint32_t copies[2];        /* unroll, 2 x unroll */
	uint32_t copy_len, init_len;
};

/* The mode this build's emitter wraps code for: CFG_BENCH_64 (payloads/userbench-64.c,
 * the x86-64 kernel) or CFG_BENCH_32 (payloads/userbench-32.c, the i686 kernel). */
extern const enum cfg_bench_mode userbench_mode;

/* b's machine code for this kernel's mode. */
static inline const struct cfg_bench_code *userbench_code(const struct cfg_bench *b)
{
	return &b->mode[userbench_mode];
}

/* Why b cannot run on this kernel (it has no code for this mode: bench.NAME.skip32 or
 * skip64 says why, else a sentence naming the key it lacks); NULL when it can. */
const char *userbench_skip(const struct cfg_bench *b);

/* Bytes userbench_emit needs at most for b (code x unroll within the limits). */
size_t userbench_size_max(const struct cfg_bench *b);
/* Writes b's code into out (which will be mapped at an address aligned to 4 KiB) and
 * fills lay. 0, or -1 when cap is too small. x86-64: payloads/userbench-64.c; i686:
 * payloads/userbench-32.c. Each kernel links only its own (Makefile). */
int userbench_emit(const struct cfg_bench *b, uint8_t *out, size_t cap,
		   struct userbench_layout *lay);

#endif
