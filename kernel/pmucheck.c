/*
 * The environment the pmucheck checks (arch/x86/pmu/pmucheck-suite.c) run in: their
 * payloads run through run_call at CPL 0 or 3 (the loop "empty" and the dependent IMUL
 * chain "imul_chain" of the catalogue, whose instruction counts the icount test holds),
 * RDPMC through the exception table, and each verdict printed as a PASS/FAIL/SKIP line
 * and an @check record (docs/pmucheck.md, docs/results.md).
 */
#include "kernel/pmucheck.h"
#include "arch/x86/msr-io.h"
#include "arch/x86/pmu/pmucheck-suite.h"
#include "arch/x86/run.h"
#include "kernel/console.h"
#include "kernel/engine.h"
#include "kernel/kernel.h"
#include "kernel/platform.h"
#include "kernel/kpmu.h"
#include "kernel/lava-report.h"
#include "kernel/result-json.h"
#include "kernel/screen-ui.h"
#include "lib/format.h"
#include "lib/str.h"

/* N: 2N = 200000 iterations fit the i686 payloads' 32-bit loop counter, and the loop's
 * 2N instructions pass the top of a counter preset 1000 below it. */
#define PMUCHECK_ITERS 100000ull

/* The catalogue entries the payloads of enum pmucheck_payload are. */
static const char *const payload_name[PMUCHECK_PAYLOAD_COUNT] = {
	[PMUCHECK_LOOP] = "empty", [PMUCHECK_SPACED] = "imul_chain",
};
static const struct payload *payload_of[PMUCHECK_PAYLOAD_COUNT];

static const char *const event_name[PMUCHECK_EV_COUNT] = {
	[PMUCHECK_EV_INSTRUCTIONS] = "instructions", [PMUCHECK_EV_CYCLES] = "cycles",
	[PMUCHECK_EV_BRANCHES] = "branches",
};

static bool human(void) { return kernel.cfg.format != CFG_FORMAT_MACHINE; }
static bool machine(void) { return kernel.cfg.format != CFG_FORMAT_HUMAN; }

static int env_run(void *ctx, enum pmucheck_payload p, unsigned cpl, uint64_t n)
{
	(void)ctx;
	struct run_opts o = { .cpl3 = cpl == 3, .watchdog_ms = kernel.cfg.watchdog_ms };
	struct run_result r;
	run_call(&o, payload_of[p]->fn, 0, n, &r);
	if (r.status == RUN_OK)
		return 0;
	return r.status == RUN_TIMEOUT ? -1 : (int)r.fault.vector;
}

static int env_rdpmc(void *ctx, uint32_t index, uint64_t *val)
{
	(void)ctx;
	return pmc_read_safe(index, val);
}

static void env_result(void *ctx, const struct pmucheck_result *r)
{
	(void)ctx;
	if (human()) {
		if (r->verdict == PMUCHECK_SKIP)
			kprintf("SKIP: pmucheck.%s (%s)\n", r->name, r->rule);
		else if (r->verdict == PMUCHECK_FAIL)
			kprintf("FAIL: pmucheck.%s (%s): %s [rule: %s]\n", r->name, r->why, r->measured, r->rule);
		else
			kprintf("PASS: pmucheck.%s: %s [rule: %s]\n", r->name, r->measured, r->rule);
	}
	if (machine()) {
		static char line[3 * PMUCHECK_TEXT_MAX * 6 + 256];
		check_json(r, line, sizeof(line));
		kprintf("@check %s\n", line);
	}
	lava_report_check(r);
}

/* The environment, or NULL with why when the checks cannot run at all. */
static const struct pmucheck_env *make_env(const char **why)
{
	static struct pmucheck_env env;
	env = (struct pmucheck_env){ .run = env_run, .rdpmc = env_rdpmc, .result = env_result,
				     .iters = PMUCHECK_ITERS };
	for (unsigned p = 0; p < PMUCHECK_PAYLOAD_COUNT; p++) {
		payload_of[p] = 0;
		for (unsigned i = 0; i < payload_count; i++)
			if (!strcmp(payload_catalogue[i].name, payload_name[p]))
				payload_of[p] = &payload_catalogue[i];
		if (!payload_of[p]) {
			*why = "a payload of the checks is missing from the catalogue";
			return 0;
		}
		env.insns_per_iter[p] = (unsigned)payload_of[p]->insns_per_iter;
		env.branches_per_iter[p] = 1;   /* both end each iteration with one jnz */
	}
	char err[160];
	for (unsigned e = 0; e < PMUCHECK_EV_COUNT; e++) {
		env.have_ev[e] = kpmu.be && kpmu_parse(event_name[e], &env.ev[e], err, sizeof(err)) == 0;
		/* netburst.thread=both would count the idle thread too: the checks qualify by
		 * this logical processor (netburst-thread counts the other on purpose). */
		if (env.ev[e].cls == EV_CLASS_NETBURST)
			env.ev[e].nb.both_threads = false;
	}
	return &env;
}

static void run_suite(enum pmucheck_scope scope, struct pmucheck_summary *sum)
{
	static char reason[sizeof(kpmu.reason) + 32];
	const char *why = 0;
	const struct pmucheck_env *env = make_env(&why);
	if (!kpmu.functional) {
		bp_snprintf(reason, sizeof(reason), "no working PMU: %s", kpmu.reason);
		why = reason;
	}
	if (!env) {
		/* Still report every check, as SKIP, through a printing-only environment. */
		static struct pmucheck_env print_only = { .result = env_result };
		env = &print_only;
	}
	pmucheck_run(&kpmu.st, env, scope, why, sum);
	kpmu_release();
	const char *name = scope == PMUCHECK_BRIEF ? "brief" : "full";
	if (machine()) {
		char line[128];
		check_summary_json(name, sum, line, sizeof(line));
		kprintf("@checkdone %s\n", line);
	}
	if (human())
		kprintf("pmucheck%s: %u passed, %u failed, %u skipped\n",
			scope == PMUCHECK_BRIEF ? " (brief)" : "", sum->passed, sum->failed, sum->skipped);
}

void pmucheck_brief(void)
{
	struct pmucheck_summary sum;
	if (kpmu.functional)
		run_suite(PMUCHECK_BRIEF, &sum);
}

int pmucheck_main(void)
{
	struct pmucheck_summary sum;
	kpmu_init();
	screen_pmu();
	report_meta();
	run_suite(PMUCHECK_FULL, &sum);
	report_done(0, 0, 0, kernel.config_errors);
	return sum.failed ? PLATFORM_EXIT_FAIL : PLATFORM_EXIT_OK;
}
