/* lib/stats.c against references computed here: long double arithmetic (within 1 milli)
 * and exact integer results from the host's native 128-bit division. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "lib/stats.h"
#include "lib/util.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng_next(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

static int64_t rng_range(int64_t lo, int64_t hi)
{
	return lo + (int64_t)(rng_next() % (uint64_t)(hi - lo + 1));
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

struct reference {
	unsigned n, trimmed;
	int64_t min, max;
	long double mean_milli, median_milli, stddev_milli;
	int64_t exact_stddev_milli;
};

/* Newton's method in long double (the unit tests do not link libm). */
static long double sqrt_ld(long double x)
{
	long double r = x > 1 ? x : 1, prev = 0;

	if (x <= 0)
		return 0;
	for (int i = 0; i < 400 && r != prev; i++) {
		prev = r;
		r = (r + x / r) / 2;
	}
	return r;
}

static long double abs_ld(long double x)
{
	return x < 0 ? -x : x;
}

/* floor(sqrt(v)) from the floating-point root, corrected to the exact integer. */
static uint64_t isqrt_reference(unsigned __int128 v)
{
	uint64_t r = (uint64_t)sqrt_ld((long double)v);
	while ((unsigned __int128)r * r > v)
		r--;
	while ((unsigned __int128)(r + 1) * (r + 1) <= v)
		r++;
	return r;
}

static void compute_reference(const int64_t *in, unsigned n, unsigned trim_pct,
			      struct reference *ref)
{
	int64_t *s = malloc(n * sizeof(*s));
	assert_non_null(s);
	memcpy(s, in, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_i64);

	unsigned drop = (unsigned)((unsigned long long)n * trim_pct / 100);
	while (2 * drop >= n)    /* keep at least one sample */
		drop--;
	unsigned m = n - 2 * drop;
	const int64_t *a = s + drop;

	ref->n = m;
	ref->trimmed = 2 * drop;
	ref->min = a[0];
	ref->max = a[m - 1];
	long double sum = 0;
	for (unsigned i = 0; i < m; i++)
		sum += a[i];
	long double mean = sum / m;
	ref->mean_milli = mean * 1000;
	ref->median_milli = m % 2 ? a[m / 2] * 1000.0L : (a[m / 2 - 1] + (long double)a[m / 2]) * 500;
	long double dev = 0;
	for (unsigned i = 0; i < m; i++)
		dev += (a[i] - mean) * (a[i] - mean);
	ref->stddev_milli = m > 1 ? sqrt_ld(dev / (m - 1)) * 1000 : 0;

	/* Exact: 1e6 * (m * sum(x^2) - sum^2) / (m * (m - 1)), with native division. */
	ref->exact_stddev_milli = 0;
	if (m > 1) {
		__int128 s1 = 0, s2 = 0;
		for (unsigned i = 0; i < m; i++) {
			s1 += a[i];
			s2 += (__int128)a[i] * a[i];
		}
		unsigned __int128 ss = (unsigned __int128)(m * s2 - s1 * s1);
		unsigned __int128 den = (unsigned __int128)m * (m - 1);
		unsigned __int128 scaled = ss / den * 1000000 + ss % den * 1000000 / den;
		ref->exact_stddev_milli = (int64_t)isqrt_reference(scaled);
	}
	free(s);
}

static void check_against_reference(int64_t *samples, unsigned n, unsigned trim_pct)
{
	struct reference ref;
	struct stats st;

	compute_reference(samples, n, trim_pct, &ref);
	stats_compute(samples, n, trim_pct, &st);
	for (unsigned i = 1; i < n; i++)
		assert_true(samples[i - 1] <= samples[i]);      /* sorted in place */
	assert_int_equal(st.n, ref.n);
	assert_int_equal(st.trimmed, ref.trimmed);
	assert_int_equal(st.min, ref.min);
	assert_int_equal(st.max, ref.max);
	if (abs_ld(st.mean_milli - ref.mean_milli) > 0.5L + 1e-9L * abs_ld(ref.mean_milli))
		fail_msg("mean %lld vs %.3Lf (n %u)", (long long)st.mean_milli, ref.mean_milli, n);
	if (abs_ld(st.median_milli - ref.median_milli) > 0.5L)
		fail_msg("median %lld vs %.3Lf", (long long)st.median_milli, ref.median_milli);
	if (abs_ld(st.stddev_milli - ref.stddev_milli) > 1.0L)
		fail_msg("stddev %lld vs %.3Lf (n %u)", (long long)st.stddev_milli, ref.stddev_milli, n);
	assert_int_equal(st.stddev_milli, ref.exact_stddev_milli);
}

