/*
 * Output: a perf-stat-like block per payload for people, and one "@" line per fact for
 * scripts (schema in docs/results.md). Formatting only: nothing here touches hardware.
 */
#include "kernel/engine.h"
#include "arch/x86/desc.h"
#include "kernel/console.h"
#include "kernel/kernel.h"
#include "kernel/kpmu.h"
#include "kernel/lava-report.h"
#include "kernel/result-json.h"
#include "kernel/screen-ui.h"
#include "payloads/userbench.h"
#include "lib/format.h"
#include "lib/rapl.h"
#include "lib/str.h"

#define SCHEMA_VERSION 1

static bool human(void) { return kernel.cfg.format != CFG_FORMAT_MACHINE; }
static bool machine(void) { return kernel.cfg.format != CFG_FORMAT_HUMAN; }

/* JSON string body: quotes, backslashes and control characters escaped. */
static const char *json_str(const char *s, char *buf, size_t len)
{
	json_escape(s, buf, len);
	return buf;
}

static const char *milli(int64_t v, char *buf)
{
	stats_fmt_milli(buf, 32, v);
	return buf;
}

static const char *size_text(uint64_t size, char *buf)
{
	if (size >= (1ull << 30) && !(size & ((1ull << 30) - 1)))
		bp_snprintf(buf, 24, "%llu GiB", (unsigned long long)(size >> 30));
	else if (size >= (1ull << 20) && !(size & ((1ull << 20) - 1)))
		bp_snprintf(buf, 24, "%llu MiB", (unsigned long long)(size >> 20));
	else
		bp_snprintf(buf, 24, "%llu KiB", (unsigned long long)(size >> 10));
	return buf;
}

void report_meta(void)
{
	if (!machine())
		return;
	char brand[112], reason[400], events[300], hv[32];
	const struct cpu_info *c = &kernel.cpu;
	const struct pmu_caps *p = &kpmu.caps;
	kprintf("@meta {\"schema\":%d,\"version\":\"%s\",\"cpu\":{\"vendor\":\"%s\",\"family\":%u,"
		"\"model\":%u,\"stepping\":%u,\"brand\":\"%s\",\"hypervisor\":\"%s\",\"mode\":\"%s\"},"
		"\"boot\":{\"firmware\":\"%s\"},",
		SCHEMA_VERSION, BAREPERF_VERSION, c->vendor_id, c->family, c->model, c->stepping,
		json_str(c->brand, brand, sizeof(brand)),
		c->hypervisor ? json_str(c->hv_vendor[0] ? c->hv_vendor : "unknown", hv, sizeof(hv))
			      : "none",
		sizeof(void *) == 8 ? "long" : "protected", bootinfo_firmware_name(kernel.bi));
	kprintf("\"pmu\":{\"kind\":\"%s\",\"model\":\"%s\",\"version\":%u,\"gp_counters\":%u,"
		"\"gp_width\":%u,\"fixed_counters\":%u,\"fixed_width\":%u,\"functional\":%s,"
		"\"reason\":\"%s\"},",
		pmu_kind_name(p->kind), kpmu.model->pfm_name, p->version, p->gp_counters, p->gp_width,
		p->fixed_counters, p->fixed_width, kpmu.functional ? "true" : "false",
		json_str(kpmu.functional ? "" : kpmu.reason, reason, sizeof(reason)));
	unsigned cpls = kernel.cfg.cpls;
	kprintf("\"config\":{\"reps\":%u,\"warmup\":%u,\"iters\":%llu,\"trim\":%u,\"cpls\":\"%s\","
		"\"events\":\"%s\"},\"tsc_hz\":%llu}\n",
		kernel.cfg.reps, kernel.cfg.warmup, (unsigned long long)kernel.cfg.iters,
		kernel.cfg.trim_pct,
		cpls == (CFG_CPL0 | CFG_CPL3) ? "0,3" : cpls == CFG_CPL3 ? "3" : "0",
		json_str(kernel.cfg.events, events, sizeof(events)), (unsigned long long)c->tsc_hz);
}

void report_result(const struct result *r)
{
	lava_report_result(r);
	if (!machine())
		return;
	char line[RESULT_JSON_MAX];
	result_json(r, line, sizeof(line));
	kprintf("@result %s\n", line);
}

/* Where in the payload a fault hit: "fault_div0+0x9" when inside its code. */
static void fault_place(const struct fault_result *f, char *buf, size_t len)
{
	if (f->pl->user) {
		str_copy(buf, f->where, len);
		return;
	}
	uint64_t base = f->fn_addr;
	uint64_t rip = f->run.fault.rip;
	if (rip >= base && rip - base < 4096)
		bp_snprintf(buf, len, "%s+0x%llx", f->pl->name, (unsigned long long)(rip - base));
	else
		bp_snprintf(buf, len, "outside %s", f->pl->name);
}

