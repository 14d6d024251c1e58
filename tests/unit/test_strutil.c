/* lib/strutil.c: case-insensitive compare, bounded copy, number parsing, glob, edit distance. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <fnmatch.h>
#include <cmocka.h>
#include "lib/str.h"
#include "lib/util.h"

/* The kernel's own libc replacements (lib/string.c, not in the host library), compiled
 * here under other names so they can be compared with the host's. */
#define memcpy  kernel_memcpy
#define memmove kernel_memmove
#define memset  kernel_memset
#define memcmp  kernel_memcmp
#define strlen  kernel_strlen
#define strnlen kernel_strnlen
#define strcmp  kernel_strcmp
#define strncmp kernel_strncmp
#define strchr  kernel_strchr
#include "lib/string.c"
#undef memcpy
#undef memmove
#undef memset
#undef memcmp
#undef strlen
#undef strnlen
#undef strcmp
#undef strncmp
#undef strchr

static int sign_of(int v)
{
	return (v > 0) - (v < 0);
}

static void test_casecmp(void **state)
{
	(void)state;
	assert_int_equal(str_casecmp("Cycles", "cYCLES"), 0);
	assert_true(str_casecmp("abc", "abd") < 0);
	assert_true(str_casecmp("ABD", "abc") > 0);
	assert_true(str_casecmp("ab", "abc") < 0);
	assert_true(str_casecmp("abc", "AB") > 0);
	assert_int_equal(str_casecmp("", ""), 0);
	assert_int_equal(str_ncasecmp("skl::INST", "SKL::cycles", 5), 0);
	assert_true(str_ncasecmp("skl::INST", "SKL::cycles", 6) > 0);
	assert_int_equal(str_ncasecmp("a", "b", 0), 0);
	/* The sign agrees with the C library's strcasecmp over many ASCII pairs. */
	static const char *const words[] = { "", "a", "A", "ab", "aB", "b", "[", "_", "Z", "z",
					     "mem_", "MEM_chain", "mem_Chain", "\x7f", "0x3F8" };
	size_t nw = ARRAY_SIZE(words);
	for (size_t i = 0; i < nw; i++)
		for (size_t j = 0; j < nw; j++)
			assert_int_equal(sign_of(str_casecmp(words[i], words[j])),
					 sign_of(strcasecmp(words[i], words[j])));
}

static void test_copy(void **state)
{
	(void)state;
	char buf[6];

	memset(buf, 'x', sizeof(buf));
	assert_int_equal(str_copy(buf, "hello world", 6), 11);
	assert_string_equal(buf, "hello");
	assert_int_equal(str_copy(buf, "hi", 6), 2);
	assert_string_equal(buf, "hi");
	memset(buf, 'x', sizeof(buf));
	assert_int_equal(str_copy(buf, "abc", 0), 3);
	assert_int_equal(buf[0], 'x');
	assert_int_equal(str_copy(buf, "abc", 1), 3);
	assert_int_equal(buf[0], '\0');
	assert_int_equal(buf[1], 'x');
}

static int parse(const char *s, uint64_t *out)
{
	*out = 0xdeadbeef;
	return str_to_u64(s, strlen(s), out);
}

