/*
 * kernel/harness-out.c, the engine's sample arithmetic, against a fake counter source
 * that stands in for the harness (payloads/harness.asm): each run reads a counter before
 * and after the payload and stores end - start in 64 bits; a counter of width w wraps at
 * 2^w. Counters start just below their wrap, so that runs wrap, and every run adds a
 * fixed overhead, so that count(n) is never 0. Under TCG no counter counts: this is the
 * only check that the engine reports count(2n) - count(n).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "arch/x86/pmu/pmu.h"
#include "kernel/harness-out.h"
#include "lib/event.h"
#include "lib/rapl.h"

#define N               1000u           /* iterations of the shorter run */
#define WARMUP          2u
#define REPS            9u
#define MAX_VALUES      8u

/* One counter of the fake source: events per iteration, the fixed overhead per run and a
 * per-repetition wobble in the 2n run (noise, which may make a sample smaller). */
struct fake {
	unsigned width;
	uint64_t value;                 /* the counter, kept below 2^width */
	uint64_t per_iter, overhead;
	int wrapped_in;                 /* the first run (2 * rep + len) that wrapped, or -1 */
};

static uint64_t width_mask(unsigned width)
{
	return width < 64 ? (1ull << width) - 1 : ~0ull;
}

static const int64_t wobble[WARMUP + REPS] = { 40, -30, 0, 3, -2, 11, -7, 1, 0, 5, -1 };

/* The harness's loop: out[rep][len][c] = end - start over a run of n << len iterations. */
static void fake_harness(struct fake *f, unsigned nval, uint64_t *out)
{
	for (unsigned r = 0; r < WARMUP + REPS; r++)
		for (unsigned len = 0; len < 2; len++)
			for (unsigned c = 0; c < nval; c++) {
				uint64_t start = f[c].value;
				uint64_t events = f[c].overhead + f[c].per_iter * ((uint64_t)N << len);
				if (len)
					events += (uint64_t)wobble[r];
				f[c].value = (f[c].value + events) & width_mask(f[c].width);
				if (f[c].value < start && f[c].wrapped_in < 0)
					f[c].wrapped_in = (int)(r * 2 + len);
				out[(r * 2 + len) * nval + c] = f[c].value - start;
			}
}

/* Where counter c starts: runs - 1 runs (of about runs_to_wrap) below its wrap. */
static uint64_t below_wrap(const struct fake *f, unsigned runs)
{
	uint64_t per_run = f->overhead + f->per_iter * N * 3 / 2;
	return (width_mask(f->width) - per_run * runs) & width_mask(f->width);
}

/* Every sample of value c is per_iter * n plus the repetition's wobble. */
static void check_samples(const uint64_t *out, const struct harness_values *v, const struct fake *f,
			  unsigned c, const char *what)
{
	int64_t samples[REPS];
	memset(samples, 0x5a, sizeof(samples));
	harness_samples(out, v, c, WARMUP, REPS, samples);
	for (unsigned r = 0; r < REPS; r++) {
		int64_t want = (int64_t)(f[c].per_iter * N) + wobble[WARMUP + r];
		if (samples[r] != want)
			fail_msg("%s (value %u, width %u), repetition %u: sample %lld, want %lld "
				 "(count(2n) - count(n))", what, c, f[c].width, r, (long long)samples[r],
				 (long long)want);
	}
}

/* The width the engine gets for a free-running counter, from the slot the PMU code fills. */
static unsigned free_running_width(enum ev_class cls)
{
	struct ev_encoding e = { .cls = cls };
	struct pmu_slot s;
	if (cls == EV_CLASS_ENERGY)
		e.energy.domain = RAPL_PKG;
	assert_true(pmu_slot_free_running(&s, &e));
	return s.width;
}

/* Two RDPMC counters (48 and 40 bits), APERF, MPERF and RAPL package energy by RDMSR, and
 * the TSC: each wraps during the repetitions, each comes out as count(2n) - count(n). */
