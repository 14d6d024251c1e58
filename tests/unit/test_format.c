/* lib/format.c against the host C library's snprintf, which defines the expected output
 * for every conversion bareperf shares with C; %p and unknown conversions differ by design. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <limits.h>
#include <cmocka.h>
#include "lib/format.h"
#include "lib/util.h"

static const long long sample_values[] = {
	0, 1, -1, 7, 8, 9, 10, -10, 15, 16, 127, 128, -128, 255, 256, 0x7fff, -0x8000,
	65535, 65536, INT_MAX, INT_MIN, (long long)UINT_MAX, 12345678901LL, -987654321012LL,
	INT64_MAX, INT64_MIN, (long long)0x8000000000000000ull + 1,
};

static const char *const flag_sets[] = {
	"", "-", "0", "+", " ", "#", "-0", "+0", " 0", "#0", "-+", "- ", "-#", "+ ", "#+",
	"-0+", "0+ #", "-0+ #", "0#",
};
static const char *const widths[] = { "", "1", "5", "12", "25" };
static const char *const precisions[] = { "", ".", ".0", ".1", ".3", ".12", ".22", ".30" };
static const char *const lengths[] = { "", "hh", "h", "l", "ll", "z", "j", "t" };
static const char convs[] = "diuxXo";

static int mismatches;

static void compare(const char *fmt, const char *want, int want_n, const char *got, int got_n)
{
	if (strcmp(want, got) != 0 || want_n != got_n) {
		if (mismatches < 20)
			print_error("format \"%s\": libc \"%s\" (%d), bareperf \"%s\" (%d)\n",
				    fmt, want, want_n, got, got_n);
		mismatches++;
	}
}

/* Passes v as the type the length modifier says and compares both implementations. */
static void check_integer(const char *fmt, const char *len, long long v)
{
	char want[256], got[256];
	int want_n, got_n;

	if (len[0] == '\0' || len[0] == 'h') {
		want_n = snprintf(want, sizeof(want), fmt, (int)v);
		got_n = bp_snprintf(got, sizeof(got), fmt, (int)v);
	} else if (len[0] == 'z') {
		want_n = snprintf(want, sizeof(want), fmt, (size_t)v);
		got_n = bp_snprintf(got, sizeof(got), fmt, (size_t)v);
	} else if (len[0] == 'j') {
		want_n = snprintf(want, sizeof(want), fmt, (intmax_t)v);
		got_n = bp_snprintf(got, sizeof(got), fmt, (intmax_t)v);
	} else if (len[0] == 't') {
		want_n = snprintf(want, sizeof(want), fmt, (ptrdiff_t)v);
		got_n = bp_snprintf(got, sizeof(got), fmt, (ptrdiff_t)v);
	} else if (len[0] == 'l' && len[1] == '\0') {
		want_n = snprintf(want, sizeof(want), fmt, (long)v);
		got_n = bp_snprintf(got, sizeof(got), fmt, (long)v);
	} else {
		want_n = snprintf(want, sizeof(want), fmt, v);
		got_n = bp_snprintf(got, sizeof(got), fmt, v);
	}
	compare(fmt, want, want_n, got, got_n);
}

static void test_integer_table(void **state)
{
	(void)state;
	char fmt[64];
	unsigned cases = 0;

	mismatches = 0;
	for (size_t f = 0; f < ARRAY_SIZE(flag_sets); f++)
	for (size_t w = 0; w < ARRAY_SIZE(widths); w++)
	for (size_t p = 0; p < ARRAY_SIZE(precisions); p++)
	for (size_t l = 0; l < ARRAY_SIZE(lengths); l++)
	for (size_t c = 0; convs[c]; c++) {
		snprintf(fmt, sizeof(fmt), "[%%%s%s%s%s%c]", flag_sets[f], widths[w],
			 precisions[p], lengths[l], convs[c]);
		for (size_t v = 0; v < ARRAY_SIZE(sample_values); v++) {
			check_integer(fmt, lengths[l], sample_values[v]);
			cases++;
		}
	}
	print_message("%u integer cases compared with libc\n", cases);
	assert_int_equal(mismatches, 0);
}

static void test_star_width_precision(void **state)
{
	(void)state;
	static const int stars[] = { -30, -7, -1, 0, 1, 3, 9, 40 };
	char want[256], got[256];

	mismatches = 0;
	for (size_t w = 0; w < ARRAY_SIZE(stars); w++)
	for (size_t p = 0; p < ARRAY_SIZE(stars); p++)
	for (size_t v = 0; v < ARRAY_SIZE(sample_values); v++) {
		long long x = sample_values[v];
		int wn = snprintf(want, sizeof(want), "%*.*lld|%-*.*llx|%0*lld|%*s|%.*s",
				  stars[w], stars[p], x, stars[w], stars[p], x, stars[w], x,
				  stars[p], "abc", stars[w] < 0 ? 0 : stars[w], "truncated");
		int gn = bp_snprintf(got, sizeof(got), "%*.*lld|%-*.*llx|%0*lld|%*s|%.*s",
				     stars[w], stars[p], x, stars[w], stars[p], x, stars[w], x,
				     stars[p], "abc", stars[w] < 0 ? 0 : stars[w], "truncated");
		compare("star", want, wn, got, gn);
	}
	assert_int_equal(mismatches, 0);
}

