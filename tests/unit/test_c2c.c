/* lib/c2c.c: the cross-core halves on two host threads (the protocols complete with the
 * right values, a partner that never comes or stops ends the run with a status instead of
 * a hang), the results from fixed numbers, the @c2c records and the matrix text. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <time.h>
#include <cmocka.h>
#include "lib/c2c.h"
#include "lib/util.h"

/* Spin limits: generous where the partner is there (a host thread can lose its CPU for a
 * while on a busy machine), tiny where it never comes. */
#define SPIN_PATIENT (1ull << 34)
#define SPIN_SHORT   1000

/* A clock that counts its own calls: ping alone reads it, twice per sample. */
static uint64_t calls;
static uint64_t counting_clock(void)
{
	return __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
}

static uint64_t monotonic_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct half {
	void (*fn)(void *);
	void *arg;
};

static void *half_main(void *h)
{
	((struct half *)h)->fn(((struct half *)h)->arg);
	return NULL;
}

/* The two halves at once, on two threads, as two CPUs would run them. */
static void run_two(void (*fa)(void *), void *a, void (*fb)(void *), void *b)
{
	struct half ha = { fa, a }, hb = { fb, b };
	pthread_t ta, tb;

	assert_int_equal(pthread_create(&ta, NULL, half_main, &ha), 0);
	assert_int_equal(pthread_create(&tb, NULL, half_main, &hb), 0);
	assert_int_equal(pthread_join(ta, NULL), 0);
	assert_int_equal(pthread_join(tb, NULL), 0);
}

/* ------------------------------------------------------------ c2c_latency */

static void test_pingpong_completes(void **state)
{
	(void)state;
	static struct c2c_pingpong p;
	int64_t ticks[5];
	char why[160];

	calls = 0;
	assert_int_equal(c2c_pingpong_init(&p, counting_clock, SPIN_PATIENT, 50, 2, 5, ticks,
					   why, sizeof(why)), 0);
	run_two(c2c_ping, &p, c2c_pong, &p);
	assert_int_equal(p.ping_status, C2C_OK);
	assert_int_equal(p.pong_status, C2C_OK);
	assert_int_equal(p.answered, 7 * 50);
	/* The last answer: round trip k = 349 ends with 2k + 3. */
	assert_int_equal(p.line.word, 2 * 350 + 1);
	assert_int_equal(p.stuck_at, 0);
	for (unsigned i = 0; i < 5; i++)
		assert_int_equal(ticks[i], 1);          /* one interval per sample, no more */
	assert_int_equal(calls, 2 * 7);
}

static void test_pingpong_real_clock(void **state)
{
	(void)state;
	static struct c2c_pingpong p;
	int64_t ticks[3];
	struct c2c_latency l;
	char why[160];

	assert_int_equal(c2c_pingpong_init(&p, monotonic_ns, SPIN_PATIENT, 100, 1, 3, ticks, why,
					   sizeof(why)), 0);
	run_two(c2c_ping, &p, c2c_pong, &p);
	assert_int_equal(p.ping_status, C2C_OK);
	assert_int_equal(p.pong_status, C2C_OK);
	c2c_latency_result(&p, 0, 2, 5, &l);
	assert_int_equal(l.ping_cpu, 2);
	assert_int_equal(l.pong_cpu, 5);
	assert_int_equal(l.st.n, 3);
	assert_true(l.st.min > 0);
	assert_true(l.round_trip_median_milli > 0);
	assert_true(l.one_way_median_milli * 2 <= l.round_trip_median_milli);
}

static void test_ping_alone_times_out(void **state)
{
	(void)state;
	static struct c2c_pingpong p;
	int64_t ticks[2];
	char why[160];

	assert_int_equal(c2c_pingpong_init(&p, counting_clock, SPIN_SHORT, 10, 0, 2, ticks, why,
					   sizeof(why)), 0);
	c2c_ping(&p);                   /* pong never starts: returns, does not hang */
	assert_int_equal(p.ping_status, C2C_NO_PARTNER);
	assert_int_equal(p.stuck_at, 1);
	assert_int_equal(p.line.word, C2C_ABORT);
	/* A pong that comes too late sees the abort and stops at once. */
	c2c_pong(&p);
	assert_int_equal(p.pong_status, C2C_ABORTED);
	assert_int_equal(p.answered, 0);
}