static void test_each_source(void **state)
{
	(void)state;
	const unsigned ctr_width[] = { 48, 40 };
	const unsigned msr_width[] = { free_running_width(EV_CLASS_APERF),
				       free_running_width(EV_CLASS_MPERF),
				       free_running_width(EV_CLASS_ENERGY) };
	assert_int_equal(msr_width[0], 64);
	assert_int_equal(msr_width[1], 64);
	assert_int_equal(msr_width[2], 32);
	const struct harness_values v = { .nctr = 2, .nmsr = 3, .ctr_width = ctr_width,
					  .msr_width = msr_width };
	static const struct { enum result_source src; unsigned width; const char *what; } want[] = {
		{ SRC_PMU, 48, "RDPMC, 48 bits" }, { SRC_PMU, 40, "RDPMC, 40 bits" },
		{ SRC_MSR, 64, "APERF" }, { SRC_MSR, 64, "MPERF" }, { SRC_MSR, 32, "energy" },
		{ SRC_TSC, 64, "TSC" },
	};
	assert_int_equal(harness_stride(&v), 6);
	struct fake f[6];
	for (unsigned c = 0; c < 6; c++) {
		unsigned width;
		assert_int_equal(harness_source(&v, c, &width), want[c].src);
		assert_int_equal(width, want[c].width);
		/* energy counts 1/2^esu J: fewer than the others */
		f[c] = (struct fake){ .width = width, .per_iter = c == 4 ? 37 : 1 + 3 * c,
				      .overhead = 250 + 40 * c, .wrapped_in = -1 };
		f[c].value = below_wrap(&f[c], 5 + c);
	}

	uint64_t out[(WARMUP + REPS) * 2 * 6];
	struct fake run[6];
	memcpy(run, f, sizeof(f));
	fake_harness(run, 6, out);
	for (unsigned c = 0; c < 6; c++) {
		/* the counter wrapped in a measured repetition, not in the warm-up */
		if (run[c].wrapped_in < (int)(2 * WARMUP))
			fail_msg("%s: wrapped in run %d, not in a measured one", want[c].what,
				 run[c].wrapped_in);
		/* count(n) is not 0: reporting count(2n) alone would be off by it */
		assert_int_not_equal(out[WARMUP * 2 * 6 + c], 0);
		check_samples(out, &v, f, c, want[c].what);
	}
}

/* A run across the wrap: end < start, and end - start in 64 bits is a huge number that
 * only the width's mask makes the count again. */
static void test_delta_wraps_at_width(void **state)
{
	(void)state;
	static const struct { unsigned width; uint64_t start; } cases[] = {
		{ 40, 0xFFFFFFFF00ull }, { 48, 0xFFFFFFFFFF00ull }, { 32, 0xFFFFFF00ull },
		{ 64, 0xFFFFFFFFFFFFFF00ull },
	};
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t m = width_mask(cases[i].width), s = cases[i].start;
		uint64_t count_n = ((s + 0x1000) & m) - s;             /* 0x1000 events, wrapped */
		uint64_t s2 = (s + 0x1000) & m;
		uint64_t count_2n = ((s2 + 0x1800) & m) - s2;          /* 0x1800, not wrapped */
		if (cases[i].width < 64)
			assert_true(count_n > m);               /* as the harness leaves it */
		assert_int_equal(harness_delta(count_n, count_2n, cases[i].width), 0x800);
		/* the other way round: the longer run wraps */
		assert_int_equal(harness_delta(count_2n, count_n, cases[i].width), -0x800);
	}
	/* no wrap: plain differences, fixed overhead cancelled */
	assert_int_equal(harness_delta(300, 1300, 40), 1000);
	assert_int_equal(harness_delta(5, 5, 48), 0);
	/* bits above the width (none a counter gives) do not count */
	assert_int_equal(harness_delta(0xAB00000000000010ull, 0xCD00000000000020ull, 32), 0x10);
	/* single-step counts and the TSC: all 64 bits */
	assert_int_equal(harness_delta(0x100000000ull, 0x300000005ull, 64), 0x200000005ll);
}

/* The warm-up repetitions are skipped, and samples land in repetition order. */
static void test_warmup_and_order(void **state)
{
	(void)state;
	const unsigned ctr_width[] = { 48 };
	const struct harness_values v = { .nctr = 1, .nmsr = 0, .ctr_width = ctr_width };
	uint64_t out[(WARMUP + REPS) * 2 * 2];
	for (unsigned r = 0; r < WARMUP + REPS; r++) {
		out[r * 4 + 0] = 100 + r;               /* counter at n */
		out[r * 4 + 2] = 100 + r + 1000 * r;    /* at 2n */
		out[r * 4 + 1] = 7;                     /* TSC at n */
		out[r * 4 + 3] = 7 + 10 * r;            /* at 2n */
	}
	int64_t s[REPS];
	harness_samples(out, &v, 0, WARMUP, REPS, s);
	for (unsigned r = 0; r < REPS; r++)
		assert_int_equal(s[r], 1000 * (WARMUP + r));
	harness_samples(out, &v, 1, WARMUP, REPS, s);
	for (unsigned r = 0; r < REPS; r++)
		assert_int_equal(s[r], 10 * (WARMUP + r));
	unsigned width;
	assert_int_equal(harness_source(&v, 1, &width), SRC_TSC);
	assert_int_equal(width, 64);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_each_source),
		cmocka_unit_test(test_delta_wraps_at_width),
		cmocka_unit_test(test_warmup_and_order),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
