/*
 * lib/lava.c: ids in the form LAVA's monitor stores (whatever a name holds: no space, no
 * '>', nothing it would change), unique within a run even when two names come out alike,
 * and signal lines that the documented monitor pattern (docs/lava.md) reads back whole.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <regex.h>
#include <cmocka.h>
#include "lib/lava.h"

/* docs/lava.md's pattern in POSIX ERE: named groups dropped, [^ >] as Python reads it.
 * The units group is outside the optional part so that a case without a measurement
 * gets units "" (the LAVA server's own default) rather than None. */
#define PATTERN "^<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=([^ >]+) RESULT=(pass|fail|skip)" \
	"( MEASUREMENT=([^ >]+) UNITS=)?([^ >]*)>\n$"

/* What LAVA's monitor does to an id: lower case, each run of non-word characters "_". */
static void lava_normal(const char *in, char *out)
{
	size_t n = 0;
	for (const char *p = in; *p;) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_') {
			out[n++] = *p++;
		} else if (*p >= 'A' && *p <= 'Z') {
			out[n++] = (char)(*p++ - 'A' + 'a');
		} else {
			out[n++] = '_';
			while (*p && !((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
				       (*p >= '0' && *p <= '9') || *p == '_'))
				p++;
		}
	}
	out[n] = 0;
}

static void id_of(char id[LAVA_ID_MAX + 1], const char *a, const char *b)
{
	id[0] = 0;
	lava_id_add(id, a);
	if (b)
		lava_id_add(id, b);
}

static void test_id_parts_joined(void **state)
{
	(void)state;
	char id[LAVA_ID_MAX + 1];
	id_of(id, "add_chain", "cpl3");
	assert_string_equal(id, "add_chain_cpl3");
	id_of(id, "", "cpl0");
	assert_string_equal(id, "cpl0");
	id_of(id, "x", ">>>");              /* a part of odd characters alone adds nothing */
	assert_string_equal(id, "x");
}

static void test_id_odd_characters(void **state)
{
	(void)state;
	char id[LAVA_ID_MAX + 1], normal[LAVA_ID_MAX + 1];
	static const char *const names[] = {
		"a b>c", "skl::INST_RETIRED:ANY_P:u=1", "  lead", "trail>>", "\t\r\n<>",
		"caf\xc3\xa9", "a_ b", "a _b", "x\x7f\x01y",
	};
	static const char *const want[] = {
		"a_b_c", "skl_inst_retired_any_p_u_1", "lead", "trail", "",
		"caf", "a__b", "a__b", "x_y",
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		id_of(id, names[i], NULL);
		assert_string_equal(id, want[i]);
		assert_null(strchr(id, ' '));
		assert_null(strchr(id, '>'));
		lava_normal(id, normal);          /* LAVA keeps it as it is */
		assert_string_equal(normal, id);
	}
}