static void test_pong_alone_times_out(void **state)
{
	(void)state;
	static struct c2c_pingpong p;
	int64_t ticks[2];
	char why[160];

	assert_int_equal(c2c_pingpong_init(&p, counting_clock, SPIN_SHORT, 10, 0, 2, ticks, why,
					   sizeof(why)), 0);
	c2c_pong(&p);
	assert_int_equal(p.pong_status, C2C_NO_PARTNER);
	assert_int_equal(p.answered, 0);
	assert_int_equal(p.line.word, C2C_ABORT);
	c2c_ping(&p);
	assert_int_equal(p.ping_status, C2C_ABORTED);
}

/* A pong that answers three round trips and leaves. */
static void three_answers(void *arg)
{
	struct c2c_pingpong *p = arg;
	uint32_t *seq = &p->line.word;

	__atomic_store_n(seq, 1, __ATOMIC_RELEASE);
	for (uint32_t v = 2; v <= 6; v += 2) {
		while (__atomic_load_n(seq, __ATOMIC_ACQUIRE) != v)
			;
		__atomic_store_n(seq, v + 1, __ATOMIC_RELEASE);
	}
}

static void test_ping_partner_stops(void **state)
{
	(void)state;
	static struct c2c_pingpong p;
	int64_t ticks[2];
	char why[160];

	/* Long enough for the three answers on a busy machine, short enough to end soon. */
	assert_int_equal(c2c_pingpong_init(&p, counting_clock, 1ull << 27, 10, 0, 2, ticks, why,
					   sizeof(why)), 0);
	run_two(c2c_ping, &p, three_answers, &p);
	assert_int_equal(p.ping_status, C2C_LOST_PARTNER);
	assert_int_equal(p.stuck_at, 9);        /* it wrote 8 and waited for 9 */
	assert_int_equal(p.line.word, C2C_ABORT);
}

static void test_pingpong_init_limits(void **state)
{
	(void)state;
	static struct c2c_pingpong p;
	int64_t ticks[1];
	char why[200];

	assert_int_equal(c2c_pingpong_init(&p, counting_clock, SPIN_SHORT, 100000, 10000, 100000,
					   ticks, why, sizeof(why)), -1);
	assert_string_equal(why, "110000 samples (10000 of them warm-up) of 100000 round trips: "
			    "between 1 and 1073741824 round trips in all can be run");
	assert_int_equal(c2c_pingpong_init(&p, counting_clock, SPIN_SHORT, 0, 0, 1, ticks, why,
					   sizeof(why)), -1);
	assert_int_equal(c2c_pingpong_init(&p, counting_clock, SPIN_SHORT, 1u << 15, 0, 1u << 15,
					   ticks, why, sizeof(why)), 0);
}

static void test_latency_result_and_json(void **state)
{
	(void)state;
	static struct c2c_pingpong p;
	int64_t ticks[3] = { 2000, 1000, 3000 };
	struct c2c_latency l;
	char json[400], why[160];

	assert_int_equal(c2c_pingpong_init(&p, counting_clock, SPIN_SHORT, 10, 0, 3, ticks, why,
					   sizeof(why)), 0);
	c2c_latency_result(&p, 0, 1, 0, &l);
	assert_int_equal(l.round_trip_median_milli, 200000);
	assert_int_equal(l.round_trip_min_milli, 100000);
	assert_int_equal(l.one_way_median_milli, 100000);
	assert_int_equal(l.one_way_min_milli, 50000);
	int n = c2c_latency_json(&l, 0, json, sizeof(json));
	assert_int_equal(n, (int)strlen(json));
	assert_string_equal(json, "{\"test\":\"c2c_latency\",\"ping_cpu\":1,\"pong_cpu\":0,"
			    "\"rounds\":10,\"reps\":3,\"trimmed\":0,\"unit\":\"ticks\","
			    "\"one_way_median\":100.000,\"one_way_min\":50.000,"
			    "\"round_trip_median\":200.000,\"round_trip_min\":100.000}");
	/* A 2 GHz TSC: 100 ticks are 50 ns. */
	c2c_latency_json(&l, 2000000000ull, json, sizeof(json));
	assert_non_null(strstr(json, ",\"one_way_median_ns\":50.000,\"one_way_min_ns\":25.000}"));
	assert_int_equal(c2c_latency_json(&l, 0, json, 40), -1);
}

