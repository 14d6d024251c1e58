/*
 * The counter matcher every PMU generation shares (arch/x86/pmu/core.c pmu_match):
 * which column a row takes, that earlier rows are moved only when no column is free,
 * and the Hall violator it reports when rows cannot all be placed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "arch/x86/pmu/core.h"

#define COL(c) (1ull << (c))

static int match(const uint64_t *adj, unsigned n, const uint8_t *order, unsigned norder,
		 int *col, struct pmu_match *out)
{
	*out = (struct pmu_match){ .nrows = n, .adj = adj, .order = order, .norder = norder,
				   .col = col };
	return pmu_match(out);
}

static void test_free_column_first(void **state)
{
	(void)state;
	struct pmu_match m;
	int col[3];
	/* Row 0 takes its lowest free column, 0. Row 1's only column is row 0's, so row 0
	 * moves along an augmenting path to column 1. Row 2 then finds column 2 free and
	 * takes it rather than moving row 0 again. */
	const uint64_t adj[3] = { COL(0) | COL(1), COL(0), COL(1) | COL(2) };
	assert_int_equal(match(adj, 3, NULL, 0, col, &m), -1);
	assert_int_equal(col[0], 1);
	assert_int_equal(col[1], 0);
	assert_int_equal(col[2], 2);
	assert_true(m.hall_rows == 0 && m.hall_cols == 0);
	/* Row 1 could take column 0 by moving row 0 to column 1, but column 2 is free:
	 * earlier rows keep their places. */
	const uint64_t keep[2] = { COL(0) | COL(1), COL(0) | COL(2) };
	assert_int_equal(match(keep, 2, NULL, 0, col, &m), -1);
	assert_int_equal(col[0], 0);
	assert_int_equal(col[1], 2);
}

static void test_order(void **state)
{
	(void)state;
	struct pmu_match m;
	int col[2];
	/* Fixed counters first, as the event-select generations ask: a row that may take
	 * GP 0 or fixed 0 takes the fixed counter and leaves GP 0 to the next row. */
	const uint8_t order[] = { PMU_CAND_FIXED_SHIFT, 0, 1 };
	const uint64_t adj[2] = { PMU_CAND_GP(0) | PMU_CAND_FIXED(0), PMU_CAND_GP(0) | PMU_CAND_GP(1) };
	assert_int_equal(match(adj, 2, order, 3, col, &m), -1);
	assert_int_equal(col[0], PMU_CAND_FIXED_SHIFT);
	assert_int_equal(col[1], 0);
	/* Columns outside order are never taken. */
	const uint64_t only_gp1[1] = { PMU_CAND_GP(1) | COL(63) };
	assert_int_equal(match(only_gp1, 1, order, 2, col, &m), 0);
	/* Without an order every one of the 64 columns is usable. */
	const uint64_t top[1] = { COL(63) };
	assert_int_equal(match(top, 1, NULL, 0, col, &m), -1);
	assert_int_equal(col[0], 63);
}

static void test_rows_without_columns(void **state)
{
	(void)state;
	struct pmu_match m;
	int col[3];
	const uint64_t adj[3] = { COL(4), 0, COL(4) | COL(5) };
	assert_int_equal(match(adj, 3, NULL, 0, col, &m), -1);
	assert_int_equal(col[0], 4);
	assert_int_equal(col[1], -1);
	assert_int_equal(col[2], 5);
}

static void test_hall_violator(void **state)
{
	(void)state;
	struct pmu_match m;
	int col[5];
	/* Rows 0-3 share columns 0-2: row 3 is the first that finds none, and the four
	 * rows and three columns are the violator; row 4 and column 3 are not in it. */
	const uint64_t tight[5] = { COL(0) | COL(1), COL(1) | COL(2), COL(0) | COL(2),
				    COL(0) | COL(1) | COL(2), COL(3) };
	assert_int_equal(match(tight, 5, NULL, 0, col, &m), 3);
	assert_true(m.hall_rows == 0xf);
	assert_true(m.hall_cols == 0x7);
	/* Two rows on one column, a third elsewhere: only the two are named. */
	const uint64_t pair[3] = { COL(9), COL(7), COL(9) };
	assert_int_equal(match(pair, 3, NULL, 0, col, &m), 2);
	assert_true(m.hall_rows == 0x5);
	assert_true(m.hall_cols == COL(9));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_free_column_first),
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_rows_without_columns),
		cmocka_unit_test(test_hall_violator),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
