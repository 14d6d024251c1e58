/*
 * Statistics over repetition counts, in integers only. Sums are kept in 128 bits and
 * every division is done here by shift-and-subtract, because the kernel links without
 * libgcc and so has no __udivti3.
 */
#include <stdint.h>
#include "lib/format.h"
#include "lib/stats.h"

typedef unsigned __int128 u128;
typedef __int128 s128;

/* num / den with the remainder; den != 0. */
static u128 udiv128(u128 num, uint64_t den, uint64_t *rem)
{
	u128 q = 0, r = 0;

	for (int bit = 127; bit >= 0; bit--) {
		r = (r << 1) | ((num >> bit) & 1);
		if (r >= den) {
			r -= den;
			q |= (u128)1 << bit;
		}
	}
	*rem = (uint64_t)r;
	return q;
}

/* num / den rounded to nearest, halves away from zero; den != 0. */
static s128 sdiv128_round(s128 num, uint64_t den)
{
	u128 mag = num < 0 ? (u128)0 - (u128)num : (u128)num;
	uint64_t rem;
	u128 q = udiv128(mag, den, &rem);

	/* rem >= den - rem, written so that 2 * rem cannot overflow */
	if (rem >= den - rem)
		q++;
	return num < 0 ? -(s128)q : (s128)q;
}

uint64_t isqrt_u128(u128 v)
{
	u128 root = 0, bit = (u128)1 << 126;

	while (bit > v)
		bit >>= 2;
	while (bit != 0) {
		if (v >= root + bit) {
			v -= root + bit;
			root = (root >> 1) + bit;
		} else {
			root >>= 1;
		}
		bit >>= 2;
	}
	return (uint64_t)root;
}

static void sift_down(int64_t *a, unsigned root, unsigned n)
{
	for (;;) {
		unsigned child = 2 * root + 1;
		if (child >= n)
			return;
		if (child + 1 < n && a[child + 1] > a[child])
			child++;
		if (a[root] >= a[child])
			return;
		int64_t t = a[root];
		a[root] = a[child];
		a[child] = t;
		root = child;
	}
}

/* Heapsort: O(n log n) in the worst case, in place, no recursion. */
static void sort_i64(int64_t *a, unsigned n)
{
	for (unsigned i = n / 2; i-- > 0;)
		sift_down(a, i, n);
	for (unsigned end = n; end > 1; end--) {
		int64_t t = a[0];
		a[0] = a[end - 1];
		a[end - 1] = t;
		sift_down(a, 0, end - 1);
	}
}

void stats_compute(int64_t *samples, unsigned n, unsigned trim_pct, struct stats *out)
{
	*out = (struct stats){ 0 };
	if (n == 0)
		return;
	sort_i64(samples, n);

	uint64_t drop = (uint64_t)n * trim_pct / 100;
	if (drop > (n - 1) / 2)
		drop = (n - 1) / 2;     /* keep at least one sample */
	const int64_t *a = samples + drop;
	unsigned m = n - 2 * (unsigned)drop;

	out->n = m;
	out->trimmed = 2 * (unsigned)drop;
	out->min = a[0];
	out->max = a[m - 1];

	/* Unsigned 128-bit arithmetic wraps instead of overflowing; inside the documented
	 * range (|x| < 2^40, n <= 100000) every intermediate is exact. */
	u128 sum = 0, sum_sq = 0;
	for (unsigned i = 0; i < m; i++) {
		sum += (u128)(s128)a[i];
		sum_sq += (u128)((s128)a[i] * a[i]);
	}
	out->mean_milli = (int64_t)sdiv128_round((s128)sum * 1000, m);

	/* Median of an even count: (x + y) / 2 in milli units is (x + y) * 500, exact. */
	if (m % 2)
		out->median_milli = (int64_t)((s128)a[m / 2] * 1000);
	else
		out->median_milli = (int64_t)(((s128)a[m / 2 - 1] + a[m / 2]) * 500);

	/* Sample variance = sum((x - mean)^2) / (m - 1) = (m * sum_sq - sum^2) / (m (m - 1)).
	 * floor(sqrt(floor(q))) = floor(sqrt(q)), so the integer quotient loses nothing. */
	if (m >= 2) {
		u128 scaled_ss = (u128)m * sum_sq - sum * sum;     /* m * sum((x - mean)^2) */
		uint64_t den = (uint64_t)m * (m - 1), rem;
		u128 var = udiv128(scaled_ss, den, &rem);
		uint64_t frac_rem;
		u128 frac = udiv128((u128)rem * 1000000, den, &frac_rem);
		out->stddev_milli = (int64_t)isqrt_u128(var * 1000000 + frac);
	}
}

int stats_fmt_milli(char *buf, unsigned long len, int64_t milli)
{
	uint64_t mag = milli < 0 ? 0 - (uint64_t)milli : (uint64_t)milli;

	return bp_snprintf(buf, len, "%s%llu.%03llu", milli < 0 ? "-" : "",
			   (unsigned long long)(mag / 1000), (unsigned long long)(mag % 1000));
}
