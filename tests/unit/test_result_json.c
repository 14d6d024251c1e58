/*
 * kernel/result-json.c: the @result and @payload bodies byte for byte as docs/results.md
 * shows them (the examples are read from the document itself), string escaping, 64-bit
 * extremes, and buffers too small. Run from the repository root.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "kernel/result-json.h"

#define RESULTS_MD "docs/results.md"

/* The JSON of each "@tag {...}" example line in docs/results.md, in order. */
static unsigned doc_examples(const char *tag, char out[][1024], unsigned max)
{
	FILE *f = fopen(RESULTS_MD, "r");
	char line[2048], prefix[32];
	unsigned n = 0;
	if (!f)
		fail_msg("cannot open %s (run from the repository root)", RESULTS_MD);
	snprintf(prefix, sizeof(prefix), "@%s {", tag);
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, prefix, strlen(prefix)))
			continue;
		line[strcspn(line, "\n")] = 0;
		assert_true(n < max);
		snprintf(out[n++], 1024, "%s", line + strlen(prefix) - 1);
	}
	fclose(f);
	return n;
}

static const struct payload mem_chase = {
	.name = "mem_chase", .desc = "pointer chase", .insns_per_iter = 3,
	.flags = PL_CPL0 | PL_CPL3 | PL_SIZES,
};

/* The docs' @result example: mem_chase, 64 KiB, CPL 3, TSC, 3 samples of 9600. */
static struct result doc_result(void)
{
	struct result r = {
		.pl = &mem_chase, .size = 65536, .cpl = 3, .group = 0, .source = SRC_TSC,
		.reps = 3, .iters = 100,
		.st = { .n = 3, .trimmed = 0, .min = 9600, .max = 9600, .median_milli = 9600000,
			.mean_milli = 9600000, .stddev_milli = 0 },
		.per_iter_milli = 96000,
	};
	strcpy(r.event, "tsc");
	return r;
}

/* The docs' user-benchmark @result: add rax, 1 unrolled 100 times in a loop of 10, CPL 3,
 * 3 samples of 32000 ticks for 1000 copies. */
static struct result doc_user_result(void)
{
	static const struct cfg_bench asm_bench = { .unroll = 100, .loop = 10 };
	static const struct payload asm_payload = {
		.name = "asm", .flags = PL_CPL0 | PL_CPL3, .user = &asm_bench,
	};
	struct result r = {
		.pl = &asm_payload, .size = 0, .cpl = 3, .group = 0, .source = SRC_TSC,
		.reps = 3, .iters = 1000,
		.st = { .n = 3, .trimmed = 0, .min = 32000, .max = 32000, .median_milli = 32000000,
			.mean_milli = 32000000, .stddev_milli = 0 },
		.per_iter_milli = 32000,
	};
	strcpy(r.event, "tsc");
	return r;
}

static void test_result_matches_docs(void **state)
{
	(void)state;
	static char want[4][1024];
	assert_int_equal(doc_examples("result", want, 4), 2);
	struct result r[2] = { doc_result(), doc_user_result() };
	for (unsigned i = 0; i < 2; i++) {
		char buf[RESULT_JSON_MAX];
		int n = result_json(&r[i], buf, sizeof(buf));
		assert_string_equal(buf, want[i]);
		assert_int_equal(n, (int)strlen(want[i]));
	}
}