static void test_small_known_sets(void **state)
{
	(void)state;
	struct stats st;

	int64_t one[] = { -42 };
	stats_compute(one, 1, 0, &st);
	assert_int_equal(st.n, 1);
	assert_int_equal(st.min, -42);
	assert_int_equal(st.max, -42);
	assert_int_equal(st.mean_milli, -42000);
	assert_int_equal(st.median_milli, -42000);
	assert_int_equal(st.stddev_milli, 0);

	int64_t equal[64];
	for (unsigned i = 0; i < 64; i++)
		equal[i] = 1234567;
	stats_compute(equal, 64, 10, &st);
	assert_int_equal(st.stddev_milli, 0);
	assert_int_equal(st.mean_milli, 1234567000);
	assert_int_equal(st.n, 52);
	assert_int_equal(st.trimmed, 12);

	/* 2, 4, 4, 4, 5, 5, 7, 9: population sd 2, sample sd sqrt(32/7) = 2.138089... */
	int64_t textbook[] = { 9, 4, 5, 4, 7, 2, 5, 4 };
	stats_compute(textbook, 8, 0, &st);
	assert_int_equal(st.mean_milli, 5000);
	assert_int_equal(st.median_milli, 4500);
	assert_int_equal(st.stddev_milli, 2138);
	assert_int_equal(textbook[0], 2);
	assert_int_equal(textbook[7], 9);

	int64_t even_neg[] = { -1, -2 };
	stats_compute(even_neg, 2, 0, &st);
	assert_int_equal(st.median_milli, -1500);
	assert_int_equal(st.mean_milli, -1500);
	assert_int_equal(st.stddev_milli, 707);         /* sqrt(0.5) = 0.7071 */

	int64_t straddle[] = { 0, -1 };
	stats_compute(straddle, 2, 0, &st);
	assert_int_equal(st.median_milli, -500);

	/* Means that round: 1/3, 2/3, -2/3 and the half-way 1/16 = 62.5 milli. */
	int64_t third[] = { 0, 0, 1 };
	stats_compute(third, 3, 0, &st);
	assert_int_equal(st.mean_milli, 333);
	int64_t two_thirds[] = { 0, 1, 1 };
	stats_compute(two_thirds, 3, 0, &st);
	assert_int_equal(st.mean_milli, 667);
	int64_t neg_two_thirds[] = { 0, -1, -1 };
	stats_compute(neg_two_thirds, 3, 0, &st);
	assert_int_equal(st.mean_milli, -667);
	int64_t sixteenth[16] = { 1 };
	stats_compute(sixteenth, 16, 0, &st);
	assert_int_equal(st.mean_milli, 63);
	int64_t neg_sixteenth[16] = { -1 };
	stats_compute(neg_sixteenth, 16, 0, &st);
	assert_int_equal(st.mean_milli, -63);

	st.n = 99;
	stats_compute(NULL, 0, 0, &st);
	assert_int_equal(st.n, 0);
}

static void test_trimming(void **state)
{
	(void)state;
	static const struct { unsigned n, pct, used, trimmed; } cases[] = {
		{ 20, 10, 16, 4 }, { 9, 25, 5, 4 }, { 3, 25, 3, 0 }, { 11, 5, 11, 0 },
		{ 100, 25, 50, 50 }, { 4, 50, 2, 2 }, { 5, 60, 1, 4 }, { 1, 100, 1, 0 },
		{ 7, 0, 7, 0 },
	};
	int64_t buf[100];

	for (size_t c = 0; c < ARRAY_SIZE(cases); c++) {
		struct stats st;
		/* Descending input, outliers at both ends that trimming must remove. */
		for (unsigned i = 0; i < cases[c].n; i++)
			buf[i] = (int64_t)(cases[c].n - i) * 10;
		unsigned cut = cases[c].trimmed / 2;
		stats_compute(buf, cases[c].n, cases[c].pct, &st);
		assert_int_equal(st.n, cases[c].used);
		assert_int_equal(st.trimmed, cases[c].trimmed);
		assert_int_equal(st.min, (int64_t)(cut + 1) * 10);
		assert_int_equal(st.max, (int64_t)(cases[c].n - cut) * 10);
	}
	/* Outliers change the mean only when they are not trimmed. */
	int64_t spiky[10] = { 100, 100, 100, 100, 100, 100, 100, 100, 100000, -100000 };
	struct stats st;
	stats_compute(spiky, 10, 10, &st);
	assert_int_equal(st.mean_milli, 100000);
	assert_int_equal(st.stddev_milli, 0);
}

static void test_random_against_reference(void **state)
{
	(void)state;
	static int64_t samples[4000];
	const int64_t limit = (1ll << 40) - 1;

	for (int round = 0; round < 400; round++) {
		unsigned n = (unsigned)rng_range(1, round < 200 ? 40 : 4000);
		unsigned trim = (unsigned)rng_range(0, 25);
		int64_t lo, hi;
		switch (round % 4) {
		case 0: lo = -10; hi = 10; break;
		case 1: lo = 1000000; hi = 1000100; break;          /* tight cluster, big offset */
		case 2: lo = -limit; hi = limit; break;
		default: lo = -limit; hi = -limit + 1000; break;
		}
		for (unsigned i = 0; i < n; i++)
			samples[i] = rng_range(lo, hi);
		check_against_reference(samples, n, trim);
	}
}

