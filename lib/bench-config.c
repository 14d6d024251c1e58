/*
 * bench.NAME.KEY=VALUE: user benchmarks in the configuration (docs/bench.md). The host
 * (scripts/bareperf-asm) assembles the code with nasm and writes these keys; here each
 * value is checked and stored. What needs several keys together (code x unroll within
 * the limit, offset below align, code given at all) is checked when the plan is made.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "lib/bench-config.h"
#include "lib/config.h"
#include "lib/format.h"
#include "lib/str.h"
#include "lib/util.h"

#define BENCH_EXCERPT 40

enum bench_field { BF_CODE, BF_INIT, BF_UNROLL, BF_LOOP, BF_ALIGN, BF_OFFSET, BF_BUFFER,
		   BF_BUFFER_ALIGN, BF_FILL, BF_STRIDE, BF_TEXT, BF_COUNT };

static const char *const field_names[BF_COUNT] = {
	[BF_CODE] = "code", [BF_INIT] = "init", [BF_UNROLL] = "unroll", [BF_LOOP] = "loop",
	[BF_ALIGN] = "align", [BF_OFFSET] = "offset", [BF_BUFFER] = "buffer",
	[BF_BUFFER_ALIGN] = "buffer_align", [BF_FILL] = "fill", [BF_STRIDE] = "stride",
	[BF_TEXT] = "text",
};

static const char *const fill_names[] = { [CFG_FILL_ZERO] = "zero", [CFG_FILL_RANDOM] = "random",
					  [CFG_FILL_CHASE] = "chase" };

static const char *bench_fill_name(unsigned fill)
{
	return fill < ARRAY_SIZE(fill_names) ? fill_names[fill] : "?";
}

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

static bool power_of_two(uint64_t v)
{
	return v && !(v & (v - 1));
}

/* Hex digits, two per byte, nothing else. */
static int parse_hex(const char *name, const char *field, const char *v, size_t len,
		     uint8_t *out, size_t max, uint32_t *n, char *why, size_t whylen)
{
	for (size_t i = 0; i < len; i++) {
		if (str_hex_digit(v[i]) < 0) {
			bp_snprintf(why, whylen, "bench.%s.%s: '%c' at character %zu is not a hex "
				    "digit (the code is machine code in hex: scripts/bareperf-asm "
				    "writes it)", name, field, v[i], i + 1);
			return -1;
		}
	}
	if (len % 2) {
		bp_snprintf(why, whylen, "bench.%s.%s: %zu hex digits, an odd number (two per byte)",
			    name, field, len);
		return -1;
	}
	if (len / 2 > max) {
		bp_snprintf(why, whylen, "bench.%s.%s: %zu bytes, more than the %zu a benchmark's "
			    "%s may have", name, field, len / 2, max, field);
		return -1;
	}
	for (size_t i = 0; i < len / 2; i++)
		out[i] = (uint8_t)(str_hex_digit(v[2 * i]) << 4 | str_hex_digit(v[2 * i + 1]));
	*n = (uint32_t)(len / 2);
	return 0;
}

static int parse_num(const char *name, const char *field, const char *v, size_t len,
		     uint64_t lo, uint64_t hi, uint64_t *out, char *why, size_t whylen)
{
	if (str_to_u64(v, len, out) != 0 || *out < lo || *out > hi) {
		bp_snprintf(why, whylen, "bench.%s.%s=%.*s out of range (%llu..%llu)", name, field,
			    (int)(len < BENCH_EXCERPT ? len : BENCH_EXCERPT), v,
			    (unsigned long long)lo, (unsigned long long)hi);
		return -1;
	}
	return 0;
}

static int parse_bsize(const char *name, const char *field, const char *v, size_t len,
		       uint64_t lo, uint64_t hi, uint64_t *out, char *why, size_t whylen)
{
	if (str_to_size(v, len, out) != 0 || *out < lo || *out > hi) {
		bp_snprintf(why, whylen, "bench.%s.%s=%.*s is not a size from %llu to %lluG (a "
			    "number with optional K, M or G suffix)", name, field,
			    (int)(len < BENCH_EXCERPT ? len : BENCH_EXCERPT), v,
			    (unsigned long long)lo, (unsigned long long)(hi / SIZE_G));
		return -1;
	}
	return 0;
}