static void test_result_fields(void **state)
{
	(void)state;
	struct result r = doc_result();
	char buf[RESULT_JSON_MAX];
	r.source = SRC_STEP;
	strcpy(r.event, "instructions");
	r.group = 2;
	r.st.min = -5;
	r.st.median_milli = -500;          /* negative, below one: "-0.500" */
	r.st.mean_milli = 1;
	r.st.stddev_milli = 123456789;
	r.st.trimmed = 4;
	r.per_iter_milli = -1;
	result_json(&r, buf, sizeof(buf));
	assert_string_equal(buf, "{\"bench\":\"mem_chase\",\"size\":65536,\"cpl\":3,"
			    "\"event\":\"instructions\",\"group\":2,\"source\":\"single-step\","
			    "\"unit\":\"instructions\",\"reps\":3,\"iters\":100,\"insns_per_iter\":3,"
			    "\"min\":-5,\"median\":-0.500,\"mean\":0.001,\"stddev\":123456.789,"
			    "\"max\":9600,\"per_iter\":-0.001,\"trimmed\":4}");
	static const struct { enum result_source s; const char *source, *unit; } names[] = {
		{ SRC_PMU, "pmu", "events" }, { SRC_MSR, "msr", "events" },
		{ SRC_TSC, "tsc", "ticks" }, { SRC_STEP, "single-step", "instructions" },
	};
	for (unsigned i = 0; i < 4; i++) {
		char want[64];
		r.source = names[i].s;
		result_json(&r, buf, sizeof(buf));
		snprintf(want, sizeof(want), "\"source\":\"%s\",\"unit\":\"%s\"", names[i].source,
			 names[i].unit);
		if (!strstr(buf, want))
			fail_msg("no %s in %s", want, buf);
	}
}

/* With more than one CPU up, each result says where it ran and next to what. */
static void test_result_placement(void **state)
{
	(void)state;
	struct result r = doc_result();
	char buf[RESULT_JSON_MAX];
	const char *tail = "\"per_iter\":96.000,\"trimmed\":0,\"cpu\":1,\"partner\":0,"
			   "\"partner_load\":\"spin\"}";
	r.placed = true;
	r.cpu = 1;
	r.partner = 0;
	r.partner_load = "spin";
	int n = result_json(&r, buf, sizeof(buf));
	assert_int_equal(n, (int)strlen(buf));
	assert_string_equal(buf + strlen(buf) - strlen(tail), tail);
	r.partner = -1;
	r.partner_load = 0;
	result_json(&r, buf, sizeof(buf));
	assert_non_null(strstr(buf, ",\"trimmed\":0,\"cpu\":1,\"partner\":null,"
				    "\"partner_load\":null}"));
	r.placed = false;                   /* one CPU: the record as it always was */
	result_json(&r, buf, sizeof(buf));
	assert_null(strstr(buf, "\"cpu\":"));
}

static void test_result_large_values(void **state)
{
	(void)state;
	struct result r = doc_result();
	char buf[RESULT_JSON_MAX];
	r.size = UINT64_MAX;
	r.iters = 1ull << 63;
	r.st.min = INT64_MIN;
	r.st.max = INT64_MAX;
	r.st.median_milli = INT64_MAX;
	r.st.mean_milli = INT64_MIN + 1;
	r.per_iter_milli = 4294967296123ll;   /* past 32 bits */
	result_json(&r, buf, sizeof(buf));
	assert_string_equal(buf, "{\"bench\":\"mem_chase\",\"size\":18446744073709551615,\"cpl\":3,"
			    "\"event\":\"tsc\",\"group\":0,\"source\":\"tsc\",\"unit\":\"ticks\","
			    "\"reps\":3,\"iters\":9223372036854775808,\"insns_per_iter\":3,"
			    "\"min\":-9223372036854775808,\"median\":9223372036854775.807,"
			    "\"mean\":-9223372036854775.807,\"stddev\":0.000,"
			    "\"max\":9223372036854775807,\"per_iter\":4294967296.123,\"trimmed\":0}");
}