/* ------------------------------------------------------------ false_sharing */

static void check_counters(bool padded)
{
	static struct c2c_counters c;
	const uint32_t n = 200000;

	c2c_counters_init(&c, monotonic_ns, SPIN_PATIENT, n, padded);
	run_two(c2c_count_first, &c, c2c_count_second, &c);
	assert_int_equal(c.status[0], C2C_OK);
	assert_int_equal(c.status[1], C2C_OK);
	assert_true(c.ticks[0] > 0 && c.ticks[1] > 0);
	if (padded) {
		assert_int_equal(c.data[0].word[0], n);
		assert_int_equal(c.data[1].word[0], n);
		assert_int_equal(c.data[0].word[1], 0);
	} else {
		assert_int_equal(c.data[0].word[0], n);
		assert_int_equal(c.data[0].word[1], n);
		assert_int_equal(c.data[1].word[0], 0);
	}
}

static void test_counters_together(void **state)
{
	(void)state;
	check_counters(false);
}

static void test_counters_padded(void **state)
{
	(void)state;
	check_counters(true);
}

static void test_counters_alone_time_out(void **state)
{
	(void)state;
	static struct c2c_counters c;

	c2c_counters_init(&c, monotonic_ns, SPIN_SHORT, 1000, false);
	c2c_count_first(&c);
	assert_int_equal(c.status[0], C2C_NO_PARTNER);
	assert_int_equal(c.gate[0].word, C2C_ABORT);
	assert_int_equal(c.data[0].word[0], 0);         /* it never counted */
	c2c_count_second(&c);
	assert_int_equal(c.status[1], C2C_ABORTED);
	assert_int_equal(c.data[0].word[1], 0);
}

static void test_false_sharing_result(void **state)
{
	(void)state;
	int64_t s0[] = { 300, 100, 200 }, s1[] = { 400, 400, 400 };
	int64_t p0[] = { 50, 50, 50 }, p1[] = { 100, 90, 110 };
	int64_t *const shared[2] = { s0, s1 }, *const padded[2] = { p0, p1 };
	const unsigned cpu[2] = { 3, 7 };
	struct c2c_false_sharing f;
	char json[300];

	c2c_false_sharing_result(shared, padded, 3, 100, cpu, &f);
	assert_int_equal(f.cpu[0], 3);
	assert_int_equal(f.cpu[1], 7);
	assert_int_equal(f.increments, 100);
	assert_int_equal(f.reps, 3);
	assert_int_equal(f.shared_milli[0], 2000);      /* median 200 ticks / 100 */
	assert_int_equal(f.shared_milli[1], 4000);
	assert_int_equal(f.padded_milli[0], 500);
	assert_int_equal(f.padded_milli[1], 1000);
	assert_int_equal(f.ratio_milli, 4000);          /* (200 + 400) / (50 + 100) */
	int n = c2c_false_sharing_json(&f, json, sizeof(json));
	assert_int_equal(n, (int)strlen(json));
	assert_string_equal(json, "{\"test\":\"false_sharing\",\"cpus\":[3,7],\"increments\":100,"
			    "\"reps\":3,\"unit\":\"ticks per increment\",\"shared\":[2.000,4.000],"
			    "\"padded\":[0.500,1.000],\"ratio\":4.000}");
}

/* ------------------------------------------------------------ shared_bw */

static void test_stream_completes(void **state)
{
	(void)state;
	static struct c2c_stream s;
	static uintptr_t buf[65536 / sizeof(uintptr_t)];
	int64_t wt[3], rt[3];
	struct c2c_bandwidth b;

	c2c_stream_init(&s, monotonic_ns, SPIN_PATIENT, buf, sizeof(buf), 1, 3, wt, rt);
	run_two(c2c_stream_write, &s, c2c_stream_read, &s);
	assert_int_equal(s.writer_status, C2C_OK);
	assert_int_equal(s.reader_status, C2C_OK);
	assert_int_equal(s.bad_words, 0);
	assert_int_equal(s.to_reader.word, 4);
	assert_int_equal(s.to_writer.word, 4);
	assert_int_equal(buf[0], 4);
	assert_int_equal(buf[ARRAY_SIZE(buf) - 1], 4);
	c2c_bandwidth_result(&s, 0, 1, &b);
	assert_int_equal(b.bytes, 65536);
	assert_int_equal(b.reps, 3);
	assert_true(b.write_milli > 0 && b.read_milli > 0);
}