static void test_limits(void **state)
{
	(void)state;
	const unsigned n = 100000;
	int64_t *s = malloc(n * sizeof(*s));
	assert_non_null(s);
	const int64_t big = (1ll << 40) - 1;

	/* Half at +big, half at -big: the largest variance inside the exact range. */
	for (unsigned i = 0; i < n; i++)
		s[i] = i % 2 ? big : -big;
	check_against_reference(s, n, 0);
	struct stats st;
	for (unsigned i = 0; i < n; i++)
		s[i] = i % 2 ? big : -big;
	stats_compute(s, n, 0, &st);
	assert_int_equal(st.mean_milli, 0);
	assert_int_equal(st.median_milli, 0);
	assert_int_equal(st.min, -big);
	for (unsigned i = 0; i < n; i++)
		s[i] = rng_range(-big, big);
	check_against_reference(s, n, 3);
	/* Already sorted and reversed input (worst cases for naive quicksort). */
	for (unsigned i = 0; i < n; i++)
		s[i] = (int64_t)i;
	check_against_reference(s, n, 0);
	for (unsigned i = 0; i < n; i++)
		s[i] = -(int64_t)i;
	check_against_reference(s, n, 1);
	free(s);
}

static struct u128 u128_of(unsigned __int128 v)
{
	return (struct u128){ .hi = (uint64_t)(v >> 64), .lo = (uint64_t)v };
}

/* count(2n) - count(n) below zero means the measurement cannot be trusted (a counter that
 * went back, a warm-up that was too short): every negative sample is counted, trimmed
 * or not, so the engine can say so. */
static void test_negative_samples_counted(void **state)
{
	(void)state;
	struct stats st;
	int64_t none[] = { 0, 5, 7 };
	stats_compute(none, 3, 0, &st);
	assert_int_equal(st.negative, 0);

	int64_t some[] = { 320, -64, 320, 320, -1, 320, 320, 320, 320, 320 };
	stats_compute(some, 10, 20, &st);         /* trimming drops both, still counted */
	assert_int_equal(st.trimmed, 4);
	assert_int_equal(st.min, 320);
	assert_int_equal(st.negative, 2);

	int64_t all[] = { -3, -2 };
	stats_compute(all, 2, 0, &st);
	assert_int_equal(st.negative, 2);
	stats_compute(all, 0, 0, &st);
	assert_int_equal(st.negative, 0);
}

static void test_isqrt(void **state)
{
	(void)state;
	assert_true(isqrt_u128(u128_of(0)) == 0);
	assert_true(isqrt_u128(u128_of(1)) == 1);
	assert_true(isqrt_u128(u128_of(3)) == 1);
	assert_true(isqrt_u128(u128_of(4)) == 2);
	assert_true(isqrt_u128(u128_of(~(unsigned __int128)0)) == UINT64_MAX);
	unsigned __int128 k = UINT64_MAX;
	assert_true(isqrt_u128(u128_of(k * k)) == UINT64_MAX);
	assert_true(isqrt_u128(u128_of(k * k - 1)) == UINT64_MAX - 1);
	for (int i = 0; i < 20000; i++) {
		unsigned __int128 v = ((unsigned __int128)rng_next() << 64 | rng_next()) >>
				      (rng_next() % 128);
		uint64_t r = isqrt_u128(u128_of(v));
		assert_true((unsigned __int128)r * r <= v);
		assert_true((unsigned __int128)(r + 1) * (r + 1) > v);
	}
}

/* The spread after '±': standard deviation over mean in percent x1000, truncated, never
 * negative, 0 for a zero mean. */
static void test_spread(void **state)
{
	(void)state;
	struct stats s = { .mean_milli = 320000, .stddev_milli = 3805 };
	assert_int_equal(stats_spread_pct_milli(&s), 1189);            /* 1.189% */
	s.mean_milli = -320000;
	assert_int_equal(stats_spread_pct_milli(&s), 1189);
	s.mean_milli = 0;
	assert_int_equal(stats_spread_pct_milli(&s), 0);
	s = (struct stats){ .mean_milli = 10000, .stddev_milli = 0 };
	assert_int_equal(stats_spread_pct_milli(&s), 0);
}

static void test_fmt_milli(void **state)
{
	(void)state;
	static const struct { int64_t milli; const char *text; } cases[] = {
		{ 12345, "12.345" }, { -500, "-0.500" }, { 0, "0.000" }, { 5, "0.005" },
		{ 1000, "1.000" }, { -1, "-0.001" }, { -123456789, "-123456.789" },
		{ INT64_MAX, "9223372036854775.807" }, { INT64_MIN, "-9223372036854775.808" },
	};
	char buf[32];

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		int n = stats_fmt_milli(buf, sizeof(buf), cases[i].milli);
		assert_string_equal(buf, cases[i].text);
		assert_int_equal(n, (int)strlen(cases[i].text));
	}
	assert_int_equal(stats_fmt_milli(buf, 4, 12345), 6);
	assert_string_equal(buf, "12.");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small_known_sets),
		cmocka_unit_test(test_trimming),
		cmocka_unit_test(test_random_against_reference),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_negative_samples_counted),
		cmocka_unit_test(test_isqrt),
		cmocka_unit_test(test_fmt_milli),
		cmocka_unit_test(test_spread),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