static void test_result_escapes_names(void **state)
{
	(void)state;
	static const struct payload odd = { .name = "a\"b", .insns_per_iter = 1, .flags = PL_CPL0 };
	struct result r = doc_result();
	char buf[RESULT_JSON_MAX];
	r.pl = &odd;
	strcpy(r.event, "x\\y\"z\n\t\x01\x1f~\x7f");
	result_json(&r, buf, sizeof(buf));
	assert_non_null(strstr(buf, "{\"bench\":\"a\\\"b\",\"size\":"));
	/* \ and " escaped by a backslash, controls as \u00XX; 0x7f and '~' as they are */
	assert_non_null(strstr(buf, "\"event\":\"x\\\\y\\\"z\\u000a\\u0009\\u0001\\u001f~\x7f\","));
}

static void test_result_longest_event_fits(void **state)
{
	(void)state;
	struct result r = doc_result();
	char buf[RESULT_JSON_MAX];
	/* the worst event name: every character a control character (6 bytes escaped) */
	memset(r.event, '\x02', EV_NAME_MAX - 1);
	r.event[EV_NAME_MAX - 1] = 0;
	r.size = UINT64_MAX;
	r.st.min = INT64_MIN;
	int n = result_json(&r, buf, sizeof(buf));
	assert_true(n > 6 * (EV_NAME_MAX - 1));
	assert_int_equal(n, (int)strlen(buf));
	const char *end = ",\"trimmed\":0}";
	assert_string_equal(buf + n - strlen(end), end);
}

static void test_small_buffers(void **state)
{
	(void)state;
	struct result r = doc_result();
	char full[RESULT_JSON_MAX], buf[RESULT_JSON_MAX];
	int n = result_json(&r, full, sizeof(full));
	assert_true(n > 0);
	/* exactly enough: n characters and the NUL */
	assert_int_equal(result_json(&r, buf, (size_t)n + 1), n);
	assert_string_equal(buf, full);
	/* one byte short, and every shorter size: -1, NUL-terminated, a prefix of the record */
	for (size_t len = (size_t)n; len > 0; len--) {
		memset(buf, 'X', sizeof(buf));
		assert_int_equal(result_json(&r, buf, len), -1);
		assert_true(strlen(buf) < len);
		assert_memory_equal(buf, full, strlen(buf));
	}
	assert_int_equal(result_json(&r, buf, 0), -1);
}

