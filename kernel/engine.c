/*
 * The measurement engine: for each selected payload, buffer size, CPL and counter group
 * it runs one batch of the harness (warm-up + repetitions, each at n and 2n iterations)
 * and turns count(2n) - count(n) into statistics, so fixed overhead (the call, the
 * counter reads, the serialising instructions) cancels exactly.
 */
#include "kernel/engine.h"
#include "kernel/checkpoint.h"
#include "arch/x86/abi.h"
#include "arch/x86/paging.h"
#include "arch/x86/run.h"
#include "kernel/console.h"
#include "kernel/harness-out.h"
#include "kernel/kernel.h"
#include "kernel/mem.h"
#include "kernel/placement.h"
#include "kernel/plan.h"
#include "kernel/platform.h"
#include "kernel/kpmu.h"
#include "kernel/pmucheck.h"
#include "kernel/result-json.h"
#include "kernel/sample.h"
#include "kernel/screen-ui.h"
#include "kernel/smp.h"
#include "kernel/userbench-run.h"
#include "lib/format.h"
#include "lib/str.h"

#define STEP_REPS_MAX   3          /* single-step counts are exact: a few repetitions show it */
#define MAX_RESULTS     (2 * (EV_MAX_EVENTS + 2))

/* Read by payloads/harness.asm at the HARNESS_* offsets of arch/x86/abi.h. */
struct harness {
	uint64_t fn, arg, n, reps, nctr, out;
	uint32_t idx[8];                /* RDPMC indices */
	uint64_t nmsr;                  /* free-running MSRs read by RDMSR (CPL 0 only) */
	uint32_t msr[8];
	uint64_t start[17];
};
#define HARNESS_AT(field, off) \
	_Static_assert(__builtin_offsetof(struct harness, field) == (off), "HARNESS_ offsets")
HARNESS_AT(fn, HARNESS_FN);
HARNESS_AT(arg, HARNESS_ARG);
HARNESS_AT(n, HARNESS_N);
HARNESS_AT(reps, HARNESS_REPS);
HARNESS_AT(nctr, HARNESS_NCTR);
HARNESS_AT(out, HARNESS_OUT);
HARNESS_AT(idx, HARNESS_IDX);
HARNESS_AT(nmsr, HARNESS_NMSR);
HARNESS_AT(msr, HARNESS_MSR);
HARNESS_AT(start, HARNESS_START);
_Static_assert(sizeof(struct harness) == HARNESS_SIZE, "harness layout");
#define HARNESS_MAX_CTRS 8
#define HARNESS_MAX_MSRS 8
#define HARNESS_MAX_VALUES (HARNESS_MAX_CTRS + HARNESS_MAX_MSRS + 1)
_Static_assert(PLAN_MAX_CTRS == HARNESS_MAX_CTRS && PLAN_MAX_MSRS == HARNESS_MAX_MSRS,
	       "a counter group is what one harness run reads");

extern char bp_harness_lfence[], bp_harness_cpuid[], bp_harness_lfence_cpl0[];
extern char bp_harness_cpuid_cpl0[], bp_step[], bp_step_cpl0[];
extern char __text_start[];

static struct plan plan;
/* The screen's progress bar: payload-and-size runs done, of those to run. */
static struct {
	unsigned done, total;
} progress;
/* The catalogue, then the configuration's user benchmarks. */
static struct payload all_payloads[PLAN_MAX_SELECTED];
static unsigned nall, nuser;
static struct {
	unsigned results, faults, timeouts, unexpected;
	unsigned skipped, tried;        /* payloads skipped, and run (whatever came of it) */
} tally;

static int64_t samples[100000];
static struct result block[MAX_RESULTS];
static unsigned nblock;

