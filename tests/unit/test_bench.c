/* User benchmarks: the bench.NAME.* keys (lib/bench-config.c) and the x86-64 wrapper
 * (payloads/userbench-64.c), whose code is run here natively to prove its counts. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <cmocka.h>
#include "lib/bench-config.h"
#include "lib/config.h"
#include "payloads/userbench.h"

struct messages {
	unsigned count;
	char text[16][400];
};

static void collect(void *ctx, const char *msg)
{
	struct messages *m = ctx;
	if (m->count < 16)
		snprintf(m->text[m->count], sizeof(m->text[0]), "%s", msg);
	m->count++;
}

static int apply(struct bp_config *cfg, const char *text, struct messages *m)
{
	memset(m, 0, sizeof(*m));
	int n = config_apply(cfg, "t.cfg", text, strlen(text), collect, m);
	assert_int_equal(n, (int)m->count);
	return n;
}

static struct bp_config cfg_a, cfg_b;

static void test_keys_and_defaults(void **state)
{
	(void)state;
	struct messages m;
	config_defaults(&cfg_a);
	assert_int_equal(apply(&cfg_a, "bench.asm.code=4883C001 bench.asm.loop=10\n"
			       "bench.x_2.code=90 bench.x_2.init=31c0 bench.x_2.unroll=7 "
			       "bench.x_2.buffer=64K bench.x_2.fill=chase bench.x_2.stride=128 "
			       "bench.x_2.buffer_align=2M bench.x_2.align=16 bench.x_2.offset=3 "
			       "bench.x_2.text=\"nop; nop\"", &m), 0);
	assert_int_equal(cfg_a.nbench, 2);
	const struct cfg_bench *a = &cfg_a.bench[0], *x = &cfg_a.bench[1];
	assert_string_equal(a->name, "asm");
	assert_int_equal(a->mode[CFG_BENCH_64].code_len, 4);
	assert_memory_equal(a->mode[CFG_BENCH_64].code, "\x48\x83\xc0\x01", 4);
	assert_int_equal(a->unroll, CFG_BENCH_UNROLL_DEFAULT);
	assert_int_equal(a->loop, 10);
	assert_int_equal(a->align, 64);
	assert_int_equal(a->mode[CFG_BENCH_64].init_len, 0);
	assert_true(a->buffer == 0);
	assert_string_equal(x->name, "x_2");
	assert_int_equal(x->mode[CFG_BENCH_64].init_len, 2);
	assert_int_equal(x->unroll, 7);
	assert_true(x->buffer == 65536 && x->buffer_align == (2u << 20));
	assert_int_equal(x->fill, CFG_FILL_CHASE);
	assert_int_equal(x->stride, 128);
	assert_int_equal(x->align, 16);
	assert_int_equal(x->offset, 3);
	assert_string_equal(x->text, "nop; nop");
	assert_false(cfg_a.payloads_set);
	assert_int_equal(apply(&cfg_a, "payloads=asm", &m), 0);
	assert_true(cfg_a.payloads_set);
}

/* Every error names the benchmark and the key, and leaves the earlier value. */
static void test_errors(void **state)
{
	(void)state;
	static const struct { const char *text, *msg; } cases[] = {
		{ "bench.asm.code=4883g001", "t.cfg line 1: bench.asm.code: 'g' at character 5 is not a hex digit (the code is machine code in hex: scripts/bareperf-asm writes it)" },
		{ "bench.asm.code=4883c", "t.cfg line 1: bench.asm.code: 5 hex digits, an odd number (two per byte)" },
		{ "bench.asm.unroll=0", "t.cfg line 1: bench.asm.unroll=0 out of range (1..262144)" },
		{ "bench.asm.loop=2147483648", "t.cfg line 1: bench.asm.loop=2147483648 out of range (0..2147483647)" },
		{ "bench.asm.align=48", "t.cfg line 1: bench.asm.align=48 is not a power of two" },
		{ "bench.asm.align=8192", "t.cfg line 1: bench.asm.align=8192 out of range (1..4096)" },
		{ "bench.asm.buffer=2G", "t.cfg line 1: bench.asm.buffer=2G is not a size from 0 to 1G (a number with optional K, M or G suffix)" },
		{ "bench.asm.buffer_align=12K", "t.cfg line 1: bench.asm.buffer_align=12K is not a power of two" },
		{ "bench.asm.fill=ones", "t.cfg line 1: bench.asm.fill=ones is not one of zero|random|chase" },
		{ "bench.asm.stride=12", "t.cfg line 1: bench.asm.stride=12 is not a multiple of 8 (the chain's words are 8 bytes)" },
		{ "bench.asm.lop=3", "t.cfg line 1: bench.asm.lop: unknown key (did you mean 'bench.asm.loop'?)" },
		{ "bench.asm=3", "t.cfg line 1: bench.asm: which key? (bench.asm.code=HEX, .init, .unroll, .loop, .align, .offset, .buffer, .buffer_align, .fill, .stride, .text, .code32, .init32, .skip64, .skip32)" },
		{ "bench.A-b.mode[CFG_BENCH_64].code=90", "t.cfg line 1: bench.A-b: 'A' is not allowed in a benchmark name (a-z, 0-9, _)" },
		{ "bench.asm.code=", "t.cfg line 1: 'bench.asm.code' needs a value (key=value)" },
	};
	struct messages m;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		config_defaults(&cfg_a);
		assert_int_equal(apply(&cfg_a, "bench.asm.code=90", &m), 0);
		assert_int_equal(apply(&cfg_a, cases[i].text, &m), 1);
		assert_string_equal(m.text[0], cases[i].msg);
		assert_int_equal(cfg_a.nbench, 1);
		assert_int_equal(cfg_a.bench[0].mode[CFG_BENCH_64].code_len, 1);        /* earlier value kept */
		assert_int_equal(cfg_a.bench[0].unroll, CFG_BENCH_UNROLL_DEFAULT);
		/* ... and the benchmark is refused, unless its name was the fault */
		assert_int_equal(cfg_a.bench[0].refused != 0, strncmp(cases[i].text, "bench.A-b", 9) != 0);
	}
	/* A bad entry of a new benchmark creates it refused: a later bench.new.code must not
	 * make it run with unroll's default. */
	config_defaults(&cfg_a);
	assert_int_equal(apply(&cfg_a, "bench.new.unroll=0 bench.new.code=90", &m), 1);
	assert_int_equal(cfg_a.nbench, 1);
	assert_true(cfg_a.bench[0].refused);
	/* What the kernel says about a refused benchmark: each refused key, once. */
	static const struct { const char *text, *parts; unsigned n; } refused[] = {
		{ "bench.r.init=9", "its init", 1 },
		{ "bench.r.unroll=0 bench.r.buffer=2G bench.r.unroll=x", "its unroll and buffer", 2 },
		{ "bench.r.unrol=2", "an unknown key", 1 },
		{ "bench.r.fill=x bench.r.align=3 bench.r.x=1 bench.r.text=", "its align, fill, text and an unknown key", 4 },
	};
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		char parts[96];
		config_defaults(&cfg_a);
		apply(&cfg_a, refused[i].text, &m);
		assert_int_equal(cfg_a.nbench, 1);
		assert_int_equal(bench_refused_parts(&cfg_a.bench[0], parts, sizeof(parts)), refused[i].n);
		assert_string_equal(parts, refused[i].parts);
	}
	/* More than CFG_BENCH_MAX benchmarks. */
	char text[1024] = "";
	for (int i = 0; i <= CFG_BENCH_MAX; i++)
		snprintf(text + strlen(text), sizeof(text) - strlen(text), "bench.b%d.code=90\n", i);
	config_defaults(&cfg_a);
	assert_int_equal(apply(&cfg_a, text, &m), 1);
	assert_string_equal(m.text[0], "t.cfg line 17: bench.b16: more than 16 benchmarks in one configuration");
}