static void test_escape_stops_before_an_escape_is_cut(void **state)
{
	(void)state;
	char buf[16];
	assert_int_equal(json_escape("plain", buf, sizeof(buf)), 5);
	assert_string_equal(buf, "plain");
	assert_int_equal(json_escape("", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	/* a character is taken while 8 bytes are left: 16 bytes take 9 */
	assert_int_equal(json_escape("abcdefghi", buf, 16), 9);
	assert_int_equal(json_escape("abcdefghij", buf, 16), -1);
	assert_string_equal(buf, "abcdefghi");
	/* an escape is written whole or not at all */
	assert_int_equal(json_escape("\x01\x01\x01", buf, 16), -1);
	assert_string_equal(buf, "\\u0001\\u0001");
	assert_int_equal(json_escape("x", buf, 0), -1);
}

/* JSON text is UTF-8: whole characters pass through, every byte that is not part of one
 * (a lone lead or continuation byte, an overlong form, a surrogate, past U+10FFFF, a
 * sequence cut short) becomes U+FFFD, so the record stays valid JSON. */
static void test_escape_keeps_output_utf8(void **state)
{
	(void)state;
	static const struct { const char *in, *out; } cases[] = {
		{ "caf\xc3\xa9", "caf\xc3\xa9" },                     /* é: 2 bytes */
		{ "\xe2\x82\xac \xf0\x9f\x98\x80", "\xe2\x82\xac \xf0\x9f\x98\x80" },
		{ "bench.\xc3", "bench.\\ufffd" },                       /* a lone lead byte */
		{ "\xc3.code", "\\ufffd.code" },                         /* lead, then ASCII */
		{ "\x80x", "\\ufffdx" },                                 /* a lone continuation */
		{ "\xc0\xaf", "\\ufffd\\ufffd" },                      /* overlong '/' */
		{ "\xe0\x80\xaf", "\\ufffd\\ufffd\\ufffd" },         /* overlong, 3 bytes */
		{ "\xed\xa0\x80", "\\ufffd\\ufffd\\ufffd" },         /* surrogate U+D800 */
		{ "\xf4\x90\x80\x80", "\\ufffd\\ufffd\\ufffd\\ufffd" }, /* past U+10FFFF */
		{ "\xe2\x82", "\\ufffd\\ufffd" },                      /* cut short at the end */
		{ "\xff\xfe", "\\ufffd\\ufffd" },
	};
	char buf[64];
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(json_escape(cases[i].in, buf, sizeof(buf)), (int)strlen(cases[i].out));
		assert_string_equal(buf, cases[i].out);
	}
	/* a character is written whole or not at all: 4 bytes of one, 8 bytes of room */
	assert_int_equal(json_escape("ab\xf0\x9f\x98\x80", buf, 9), -1);
	assert_string_equal(buf, "ab");
}

/* Payloads as payloads/catalogue.c declares them, for the docs' @payload examples. */
static const struct payload doc_payloads[] = {
	{ .name = "add_chain", .desc = "8 dependent 64-bit ADDs: ADD latency",
	  .insns_per_iter = 10, .flags = PL_CPL0 | PL_CPL3 },
	{ .name = "popcnt_chain", .desc = "8 dependent POPCNT r64",
	  .insns_per_iter = 10, .flags = PL_CPL0 | PL_CPL3 | PL_NEEDS_POPCNT, .arg = ARG_NONZERO },
	{ .name = "sys_int80", .desc = "INT 0x80/IRETQ round trip (kernel side: iretq)",
	  .insns_per_iter = 3, .flags = PL_CPL3 | PL_KERNEL_CODE },
	{ .name = "fault_priv", .desc = "test: HLT at CPL 3 (#GP)",
	  .insns_per_iter = 3, .flags = PL_CPL3 | PL_FAULT, .expect_vector = 13 },
	{ .name = "fault_hang", .desc = "test: a loop that never ends (watchdog)",
	  .insns_per_iter = 1, .flags = PL_CPL0 | PL_CPL3 | PL_FAULT, .expect_vector = ~0u },
};

/* The note for negative samples names the payload, its size, the CPL, the event and
 * how many of the samples; a result without any gets none. */
static void test_negative_note(void **state)
{
	(void)state;
	char buf[RESULT_JSON_MAX];
	struct result r = doc_result();
	assert_int_equal(result_negative_note(&r, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	r.st.negative = 2;
	r.reps = 11;
	r.cpl = 0;
	assert_true(result_negative_note(&r, buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "mem_chase (65536 bytes) at CPL 0: 2 of 11 tsc samples are "
			    "negative (count(2n) < count(n)): not to be trusted; raise warmup= or iters=");
	static const struct payload add_chain = { .name = "add_chain", .insns_per_iter = 10 };
	r.pl = &add_chain;
	r.size = 0;
	r.cpl = 3;
	r.st.negative = 1;
	r.reps = 3;
	result_negative_note(&r, buf, sizeof(buf));
	assert_string_equal(buf, "add_chain at CPL 3: 1 of 3 tsc samples are negative "
			    "(count(2n) < count(n)): not to be trusted; raise warmup= or iters=");
}

static void test_payload_matches_docs(void **state)
{
	(void)state;
	static char want[8][1024];
	unsigned n = doc_examples("payload", want, 8);
	assert_int_equal(n, sizeof(doc_payloads) / sizeof(doc_payloads[0]));
	for (unsigned i = 0; i < n; i++) {
		char buf[RESULT_JSON_MAX];
		int len = payload_json(&doc_payloads[i], buf, sizeof(buf));
		assert_string_equal(buf, want[i]);
		assert_int_equal(len, (int)strlen(want[i]));
	}
}

static void test_payload_flags(void **state)
{
	(void)state;
	char buf[RESULT_JSON_MAX];
	const struct payload all = {
		.name = "x", .desc = "say \"hi\"", .insns_per_iter = 7,
		.flags = PL_CPL0 | PL_SIZES | PL_NEEDS_RDTSCP | PL_NEEDS_POPCNT | PL_NEEDS_RDPMC |
			 PL_NEEDS_SYSCALL | PL_NEEDS_SSE2,
	};
	payload_json(&all, buf, sizeof(buf));
	assert_string_equal(buf, "{\"name\":\"x\",\"insns_per_iter\":7,\"cpls\":\"0\",\"sizes\":true,"
			    "\"kernel_code\":false,\"fault\":false,"
			    "\"needs\":[\"rdtscp\",\"popcnt\",\"pmu\",\"syscall\",\"sse2\"],\"desc\":\"say \\\"hi\\\"\"}");
	const struct payload div0 = { .name = "fault_div0", .insns_per_iter = 5,
				      .flags = PL_CPL0 | PL_CPL3 | PL_FAULT, .expect_vector = 0 };
	payload_json(&div0, buf, sizeof(buf));
	/* vector 0 (#DE) is a vector like any other; a missing desc is "" */
	assert_non_null(strstr(buf, ",\"expect\":\"fault\",\"vector\":0,\"desc\":\"\"}"));
	assert_int_equal(payload_json(&div0, buf, 20), -1);
	assert_true(strlen(buf) < 20);
}

/* @check and @checkdone bodies (mode=pmucheck, docs/pmucheck.md): a FAIL carries why, a
 * SKIP names its reason "reason", quotes in the text are escaped. */
static void test_check_records(void **state)
{
	(void)state;
	char buf[1024];
	struct pmucheck_result r = { .name = "edge", .verdict = PMUCHECK_FAIL };
	snprintf(r.measured, sizeof(r.measured), "edges=3 branches=100000");
	snprintf(r.rule, sizeof(r.rule), "edges = N \"+- 57\"");
	snprintf(r.why, sizeof(r.why), "counted 3 edges");
	assert_true(check_json(&r, buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "{\"check\":\"edge\",\"verdict\":\"fail\",\"measured\":\"edges=3 branches=100000\","
			    "\"rule\":\"edges = N \\\"+- 57\\\"\",\"why\":\"counted 3 edges\"}");
	r.verdict = PMUCHECK_SKIP;
	snprintf(r.measured, sizeof(r.measured), "%s", "");
	snprintf(r.rule, sizeof(r.rule), "NetBurst only");
	check_json(&r, buf, sizeof(buf));
	assert_string_equal(buf, "{\"check\":\"edge\",\"verdict\":\"skip\",\"measured\":\"\",\"reason\":\"NetBurst only\"}");
	assert_string_equal(check_verdict_name(PMUCHECK_PASS), "PASS");
	struct pmucheck_summary s = { 7, 1, 2 };
	check_summary_json("full", &s, buf, sizeof(buf));
	assert_string_equal(buf, "{\"scope\":\"full\",\"passed\":7,\"failed\":1,\"skipped\":2}");
	assert_int_equal(check_summary_json("full", &s, buf, 10), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_result_matches_docs),
		cmocka_unit_test(test_result_fields),
		cmocka_unit_test(test_result_placement),
		cmocka_unit_test(test_result_large_values),
		cmocka_unit_test(test_result_escapes_names),
		cmocka_unit_test(test_result_longest_event_fits),
		cmocka_unit_test(test_small_buffers),
		cmocka_unit_test(test_escape_stops_before_an_escape_is_cut),
		cmocka_unit_test(test_escape_keeps_output_utf8),
		cmocka_unit_test(test_negative_note),
		cmocka_unit_test(test_payload_matches_docs),
		cmocka_unit_test(test_payload_flags),
		cmocka_unit_test(test_check_records),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
