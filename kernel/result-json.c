/* The "@" records' JSON bodies (kernel/result-json.h, docs/results.md). No hardware, no globals. */
#include "kernel/result-json.h"
#include <stdarg.h>
#include <stdbool.h>
#include "lib/format.h"
#include "lib/json-out.h"
#include "lib/rapl.h"
#include "lib/str.h"
#include "lib/util.h"

static void put_bool(struct json_out *j, bool v)
{
	json_put(j, "%s", v ? "true" : "false");
}

const char *result_source_name(enum result_source s)
{
	static const char *const names[] = { [SRC_PMU] = "pmu", [SRC_MSR] = "msr",
					     [SRC_TSC] = "tsc", [SRC_STEP] = "single-step" };
	return names[s];
}

const char *result_unit_name(enum result_source s)
{
	static const char *const units[] = { [SRC_PMU] = "events", [SRC_MSR] = "events",
					     [SRC_TSC] = "ticks", [SRC_STEP] = "instructions" };
	return units[s];
}

/* A RAPL result: the counts above are energy units; these are the same in joules. */
static void put_joules(struct json_out *j, const struct result *r)
{
	char num[40];
	rapl_fmt_joules(num, sizeof(num), 1000, 1, r->energy_esu, 12);
	json_put(j, ",\"joules_per_unit\":%s", num);
	rapl_fmt_joules(num, sizeof(num), r->st.median_milli, 1, r->energy_esu, 6);
	json_put(j, ",\"median_joules\":%s", num);
	rapl_fmt_joules(num, sizeof(num), r->st.median_milli, r->iters, r->energy_esu, 6);
	json_put(j, ",\"per_iter_joules\":%s", num);
}

int result_json(const struct result *r, char *buf, size_t len)
{
	struct json_out j = json_out_start(buf, len);
	if (len)
		buf[0] = 0;
	json_put(&j, "{\"bench\":");
	json_put_str(&j, r->pl->name);
	json_put(&j, ",\"size\":%llu,\"cpl\":%u,\"event\":", (unsigned long long)r->size, r->cpl);
	json_put_str(&j, r->event);
	json_put(&j, ",\"group\":%u,\"source\":\"%s\",\"unit\":\"%s\",\"reps\":%u,\"iters\":%llu,",
	    r->group, result_source_name(r->source),
	    r->energy ? "energy-units" : result_unit_name(r->source), r->reps,
	    (unsigned long long)r->iters);
	/* A user benchmark: iters counts copies of its code, unroll x max(loop, 1). */
	if (r->pl->user)
		json_put(&j, "\"unroll\":%u,\"loop\":%u,", r->pl->user->unroll, r->pl->user->loop);
	json_put(&j, "\"insns_per_iter\":%d,\"min\":%lld,\"median\":", r->pl->insns_per_iter,
	    (long long)r->st.min);
	json_put_milli(&j, r->st.median_milli);
	json_put(&j, ",\"mean\":");
	json_put_milli(&j, r->st.mean_milli);
	json_put(&j, ",\"stddev\":");
	json_put_milli(&j, r->st.stddev_milli);
	json_put(&j, ",\"max\":%lld,\"per_iter\":", (long long)r->st.max);
	json_put_milli(&j, r->per_iter_milli);
	json_put(&j, ",\"trimmed\":%u", r->st.trimmed);
	if (r->energy)
		put_joules(&j, r);
	/* Where it ran, when more than one CPU is up (kernel/placement.h). */
	if (r->placed) {
		json_put(&j, ",\"cpu\":%u,\"partner\":", r->cpu);
		if (r->partner < 0) {
			json_put(&j, "null,\"partner_load\":null");
		} else {
			json_put(&j, "%d,\"partner_load\":", r->partner);
			json_put_str(&j, r->partner_load ? r->partner_load : "idle");
		}
	}
	json_put(&j, "}");
	return json_out_end(&j);
}

