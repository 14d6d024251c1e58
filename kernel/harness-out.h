/*
 * What the measuring harness (payloads/harness.asm) leaves behind, turned into samples.
 * Each repetition runs the payload for n iterations, then for 2n, and stores for each
 * value read the 64-bit difference end - start: out[rep][len][c], the RDPMC counters
 * first, then the counters read by RDMSR, then the TSC. A sample is count(2n) - count(n)
 * taken at the counter's width, so that fixed overhead cancels and a counter that wrapped
 * during a run still counts right. Pure arithmetic, tested on the host.
 */
#ifndef KERNEL_HARNESS_OUT_H
#define KERNEL_HARNESS_OUT_H
#include <stdint.h>

/* pmu: RDPMC; msr: a free-running counter read by RDMSR (APERF, MPERF, RAPL energy);
 * tsc: RDTSC; step: instructions counted by single-stepping. */
enum result_source { SRC_PMU, SRC_MSR, SRC_TSC, SRC_STEP };

/* The values one harness run reads, and their counters' widths in bits (1 to 64). */
struct harness_values {
	unsigned nctr, nmsr;
	const unsigned *ctr_width, *msr_width;
};

/* Values per run: nctr + nmsr + 1 (the TSC). */
unsigned harness_stride(const struct harness_values *v);

/* Where value c (below harness_stride) comes from, and *width its counter's width. */
enum result_source harness_source(const struct harness_values *v, unsigned c, unsigned *width);

/* count(2n) - count(n) for a counter of width bits: each count is first taken modulo
 * 2^width, which undoes a wrap during its run; the difference is signed, as noise can
 * make it. */
int64_t harness_delta(uint64_t count_n, uint64_t count_2n, unsigned width);

/* samples[0..reps) for value c, from repetitions first .. first + reps - 1 of out (those
 * before first are the warm-up). */
void harness_samples(const uint64_t *out, const struct harness_values *v, unsigned c, unsigned first,
		     unsigned reps, int64_t *samples);

#endif