void report_fault(const struct fault_result *f)
{
	char where[80], sz[24], copy[48] = "", jcopy[24] = "";
	if (f->pl->user && f->copy) {
		bp_snprintf(copy, sizeof(copy), " (copy %u of the unrolled code)", f->copy);
		bp_snprintf(jcopy, sizeof(jcopy), ",\"copy\":%u", f->copy);
	}
	if (f->run.status == RUN_TIMEOUT) {
		/* A user benchmark's timeout says where its code was when time ran out. */
		char at[112] = "", jat[112] = "";
		if (f->pl->user) {
			fault_place(f, where, sizeof(where));
			bp_snprintf(at, sizeof(at), ", at %s%s", where, copy);
			bp_snprintf(jat, sizeof(jat), ",\"where\":\"%s\"%s", where, jcopy);
		}
		if (machine())
			kprintf("@timeout {\"bench\":\"%s\",\"size\":%llu,\"cpl\":%u,\"budget_ms\":%u,"
				"\"expected\":%s%s}\n", f->pl->name, (unsigned long long)f->size, f->cpl,
				f->budget_ms, f->expected ? "true" : "false", jat);
		if (human())
			kprintf("%s%s%s at CPL %u: stopped by the watchdog after %u ms%s%s\n",
				f->pl->name, f->size ? " " : "", f->size ? size_text(f->size, sz) : "",
				f->cpl, f->budget_ms, at,
				f->expected ? " (expected: it never ends)" : " (UNEXPECTED)");
		screen_alert(false, SCR_YELLOW, "%s at CPL %u: timeout after %u ms%s", f->pl->name,
			     f->cpl, f->budget_ms, f->expected ? " (expected)" : " (UNEXPECTED)");
		return;
	}
	const struct run_fault *t = &f->run.fault;
	/* A vector raised by INT n is named so: its own name says what would have raised it. */
	const char *name = t->soft_int ? "INT n" : vector_name(t->vector);
	fault_place(f, where, sizeof(where));
	if (machine())
		kprintf("@fault {\"bench\":\"%s\",\"size\":%llu,\"cpl\":%u,\"vector\":%u,\"name\":\"%s\","
			"\"error_code\":%llu,\"rip\":\"0x%016llx\",\"where\":\"%s\"%s,\"cr2\":\"0x%llx\","
			"\"expected\":%s}\n",
			f->pl->name, (unsigned long long)f->size, f->cpl, t->vector, name,
			(unsigned long long)t->error, (unsigned long long)t->rip, where, jcopy,
			(unsigned long long)t->cr2, f->expected ? "true" : "false");
	if (human())
		kprintf("%s at CPL %u: %s (vector %u, error 0x%llx) at %s%s, RIP %016llx%s\n",
			f->pl->name, f->cpl, name, t->vector,
			(unsigned long long)t->error, where, copy, (unsigned long long)t->rip,
			f->expected ? " (expected)" : " (UNEXPECTED)");
	screen_alert(false, f->expected ? SCR_LIGHT_MAGENTA : SCR_LIGHT_RED,
		     "%s at CPL %u: fault %s at %s%s", f->pl->name, f->cpl, vector_name(t->vector),
		     where, f->expected ? " (expected)" : " (UNEXPECTED)");
}

void report_skip(const struct payload *pl, const char *why)
{
	if (machine())
		kprintf("@skip {\"bench\":\"%s\",\"reason\":\"%s\"}\n", pl->name, why);
	if (human())
		kprintf("%s: skipped: %s\n", pl->name, why);
	screen_alert(true, SCR_LIGHT_CYAN, "%s: skipped: %s", pl->name, why);
}

void report_error(const char *context, const char *msg)
{
	char m[640];
	if (machine())
		kprintf("@error {\"context\":\"%s\",\"message\":\"%s\"}\n", context,
			json_str(msg, m, sizeof(m)));
	if (human())
		kprintf("error: %s\n", msg);
	screen_alert(false, SCR_LIGHT_RED, "error: %s", msg);
}

/* People saw each configuration error as a "config error:" line while it was read; the
 * machine-readable output gets them here, as @error records, once. */
void report_config_errors(void)
{
	char m[2 * KERNEL_CONFIG_ERROR_LEN];
	unsigned kept = kernel.config_errors < KERNEL_CONFIG_ERRORS_KEPT ? kernel.config_errors
									 : KERNEL_CONFIG_ERRORS_KEPT;
	if (!machine())
		return;
	for (unsigned i = 0; i < kept; i++)
		kprintf("@error {\"context\":\"config\",\"message\":\"%s\"}\n",
			json_str(kernel.config_error_msg[i], m, sizeof(m)));
	if (kernel.config_errors > kept)
		kprintf("@error {\"context\":\"config\",\"message\":\"%u more configuration "
			"errors (see the console above)\"}\n", kernel.config_errors - kept);
}

void report_note(const char *context, const char *msg)
{
	char m[640];
	if (machine())
		kprintf("@note {\"context\":\"%s\",\"message\":\"%s\"}\n", context,
			json_str(msg, m, sizeof(m)));
	if (human())
		kprintf("note: %s\n", msg);
	screen_alert(true, SCR_LIGHT_CYAN, "note: %s", msg);
}