/* The reader counts the words that are not what the writer announced. */
static void test_stream_reader_checks_data(void **state)
{
	(void)state;
	static struct c2c_stream s;
	uintptr_t buf[64];
	int64_t wt[1], rt[1];

	c2c_stream_init(&s, counting_clock, SPIN_SHORT, buf, sizeof(buf), 0, 1, wt, rt);
	for (unsigned i = 0; i < ARRAY_SIZE(buf); i++)
		buf[i] = 1;
	buf[5] = 2;
	buf[63] = 0;
	s.to_reader.word = 1;                   /* generation 1 is written */
	c2c_stream_read(&s);
	assert_int_equal(s.bad_words, 2);
	assert_int_equal(s.reader_status, C2C_BAD_DATA);
	assert_int_equal(s.to_writer.word, 1);
}

static void test_stream_alone_times_out(void **state)
{
	(void)state;
	static struct c2c_stream s;
	uintptr_t buf[64];
	int64_t wt[2], rt[2];

	c2c_stream_init(&s, counting_clock, SPIN_SHORT, buf, sizeof(buf), 0, 2, wt, rt);
	c2c_stream_read(&s);
	assert_int_equal(s.reader_status, C2C_NO_PARTNER);
	assert_int_equal(s.to_writer.word, C2C_ABORT);

	c2c_stream_init(&s, counting_clock, SPIN_SHORT, buf, sizeof(buf), 0, 2, wt, rt);
	c2c_stream_write(&s);                   /* writes generation 1, nobody reads it */
	assert_int_equal(s.writer_status, C2C_NO_PARTNER);
	assert_int_equal(s.to_reader.word, C2C_ABORT);
	assert_int_equal(buf[0], 1);
}

/* A half stopped from outside (kernel/c2c-mode.c's watchdog): after the abort, whichever half
 * still runs stops at its next wait with C2C_ABORTED (a counter side, before counting). */
static void test_abort_from_outside(void **state)
{
	(void)state;
	static struct c2c_pingpong p;
	static struct c2c_counters c;
	static struct c2c_stream s;
	uintptr_t buf[64];
	int64_t ticks[2], wt[2], rt[2];
	char why[160];

	for (int side = 0; side < 2; side++) {
		assert_int_equal(c2c_pingpong_init(&p, counting_clock, SPIN_PATIENT, 10, 0, 2, ticks,
						   why, sizeof(why)), 0);
		c2c_pingpong_abort(&p);
		(side ? c2c_pong : c2c_ping)(&p);
		assert_int_equal(side ? p.pong_status : p.ping_status, C2C_ABORTED);
		assert_int_equal(p.answered, 0);

		c2c_counters_init(&c, monotonic_ns, SPIN_PATIENT, 1000, side);
		c2c_counters_abort(&c);
		(side ? c2c_count_second : c2c_count_first)(&c);
		assert_int_equal(c.status[side], C2C_ABORTED);
		assert_int_equal(*(side ? &c.data[1].word[0] : &c.data[0].word[0]), 0);

		c2c_stream_init(&s, counting_clock, SPIN_PATIENT, buf, sizeof(buf), 0, 2, wt, rt);
		c2c_stream_abort(&s);
		(side ? c2c_stream_read : c2c_stream_write)(&s);
		assert_int_equal(side ? s.reader_status : s.writer_status, C2C_ABORTED);
	}
}

static void test_units(void **state)
{
	(void)state;
	assert_int_equal(c2c_ticks_to_ns_milli(52500, 3000000000ull), 17500);
	assert_int_equal(c2c_ticks_to_ns_milli(52500, 0), 0);
	assert_int_equal(c2c_gbps_milli(16000, 3000000000ull), 48000);
	assert_int_equal(c2c_gbps_milli(16000, 0), 0);
	assert_string_equal(c2c_status_text(C2C_NO_PARTNER), "the other CPU never started its half");
}