static struct cfg_bench *bench_get(struct bp_config *cfg, const char *name, char *why,
				   size_t whylen)
{
	for (unsigned i = 0; i < cfg->nbench; i++)
		if (!strcmp(cfg->bench[i].name, name))
			return &cfg->bench[i];
	if (cfg->nbench == CFG_BENCH_MAX) {
		bp_snprintf(why, whylen, "bench.%s: more than %u benchmarks in one configuration",
			    name, CFG_BENCH_MAX);
		return 0;
	}
	struct cfg_bench *b = &cfg->bench[cfg->nbench++];
	memset(b, 0, sizeof(*b));
	str_copy(b->name, name, sizeof(b->name));
	b->unroll = CFG_BENCH_UNROLL_DEFAULT;
	b->align = 64;
	b->buffer_align = 4096;
	b->fill = CFG_FILL_ZERO;
	b->stride = 64;
	return b;
}

/* A parsed value, checked before the benchmark exists: a bad entry changes nothing. */
struct bench_value {
	uint8_t bytes[CFG_BENCH_CODE_MAX];
	uint32_t nbytes;
	uint64_t n;
};

enum { SPLIT_OK = 0, SPLIT_BAD_NAME = -1, SPLIT_BAD_FIELD = -2 };

/* Split "NAME.FIELD" into a valid benchmark name and a known field; SPLIT_BAD_NAME or
 * SPLIT_BAD_FIELD (name then holds the benchmark's name) with why. */
static int split_key(const char *key, size_t klen, char name[CFG_BENCH_NAME_MAX], int *field_index,
		     char *why, size_t whylen)
{
	char field[16];
	size_t nlen = 0;

	while (nlen < klen && key[nlen] != '.')
		nlen++;
	if (nlen == 0 || nlen >= CFG_BENCH_NAME_MAX) {
		bp_snprintf(why, whylen, "bench.%.*s: a benchmark name of 1 to %u characters is "
			    "expected (bench.NAME.KEY=VALUE)", (int)(klen < BENCH_EXCERPT ? klen : BENCH_EXCERPT),
			    key, CFG_BENCH_NAME_MAX - 1);
		return SPLIT_BAD_NAME;
	}
	for (size_t i = 0; i < nlen; i++) {
		if (!name_char(key[i])) {
			bp_snprintf(why, whylen, "bench.%.*s: '%c' is not allowed in a benchmark name "
				    "(a-z, 0-9, _)", (int)nlen, key, key[i]);
			return SPLIT_BAD_NAME;
		}
	}
	memcpy(name, key, nlen);
	name[nlen] = '\0';
	size_t flen = nlen < klen ? klen - nlen - 1 : 0;
	const char *f = key + nlen + 1;
	if (flen == 0 || flen >= sizeof(field)) {
		bp_snprintf(why, whylen, "bench.%s: which key? (bench.%s.code=HEX, .init, .unroll, "
			    ".loop, .align, .offset, .buffer, .buffer_align, .fill, .stride, .text)",
			    name, name);
		return SPLIT_BAD_FIELD;
	}
	memcpy(field, f, flen);
	field[flen] = '\0';
	int fi = -1;
	for (int i = 0; i < BF_COUNT; i++)
		if (!strcmp(field_names[i], field))
			fi = i;
	if (fi < 0) {
		const char *near = str_nearest_in(field, field_names, BF_COUNT, 2,
						  STR_NEAREST_BELOW_WORD_LEN);
		if (near)
			bp_snprintf(why, whylen, "bench.%s.%s: unknown key (did you mean 'bench.%s.%s'?)",
				    name, field, name, near);
		else
			bp_snprintf(why, whylen, "bench.%s.%s: unknown key (see docs/bench.md)", name,
				    field);
		return SPLIT_BAD_FIELD;
	}
	*field_index = fi;
	return SPLIT_OK;
}