static void test_id_cut_to_the_limit(void **state)
{
	(void)state;
	char id[LAVA_ID_MAX + 1] = "", long_name[300];
	memset(long_name, 'A', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = 0;
	assert_int_equal(lava_id_add(id, long_name), LAVA_ID_MAX);
	assert_int_equal(strlen(id), LAVA_ID_MAX);
	assert_int_equal(lava_id_add(id, "more"), LAVA_ID_MAX);
	assert_int_equal(id[LAVA_ID_MAX - 1], 'a');
}

static void test_claim_makes_collisions_unique(void **state)
{
	(void)state;
	uint64_t slots[64];
	struct lava_ids ids;
	char a[LAVA_ID_MAX + 1], b[LAVA_ID_MAX + 1], c[LAVA_ID_MAX + 1], d[LAVA_ID_MAX + 1];
	lava_ids_init(&ids, slots, 64);
	/* three names that come out alike, and one that is what the second became */
	id_of(a, "a b>c", NULL);
	id_of(b, "a>b c", NULL);
	id_of(d, "a_b_c_2", NULL);
	id_of(c, "A B C", NULL);
	assert_int_equal(lava_id_claim(&ids, a), 0);
	assert_int_equal(lava_id_claim(&ids, b), 0);
	assert_int_equal(lava_id_claim(&ids, d), 0);
	assert_int_equal(lava_id_claim(&ids, c), 0);
	assert_string_equal(a, "a_b_c");
	assert_string_equal(b, "a_b_c_2");
	assert_string_equal(d, "a_b_c_2_2");
	assert_string_equal(c, "a_b_c_3");
}

static void test_claim_long_ids_keep_the_limit(void **state)
{
	(void)state;
	uint64_t slots[64];
	struct lava_ids ids;
	char first[LAVA_ID_MAX + 1] = "", id[LAVA_ID_MAX + 1], long_name[200];
	memset(long_name, 'q', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = 0;
	lava_ids_init(&ids, slots, 64);
	lava_id_add(first, long_name);
	assert_int_equal(lava_id_claim(&ids, first), 0);
	for (unsigned i = 2; i <= 12; i++) {
		char want[16];
		id[0] = 0;
		lava_id_add(id, long_name);
		assert_int_equal(lava_id_claim(&ids, id), 0);
		assert_int_equal(strlen(id), LAVA_ID_MAX);
		snprintf(want, sizeof(want), "_%u", i);
		assert_string_equal(id + LAVA_ID_MAX - strlen(want), want);
	}
}

static void test_claim_table_full(void **state)
{
	(void)state;
	uint64_t slots[8];
	struct lava_ids ids;
	char id[LAVA_ID_MAX + 1];
	lava_ids_init(&ids, slots, 8);
	assert_int_equal(lava_ids_capacity(&ids), 6);
	for (unsigned i = 0; i < 6; i++) {
		strcpy(id, "same");
		assert_int_equal(lava_id_claim(&ids, id), 0);
	}
	assert_string_equal(id, "same_6");
	strcpy(id, "other");
	assert_int_equal(lava_id_claim(&ids, id), -1);
}

/* Many ids, many alike: none given twice (checked by comparing them all). */
static void test_claim_many_distinct(void **state)
{
	(void)state;
	enum { N = 3000 };
	static uint64_t slots[4096];
	static char got[N][LAVA_ID_MAX + 1];
	struct lava_ids ids;
	lava_ids_init(&ids, slots, 4096);
	for (unsigned i = 0; i < N; i++) {
		char name[32];
		snprintf(name, sizeof(name), i % 3 ? "ev%u" : "ev%u_2", i / 7);
		got[i][0] = 0;
		lava_id_add(got[i], name);
		assert_int_equal(lava_id_claim(&ids, got[i]), 0);
	}
	for (unsigned i = 0; i < N; i++)
		for (unsigned j = i + 1; j < N; j++)
			if (!strcmp(got[i], got[j]))
				fail_msg("%s given twice (%u, %u)", got[i], i, j);
}

static void match_line(const char *line, const char *id, const char *result, const char *m,
		       const char *u)
{
	regex_t re;
	regmatch_t g[6];
	assert_int_equal(regcomp(&re, PATTERN, REG_EXTENDED), 0);
	int r = regexec(&re, line, 6, g, 0);
	regfree(&re);
	if (r)
		fail_msg("pattern does not match: %s", line);
	assert_int_equal(g[1].rm_eo - g[1].rm_so, strlen(id));
	assert_memory_equal(line + g[1].rm_so, id, strlen(id));
	assert_memory_equal(line + g[2].rm_so, result, strlen(result));
	if (!m) {
		assert_int_equal(g[3].rm_so, -1);
		assert_int_equal(g[5].rm_eo - g[5].rm_so, 0);
		return;
	}
	assert_int_equal(g[4].rm_eo - g[4].rm_so, strlen(m));
	assert_memory_equal(line + g[4].rm_so, m, strlen(m));
	assert_int_equal(g[5].rm_eo - g[5].rm_so, strlen(u));
	assert_memory_equal(line + g[5].rm_so, u, strlen(u));
}

static void test_line_forms(void **state)
{
	(void)state;
	char line[LAVA_LINE_MAX];
	assert_true(lava_testcase_line(line, sizeof(line), "add_chain_cpl0_tsc", LAVA_PASS,
				       "7.031", "ticks/iter") > 0);
	assert_string_equal(line, "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=add_chain_cpl0_tsc "
			    "RESULT=pass MEASUREMENT=7.031 UNITS=ticks/iter>\n");
	match_line(line, "add_chain_cpl0_tsc", "pass", "7.031", "ticks/iter");
	assert_true(lava_testcase_line(line, sizeof(line), "selftest_x", LAVA_FAIL, NULL, NULL) > 0);
	assert_string_equal(line, "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=selftest_x RESULT=fail>\n");
	match_line(line, "selftest_x", "fail", NULL, NULL);
	assert_true(lava_testcase_line(line, sizeof(line), "s", LAVA_SKIP, "", "u") > 0);
	assert_string_equal(line, "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=s RESULT=skip>\n");
}

/* Whatever the caller hands over, the line stays one the pattern reads. */
static void test_line_odd_input(void **state)
{
	(void)state;
	char line[LAVA_LINE_MAX];
	assert_true(lava_testcase_line(line, sizeof(line), "a b>c", LAVA_PASS, "1 >2", "x y>") > 0);
	match_line(line, "a_b_c", "pass", "1__2", "x_y_");
	assert_true(lava_testcase_line(line, sizeof(line), ">>", LAVA_PASS, "-3.5", "") > 0);
	match_line(line, "unnamed", "pass", "-3.5", "none");
	char big[300];
	memset(big, '9', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	assert_true(lava_testcase_line(line, sizeof(line), big, LAVA_PASS, big, big) > 0);
	assert_int_equal(strchr(line, '\n')[1], 0);
}

static void test_line_small_buffer(void **state)
{
	(void)state;
	char line[20];
	assert_int_equal(lava_testcase_line(line, sizeof(line), "abc", LAVA_PASS, NULL, NULL), -1);
	assert_string_equal(line, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_id_parts_joined),
		cmocka_unit_test(test_id_odd_characters),
		cmocka_unit_test(test_id_cut_to_the_limit),
		cmocka_unit_test(test_claim_makes_collisions_unique),
		cmocka_unit_test(test_claim_long_ids_keep_the_limit),
		cmocka_unit_test(test_claim_table_full),
		cmocka_unit_test(test_claim_many_distinct),
		cmocka_unit_test(test_line_forms),
		cmocka_unit_test(test_line_odd_input),
		cmocka_unit_test(test_line_small_buffer),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