static void test_bandwidth_json(void **state)
{
	(void)state;
	struct c2c_bandwidth b = { .writer_cpu = 0, .reader_cpu = 2, .bytes = 1048576, .reps = 11,
				   .write_milli = 8250, .read_milli = 12000 };
	char json[300];

	int n = c2c_bandwidth_json(&b, 2000000000ull, json, sizeof(json));
	assert_int_equal(n, (int)strlen(json));
	assert_string_equal(json, "{\"test\":\"shared_bw\",\"writer_cpu\":0,\"reader_cpu\":2,"
			    "\"bytes\":1048576,\"reps\":11,\"unit\":\"bytes per tick\","
			    "\"write\":8.250,\"read\":12.000,\"write_gbps\":16.500,"
			    "\"read_gbps\":24.000}");
}

/* ------------------------------------------------------------ the matrix */

struct lines {
	char text[8][C2C_MATRIX_LINE_MAX];
	unsigned n;
};

static void keep_line(void *ctx, const char *line)
{
	struct lines *l = ctx;
	assert_true(l->n < ARRAY_SIZE(l->text));
	snprintf(l->text[l->n++], sizeof(l->text[0]), "%s", line);
}

static void check_matrix(const struct c2c_matrix *m, const char *const *want, unsigned n)
{
	static struct lines got;

	got.n = 0;
	c2c_matrix_format(m, keep_line, &got);
	assert_int_equal(got.n, n);
	for (unsigned i = 0; i < n; i++)
		assert_string_equal(got.text[i], want[i]);
}

static void test_matrix_1x1(void **state)
{
	(void)state;
	static struct c2c_matrix m;
	const unsigned cpu[] = { 0 };
	const char *const want[] = {
		"            0",
		"    0",
	};

	c2c_matrix_init(&m, cpu, 1);
	check_matrix(&m, want, ARRAY_SIZE(want));
}

static void test_matrix_2x2(void **state)
{
	(void)state;
	static struct c2c_matrix m;
	const unsigned cpu[] = { 0, 1 };
	const char *const want[] = {
		"            0       1",
		"    0",
		"    1    52.5",
	};

	c2c_matrix_init(&m, cpu, 2);
	m.cell[1][0] = 52450;           /* 52.45 rounds up */
	check_matrix(&m, want, ARRAY_SIZE(want));
	assert_int_equal(c2c_matrix_index(&m, 1), 1);
	assert_int_equal(c2c_matrix_index(&m, 2), -1);
}

static void test_matrix_4x4(void **state)
{
	(void)state;
	static struct c2c_matrix m;
	const unsigned cpu[] = { 0, 2, 5, 13 };
	const char *const want[] = {
		"            0       2       5      13",
		"    0                            61.0",
		"    2    52.5",
		"    5    60.0  1234.6",
		"   13    fail     0.0    99.9",
	};

	c2c_matrix_init(&m, cpu, 4);
	m.cell[0][3] = 60950;
	m.cell[1][0] = 52450;
	m.cell[2][0] = 60000;
	m.cell[2][1] = 1234567;
	m.cell[3][0] = C2C_CELL_FAIL;
	m.cell[3][1] = 7;
	m.cell[3][2] = 99949;
	check_matrix(&m, want, ARRAY_SIZE(want));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pingpong_completes),
		cmocka_unit_test(test_pingpong_real_clock),
		cmocka_unit_test(test_ping_alone_times_out),
		cmocka_unit_test(test_pong_alone_times_out),
		cmocka_unit_test(test_ping_partner_stops),
		cmocka_unit_test(test_abort_from_outside),
		cmocka_unit_test(test_pingpong_init_limits),
		cmocka_unit_test(test_latency_result_and_json),
		cmocka_unit_test(test_counters_together),
		cmocka_unit_test(test_counters_padded),
		cmocka_unit_test(test_counters_alone_time_out),
		cmocka_unit_test(test_false_sharing_result),
		cmocka_unit_test(test_stream_completes),
		cmocka_unit_test(test_stream_reader_checks_data),
		cmocka_unit_test(test_stream_alone_times_out),
		cmocka_unit_test(test_units),
		cmocka_unit_test(test_bandwidth_json),
		cmocka_unit_test(test_matrix_1x1),
		cmocka_unit_test(test_matrix_2x2),
		cmocka_unit_test(test_matrix_4x4),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