/* "12.345 /iter ±0.00%" for one result. */
static void cell(const struct result *r, char *buf, size_t len)
{
	char v[32], pct[32];
	if (r->energy)         /* RAPL counts in joules: "61.04 nJ" */
		rapl_fmt_joules_si(v, sizeof(v), r->st.median_milli, r->iters, r->energy_esu, 4);
	else
		milli(r->per_iter_milli, v);
	bp_snprintf(buf, len, "%12s ±%s%%", v, milli(stats_spread_pct_milli(&r->st), pct));
}

void report_block(const struct payload *pl, uint64_t size, const struct result *rs, unsigned n)
{
	screen_block(pl, size, rs, n);
	if (!human())
		return;
	char sz[24], a[64], b[64];
	kprintf("\n %s%s%s: %s\n", pl->name, size ? " " : "", size ? size_text(size, sz) : "",
		pl->desc);
	if (n && rs[0].placed) {
		if (rs[0].partner >= 0)
			kprintf("   on CPU %u, partner CPU %d: %s\n", rs[0].cpu, rs[0].partner,
				rs[0].partner_load);
		else
			kprintf("   on CPU %u, no partner\n", rs[0].cpu);
	}
	if (pl->user) {
		const struct cfg_bench *b = pl->user;
		kprintf("   user benchmark: %u bytes x unroll %u x loop %u = %llu copies; each sample = "
			"count(2 x unroll) - count(unroll); %u repetitions after %u warm-up%s\n",
			userbench_code(b)->code_len, b->unroll, b->loop, (unsigned long long)rs[0].iters,
			kernel.cfg.reps, kernel.cfg.warmup, kernel.cfg.trim_pct ? ", outliers trimmed" : "");
		const struct result *in = result_find(rs, n, 0, "instructions", SRC_STEP);
		if (!in)
			in = result_find(rs, n, 3, "instructions", SRC_STEP);
		if (in) {
			char v[32];
			kprintf("   instructions per copy, measured by single-step: %s\n",
				milli(in->per_iter_milli, v));
		}
	} else {
		kprintf("   %d instructions/iteration declared; n=%llu, each sample = count(2n) - "
			"count(n); %u repetitions after %u warm-up%s\n", pl->insns_per_iter,
			(unsigned long long)kernel.cfg.iters, kernel.cfg.reps, kernel.cfg.warmup,
			kernel.cfg.trim_pct ? ", outliers trimmed" : "");
	}
	kprintf("   %-28s %-13s %22s %22s\n", pl->user ? "per copy" : "per iteration", "source",
		"CPL 0", "CPL 3");
	static bool spread_told;
	if (!spread_told) {             /* once, under the first block's header */
		kprintf("   (figures: the repetitions' median; ±: the " STATS_SPREAD_MEANING ")\n");
		spread_told = true;
	}
	for (unsigned i = 0; i < n; i++) {
		const struct result *r = &rs[i];
		if (result_find(rs, i, 0, r->event, r->source) || result_find(rs, i, 3, r->event, r->source))
			continue;                  /* its row is already printed */
		const struct result *c0 = result_find(rs, n, 0, r->event, r->source);
		const struct result *c3 = result_find(rs, n, 3, r->event, r->source);
		if (c0)
			cell(c0, a, sizeof(a));
		else
			str_copy(a, "-", sizeof(a));
		if (c3)
			cell(c3, b, sizeof(b));
		else
			str_copy(b, "-", sizeof(b));
		kprintf("   %-28s %-13s %22s %22s\n", r->event, result_source_name(r->source), a, b);
	}
	for (unsigned cpl = 0; cpl <= 3; cpl += 3) {
		const struct result *cy = result_find(rs, n, cpl, "cycles", SRC_PMU);
		const struct result *in = result_find(rs, n, cpl, "instructions", SRC_PMU);
		if (cy && in && cy->st.median_milli > 0) {
			char v[32];
			kprintf("   CPL %u: %s instructions per cycle\n", cpl,
				milli(in->st.median_milli * 1000 / cy->st.median_milli, v));
		}
	}
}

void report_done(unsigned results, unsigned faults, unsigned timeouts, unsigned errors)
{
	if (machine())
		kprintf("@done {\"results\":%u,\"faults\":%u,\"timeouts\":%u,\"errors\":%u}\n", results,
			faults, timeouts, errors);
	if (human())
		kprintf("\nbareperf: %u results, %u faults, %u timeouts, %u errors\n", results, faults,
			timeouts, errors);
	screen_results(results, faults, timeouts, errors);
}

void report_payload(const struct payload *pl)
{
	char line[RESULT_JSON_MAX];
	unsigned cpls = pl->flags & (PL_CPL0 | PL_CPL3);
	if (machine()) {
		payload_json(pl, line, sizeof(line));
		kprintf("@payload %s\n", line);
	}
	if (human() && pl->user)
		kprintf("%-16s user benchmark, unroll %u, loop %u, CPL 0,3 %s\n", pl->name,
			pl->user->unroll, pl->user->loop, pl->desc);
	else if (human())
		kprintf("%-16s %3d instructions/iteration, CPL %-3s %s\n", pl->name,
			pl->insns_per_iter, cpls == (PL_CPL0 | PL_CPL3) ? "0,3" : cpls == PL_CPL3 ? "3" : "0",
			pl->desc);
}