static void test_text_conversions(void **state)
{
	(void)state;
	static const char *const fmts[] = {
		"%s", "%10s", "%-10s", "%.2s", "%10.2s", "%-10.0s", "%.40s", "%1s", "<%s>",
	};
	static const char *const strs[] = { "", "a", "hello", "a longer string of text" };
	char want[128], got[128];

	mismatches = 0;
	for (size_t f = 0; f < ARRAY_SIZE(fmts); f++)
		for (size_t s = 0; s < ARRAY_SIZE(strs); s++) {
			int wn = snprintf(want, sizeof(want), fmts[f], strs[s]);
			int gn = bp_snprintf(got, sizeof(got), fmts[f], strs[s]);
			compare(fmts[f], want, wn, got, gn);
		}
	static const char *const cfmts[] = { "%c", "%3c", "%-3c|", "x%cy" };
	static const int chars[] = { 'A', 'z', ' ', '%', 0x1ff /* converts to 0xff */ };
	for (size_t f = 0; f < ARRAY_SIZE(cfmts); f++)
		for (size_t c = 0; c < ARRAY_SIZE(chars); c++) {
			int wn = snprintf(want, sizeof(want), cfmts[f], chars[c]);
			int gn = bp_snprintf(got, sizeof(got), cfmts[f], chars[c]);
			compare(cfmts[f], want, wn, got, gn);
		}
	int wn = snprintf(want, sizeof(want), "100%% %d%%", 5);
	int gn = bp_snprintf(got, sizeof(got), "100%% %d%%", 5);
	compare("percent", want, wn, got, gn);
	assert_int_equal(mismatches, 0);
}

