/* Integer statistics over repetitions (no floating point in the kernel). */
#ifndef LIB_STATS_H
#define LIB_STATS_H
#include <stdint.h>
#include "lib/u128.h"

/* Fixed point: values with _milli are x1000, rounded to nearest. */
struct stats {
	unsigned n;                 /* samples used after trimming */
	unsigned trimmed;           /* samples dropped (both ends together) */
	unsigned negative;          /* samples below zero, trimmed ones included: for
	                               count(2n) - count(n) the measurement is not to be trusted */
	int64_t min, max;
	int64_t median_milli;       /* mean of the two middle samples when n is even */
	int64_t mean_milli;
	int64_t stddev_milli;       /* sample standard deviation (n-1), 0 when n < 2 */
};

/* Sorts samples in place. trim_pct percent of n (rounded down) is dropped at each end,
 * but never so many that no sample is left (at most (n-1)/2 at each end). n == 0 gives
 * all zeros.
 * Exact for |values| < 2^40 and n <= 100000 (128-bit intermediates). */
void stats_compute(int64_t *samples, unsigned n, unsigned trim_pct, struct stats *out);

/* Integer square root, floor. */
uint64_t isqrt_u128(struct u128 v);

/* A result's spread as the report prints it after '±': the standard deviation over the
 * mean, in percent x1000 (0 for a zero mean), never negative. STATS_SPREAD_MEANING says
 * so where the report first shows one. */
int64_t stats_spread_pct_milli(const struct stats *s);
#define STATS_SPREAD_MEANING "standard deviation of the repetitions, as a percentage of their mean"

/* Format a _milli value as "12.345" (trailing zeros kept: 3 decimals), "-0.500". */
int stats_fmt_milli(char *buf, unsigned long len, int64_t milli);

#endif
