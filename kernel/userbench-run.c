/* User benchmarks as payloads (kernel/userbench-run.h). */
#include "kernel/userbench-run.h"
#include "arch/x86/paging.h"
#include "kernel/mem.h"
#include "lib/bench-config.h"
#include "lib/format.h"
#include "lib/str.h"
#include "payloads/userbench.h"

static struct userbench {
	struct userbench_layout lay;
	char desc[CFG_BENCH_TEXT_MAX + 32];
} ubs[CFG_BENCH_MAX];

static const char *check(const struct cfg_bench *b, const struct payload *catalogue,
			 unsigned n, char *why, size_t len)
{
	if (b->refused) {
		char parts[96];
		unsigned nparts = bench_refused_parts(b, parts, sizeof(parts));
		bp_snprintf(why, len, "bench.%s: not measured: %s %s refused (see the "
			    "configuration errors)", b->name, parts, nparts == 1 ? "was" : "were");
		return why;
	}
	for (unsigned i = 0; i < n; i++) {
		if (!strcmp(catalogue[i].name, b->name)) {
			bp_snprintf(why, len, "bench.%s: '%s' is a built-in payload's name; choose "
				    "another", b->name, b->name);
			return why;
		}
	}
	/* Code for either mode, or a reason why there is none: a benchmark without code for
	 * this kernel's mode is then skipped (payload_unsupported, userbench_skip). */
	bool any = false;
	for (unsigned m = 0; m < CFG_BENCH_MODES; m++)
		any |= b->mode[m].code_len || b->mode[m].skip[0];
	if (!any) {
		bp_snprintf(why, len, "bench.%s: no code (bench.%s.code=HEX or .code32=HEX, as "
			    "scripts/bareperf-asm writes them)", b->name, b->name);
		return why;
	}
	const struct cfg_bench_code *c = userbench_code(b);
	uint64_t unrolled = (uint64_t)c->code_len * b->unroll;
	if (unrolled > CFG_BENCH_UNROLLED_MAX) {
		bp_snprintf(why, len, "bench.%s: %u bytes of code x unroll %u = %llu bytes, more than "
			    "the %u the unrolled code may have", b->name, c->code_len, b->unroll,
			    (unsigned long long)unrolled, CFG_BENCH_UNROLLED_MAX);
		return why;
	}
	if (b->offset >= b->align) {
		bp_snprintf(why, len, "bench.%s.offset=%u is not below bench.%s.align=%u", b->name,
			    b->offset, b->name, b->align);
		return why;
	}
	if (b->fill == CFG_FILL_CHASE && b->buffer < b->stride) {
		bp_snprintf(why, len, "bench.%s.fill=chase needs a buffer of at least one stride "
			    "(buffer=%llu, stride=%u)", b->name, (unsigned long long)b->buffer, b->stride);
		return why;
	}
	return 0;
}

unsigned userbench_payloads(const struct bp_config *cfg, const struct payload *catalogue,
			    unsigned n, struct payload *out, unsigned *errors,
			    void (*error)(const char *context, const char *msg))
{
	unsigned k = 0;
	char why[256];

	*errors = 0;
	for (unsigned i = 0; i < cfg->nbench && i < CFG_BENCH_MAX; i++) {
		const struct cfg_bench *b = &cfg->bench[i];
		if (check(b, catalogue, n, why, sizeof(why))) {
			error("config", why);
			(*errors)++;
			continue;
		}
		struct userbench *u = &ubs[k];
		bp_snprintf(u->desc, sizeof(u->desc), "%s", b->text[0] ? b->text : "user benchmark");
		memset(&u->lay, 0, sizeof(u->lay));
		out[k] = (struct payload){
			.name = b->name, .desc = u->desc, .flags = PL_CPL0 | PL_CPL3, .user = b,
			.fn = (const void *)(uintptr_t)KERNEL_BENCH_CODE, .user_fn = (uintptr_t)USER_BENCH_CODE,
			.layout = &u->lay,
		};
		k++;
	}
	return k;
}

uint64_t userbench_copies(const struct payload *p)
{
	return (uint64_t)p->user->unroll * (p->user->loop ? p->user->loop : 1);
}

int userbench_prepare(const struct payload *p, uint64_t *arg, char *why, size_t whylen)
{
	const struct cfg_bench *b = p->user;
	struct userbench_layout *lay = (struct userbench_layout *)p->layout;

	*arg = 0;
	if (b->buffer) {
		uintptr_t buf = user_alloc(b->buffer, b->buffer_align);
		if (!buf && user_alloc_past_region()) {
			char limit[128];
			user_region_limit(limit, sizeof(limit));
			bp_snprintf(why, whylen, "its %llu KiB buffer aligned to %llu %s: lower "
				    "bench.%s.buffer", (unsigned long long)(b->buffer >> 10),
				    (unsigned long long)b->buffer_align, limit, b->name);
			return -1;
		}
		if (!buf) {
			bp_snprintf(why, whylen, "not enough memory below 4 GiB for its %llu KiB buffer "
				    "aligned to %llu (%llu KiB free): lower bench.%s.buffer",
				    (unsigned long long)(b->buffer >> 10),
				    (unsigned long long)b->buffer_align,
				    (unsigned long long)(mem_free_bytes() >> 10), b->name);
			return -1;
		}
		if (b->fill == CFG_FILL_RANDOM)
			payload_fill_random(buf, b->buffer);
		else if (b->fill == CFG_FILL_CHASE)
			payload_build_chase_stride(buf, b->buffer, b->stride);
		*arg = buf;           /* user_alloc's pages are zeroed: fill=zero is done */
	}
	size_t size = userbench_size_max(b);
	uint8_t *code = user_code_alloc(size);
	if (!code) {
		bp_snprintf(why, whylen, "not enough memory for its %llu KiB of generated code",
			    (unsigned long long)(size >> 10));
		return -1;
	}
	if (userbench_emit(b, code, size, lay) || user_code_seal()) {
		bp_snprintf(why, whylen, "its code could not be generated and mapped");
		return -1;
	}
	return 0;
}

void userbench_where(const struct payload *p, uint64_t rip, unsigned cpl, char *buf,
		     size_t len, uint32_t *copy)
{
	const struct userbench_layout *l = p->layout;
	uint64_t base = cpl ? USER_BENCH_CODE : KERNEL_BENCH_CODE;
	uint64_t off = rip - base;

	*copy = 0;
	if (rip < base || off >= l->size) {
		bp_snprintf(buf, len, "outside %s", p->name);
		return;
	}
	for (unsigned k = 0; k < 2; k++) {
		uint64_t code_end = l->top[k] + (uint64_t)l->copies[k] * l->copy_len;
		if (off >= l->top[k] && off < code_end) {
			/* Word-sized division: the generated code is under BENCH_CODE_MAX. */
			uintptr_t in = (uintptr_t)(off - l->top[k]);
			*copy = (uint32_t)(in / l->copy_len) + 1;
			bp_snprintf(buf, len, "%s+0x%llx", p->name, (unsigned long long)(in % l->copy_len));
			return;
		}
		if (off >= l->init[k] && off < l->init[k] + l->init_len) {
			bp_snprintf(buf, len, "%s init+0x%llx", p->name,
				    (unsigned long long)(off - l->init[k]));
			return;
		}
	}
	bp_snprintf(buf, len, "%s wrapper+0x%llx", p->name, (unsigned long long)off);
}