static void error(const char *context, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Reports one error line and counts it for the exit status. */
static void error(const char *context, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	bp_vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	report_error(context, msg);
	plan.errors++;
}

/* ------------------------------------------------------------ the plan */

/* kpmu_assign, reporting the counter widths the plan keeps for each group. */
static int assign_events(const struct ev_encoding *ev, unsigned n, unsigned *width, char *err,
			 size_t errlen)
{
	if (kpmu_assign(ev, n, err, errlen))
		return -1;
	for (unsigned i = 0; width && i < n; i++)
		width[i] = kpmu.st.slot[i].width;
	return 0;
}

/* all_payloads: the catalogue and the good user benchmarks; returns the errors found. */
static unsigned build_payloads(void)
{
	unsigned errors;
	nall = payload_count < PLAN_MAX_SELECTED - CFG_BENCH_MAX ? payload_count
								 : PLAN_MAX_SELECTED - CFG_BENCH_MAX;
	memcpy(all_payloads, payload_catalogue, nall * sizeof(all_payloads[0]));
	nuser = userbench_payloads(&kernel.cfg, payload_catalogue, payload_count,
				   all_payloads + nall, &errors, report_error);
	nall += nuser;
	return errors;
}

static void make_plan(void)
{
	const struct plan_env env = {
		.cpls = kernel.cfg.cpls, .single_step = kernel.cfg.single_step,
		.trace_msr = kernel.cfg.trace_msr, .pmu_functional = kpmu.functional,
		.pmu_backend = kpmu.be != 0, .pmu_reason = kpmu.reason,
		.parse = kpmu_parse, .assign = assign_events,
		.error = report_error, .note = report_note,
	};
	plan_init(&plan);
	plan.errors += build_payloads();
	/* User benchmarks run alone unless payloads= says otherwise. */
	static char users[CFG_BENCH_MAX * CFG_BENCH_NAME_MAX];
	const char *list = kernel.cfg.payloads;
	if (kernel.cfg.nbench && !kernel.cfg.payloads_set) {
		users[0] = '\0';
		for (unsigned i = 0; i < nuser; i++)
			bp_snprintf(users + strlen(users), sizeof(users) - strlen(users), "%s%s",
				    i ? "," : "", all_payloads[nall - nuser + i].name);
		list = users;
	}
	if (list[0])
		plan_select(&plan, list, all_payloads, nall, &env);
	plan_events(&plan, kernel.cfg.events, &env);
}

/* ------------------------------------------------------------ running */

/* n the harness passes the payload: the iterations, or for a user benchmark 1, which
 * runs its unrolled code once (2 runs it twice as unrolled). */
static uint64_t payload_n(const struct payload *pl)
{
	return pl->user ? 1 : kernel.cfg.iters;
}

/* What a sample is divided by: iterations, or copies of a user benchmark's code. */
static uint64_t per_sample(const struct payload *pl)
{
	return pl->user ? userbench_copies(pl) : kernel.cfg.iters;
}

static uintptr_t payload_entry(const struct payload *pl, unsigned cpl)
{
	if (pl->user)
		return cpl ? pl->user_fn : (uintptr_t)pl->fn;
	return cpl ? payload_user_alias((uintptr_t)pl->fn) : (uintptr_t)pl->fn;
}

/* energy: the event's RAPL encoding when it is one, else NULL. */
static void record(const struct payload *pl, uint64_t size, unsigned cpl, const char *event,
		   unsigned group, enum result_source src, unsigned reps, int64_t *s,
		   const struct ev_encoding *energy)
{
	if (nblock == MAX_RESULTS)
		return;
	struct result *r = &block[nblock++];
	*r = (struct result){ .pl = pl, .size = size, .cpl = cpl, .group = group,
			      .source = src, .reps = reps, .iters = per_sample(pl),
			      .energy = energy != 0, .energy_esu = energy ? energy->energy.esu : 0 };
	str_copy(r->event, event, sizeof(r->event));
	placement_mark(r);
	stats_compute(s, reps, kernel.cfg.trim_pct, &r->st);
	int64_t n = (int64_t)r->iters, m = r->st.median_milli;
	r->per_iter_milli = (m >= 0 ? m + n / 2 : m - n / 2) / n;
	tally.results++;
	report_result(r);
	if (r->st.negative) {
		char msg[RESULT_JSON_MAX];
		result_negative_note(r, msg, sizeof(msg));
		report_note("payload", msg);
	}
}

static bool run_failed(const struct payload *pl, uint64_t size, unsigned cpl,
		       const struct run_result *run)
{
	if (run->status == RUN_OK)
		return false;
	struct fault_result f = { .pl = pl, .size = size, .cpl = cpl, .run = *run,
				  .budget_ms = kernel.cfg.watchdog_ms, .fn_addr = payload_entry(pl, cpl) };
	if (pl->user)
		userbench_where(pl, run->fault.rip, cpl, f.where, sizeof(f.where), &f.copy);
	if (pl->flags & PL_FAULT)
		f.expected = run->status == RUN_TIMEOUT ? pl->expect_vector == NEVER_ENDS
							: run->fault.vector == pl->expect_vector;
	if (!f.expected)
		tally.unexpected++;
	if (run->status == RUN_TIMEOUT)
		tally.timeouts++;
	else
		tally.faults++;
	report_fault(&f);
	return true;
}

static const void *harness_fn(unsigned cpl)
{
	if (kpmu.serialize_lfence)
		return cpl ? bp_harness_lfence : bp_harness_lfence_cpl0;
	return cpl ? bp_harness_cpuid : bp_harness_cpuid_cpl0;
}

/* One batch for one counter group. Returns false when the payload faulted. */
static bool measure_group(const struct payload *pl, uint64_t size, unsigned cpl, uint64_t arg,
			  struct harness *h, uint64_t *out, unsigned gi)
{
	const struct plan_group *g = &plan.groups[gi];
	unsigned nctr = kpmu.functional ? g->n : 0, total = kernel.cfg.warmup + kernel.cfg.reps;
	unsigned nmsr = gi == 0 && cpl == 0 ? plan.nmsr : 0;
	unsigned nprog = kpmu.functional || plan.trace_only ? g->n : 0;
	char err[160];
	struct run_opts o = { .cpl3 = cpl == 3, .watchdog_ms = kernel.cfg.watchdog_ms,
			      .int3_resumes = pl->flags & PL_INT3_RESUME,
			      .syscall = pl->flags & PL_NEEDS_SYSCALL };

	if (nprog && kpmu_assign(g->ev, nprog, err, sizeof(err))) {
		error("pmu", "counter group cannot be placed: %s", err);
		return true;
	}
	if (nprog && kpmu_start()) {
		error("pmu", "programming the counters faulted (vector %u) while measuring %s",
		      (unsigned)kpmu.st.last_fault, pl->name);
		kpmu_release();
		return true;
	}
	user_access_begin();
	*h = (struct harness){
		.fn = payload_entry(pl, cpl),
		.arg = arg, .n = payload_n(pl), .reps = total, .nctr = nctr, .out = (uintptr_t)out,
	};
	for (unsigned i = 0; i < nctr; i++)
		h->idx[i] = kpmu.st.slot[i].rdpmc_index;
	h->nmsr = nmsr;
	for (unsigned i = 0; i < nmsr; i++)
		h->msr[i] = plan.msr_slot[i].ctr_msr;
	user_access_end();

	struct run_result run;
	run_call(&o, harness_fn(cpl), (uintptr_t)h, 0, &run);
	if (nprog) {
		kpmu_stop();
		kpmu_release();
	}
	if (run_failed(pl, size, cpl, &run))
		return false;

	/* The TSC, the last value, is reported once, from group 0. */
	unsigned msr_width[HARNESS_MAX_MSRS];
	for (unsigned i = 0; i < nmsr; i++)
		msr_width[i] = plan.msr_slot[i].width;
	const struct harness_values v = { .nctr = nctr, .nmsr = nmsr, .ctr_width = g->width,
					  .msr_width = msr_width };
	unsigned stride = harness_stride(&v);
	for (unsigned c = 0; c < stride; c++) {
		if (c == stride - 1 && gi > 0)
			break;
		user_access_begin();
		harness_samples(out, &v, c, kernel.cfg.warmup, kernel.cfg.reps, samples);
		user_access_end();
		unsigned width;
		enum result_source src = harness_source(&v, c, &width);
		if (src == SRC_PMU)
			record(pl, size, cpl, g->ev[c].name, gi, src, kernel.cfg.reps, samples, 0);
		else if (src == SRC_MSR)
			record(pl, size, cpl, plan.msr_ev[c - nctr].name, gi, src, kernel.cfg.reps,
			       samples, plan.msr_ev[c - nctr].cls == EV_CLASS_ENERGY
					? &plan.msr_ev[c - nctr] : 0);
		else
			record(pl, size, cpl, "tsc", 0, src, kernel.cfg.reps, samples, 0);
	}
	return true;
}

/* A single-stepped count with an instruction in it after which the CPU gives no trap
 * would be short: an error instead of a result. */
static bool steps_refused(const struct payload *pl, unsigned cpl, const struct run_result *run)
{
	if (!run->step_hazard)
		return false;
	char where[80];
	uint32_t copy;
	if (pl->user)
		userbench_where(pl, run->step_hazard_rip, cpl, where, sizeof(where), &copy);
	else
		bp_snprintf(where, sizeof(where), "RIP %llx", (unsigned long long)run->step_hazard_rip);
	error("payload", "%s at CPL %u: instructions not measured by single-step: the code executes "
	      "%s (at %s), after which the CPU gives no single-step trap, so the count would be short",
	      pl->name, cpl, run->step_hazard, where);
	return true;
}

/* Instructions by single-stepping: exact, slow, for CPUs whose counters do not count. */
static void measure_steps(const struct payload *pl, uint64_t size, unsigned cpl, uint64_t arg,
			  struct harness *h)
{
	unsigned reps = kernel.cfg.reps < STEP_REPS_MAX ? kernel.cfg.reps : STEP_REPS_MAX;
	struct run_opts o = { .cpl3 = cpl == 3, .watchdog_ms = kernel.cfg.watchdog_ms,
			      .single_step = true, .int3_resumes = pl->flags & PL_INT3_RESUME,
			      .syscall = pl->flags & PL_NEEDS_SYSCALL };
	for (unsigned r = 0; r < reps; r++) {
		uint64_t steps[2];
		for (int len = 0; len < 2; len++) {
			user_access_begin();
			*h = (struct harness){
				.fn = payload_entry(pl, cpl),
				.arg = arg, .n = payload_n(pl) << len,
			};
			user_access_end();
			struct run_result run;
			run_call(&o, cpl ? bp_step : bp_step_cpl0, (uintptr_t)h, 0, &run);
			if (run_failed(pl, size, cpl, &run) || steps_refused(pl, cpl, &run))
				return;
			steps[len] = run.steps;
		}
		samples[r] = harness_delta(steps[0], steps[1], 64);
	}
	record(pl, size, cpl, "instructions", 0, SRC_STEP, reps, samples, 0);
}

static uint64_t payload_arg(const struct payload *pl, uint64_t size, bool *ok)
{
	*ok = true;
	switch (pl->arg) {
	case ARG_CHASE:
	case ARG_SEQ_DESC: {
		uint64_t buf = user_alloc(size, size >= LARGE_PAGE_SIZE ? LARGE_PAGE_SIZE : PAGE_SIZE);
		if (!buf) {
			*ok = false;
			return 0;
		}
		if (pl->arg == ARG_CHASE) {
			payload_build_chase(buf, size);
			return buf;
		}
		/* The payload reads [start, end) as two machine words. */
		uintptr_t desc = user_alloc(PAGE_SIZE, PAGE_SIZE);
		if (!desc) {
			*ok = false;
			return 0;
		}
		user_access_begin();
		((uintptr_t *)desc)[0] = (uintptr_t)buf;
		((uintptr_t *)desc)[1] = (uintptr_t)(buf + size);
		user_access_end();
		return desc;
	}
	case ARG_KERNEL_ADDR:
		return (uintptr_t)__text_start;
	case ARG_RDPMC_INDEX:
		return kpmu.functional && plan.groups[0].n ? kpmu.st.slot[0].rdpmc_index : 0;
	case ARG_NONZERO:
		return 0x5555555555555555ull;
	default:
		return 0;
	}
}

static void measure_payload(const struct payload *pl, uint64_t size)
{
	user_reset();
	nblock = 0;
	/* The harness's data first: the payload's buffers then lie above it, each above an
	 * unmapped guard page and with nothing mapped after the last (kernel/mem.c), so code
	 * that runs past its buffer faults instead of rewriting the harness or its results. */
	unsigned total = kernel.cfg.warmup + kernel.cfg.reps;
	struct harness *h = (struct harness *)user_alloc(sizeof(struct harness), 64);
	uint64_t *out = (uint64_t *)user_alloc((uint64_t)total * 2 * HARNESS_MAX_VALUES * 8,
					       PAGE_SIZE);
	bool ok = h && out;
	uint64_t arg = ok ? payload_arg(pl, size, &ok) : 0;
	bool past_region = !ok && h && out && user_alloc_past_region();
	char why[200];
	if (ok && pl->user && userbench_prepare(pl, &arg, why, sizeof(why))) {
		error("payload", "%s: %s", pl->name, why);
		user_reset();
		return;
	}
	if (!ok) {
		char sz[32];
		bp_snprintf(sz, sizeof(sz), "%llu %s buffer",
			    (unsigned long long)(size >= (1u << 20) ? size >> 20 : size >> 10),
			    size >= (1u << 20) ? "MiB" : "KiB");
		if (past_region) {
			user_region_limit(why, sizeof(why));
			error("payload", "%s: a %s %s: lower sizes", pl->name, sz, why);
		} else {
			error("payload", "%s: not enough memory below 4 GiB for a %s (%llu MiB free)",
			      pl->name, sz, (unsigned long long)(mem_free_bytes() >> 20));
		}
		user_reset();
		return;
	}
	for (unsigned cpl = 0; cpl <= 3; cpl += 3) {
		if (!(kernel.cfg.cpls & (cpl ? CFG_CPL3 : CFG_CPL0)))
			continue;
		if (!(pl->flags & (cpl ? PL_CPL3 : PL_CPL0)))
			continue;
		bool went_on = true;
		for (unsigned g = 0; g < plan.ngroups && went_on; g++) {
			screen_progress(pl, size, cpl, g, plan.ngroups, smp_self(), progress.done,
					progress.total);
			went_on = measure_group(pl, size, cpl, arg, h, out, g);
		}
		if (went_on && plan.step && !(pl->flags & (PL_KERNEL_CODE | PL_FAULT)))
			measure_steps(pl, size, cpl, arg, h);
		if (went_on)
			sample_payload(pl, size, cpl, arg, payload_n(pl));
	}
	if (nblock)
		report_block(pl, size, block, nblock);
	user_reset();
	progress.done++;
}

/* Every selected payload, on the CPU running this (kernel/placement.c chooses it). */
static void run_plan(void)
{
	bool pce = run_get_pce();
	run_set_pce(kpmu.functional);
	progress.done = progress.total = 0;
	for (unsigned i = 0; i < plan.nsel; i++)
		progress.total += plan.sel[i]->flags & PL_SIZES ? kernel.cfg.nsizes : 1;
	for (unsigned i = 0; i < plan.nsel; i++) {
		const struct payload *pl = plan.sel[i];
		const char *why = payload_unsupported(pl, &kernel.cpu, kpmu.functional);
		if (!why)
			why = plan_cpl_skip(pl, kernel.cfg.cpls);
		if (!why && !kernel.watchdog && (pl->flags & PL_FAULT) && pl->expect_vector == NEVER_ENDS)
			why = "never ends, and no watchdog (APIC timer or PIT) could stop it";
		if (why) {
			report_skip(pl, why);
			tally.skipped++;
			progress.total -= pl->flags & PL_SIZES ? kernel.cfg.nsizes : 1;
			continue;
		}
		tally.tried++;
		if (!(pl->flags & PL_SIZES)) {
			measure_payload(pl, 0);
		} else {
			for (unsigned s = 0; s < kernel.cfg.nsizes; s++)
				measure_payload(pl, kernel.cfg.sizes[s]);
		}
		checkpoint();
	}
	run_set_pce(pce);
}

int engine_main(void)
{
	kpmu_init();
	screen_pmu();
	report_meta();
	pmucheck_brief();
	make_plan();
	sample_init();
	/* The i686 payloads count iterations in ESI, and the harness doubles n. */
	if (sizeof(void *) == 4 && kernel.cfg.iters > 0x7fffffffull) {
		error("config", "iters=%llu is more than the i686 kernel's 32-bit payload loops "
		      "count (at most 2147483647, so that 2 x iters fits): lower iters",
		      (unsigned long long)kernel.cfg.iters);
		report_done(0, 0, 0, plan.errors + kernel.config_errors);
		return PLATFORM_EXIT_FAIL;
	}
	if (plan.nsel == 0) {
		if (kernel.cfg.nbench && !kernel.cfg.payloads_set)
			error("config", "no benchmark to run: each one the configuration defines "
			      "was refused (see the errors above)");
		else
			error("config", "payloads=%s selects nothing: no payload to run",
			      kernel.cfg.payloads);
		report_done(0, 0, 0, plan.errors + kernel.config_errors);
		return PLATFORM_EXIT_FAIL;
	}
	plan.errors += placement_check();
	plan.errors += placement_run(run_plan);
	/* Skips are no failure, but a run that measured nothing it was asked for is. */
	if (tally.skipped && !tally.tried)
		error("payload", "nothing was measured: %u payload%s selected, and %s skipped (the "
		      "skip lines say why)", plan.nsel, plan.nsel == 1 ? "" : "s",
		      plan.nsel == 1 ? "it was" : "each was");
	report_done(tally.results, tally.faults, tally.timeouts, plan.errors + kernel.config_errors);
	return tally.unexpected || plan.errors || kernel.config_errors ? PLATFORM_EXIT_FAIL
								       : PLATFORM_EXIT_OK;
}

/* mode=list: every payload of the catalogue, one @payload record each, nothing run. */
int engine_list(void)
{
	unsigned errors = build_payloads();
	for (unsigned i = 0; i < nall; i++)
		report_payload(&all_payloads[i]);
	return errors ? PLATFORM_EXIT_FAIL : PLATFORM_EXIT_OK;
}

const struct result *result_find(const struct result *rs, unsigned n, unsigned cpl, const char *event,
				 enum result_source src)
{
	for (unsigned i = 0; i < n; i++)
		if (rs[i].cpl == cpl && !strcmp(rs[i].event, event) && rs[i].source == src)
			return &rs[i];
	return NULL;
}