/* Formats (and arguments) that -Wformat would reject go through a variable so the compiler lets them pass. */
static int format_runtime(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = bp_vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

static void test_null_string_and_nul_char(void **state)
{
	(void)state;
	char buf[32];
	const char *null_str = NULL;

	assert_int_equal(format_runtime(buf, sizeof(buf), "[%s]", null_str), 8);
	assert_string_equal(buf, "[(null)]");
	/* %.Ns must not read past N characters of an unterminated array. */
	char unterminated[3] = { 'a', 'b', 'c' };
	assert_int_equal(bp_snprintf(buf, sizeof(buf), "%.3s", unterminated), 3);
	assert_string_equal(buf, "abc");
	/* A NUL character counts and is stored. */
	assert_int_equal(bp_snprintf(buf, sizeof(buf), "a%cb", 0), 3);
	assert_int_equal(buf[0], 'a');
	assert_int_equal(buf[1], '\0');
	assert_int_equal(buf[2], 'b');
}

static void test_pointer(void **state)
{
	(void)state;
	char buf[64];

	assert_int_equal(bp_snprintf(buf, sizeof(buf), "%p", (void *)0x1234), 18);
	assert_string_equal(buf, "0x0000000000001234");
	bp_snprintf(buf, sizeof(buf), "%p", (void *)NULL);
	assert_string_equal(buf, "0x0000000000000000");
	bp_snprintf(buf, sizeof(buf), "%p", (void *)UINTPTR_MAX);
	assert_string_equal(buf, "0xffffffffffffffff");
	bp_snprintf(buf, sizeof(buf), "[%20p]", (void *)0xabcdefull);
	assert_string_equal(buf, "[  0x0000000000abcdef]");
	bp_snprintf(buf, sizeof(buf), "[%-20p]", (void *)0xffffffff80001000ull);
	assert_string_equal(buf, "[0xffffffff80001000  ]");
	/* A real address agrees with libc's digits. */
	int local;
	char want[64];
	snprintf(want, sizeof(want), "0x%016llx", (unsigned long long)(uintptr_t)&local);
	bp_snprintf(buf, sizeof(buf), "%p", (void *)&local);
	assert_string_equal(buf, want);
}

static void test_unknown_conversion(void **state)
{
	(void)state;
	char buf[64];
	const char *fmt;

	fmt = "%q";
	assert_int_equal(format_runtime(buf, sizeof(buf), fmt, 42), 2);
	assert_string_equal(buf, "%q");
	/* The unknown conversion consumes nothing: %d still gets the first argument. */
	fmt = "a%qb%d";
	format_runtime(buf, sizeof(buf), fmt, 42);
	assert_string_equal(buf, "a%qb42");
	fmt = "%-08.3lk|%*w|%d";
	format_runtime(buf, sizeof(buf), fmt, 7);
	assert_string_equal(buf, "%-08.3lk|%*w|7");
	fmt = "end%";
	assert_int_equal(format_runtime(buf, sizeof(buf), fmt), 4);
	assert_string_equal(buf, "end%");
	fmt = "end%5";
	format_runtime(buf, sizeof(buf), fmt);
	assert_string_equal(buf, "end%5");
}

static void test_truncation_and_return(void **state)
{
	(void)state;
	char buf[8];

	memset(buf, 'x', sizeof(buf));
	assert_int_equal(bp_snprintf(buf, 5, "%s=%d", "abc", 12345), 9);
	assert_string_equal(buf, "abc=");
	assert_int_equal(buf[5], 'x');         /* nothing written past size */
	memset(buf, 'x', sizeof(buf));
	assert_int_equal(bp_snprintf(buf, 1, "hello"), 5);
	assert_int_equal(buf[0], '\0');
	assert_int_equal(buf[1], 'x');
	assert_int_equal(bp_snprintf(NULL, 0, "%lld", (long long)INT64_MIN), 20);
	assert_int_equal(bp_snprintf(buf, sizeof(buf), "%s", "1234567"), 7);
	assert_string_equal(buf, "1234567");
	assert_int_equal(bp_snprintf(buf, sizeof(buf), "%s", "12345678"), 8);
	assert_string_equal(buf, "1234567");
}

struct collect {
	char text[64];
	unsigned calls;
};

static void collect_putc(void *ctx, char c)
{
	struct collect *cl = ctx;
	if (cl->calls < sizeof(cl->text) - 1)
		cl->text[cl->calls] = c;
	cl->calls++;
}

static void test_fmt_format_sink(void **state)
{
	(void)state;
	struct collect cl = { .calls = 0 };

	int n = fmt_format(collect_putc, &cl, "%s:%05d:%#x", "cpu", -42, 255u);
	assert_int_equal(n, 14);
	assert_int_equal(cl.calls, 14);
	cl.text[cl.calls] = '\0';
	assert_string_equal(cl.text, "cpu:-0042:0xff");
}

/* A message too long for its buffer ends at a whole word and "...", never mid-word (issue
 * 32: "... did not finish w; run 2 ... is torn"). */
static void test_cut_at_word(void **state)
{
	char buf[32];
	(void)state;

	assert_int_equal(fmt_text(buf, sizeof(buf), "a transfer on endpoint %u did not finish within %u polls", 0u,
				  5000000u), 60);
	assert_string_equal(buf, "a transfer on endpoint 0 did...");
	/* a separator does not dangle before the mark */
	assert_int_equal(fmt_error(buf, sizeof(buf), "%s; the reset recovery failed", "stalled endpoint"), -1);
	assert_string_equal(buf, "stalled endpoint; the reset...");
	fmt_text(buf, 24, "endpoint 0 stalled; the reset failed");
	assert_string_equal(buf, "endpoint 0 stalled...");
	/* what fits is untouched */
	assert_int_equal(fmt_text(buf, sizeof(buf), "%s", "short enough"), 12);
	assert_string_equal(buf, "short enough");
	fmt_text(buf, 13, "%s", "exactly fits");
	assert_string_equal(buf, "exactly fits");
	/* one word longer than the buffer is cut in it, still marked */
	fmt_text(buf, 10, "%s", "0123456789abcdef");
	assert_string_equal(buf, "012345...");
	/* appending: the whole text is cut at a word */
	strcpy(buf, "WRITE(10): timeout");
	fmt_append(buf, sizeof(buf), "; the reset recovery failed too: %s", "gone");
	assert_string_equal(buf, "WRITE(10): timeout; the...");
	/* a text cut once is not marked twice when more is appended */
	fmt_text(buf, sizeof(buf), "%s", "endpoint 0 stalled; the reset failed as well");
	assert_string_equal(buf, "endpoint 0 stalled; the...");
	fmt_append(buf, sizeof(buf), "; %s", "more");
	assert_string_equal(buf, "endpoint 0 stalled; the...");
	strcpy(buf, "fits");
	assert_int_equal(fmt_append(buf, sizeof(buf), " %s", "too"), 4);
	assert_string_equal(buf, "fits too");
	/* every cut of a long message leaves whole words */
	static const char msg[] = "timeout: a transfer on endpoint 0 did not finish within 5000000 polls";
	for (size_t size = 5; size <= sizeof(msg); size++) {
		char out[sizeof(msg)];
		fmt_text(out, size, "%s", msg);
		assert_true(strlen(out) < size);
		if (size == sizeof(msg)) {
			assert_string_equal(out, msg);
			continue;
		}
		size_t keep = strlen(out) - 3;
		assert_string_equal(out + keep, "...");
		assert_memory_equal(out, msg, keep);
		/* the kept text ends where a word of msg ends (or the text is one cut word) */
		if (memchr(msg, ' ', size - 4))
			assert_true(msg[keep] == ' ' || msg[keep] == ';' || msg[keep] == ':');
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_integer_table),
		cmocka_unit_test(test_star_width_precision),
		cmocka_unit_test(test_text_conversions),
		cmocka_unit_test(test_null_string_and_nul_char),
		cmocka_unit_test(test_pointer),
		cmocka_unit_test(test_unknown_conversion),
		cmocka_unit_test(test_truncation_and_return),
		cmocka_unit_test(test_fmt_format_sink),
		cmocka_unit_test(test_cut_at_word),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
