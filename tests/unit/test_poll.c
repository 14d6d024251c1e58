/*
 * drivers/poll.c: a driver's wait bounded by time on the TSC where its rate is known, by a
 * count of polls where not (issue 32: "about 5 s" timeouts passed within a 1.06 s boot,
 * counting port 0x80 reads that QEMU answers far faster than 1 us). The host's TSC stands
 * in for the kernel's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "arch/x86/cpu.h"
#include "drivers/poll.h"

static void test_counted_without_a_clock(void **state)
{
	struct poll_bound b;
	unsigned n = 0;
	(void)state;

	poll_clock_set(0);
	poll_bound_start(&b, 5000);
	while (!poll_bound_spent(&b))
		n++;
	assert_int_equal(n, 5000);      /* 4999 polls, and one more once it has run out */
	assert_string_equal(poll_bound_text(5000000).s, "5000000 polls (5 s at 1 us a poll)");
	assert_string_equal(poll_bound_text(500000).s, "500000 polls (500 ms at 1 us a poll)");
}

/* On the clock the bound is time, however many polls fit in it: a 1 ms bound at a stated
 * rate of 1 GHz ends when the TSC has moved 1,000,000 ticks, not after 1000 polls. */
static void test_timed_on_the_clock(void **state)
{
	struct poll_bound b;
	unsigned long long polls = 0;
	(void)state;

	poll_clock_set(1000000000ull);
	uint64_t start = rdtsc();
	poll_bound_start(&b, 1000);
	assert_false(poll_bound_spent(&b));
	while (!poll_bound_spent(&b))
		polls++;
	uint64_t ticks = rdtsc() - start;
	assert_true(ticks >= 1000000);
	assert_true(polls > 1000);      /* a host poll here takes far less than 1 us */
	assert_string_equal(poll_bound_text(5000000).s, "about 5 s");
	assert_string_equal(poll_bound_text(100000).s, "about 100 ms");
	poll_clock_set(0);
}

/* A wait the CPU was kept from past its bound (under emulation, the host not running the
 * CPU) polls once more before it is spent: a transfer that ended meanwhile is not called a
 * timeout. */
static void test_one_more_poll_after_a_stall(void **state)
{
	struct poll_bound b;
	(void)state;

	poll_clock_set(1000000000ull);
	poll_bound_start(&b, 1000);
	uint64_t start = rdtsc();
	while (rdtsc() - start < 2000000)
		;                       /* kept away for twice the bound */
	assert_false(poll_bound_spent(&b));
	assert_true(poll_bound_spent(&b));
	poll_clock_set(0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counted_without_a_clock),
		cmocka_unit_test(test_timed_on_the_clock),
		cmocka_unit_test(test_one_more_poll_after_a_stall),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
