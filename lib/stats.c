/*
 * Statistics over repetition counts, in integers only. Sums are kept in 128 bits
 * (lib/u128.h, two 64-bit halves, since i686 GCC has no __int128) and every division is
 * done by shift-and-subtract, because the kernel links without libgcc.
 */
#include <stdint.h>
#include "lib/format.h"
#include "lib/stats.h"

/* num / den rounded to nearest, halves away from zero, num read as two's complement;
 * den != 0. Returns the low 64 bits of the signed quotient. */
static int64_t sdiv128_round(struct u128 num, uint64_t den)
{
	bool neg = u128_sign(num);
	uint64_t rem;
	struct u128 q = u128_divmod64(neg ? u128_neg(num) : num, den, &rem);

	/* rem >= den - rem, written so that 2 * rem cannot overflow */
	if (rem >= den - rem)
		q = u128_add(q, u128_from_u64(1));
	return (int64_t)(neg ? 0 - q.lo : q.lo);
}

uint64_t isqrt_u128(struct u128 v)
{
	struct u128 root = u128_from_u64(0), bit = u128_shl(u128_from_u64(1), 126);

	while (u128_cmp(bit, v) > 0)
		bit = u128_shr(bit, 2);
	while (!u128_is_zero(bit)) {
		struct u128 trial = u128_add(root, bit);
		if (u128_cmp(v, trial) >= 0) {
			v = u128_sub(v, trial);
			root = u128_add(u128_shr(root, 1), bit);
		} else {
			root = u128_shr(root, 1);
		}
		bit = u128_shr(bit, 2);
	}
	return root.lo;
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
	for (unsigned i = 0; i < n; i++)
		out->negative += samples[i] < 0;
	sort_i64(samples, n);

	/* n * trim_pct / 100, without the 64-bit division that needs libgcc on i686 */
	uint64_t drop = u128_divmod64(u128_mul64(n, trim_pct), 100, NULL).lo;
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
	struct u128 sum = u128_from_u64(0), sum_sq = u128_from_u64(0);
	for (unsigned i = 0; i < m; i++) {
		uint64_t mag = a[i] < 0 ? 0 - (uint64_t)a[i] : (uint64_t)a[i];
		sum = u128_add(sum, u128_from_i64(a[i]));
		sum_sq = u128_add(sum_sq, u128_mul64(mag, mag));
	}
	out->mean_milli = sdiv128_round(u128_mul(sum, u128_from_u64(1000)), m);

	/* Median of an even count: (x + y) / 2 in milli units is (x + y) * 500, exact. The
	 * result is 64 bits, so 64-bit unsigned arithmetic (which wraps, where int64_t would
	 * overflow) gives the same bits as a 128-bit product would. */
	if (m % 2)
		out->median_milli = (int64_t)((uint64_t)a[m / 2] * 1000);
	else
		out->median_milli = (int64_t)(((uint64_t)a[m / 2 - 1] + (uint64_t)a[m / 2]) * 500);

	/* Sample variance = sum((x - mean)^2) / (m - 1) = (m * sum_sq - sum^2) / (m (m - 1)).
	 * floor(sqrt(floor(q))) = floor(sqrt(q)), so the integer quotient loses nothing. */
	if (m >= 2) {
		struct u128 scaled_ss = u128_sub(u128_mul(u128_from_u64(m), sum_sq),
						 u128_mul(sum, sum));     /* m * sum((x - mean)^2) */
		uint64_t den = (uint64_t)m * (m - 1), rem;
		struct u128 var = u128_divmod64(scaled_ss, den, &rem);
		struct u128 frac = u128_divmod64(u128_mul64(rem, 1000000), den, NULL);
		out->stddev_milli = (int64_t)isqrt_u128(
			u128_add(u128_mul(var, u128_from_u64(1000000)), frac));
	}
}

int64_t stats_spread_pct_milli(const struct stats *s)
{
	if (!s->mean_milli)
		return 0;
	uint64_t sd = s->stddev_milli < 0 ? -(uint64_t)s->stddev_milli : (uint64_t)s->stddev_milli;
	uint64_t mean = s->mean_milli < 0 ? -(uint64_t)s->mean_milli : (uint64_t)s->mean_milli;
	/* |stddev| x 100000 / |mean|, truncated, as the 64-bit C division did: without
	 * libgcc's __divdi3 on i686, and without overflow */
	return (int64_t)u128_divmod64(u128_mul64(sd, 100000), mean, NULL).lo;
}

int stats_fmt_milli(char *buf, unsigned long len, int64_t milli)
{
	uint64_t mag = milli < 0 ? 0 - (uint64_t)milli : (uint64_t)milli, frac;
	/* Not mag / 1000: on i686 that would call libgcc's __udivdi3. */
	uint64_t whole = u128_divmod64(u128_from_u64(mag), 1000, &frac).lo;

	return bp_snprintf(buf, len, "%s%llu.%03llu", milli < 0 ? "-" : "",
			   (unsigned long long)whole, (unsigned long long)frac);
}