/* Each mode's code, init and skip reason (code/init/skip64, code32/init32/skip32): the
 * latest key of a mode wins, so a reason clears that mode's older code and code its older
 * reason; the other mode is untouched. */
static void test_mode_keys(void **state)
{
	(void)state;
	struct messages m;
	config_defaults(&cfg_a);
	assert_int_equal(apply(&cfg_a, "bench.a.code=4883c001 bench.a.code32=83c001 bench.a.init32=b803000000 "
			       "bench.b.code=480fafc0 bench.b.skip32=\"as 32-bit code: no\" "
			       "bench.c.skip64=\"written for 32-bit mode only\" bench.c.code32=90", &m), 0);
	const struct cfg_bench *a = &cfg_a.bench[0], *b = &cfg_a.bench[1], *c = &cfg_a.bench[2];
	assert_int_equal(a->mode[CFG_BENCH_64].code_len, 4);
	assert_int_equal(a->mode[CFG_BENCH_64].init_len, 0);
	assert_int_equal(a->mode[CFG_BENCH_32].code_len, 3);
	assert_memory_equal(a->mode[CFG_BENCH_32].code, "\x83\xc0\x01", 3);
	assert_int_equal(a->mode[CFG_BENCH_32].init_len, 5);
	assert_string_equal(a->mode[CFG_BENCH_32].skip, "");
	assert_string_equal(b->mode[CFG_BENCH_32].skip, "as 32-bit code: no");
	assert_int_equal(b->mode[CFG_BENCH_32].code_len, 0);
	assert_string_equal(c->mode[CFG_BENCH_64].skip, "written for 32-bit mode only");
	assert_int_equal(c->mode[CFG_BENCH_64].code_len, 0);
	assert_int_equal(c->mode[CFG_BENCH_32].code_len, 1);
	/* later keys: a reason clears code and init, code clears the reason */
	assert_int_equal(apply(&cfg_a, "bench.a.skip32=gone bench.b.code32=90", &m), 0);
	assert_int_equal(a->mode[CFG_BENCH_32].code_len, 0);
	assert_int_equal(a->mode[CFG_BENCH_32].init_len, 0);
	assert_string_equal(a->mode[CFG_BENCH_32].skip, "gone");
	assert_int_equal(a->mode[CFG_BENCH_64].code_len, 4);
	assert_string_equal(b->mode[CFG_BENCH_32].skip, "");
	assert_int_equal(b->mode[CFG_BENCH_32].code_len, 1);
	/* the 32-bit keys are checked as the 64-bit ones */
	static const struct { const char *text, *msg; } bad[] = {
		{ "bench.a.code32=83c0g1", "t.cfg line 1: bench.a.code32: 'g' at character 5 is not a hex digit (the code is machine code in hex: scripts/bareperf-asm writes it)" },
		{ "bench.a.init32=b", "t.cfg line 1: bench.a.init32: 1 hex digits, an odd number (two per byte)" },
		{ "bench.a.skip32=", "t.cfg line 1: 'bench.a.skip32' needs a value (key=value)" },
		{ "bench.a.code33=90", "t.cfg line 1: bench.a.code33: unknown key (did you mean 'bench.a.code32'?)" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(apply(&cfg_a, bad[i].text, &m), 1);
		assert_string_equal(m.text[0], bad[i].msg);
	}
	char text[CFG_BENCH_TEXT_MAX + 32];
	snprintf(text, sizeof(text), "bench.a.skip64=%0*d", CFG_BENCH_TEXT_MAX, 0);
	assert_int_equal(apply(&cfg_a, text, &m), 1);
	assert_string_equal(m.text[0], "t.cfg line 1: bench.a.skip64: 160 bytes, more than 159");
}

/* Code at the size limit fits; one byte more does not. A source still holds 8191 bytes. */
static void test_code_limits(void **state)
{
	(void)state;
	static char text[CFG_SOURCE_MAX + 64];
	struct messages m;
	config_defaults(&cfg_a);
	strcpy(text, "bench.big.code=");
	size_t o = strlen(text);
	for (int i = 0; i < CFG_BENCH_INIT_MAX + 1; i++, o += 2)
		memcpy(text + o, "90", 2);
	text[o] = 0;
	assert_int_equal(apply(&cfg_a, text, &m), 0);
	assert_int_equal(cfg_a.bench[0].mode[CFG_BENCH_64].code_len, CFG_BENCH_INIT_MAX + 1);
	memcpy(text, "bench.big.init=", 15);
	assert_int_equal(apply(&cfg_a, text, &m), 1);
	assert_string_equal(m.text[0], "t.cfg line 1: bench.big.init: 1025 bytes, more than the 1024 a benchmark's init may have");
	/* Other keys keep their 1023-character limit. */
	config_defaults(&cfg_a);
	memset(text, 'a', 1100);
	memcpy(text, "payloads=", 9);
	text[1100] = 0;
	assert_int_equal(apply(&cfg_a, text, &m), 1);
	assert_string_equal(m.text[0], "t.cfg line 1: 'payloads' value is too long (more than 1024 characters)");
}

struct report_text {
	char text[3 * CFG_SOURCE_MAX];
	size_t used;
};

static void collect_line(void *ctx, const char *line)
{
	struct report_text *r = ctx;
	size_t n = strlen(line + 4);
	assert_memory_equal(line, "cfg.", 4);
	assert_true(r->used + n + 2 < sizeof(r->text));
	memcpy(r->text + r->used, line + 4, n);
	r->used += n;
	r->text[r->used++] = '\n';
	r->text[r->used] = 0;
}

/* The report of the benchmarks, fed back in, gives the same benchmarks. */
static void test_report_round_trip(void **state)
{
	(void)state;
	static struct report_text r;
	struct messages m;
	config_defaults(&cfg_a);
	assert_int_equal(apply(&cfg_a, "bench.a.code=4883c001 bench.a.loop=10 bench.a.unroll=3 "
			       "bench.b.code=4d8b36 bench.b.init=90 bench.b.buffer=1M bench.b.fill=chase "
			       "bench.b.stride=256 bench.b.text=\"mov r14, [r14]\" bench.b.offset=5 "
			       "bench.b.code32=8b36 bench.b.init32=90 bench.a.skip32=\"as 32-bit code: code, "
			       "statement 1: 'add rax, 1': error: no\"", &m), 0);
	memset(&r, 0, sizeof(r));
	config_report(&cfg_a, collect_line, &r);
	assert_non_null(strstr(r.text, "\nbench.a.code=4883c001\nbench.a.skip32=\"as 32-bit code: code, "
				       "statement 1: 'add rax, 1': error: no\"\nbench.a.unroll=3\nbench.a.loop=10\n"));
	assert_non_null(strstr(r.text, "\nbench.b.code=4d8b36\nbench.b.init=90\nbench.b.code32=8b36\n"
				       "bench.b.init32=90\nbench.b.unroll="));
	config_defaults(&cfg_b);
	assert_int_equal(apply(&cfg_b, r.text, &m), 0);
	assert_int_equal(cfg_b.nbench, 2);
	assert_memory_equal(cfg_a.bench, cfg_b.bench, sizeof(cfg_a.bench[0]) * 2);
}

typedef void (*bench_fn)(uint64_t *arg, uint64_t n);

static void *exec_copy(const struct cfg_bench *b, struct userbench_layout *lay, size_t *len)
{
	*len = (userbench_size_max(b) + 4095) & ~(size_t)4095;
	uint8_t *code = mmap(0, *len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(code != MAP_FAILED);
	assert_int_equal(userbench_emit(b, code, *len, lay), 0);
	assert_true(lay->size <= userbench_size_max(b));
	assert_int_equal(mprotect(code, *len, PROT_READ | PROT_EXEC), 0);
	return code;
}

/* add qword [r14], 1 counts copies: n = 1 runs unroll x loop of them, n = 2 twice that. */
static void test_wrapper_runs_natively(void **state)
{
	(void)state;
	static const struct { uint32_t unroll, loop, align, offset; } shapes[] = {
		{ 100, 10, 64, 0 }, { 1, 0, 1, 0 }, { 7, 0, 4096, 5 }, { 3, 1, 16, 15 }, { 250, 3, 32, 1 },
	};
	for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
		struct cfg_bench b = { .unroll = shapes[s].unroll, .loop = shapes[s].loop,
				       .align = shapes[s].align, .offset = shapes[s].offset };
		memcpy(b.mode[CFG_BENCH_64].code, "\x49\x83\x06\x01", 4);          /* add qword [r14], 1 */
		b.mode[CFG_BENCH_64].code_len = 4;
		memcpy(b.mode[CFG_BENCH_64].init, "\x49\xc7\x46\x08\x07\x00\x00\x00", 8);   /* mov qword [r14+8], 7 */
		b.mode[CFG_BENCH_64].init_len = 8;
		struct userbench_layout lay;
		size_t len;
		uint8_t *code = exec_copy(&b, &lay, &len);
		uint64_t copies = (uint64_t)b.unroll * (b.loop ? b.loop : 1);
		for (unsigned k = 0; k < 2; k++) {
			uint64_t buf[2] = { 0, 0 };
			((bench_fn)(code + lay.entry))(buf, k + 1);
			assert_true(buf[0] == copies << k);
			assert_true(buf[1] == 7);
			assert_int_equal(lay.top[k] % b.align, b.offset % b.align);
			assert_int_equal(lay.copies[k], b.unroll << k);
			assert_memory_equal(code + lay.init[k], b.mode[CFG_BENCH_64].init, b.mode[CFG_BENCH_64].init_len);
			assert_memory_equal(code + lay.top[k] + (lay.copies[k] - 1) * 4, b.mode[CFG_BENCH_64].code, 4);
		}
		munmap(code, len);
	}
}

/* The code sees R14 = buffer, every other general register 0 and DF = 0, and may clobber
 * all of them (the wrapper restores what the caller keeps). */
static void test_wrapper_register_contract(void **state)
{
	(void)state;
	/* or r14's word with every register: mov rax,[r14]; or rax,rbx ... or rax,r13; or rax,r15 */
	static const uint8_t code[] = {
		0x49, 0x8b, 0x06,                           /* mov rax, [r14] */
		0x48, 0x09, 0xd8, 0x48, 0x09, 0xc8, 0x48, 0x09, 0xd0, 0x48, 0x09, 0xf0,
		0x48, 0x09, 0xf8, 0x48, 0x09, 0xe8, 0x4c, 0x09, 0xc0, 0x4c, 0x09, 0xc8,
		0x4c, 0x09, 0xd0, 0x4c, 0x09, 0xd8, 0x4c, 0x09, 0xe0, 0x4c, 0x09, 0xe8,
		0x4c, 0x09, 0xf8,                           /* or rax, rbx..r15 */
		0x9c, 0x5b, 0x48, 0x09, 0xd8,               /* pushfq; pop rbx; or rax, rbx (DF bit 10) */
		0x49, 0x89, 0x06,                           /* mov [r14], rax */
		0x48, 0xc7, 0xc3, 0xff, 0xff, 0xff, 0xff,   /* mov rbx, -1: clobber */
		0x48, 0xc7, 0xc5, 0xff, 0xff, 0xff, 0xff,   /* mov rbp, -1 */
		0x49, 0xc7, 0xc4, 0xff, 0xff, 0xff, 0xff,   /* mov r12, -1 */
		0xfd,                                       /* std */
	};
	struct cfg_bench b = { .unroll = 1, .loop = 0, .align = 1 };
	memcpy(b.mode[CFG_BENCH_64].code, code, sizeof(code));
	b.mode[CFG_BENCH_64].code_len = sizeof(code);
	struct userbench_layout lay;
	size_t len;
	uint8_t *p = exec_copy(&b, &lay, &len);
	uint64_t buf[1] = { 0 };
	((bench_fn)(p + lay.entry))(buf, 1);
	assert_true((buf[0] & (1u << 10)) == 0);           /* DF clear on entry */
	assert_true((buf[0] & ~0x3fffffull) == 0);         /* registers were 0 (flags only) */
	munmap(p, len);
}

static void test_emit_cap(void **state)
{
	(void)state;
	static uint8_t out[1024];
	struct cfg_bench b = { .unroll = 1000, .align = 64, .mode[CFG_BENCH_64] = { .code_len = 4 } };
	struct userbench_layout lay;
	assert_int_equal(userbench_emit(&b, out, sizeof(out), &lay), -1);
	b.unroll = 10;
	assert_int_equal(userbench_emit(&b, out, sizeof(out), &lay), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keys_and_defaults),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_mode_keys),
		cmocka_unit_test(test_code_limits),
		cmocka_unit_test(test_report_round_trip),
		cmocka_unit_test(test_wrapper_runs_natively),
		cmocka_unit_test(test_wrapper_register_contract),
		cmocka_unit_test(test_emit_cap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