int payload_json(const struct payload *pl, char *buf, size_t len)
{
	/* What the payload needs beyond the CPU the kernel requires: CPUID features, a
	 * working PMU. SSE2 every x86-64 CPU has; an i686 one may not. */
	static const struct { unsigned flag; const char *name; } needs[] = {
		{ PL_NEEDS_RDTSCP, "rdtscp" },          /* CPUID.80000001H:EDX[27] */
		{ PL_NEEDS_POPCNT, "popcnt" },          /* CPUID.01H:ECX[23] */
		{ PL_NEEDS_RDPMC, "pmu" },              /* counters that count, read by RDPMC */
		{ PL_NEEDS_SYSCALL, "syscall" },        /* CPUID.80000001H:EDX[11] */
		{ PL_NEEDS_SSE2, "sse2" },              /* CPUID.01H:EDX[26] */
	};
	struct json_out j = json_out_start(buf, len);
	unsigned cpls = pl->flags & (PL_CPL0 | PL_CPL3);
	if (len)
		buf[0] = 0;
	json_put(&j, "{\"name\":");
	json_put_str(&j, pl->name);
	json_put(&j, ",\"insns_per_iter\":%d,\"cpls\":\"%s\",\"sizes\":", pl->insns_per_iter,
	    cpls == (PL_CPL0 | PL_CPL3) ? "0,3" : cpls == PL_CPL3 ? "3" : cpls ? "0" : "");
	put_bool(&j, pl->flags & PL_SIZES);
	json_put(&j, ",\"kernel_code\":");
	put_bool(&j, pl->flags & PL_KERNEL_CODE);
	json_put(&j, ",\"fault\":");
	put_bool(&j, pl->flags & PL_FAULT);
	json_put(&j, ",\"needs\":[");
	bool first = true;
	for (unsigned i = 0; i < ARRAY_SIZE(needs); i++) {
		if (!(pl->flags & needs[i].flag))
			continue;
		json_put(&j, "%s\"%s\"", first ? "" : ",", needs[i].name);
		first = false;
	}
	json_put(&j, "]");
	if (pl->user)
		json_put(&j, ",\"user\":true,\"unroll\":%u,\"loop\":%u", pl->user->unroll,
		    pl->user->loop);
	/* Test payloads only: what they must do. */
	if ((pl->flags & PL_FAULT) && pl->expect_vector == ~0u)
		json_put(&j, ",\"expect\":\"timeout\"");
	else if (pl->flags & PL_FAULT)
		json_put(&j, ",\"expect\":\"fault\",\"vector\":%u", pl->expect_vector);
	json_put(&j, ",\"desc\":");
	json_put_str(&j, pl->desc ? pl->desc : "");
	json_put(&j, "}");
	return json_out_end(&j);
}

int result_negative_note(const struct result *r, char *buf, size_t len)
{
	char size[32] = "";
	if (len)
		buf[0] = '\0';
	if (!r->st.negative)
		return 0;
	if (r->size)
		bp_snprintf(size, sizeof(size), " (%llu bytes)", (unsigned long long)r->size);
	return bp_snprintf(buf, len, "%s%s at CPL %u: %u of %u %s samples are negative "
			   "(count(2n) < count(n)): not to be trusted; raise warmup= or iters=",
			   r->pl->name, size, r->cpl, r->st.negative, r->reps, r->event);
}

const char *check_verdict_name(enum pmucheck_verdict v)
{
	return v == PMUCHECK_PASS ? "PASS" : v == PMUCHECK_FAIL ? "FAIL" : "SKIP";
}

int check_json(const struct pmucheck_result *r, char *buf, size_t len)
{
	static const char *const verdict[] = { "pass", "fail", "skip" };
	struct json_out j = json_out_start(buf, len);
	if (len)
		buf[0] = 0;
	json_put(&j, "{\"check\":");
	json_put_str(&j, r->name);
	json_put(&j, ",\"verdict\":\"%s\",\"measured\":", verdict[r->verdict]);
	json_put_str(&j, r->measured);
	json_put(&j, ",\"%s\":", r->verdict == PMUCHECK_SKIP ? "reason" : "rule");
	json_put_str(&j, r->rule);
	if (r->verdict == PMUCHECK_FAIL) {
		json_put(&j, ",\"why\":");
		json_put_str(&j, r->why);
	}
	json_put(&j, "}");
	return json_out_end(&j);
}

int check_summary_json(const char *scope, const struct pmucheck_summary *s, char *buf, size_t len)
{
	struct json_out j = json_out_start(buf, len);
	if (len)
		buf[0] = 0;
	json_put(&j, "{\"scope\":");
	json_put_str(&j, scope);
	json_put(&j, ",\"passed\":%u,\"failed\":%u,\"skipped\":%u}", s->passed, s->failed, s->skipped);
	return json_out_end(&j);
}