/* Parse and check the value of field fi into *out; -1 with why. */
static int check_value(const char *name, int fi, const char *v, size_t vlen, struct bench_value *out,
		       char *why, size_t whylen)
{
	const char *field = field_names[fi];
	uint8_t *bytes = out->bytes;
	uint32_t nbytes = 0;
	uint64_t n = 0;
	int r = 0;
	switch ((enum bench_field)fi) {
	case BF_CODE:
		r = parse_hex(name, field, v, vlen, bytes, CFG_BENCH_CODE_MAX, &nbytes, why, whylen);
		break;
	case BF_INIT:
		r = parse_hex(name, field, v, vlen, bytes, CFG_BENCH_INIT_MAX, &nbytes, why, whylen);
		break;
	case BF_UNROLL:
		r = parse_num(name, field, v, vlen, 1, CFG_BENCH_UNROLLED_MAX, &n, why, whylen);
		break;
	case BF_LOOP:
		r = parse_num(name, field, v, vlen, 0, CFG_BENCH_LOOP_MAX, &n, why, whylen);
		break;
	case BF_ALIGN:
		r = parse_num(name, field, v, vlen, 1, 4096, &n, why, whylen);
		if (!r && !power_of_two(n)) {
			bp_snprintf(why, whylen, "bench.%s.align=%llu is not a power of two", name,
				    (unsigned long long)n);
			r = -1;
		}
		break;
	case BF_OFFSET:
		r = parse_num(name, field, v, vlen, 0, 4095, &n, why, whylen);
		break;
	case BF_BUFFER:
		r = parse_bsize(name, field, v, vlen, 0, SIZE_G, &n, why, whylen);
		break;
	case BF_BUFFER_ALIGN:
		r = parse_bsize(name, field, v, vlen, 4096, SIZE_G, &n, why, whylen);
		if (!r && !power_of_two(n)) {
			bp_snprintf(why, whylen, "bench.%s.buffer_align=%.*s is not a power of two",
				    name, (int)(vlen < BENCH_EXCERPT ? vlen : BENCH_EXCERPT), v);
			r = -1;
		}
		break;
	case BF_FILL:
		r = -1;
		for (unsigned i = 0; i < ARRAY_SIZE(fill_names); i++) {
			if (strlen(fill_names[i]) == vlen && !str_ncasecmp(fill_names[i], v, vlen)) {
				n = i;
				r = 0;
			}
		}
		if (r)
			bp_snprintf(why, whylen, "bench.%s.fill=%.*s is not one of zero|random|chase",
				    name, (int)(vlen < BENCH_EXCERPT ? vlen : BENCH_EXCERPT), v);
		break;
	case BF_STRIDE:
		r = parse_bsize(name, field, v, vlen, 8, SIZE_G, &n, why, whylen);
		if (!r && n % 8) {
			bp_snprintf(why, whylen, "bench.%s.stride=%llu is not a multiple of 8 (the "
				    "chain's words are 8 bytes)", name, (unsigned long long)n);
			r = -1;
		}
		break;
	case BF_TEXT:
		if (vlen >= CFG_BENCH_TEXT_MAX) {
			bp_snprintf(why, whylen, "bench.%s.text: %zu bytes, more than %u", name,
				    vlen, CFG_BENCH_TEXT_MAX - 1);
			r = -1;
		}
		break;
	case BF_COUNT:
		break;
	}
	out->nbytes = nbytes;
	out->n = n;
	return r;
}

/* Store a checked value into benchmark b. */
static void apply_value(struct cfg_bench *b, int fi, const struct bench_value *val, const char *v,
			size_t vlen)
{
	const uint8_t *bytes = val->bytes;
	uint32_t nbytes = val->nbytes;
	uint64_t n = val->n;
	switch ((enum bench_field)fi) {
	case BF_CODE: memcpy(b->code, bytes, nbytes); b->code_len = nbytes; break;
	case BF_INIT: memcpy(b->init, bytes, nbytes); b->init_len = nbytes; break;
	case BF_UNROLL: b->unroll = (uint32_t)n; break;
	case BF_LOOP: b->loop = (uint32_t)n; break;
	case BF_ALIGN: b->align = (uint32_t)n; break;
	case BF_OFFSET: b->offset = (uint32_t)n; break;
	case BF_BUFFER: b->buffer = n; break;
	case BF_BUFFER_ALIGN: b->buffer_align = n; break;
	case BF_FILL: b->fill = (unsigned)n; break;
	case BF_STRIDE: b->stride = (uint32_t)n; break;
	case BF_TEXT: memcpy(b->text, v, vlen); b->text[vlen] = '\0'; break;
	case BF_COUNT: break;
	}
}

/* A benchmark with a refused key is not measured, so that none is ever run with a default
 * in place of what the user wrote. */
static void mark_refused(struct bp_config *cfg, const char *name, int fi)
{
	char ignored[8];
	struct cfg_bench *b = bench_get(cfg, name, ignored, sizeof(ignored));
	if (b)
		b->refused |= 1u << fi;
}

