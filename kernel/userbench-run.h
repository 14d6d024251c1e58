/*
 * User benchmarks (bench.NAME.* in the configuration, docs/bench.md) as payloads the
 * engine runs like any other: checked when the plan is made, their code generated and
 * mapped and their buffer filled before each is measured, faults placed in their code.
 */
#ifndef KERNEL_USERBENCH_RUN_H
#define KERNEL_USERBENCH_RUN_H
#include <stddef.h>
#include <stdint.h>
#include "lib/config.h"
#include "payloads/payload.h"

/* Writes a payload for each good benchmark of cfg to out[0..CFG_BENCH_MAX); a bad one
 * (no code, code x unroll over the limit, offset not below align, a built-in payload's
 * name, ...) is reported through error(context, msg) and left out. Returns how many
 * were written; *errors counts the reports. */
unsigned userbench_payloads(const struct bp_config *cfg, const struct payload *catalogue,
			    unsigned n, struct payload *out, unsigned *errors,
			    void (*error)(const char *context, const char *msg));

/* Generates and maps p's code, allocates and fills its buffer (user_reset releases both).
 * *arg is the buffer's address (R14), 0 without one. 0, or -1 with the reason in why. */
int userbench_prepare(const struct payload *p, uint64_t *arg, char *why, size_t whylen);

/* Where rip (at cpl) lies in p's code: "NAME+0x3" with the copy (1-based) in *copy, or
 * "NAME init+0x2", "NAME wrapper+0x40", "outside NAME" with *copy = 0. */
void userbench_where(const struct payload *p, uint64_t rip, unsigned cpl, char *buf,
		     size_t len, uint32_t *copy);

/* Copies of the code one sample measures: unroll x max(loop, 1). */
uint64_t userbench_copies(const struct payload *p);

#endif
