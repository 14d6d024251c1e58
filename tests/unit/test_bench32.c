/* The i686 wrapper of a user benchmark (payloads/userbench-32.c): the mode it wraps, the
 * code it lays out, and (tests/i386/userbench32-run.c under qemu-i386) what that code does
 * when it runs as 32-bit code. This suite links userbench-32.o, not the host library's
 * userbench-64.o (Makefile, TEST_OBJS_test_bench32). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "lib/config.h"
#include "payloads/userbench.h"

static void test_mode(void **state)
{
	(void)state;
	assert_int_equal(userbench_mode, CFG_BENCH_32);
	struct cfg_bench b = { .unroll = 1 };
	b.mode[CFG_BENCH_64].code_len = 4;      /* 64-bit code is not this kernel's */
	assert_string_equal(userbench_skip(&b), "no 32-bit code in the configuration (bench.NAME.code32: "
			    "scripts/bareperf-asm writes it where nasm assembles the code as 32-bit code, "
			    "unless --bits 64)");
	strcpy(b.mode[CFG_BENCH_32].skip, "as 32-bit code: no");
	assert_string_equal(userbench_skip(&b), "as 32-bit code: no");
	b.mode[CFG_BENCH_32].code_len = 1;
	assert_null(userbench_skip(&b));
	assert_ptr_equal(userbench_code(&b), &b.mode[CFG_BENCH_32]);
}

/* The bytes around the copies: entry (cmp esi, 1; jne; jmp; jmp, the same 3 instructions
 * for n = 1 and 2), each variant's prologue, loop and epilogue, as nasm encodes them. */
static void test_layout(void **state)
{
	(void)state;
	static uint8_t out[4096];
	struct cfg_bench b = { .unroll = 3, .loop = 5, .align = 16, .offset = 4 };
	struct cfg_bench_code *c = &b.mode[CFG_BENCH_32];
	memcpy(c->code, "\x01\xd8", 2);                         /* add eax, ebx */
	c->code_len = 2;
	memcpy(c->init, "\x31\xc0", 2);                         /* xor eax, eax */
	c->init_len = 2;
	struct userbench_layout lay;
	assert_int_equal(userbench_emit(&b, out, sizeof(out), &lay), 0);
	assert_int_equal(lay.entry, 0);
	assert_memory_equal(out, "\x83\xfe\x01\x0f\x85\x05\x00\x00\x00\xe9", 10);
	for (unsigned k = 0; k < 2; k++) {
		/* the jmp to variant k lands on its prologue */
		int32_t rel;
		size_t at = 10 + 5 * k;
		memcpy(&rel, out + at, 4);
		size_t v = at + 4 + (size_t)rel;
		assert_memory_equal(out + v, "\x53\x55\x89\xfe\x31\xc0\x31\xdb\x31\xc9\x31\xd2\x31\xff\x31\xed\xfc", 17);
		assert_int_equal(lay.init[k], v + 17);
		assert_memory_equal(out + lay.init[k], c->init, 2);
		assert_memory_equal(out + lay.init[k] + 2, "\xbd\x05\x00\x00\x00\xe9", 6);   /* mov ebp, 5; jmp */
		memcpy(&rel, out + lay.init[k] + 8, 4);
		assert_int_equal(lay.init[k] + 12 + (size_t)rel, lay.top[k]);
		assert_int_equal(lay.top[k] % 16, 4);
		assert_int_equal(lay.copies[k], 3u << k);
		size_t end = lay.top[k] + 2 * lay.copies[k];
		for (size_t i = lay.top[k]; i < end; i += 2)
			assert_memory_equal(out + i, c->code, 2);
		assert_memory_equal(out + end, "\x4d\x0f\x85", 3);                      /* dec ebp; jnz */
		memcpy(&rel, out + end + 3, 4);
		assert_int_equal(end + 7 + (size_t)rel, lay.top[k]);
		assert_memory_equal(out + end + 7, "\xfc\x5d\x5b\xc3", 4);              /* cld; pop; pop; ret */
	}
	assert_true(lay.size <= userbench_size_max(&b));
	/* without a loop: no mov ebp, no dec/jnz */
	b.loop = 0;
	assert_int_equal(userbench_emit(&b, out, sizeof(out), &lay), 0);
	assert_memory_equal(out + lay.init[0] + 2, "\xe9", 1);
	assert_memory_equal(out + lay.top[0] + 2 * 3, "\xfc\x5d\x5b\xc3", 4);
}

/* Run as 32-bit code: the counts, the registers the code starts with, what is kept. */
static void test_runs_as_32_bit_code(void **state)
{
	(void)state;
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "%s %s > /dev/null", QEMU_I386, BENCH32_RUN);
	int rc = system(cmd);
	if (rc != 0) {           /* show the failed checks */
		snprintf(cmd, sizeof(cmd), "%s %s | grep -v '^ok'", QEMU_I386, BENCH32_RUN);
		if (system(cmd) != 0)
			fprintf(stderr, "(%s did not run)\n", BENCH32_RUN);
	}
	assert_int_equal(rc, 0);
}

static void test_emit_cap(void **state)
{
	(void)state;
	static uint8_t out[1024];
	struct cfg_bench b = { .unroll = 1000, .align = 64, .mode[CFG_BENCH_32] = { .code_len = 4 } };
	struct userbench_layout lay;
	assert_int_equal(userbench_emit(&b, out, sizeof(out), &lay), -1);
	b.unroll = 10;
	assert_int_equal(userbench_emit(&b, out, sizeof(out), &lay), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mode),
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_runs_as_32_bit_code),
		cmocka_unit_test(test_emit_cap),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