int bench_config_entry(struct bp_config *cfg, const char *key, size_t klen, const char *v,
		       size_t vlen, char *why, size_t whylen)
{
	char name[CFG_BENCH_NAME_MAX];
	int fi;
	static struct bench_value val;      /* 4 KiB: kept off the kernel stack */

	int r = split_key(key, klen, name, &fi, why, whylen);
	if (r == SPLIT_BAD_NAME)
		return -1;
	if (r == SPLIT_BAD_FIELD) {
		mark_refused(cfg, name, BF_COUNT);
		return -1;
	}
	if (vlen == 0) {
		bp_snprintf(why, whylen, "'bench.%.*s' needs a value (key=value)",
			    (int)(klen < BENCH_EXCERPT ? klen : BENCH_EXCERPT), key);
		mark_refused(cfg, name, fi);
		return -1;
	}
	if (check_value(name, fi, v, vlen, &val, why, whylen)) {
		mark_refused(cfg, name, fi);
		return -1;
	}
	struct cfg_bench *b = bench_get(cfg, name, why, whylen);
	if (!b)
		return -1;
	apply_value(b, fi, &val, v, vlen);
	return 0;
}

unsigned bench_refused_parts(const struct cfg_bench *b, char *buf, size_t len)
{
	const char *parts[BF_COUNT + 1];
	unsigned n = 0;
	size_t o = 0;

	for (int i = 0; i < BF_COUNT; i++)
		if (b->refused & (1u << i))
			parts[n++] = field_names[i];
	if (b->refused & (1u << BF_COUNT))
		parts[n++] = "an unknown key";
	bool its = (b->refused & ((1u << BF_COUNT) - 1)) != 0;     /* a known key first */
	buf[0] = '\0';
	for (unsigned i = 0; i < n && o < len; i++) {
		const char *sep = i == 0 ? (its ? "its " : "") : i + 1 == n ? " and " : ", ";
		o += (size_t)bp_snprintf(buf + o, len - o, "%s%s", sep, parts[i]);
	}
	return n;
}

static void emit_hex(const char *name, const char *field, const uint8_t *p, uint32_t n,
		     void (*emit)(void *ctx, const char *line), void *ctx)
{
	static char line[2 * CFG_BENCH_CODE_MAX + 64];
	int o = bp_snprintf(line, sizeof(line), "cfg.bench.%s.%s=", name, field);
	for (uint32_t i = 0; i < n && o > 0 && (size_t)o + 3 < sizeof(line); i++)
		o += bp_snprintf(line + o, sizeof(line) - (size_t)o, "%02x", p[i]);
	emit(ctx, line);
}

void bench_config_report(const struct cfg_bench *b, void (*emit)(void *ctx, const char *line),
			 void *ctx)
{
	char line[CFG_BENCH_TEXT_MAX + 96];
	const char *n = b->name;

	if (b->text[0]) {
		bool quote = false;
		for (const char *p = b->text; *p; p++)
			if (*p == ' ' || *p == '\t' || *p == ';' || *p == '#')
				quote = true;
		bp_snprintf(line, sizeof(line), quote ? "cfg.bench.%s.text=\"%s\"" : "cfg.bench.%s.text=%s",
			    n, b->text);
		emit(ctx, line);
	}
	if (b->code_len)
		emit_hex(n, "code", b->code, b->code_len, emit, ctx);
	if (b->init_len)
		emit_hex(n, "init", b->init, b->init_len, emit, ctx);
	bp_snprintf(line, sizeof(line), "cfg.bench.%s.unroll=%u", n, b->unroll);
	emit(ctx, line);
	bp_snprintf(line, sizeof(line), "cfg.bench.%s.loop=%u", n, b->loop);
	emit(ctx, line);
	bp_snprintf(line, sizeof(line), "cfg.bench.%s.align=%u", n, b->align);
	emit(ctx, line);
	bp_snprintf(line, sizeof(line), "cfg.bench.%s.offset=%u", n, b->offset);
	emit(ctx, line);
	if (!b->buffer)
		return;
	bp_snprintf(line, sizeof(line), "cfg.bench.%s.buffer=%llu", n, (unsigned long long)b->buffer);
	emit(ctx, line);
	bp_snprintf(line, sizeof(line), "cfg.bench.%s.buffer_align=%llu", n,
		    (unsigned long long)b->buffer_align);
	emit(ctx, line);
	bp_snprintf(line, sizeof(line), "cfg.bench.%s.fill=%s", n, bench_fill_name(b->fill));
	emit(ctx, line);
	bp_snprintf(line, sizeof(line), "cfg.bench.%s.stride=%u", n, b->stride);
	emit(ctx, line);
}