static void test_to_u64(void **state)
{
	(void)state;
	uint64_t v;

	assert_int_equal(parse("0", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(parse("115200", &v), 0);
	assert_int_equal(v, 115200);
	assert_int_equal(parse("0x3f8", &v), 0);
	assert_int_equal(v, 0x3f8);
	assert_int_equal(parse("0X3F8", &v), 0);
	assert_int_equal(v, 0x3f8);
	assert_int_equal(parse("0b1011", &v), 0);
	assert_int_equal(v, 11);
	assert_int_equal(parse("007", &v), 0);
	assert_int_equal(v, 7);
	assert_int_equal(parse("18446744073709551615", &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(parse("0xffffffffffffffff", &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(parse("0b1111111111111111111111111111111111111111111111111111111111111111",
			       &v), 0);
	assert_true(v == UINT64_MAX);

	static const char *const bad[] = {
		"", "0x", "0b", "-1", "+1", " 1", "1 ", "12a", "0x1g", "0b102", "1.5",
		"18446744073709551616", "99999999999999999999", "0x10000000000000000",
		"0b11111111111111111111111111111111111111111111111111111111111111111", "x10",
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		assert_int_equal(parse(bad[i], &v), -1);
		assert_true(v == 0xdeadbeef);   /* untouched on error */
	}
	/* Only len characters are looked at: "1234" with len 2 is 12, and a NUL inside
	 * the counted span is a syntax error. */
	assert_int_equal(str_to_u64("1234", 2, &v), 0);
	assert_int_equal(v, 12);
	assert_int_equal(str_to_u64("12\0" "4", 4, &v), -1);

	/* Every value that strtoull accepts in decimal round-trips. */
	srand(7);
	for (int i = 0; i < 10000; i++) {
		uint64_t x = ((uint64_t)rand() << 42) ^ ((uint64_t)rand() << 21) ^ (uint64_t)rand();
		char text[32];
		snprintf(text, sizeof(text), i % 2 ? "%llu" : "0x%llx", (unsigned long long)x);
		assert_int_equal(parse(text, &v), 0);
		assert_true(v == x);
	}
}

/* Rows of s wrapped at width, joined by '|'. */
static const char *wrapped(const char *s, size_t width)
{
	static char out[512];
	size_t o = 0, at = 0, next;
	while (s[at]) {
		size_t n = str_wrap(s + at, width, &next);
		assert_true(n <= width);
		assert_true(next > 0);          /* every row moves on */
		if (o)
			out[o++] = '|';
		memcpy(out + o, s + at, n);
		o += n;
		at += next;
	}
	out[o] = 0;
	return out;
}

static void test_wrap(void **state)
{
	(void)state;
	assert_string_equal(wrapped("short", 10), "short");
	assert_string_equal(wrapped("one two three four", 9), "one two|three|four");
	assert_string_equal(wrapped("one two three", 7), "one two|three");    /* a space at the width */
	assert_string_equal(wrapped("one  two", 4), "one|two");               /* spaces at the break */
	assert_string_equal(wrapped("abcdefghij xy", 4), "abcd|efgh|ij|xy");  /* a word wider than a row */
	assert_string_equal(wrapped("a b", 1), "a|b");
	size_t next;
	assert_int_equal(str_wrap("abc", 0, &next), 0);
	assert_int_equal(next, 3);
	assert_int_equal(str_wrap("", 5, &next), 0);
	assert_int_equal(next, 0);
	/* a 300-character note at 100 columns: 4 rows, none over 100, the words kept whole */
	char note[301];
	for (int i = 0; i < 300; i++)
		note[i] = i % 7 == 6 ? ' ' : 'a' + i % 7;
	note[300] = 0;
	const char *w = wrapped(note, 100);
	unsigned rows = 1;
	for (const char *p = w; *p; p++)
		rows += *p == '|';
	assert_int_equal(rows, 4);
	assert_null(strstr(w, "a|b"));
}

static void test_glob(void **state)
{
	(void)state;
	assert_true(str_glob_match("mem_*", "mem_chain"));
	assert_true(str_glob_match("mem_*", "mem_"));
	assert_false(str_glob_match("mem_*", "me"));
	assert_true(str_glob_match("*", ""));
	assert_true(str_glob_match("", ""));
	assert_false(str_glob_match("", "a"));
	assert_true(str_glob_match("a?c", "abc"));
	assert_false(str_glob_match("a?c", "ac"));
	assert_true(str_glob_match("*chain*", "add_chain_long"));
	assert_true(str_glob_match("a*b*c", "axxbyyc"));
	assert_false(str_glob_match("a*b*c", "axxbyy"));
	assert_true(str_glob_match("*ab", "aaab"));
	assert_false(str_glob_match("Mem_*", "mem_chain"));   /* case-sensitive */

	/* Agreement with fnmatch on every pattern/string pair from a small alphabet. */
	static const char *const pats[] = { "*", "?", "a*", "*a", "a?b", "*ab*", "a*a*a", "??",
					    "*?*", "b*a?", "ab", "a**b", "" };
	static const char *const strs[] = { "", "a", "b", "ab", "ba", "aab", "abab", "aaa",
					    "bab", "abba", "aaaa", "baab" };
	for (size_t p = 0; p < ARRAY_SIZE(pats); p++)
		for (size_t s = 0; s < ARRAY_SIZE(strs); s++) {
			int want = fnmatch(pats[p], strs[s], 0) == 0;
			if (str_glob_match(pats[p], strs[s]) != want)
				fail_msg("glob '%s' on '%s': want %d", pats[p], strs[s], want);
		}
}

/* Full-matrix Levenshtein, the textbook definition, for comparison. */
static unsigned levenshtein_reference(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned *d = calloc((la + 1) * (lb + 1), sizeof(*d));
	assert_non_null(d);
	for (size_t i = 0; i <= la; i++)
		d[i * (lb + 1)] = (unsigned)i;
	for (size_t j = 0; j <= lb; j++)
		d[j] = (unsigned)j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			unsigned best = d[(i - 1) * (lb + 1) + j - 1] + (a[i - 1] != b[j - 1]);
			unsigned del = d[(i - 1) * (lb + 1) + j] + 1;
			unsigned ins = d[i * (lb + 1) + j - 1] + 1;
			if (del < best)
				best = del;
			if (ins < best)
				best = ins;
			d[i * (lb + 1) + j] = best;
		}
	unsigned r = d[la * (lb + 1) + lb];
	free(d);
	return r > 255 ? 255 : r;
}

static void random_word(char *buf, size_t len, const char *alphabet)
{
	size_t na = strlen(alphabet);
	for (size_t i = 0; i < len; i++)
		buf[i] = alphabet[(size_t)rand() % na];
	buf[len] = '\0';
}

static void test_edit_distance(void **state)
{
	(void)state;
	assert_int_equal(str_edit_distance("reps", "reps"), 0);
	assert_int_equal(str_edit_distance("rep", "reps"), 1);
	assert_int_equal(str_edit_distance("kitten", "sitting"), 3);
	assert_int_equal(str_edit_distance("", "warmup"), 6);
	assert_int_equal(str_edit_distance("iters", ""), 5);
	assert_int_equal(str_edit_distance("flaw", "lawn"), 2);

	srand(11);
	char a[700], b[700];
	for (int i = 0; i < 3000; i++) {
		random_word(a, (size_t)rand() % 12, "abc");
		random_word(b, (size_t)rand() % 12, "abc");
		assert_int_equal(str_edit_distance(a, b), levenshtein_reference(a, b));
	}
	/* Long strings exercise the band and the cap at 255. */
	for (int i = 0; i < 40; i++) {
		random_word(a, 200 + (size_t)rand() % 400, "ab");
		random_word(b, 200 + (size_t)rand() % 400, "abcd");
		assert_int_equal(str_edit_distance(a, b), levenshtein_reference(a, b));
	}
	memset(a, 'x', 600);
	a[600] = '\0';
	assert_int_equal(str_edit_distance(a, ""), 255);
	assert_int_equal(str_edit_distance("", a), 255);
	memset(b, 'y', 300);
	b[300] = '\0';
	assert_int_equal(str_edit_distance(a + 300, b), 255);     /* 300 substitutions */
	b[250] = '\0';
	assert_int_equal(str_edit_distance(a + 350, b), 250);
	memcpy(b, a, 400);
	b[400] = '\0';
	b[17] = 'q';
	assert_int_equal(str_edit_distance(a, b), 201);     /* 200 deletions + 1 */
}

static void test_case_edit_distance(void **state)
{
	(void)state;
	assert_int_equal(str_case_edit_distance("INST_RETIRED", "inst_retired"), 0);
	assert_int_equal(str_case_edit_distance("Any_p", "ANY_Q"), 1);
	assert_int_equal(str_edit_distance("Any_p", "ANY_P"), 3);
	/* Only letters fold: '_' is not '?' + 32, '[' is not '{'. */
	assert_int_equal(str_case_edit_distance("[", "{"), 1);
	assert_int_equal(str_case_edit_distance("_", "\x7f"), 1);
}

static const char *const keys[] = { "reps", "warmup", "watchdog", "rep_s", "reps" };
#define NKEYS (sizeof(keys) / sizeof(keys[0]))

static void test_nearest_in(void **state)
{
	(void)state;
	assert_string_equal(str_nearest_in("rep", keys, NKEYS, 2, 0), "reps");
	assert_ptr_equal(str_nearest_in("rep", keys, NKEYS, 2, 0), keys[0]);  /* first of a tie */
	assert_ptr_equal(str_nearest_in("reps", keys, NKEYS, 2, 0), keys[0]); /* exact, first */
	assert_string_equal(str_nearest_in("watchdg", keys, NKEYS, 2, 0), "watchdog");
	assert_string_equal(str_nearest_in("wamup", keys, NKEYS, 1, 0), "warmup");
	/* max_dist is inclusive. */
	assert_null(str_nearest_in("wa", keys, NKEYS, 3, 0));
	assert_ptr_equal(str_nearest_in("wa", keys, NKEYS, 4, 0), keys[0]);   /* 4 from reps, warmup */
	assert_null(str_nearest_in("zzzz", keys, NKEYS, 3, 0));
	assert_null(str_nearest_in("rep", keys, 0, 2, 0));
	/* A later, nearer candidate wins over an earlier one. */
	assert_string_equal(str_nearest_in("rep_x", keys, NKEYS, 3, 0), "rep_s");
	/* Case folding is asked for, not assumed. */
	assert_null(str_nearest_in("WARMUP", keys, NKEYS, 2, 0));
	assert_string_equal(str_nearest_in("WARMUP", keys, NKEYS, 2, STR_NEAREST_FOLD_CASE),
			    "warmup");
}

static const char *const modes[] = { "step", "off" };

static void test_nearest_length_limits(void **state)
{
	(void)state;
	/* "on" is 2 edits from "off": below off's length, not below the word's. */
	assert_string_equal(str_nearest_in("on", modes, 2, 2, 0), "off");
	assert_string_equal(str_nearest_in("on", modes, 2, 2, STR_NEAREST_BELOW_NAME_LEN), "off");
	assert_null(str_nearest_in("on", modes, 2, 2, STR_NEAREST_BELOW_WORD_LEN));
	/* "x" is 1 edit from "xy": below the word's length fails, below the name's passes. */
	static const char *const xy[] = { "xy" };
	assert_null(str_nearest_in("x", xy, 1, 2, STR_NEAREST_BELOW_WORD_LEN));
	assert_string_equal(str_nearest_in("x", xy, 1, 2, STR_NEAREST_BELOW_NAME_LEN), "xy");
	/* A candidate that fails a length rule does not hide a farther one that passes. */
	static const char *const ab[] = { "a", "abcd" };
	assert_string_equal(str_nearest_in("abc", ab, 2, 2, STR_NEAREST_BELOW_NAME_LEN), "abcd");
	assert_string_equal(str_nearest_in("abc", ab, 2, 2, 0), "abcd");
	assert_string_equal(str_nearest_in("ab", ab, 2, 2, 0), "a");
	assert_string_equal(str_nearest_in("ab", ab, 2, 2, STR_NEAREST_BELOW_NAME_LEN), "abcd");
}

/* A table that is not an array of strings: the callback picks the name field. */
struct row {
	int value;
	const char *name;
};
static const struct row rows[] = { { 1, "cycles" }, { 2, "instructions" }, { 0, NULL } };

static const char *row_name(const void *ctx, size_t i)
{
	const struct row *r = ctx;
	return r[i].name;
}

static unsigned row_calls;
static const char *counted_row_name(const void *ctx, size_t i)
{
	row_calls++;
	return row_name(ctx, i);
}

static void test_nearest_callback(void **state)
{
	(void)state;
	assert_ptr_equal(str_nearest("cycle", row_name, rows, 3, 0), rows[0].name);
	assert_ptr_equal(str_nearest("INSTRUCTION", row_name, rows, 3, STR_NEAREST_FOLD_CASE),
			 rows[1].name);
	assert_null(str_nearest("branches", row_name, rows, 3, 0));
	/* Enumeration stops at the first NULL and asks for nothing past it. */
	row_calls = 0;
	str_nearest("x", counted_row_name, rows, 3, 0);
	assert_int_equal(row_calls, 3);
}

/* The plain dynamic programme, all of the table: what the banded, capped walk must equal. */
static unsigned reference_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned d[24][24];
	for (size_t i = 0; i <= la; i++)
		for (size_t j = 0; j <= lb; j++) {
			if (i == 0 || j == 0) {
				d[i][j] = (unsigned)(i + j);
				continue;
			}
			unsigned sub = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
			unsigned del = d[i - 1][j] + 1, ins = d[i][j - 1] + 1;
			d[i][j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
		}
	return d[la][lb];
}

/* Random words over a small alphabet (so near misses are common): the distance, and the
 * nearest name with every max_dist, as the plain programme and a plain scan find them
 * (the first of the nearest wins). */
static void test_distance_against_reference(void **state)
{
	(void)state;
	static char words[64][24];
	const char *names[64];
	uint32_t seed = 12345;
	for (unsigned w = 0; w < 64; w++) {
		seed = seed * 1103515245u + 12345u;
		unsigned len = (seed >> 16) % 20;
		for (unsigned c = 0; c < len; c++) {
			seed = seed * 1103515245u + 12345u;
			words[w][c] = "abcd"[(seed >> 16) % 4];
		}
		words[w][len] = 0;
		names[w] = words[w];
	}
	for (unsigned i = 0; i < 64; i++) {
		for (unsigned j = 0; j < 64; j++)
			assert_int_equal(str_edit_distance(words[i], words[j]),
					 reference_distance(words[i], words[j]));
		for (unsigned max_dist = 0; max_dist < 8; max_dist++) {
			const char *want = NULL;
			unsigned want_d = 0;
			for (unsigned j = 0; j < 64; j++) {
				if (j == i)
					continue;
				unsigned d = reference_distance(words[i], words[j]);
				if (d <= max_dist && (!want || d < want_d)) {
					want = words[j];
					want_d = d;
				}
			}
			const char *others[63];
			for (unsigned j = 0, n = 0; j < 64; j++)
				if (j != i)
					others[n++] = names[j];
			assert_ptr_equal(str_nearest_in(words[i], others, 63, max_dist, 0), want);
		}
	}
}

static void test_kernel_string_functions(void **state)
{
	(void)state;
	unsigned char a[96], b[96], want[96];

	srand(3);
	for (int round = 0; round < 5000; round++) {
		for (size_t i = 0; i < sizeof(a); i++)
			a[i] = b[i] = want[i] = (unsigned char)(rand() % 4);
		size_t dst = (size_t)rand() % 48, src = (size_t)rand() % 48, n = (size_t)rand() % 48;
		int c = rand() % 300 - 20;
		switch (round % 3) {
		case 0:
			memmove(want + dst, want + src, n);
			assert_ptr_equal(kernel_memmove(a + dst, a + src, n), a + dst);
			break;
		case 1:
			memset(want + dst, c, n);
			assert_ptr_equal(kernel_memset(a + dst, c, n), a + dst);
			break;
		default:
			memcpy(want + dst, b + src, n);
			assert_ptr_equal(kernel_memcpy(a + dst, b + src, n), a + dst);
			break;
		}
		assert_memory_equal(a, want, sizeof(a));
		int want_cmp = memcmp(a, b, n), got_cmp = kernel_memcmp(a, b, n);
		assert_int_equal(sign_of(got_cmp), sign_of(want_cmp));

		char s1[40], s2[40];
		for (size_t i = 0; i < sizeof(s1); i++) {
			s1[i] = (char)("ab\x80"[rand() % 3]);
			s2[i] = (char)("ab\x80"[rand() % 3]);
		}
		s1[rand() % 40] = '\0';
		s2[rand() % 40] = '\0';
		s1[39] = s2[39] = '\0';
		assert_int_equal(kernel_strlen(s1), strlen(s1));
		assert_int_equal(kernel_strnlen(s1, n), strnlen(s1, n));
		assert_int_equal(sign_of(kernel_strcmp(s1, s2)), sign_of(strcmp(s1, s2)));
		assert_int_equal(sign_of(kernel_strncmp(s1, s2, n)), sign_of(strncmp(s1, s2, n)));
		int ch = "ab\x80"[rand() % 3];
		assert_ptr_equal(kernel_strchr(s1, ch), strchr(s1, ch));
		assert_ptr_equal(kernel_strchr(s1, 0), strchr(s1, 0));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_casecmp),
		cmocka_unit_test(test_copy),
		cmocka_unit_test(test_to_u64),
		cmocka_unit_test(test_glob),
		cmocka_unit_test(test_edit_distance),
		cmocka_unit_test(test_case_edit_distance),
		cmocka_unit_test(test_nearest_in),
		cmocka_unit_test(test_nearest_length_limits),
		cmocka_unit_test(test_nearest_callback),
		cmocka_unit_test(test_distance_against_reference),
		cmocka_unit_test(test_kernel_string_functions),
		cmocka_unit_test(test_wrap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
