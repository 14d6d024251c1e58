/*
 * The pmucheck suite (arch/x86/pmu/pmucheck-suite.c) against the counting MSR model:
 * every check passes or skips on a correct model of every generation, and each check
 * meant to catch a fault fails on a model built with that fault (tests/unit/msr_model.h,
 * MSR_BREAK_*). Also: the brief subset, and every check SKIPs with the reason given.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "arch/x86/pmu/pmucheck-suite.h"
#include "tests/unit/msr_model.h"

#define N_ITERS 100000ull

struct gen {
	const char *label, *model;
	enum pmu_kind kind;
	struct pmu_caps caps;
	struct msr_model_opts opts;
	bool nb_no_ht;
};

static const struct gen gens[] = {
	{ "intel-arch v1", "ix86arch", PMU_INTEL_ARCH,
	  { .kind = PMU_INTEL_ARCH, .version = 1, .gp_counters = 2, .gp_width = 40 }, { 0 }, false },
	{ "intel-arch v2", "ix86arch", PMU_INTEL_ARCH,
	  { .kind = PMU_INTEL_ARCH, .version = 2, .gp_counters = 2, .gp_width = 40, .fixed_counters = 3,
	    .fixed_width = 40, .fixed_counter_mask = 7 }, { .pdcm = true }, false },
	{ "intel-arch v3", "ix86arch", PMU_INTEL_ARCH,
	  { .kind = PMU_INTEL_ARCH, .version = 3, .gp_counters = 4, .gp_width = 48, .fixed_counters = 3,
	    .fixed_width = 48, .fixed_counter_mask = 7 }, { .pdcm = true, .full_width = true }, false },
	{ "intel-arch v4", "ix86arch", PMU_INTEL_ARCH,
	  { .kind = PMU_INTEL_ARCH, .version = 4, .gp_counters = 8, .gp_width = 48, .fixed_counters = 3,
	    .fixed_width = 48, .fixed_counter_mask = 7 }, { .pdcm = true }, false },
	{ "intel-arch v5", "ix86arch", PMU_INTEL_ARCH,
	  { .kind = PMU_INTEL_ARCH, .version = 5, .gp_counters = 8, .gp_width = 48, .fixed_counters = 4,
	    .fixed_width = 48, .fixed_counter_mask = 0xb }, { .pdcm = true, .full_width = true }, false },
	{ "p6", "p6", PMU_INTEL_P6, { .kind = PMU_INTEL_P6, .gp_counters = 2, .gp_width = 40 }, { 0 }, false },
	{ "netburst ht", "netburst", PMU_INTEL_NETBURST,
	  { .kind = PMU_INTEL_NETBURST, .gp_counters = 18, .gp_width = 40, .netburst_ht = true }, { 0 }, false },
	{ "netburst", "netburst", PMU_INTEL_NETBURST,
	  { .kind = PMU_INTEL_NETBURST, .gp_counters = 18, .gp_width = 40 }, { 0 }, true },
	{ "amd k7", "amd64_k7", PMU_AMD_LEGACY,
	  { .kind = PMU_AMD_LEGACY, .gp_counters = 4, .gp_width = 48 }, { 0 }, false },
	{ "amd k8", "amd64_k8_revg", PMU_AMD_LEGACY,
	  { .kind = PMU_AMD_LEGACY, .gp_counters = 4, .gp_width = 48 }, { 0 }, false },
	{ "amd fam10h", "amd64_fam10h_istanbul", PMU_AMD_LEGACY,
	  { .kind = PMU_AMD_LEGACY, .gp_counters = 4, .gp_width = 48 }, { .amd_fam10h = true }, false },
	{ "amd-core", "amd64_fam15h_interlagos", PMU_AMD_CORE,
	  { .kind = PMU_AMD_CORE, .gp_counters = 6, .gp_width = 48, .amd_perfctr_core = true }, { 0 }, false },
	{ "amd-perfmon-v2", "amd64_fam19h_zen4", PMU_AMD_PERFMON_V2,
	  { .kind = PMU_AMD_PERFMON_V2, .version = 2, .gp_counters = 6, .gp_width = 48,
	    .amd_perfctr_core = true, .amd_perfmon_v2 = true }, { 0 }, false },
};
#define NGENS (sizeof(gens) / sizeof(gens[0]))

struct rig {
	struct msr_model m;
	struct pmu_state st;
	struct pmucheck_env env;
	unsigned nres;
	struct pmucheck_result res[16];
	unsigned runs;
};

static void work_set(struct msr_model_work *w, enum msr_model_quantity q, uint64_t count,
		     uint64_t active, uint64_t edges)
{
	w->count[q] = count;
	w->active[q] = active;
	w->edges[q] = edges;
}

/* The payloads as the model sees them, with overhead around them the way the kernel
 * has it: the call and ring switch at CPL 0 (and a few instructions at CPL 3 for a CPL 3
 * run), the same in every run. LOOP: 2 instructions and 1 branch per iteration, one
 * iteration a cycle as current cores run "dec; jnz", so something retires in every
 * cycle (no cycle without, one rising edge at the start); SPACED: 10 instructions,
 * 1 branch, 30 cycles, each branch alone. */
static int host_run(void *ctx, enum pmucheck_payload p, unsigned cpl, uint64_t n)
{
	struct rig *r = ctx;
	struct msr_model_work k = { .cpl = 0 }, u = { .cpl = 3 }, w = { .cpl = cpl };
	r->runs++;
	work_set(&k, MSR_Q_CYCLES, 300, 300, 1);
	work_set(&k, MSR_Q_INSTRUCTIONS, 57, 40, 11);
	work_set(&k, MSR_Q_BRANCHES, 6, 6, 4);
	msr_model_run(&r->m, &k);
	if (cpl == 3) {
		work_set(&u, MSR_Q_CYCLES, 40, 40, 1);
		work_set(&u, MSR_Q_INSTRUCTIONS, 9, 7, 2);
		msr_model_run(&r->m, &u);
	}
	if (p == PMUCHECK_LOOP) {
		work_set(&w, MSR_Q_CYCLES, n, n, 1);
		work_set(&w, MSR_Q_INSTRUCTIONS, 2 * n, n, 1);
		work_set(&w, MSR_Q_BRANCHES, n, n, 1);
	} else {
		work_set(&w, MSR_Q_CYCLES, 30 * n, 30 * n, 1);
		work_set(&w, MSR_Q_INSTRUCTIONS, 10 * n, 4 * n, n);
		work_set(&w, MSR_Q_BRANCHES, n, n, n);
	}
	msr_model_run(&r->m, &w);
	msr_model_run(&r->m, &k);
	return 0;
}

static int host_rdpmc(void *ctx, uint32_t index, uint64_t *val)
{
	return msr_model_rdpmc(&((struct rig *)ctx)->m, index, val);
}

static void host_result(void *ctx, const struct pmucheck_result *res)
{
	struct rig *r = ctx;
	assert_true(r->nres < 16);
	r->res[r->nres++] = *res;
}

static struct rig *rig_new(const struct gen *g, unsigned broken)
{
	struct rig *r = calloc(1, sizeof(*r));
	assert_non_null(r);
	msr_model_init_opts(&r->m, g->kind, &g->caps, &g->opts);
	if (g->nb_no_ht)
		r->m.ndefs = msr_model_netburst_defs_for(r->m.defs, MSR_MODEL_MAX - 1, false, false);
	msr_model_break(&r->m, broken);
	r->st = (struct pmu_state){ .be = pmu_backend_for(g->kind), .caps = g->caps,
				    .io = msr_model_io(&r->m) };
	char err[160];
	assert_int_equal(r->st.be->probe(&r->st, err, sizeof(err)), 0);
	r->m.faults = 0;        /* intel-arch v1 probes PERF_CAPABILITIES, which it lacks */
	const struct pmu_model *pm = pmu_model_by_name(g->model);
	assert_non_null(pm);
	static const char *const names[PMUCHECK_EV_COUNT] = { "instructions", "cycles", "branches" };
	r->env = (struct pmucheck_env){ .run = host_run, .rdpmc = host_rdpmc, .result = host_result,
					.ctx = r, .iters = N_ITERS,
					.insns_per_iter = { 2, 10 }, .branches_per_iter = { 1, 1 } };
	for (unsigned e = 0; e < PMUCHECK_EV_COUNT; e++) {
		r->env.have_ev[e] = event_parse(pm, &g->caps, pmu_generic_map(r->st.be, pm), names[e],
						&r->env.ev[e], err, sizeof(err)) == 0;
		if (!r->env.have_ev[e])
			fail_msg("%s: %s: %s", g->label, names[e], err);
	}
	return r;
}

static const struct pmucheck_result *find(const struct rig *r, const char *name)
{
	for (unsigned i = 0; i < r->nres; i++)
		if (!strcmp(r->res[i].name, name))
			return &r->res[i];
	fail_msg("no result for check %s", name);
	return NULL;
}

static void run_full(struct rig *r, struct pmucheck_summary *sum)
{
	pmucheck_run(&r->st, &r->env, PMUCHECK_FULL, NULL, sum);
	assert_int_equal(r->nres, pmucheck_count(PMUCHECK_FULL));
	assert_int_equal(sum->passed + sum->failed + sum->skipped, r->nres);
}

/* What each check must say on a correct model of each generation. */
static bool applies(const struct gen *g, const char *check)
{
	if (!strcmp(check, "global-enable"))
		return (g->kind == PMU_INTEL_ARCH && g->caps.version >= 2) || g->kind == PMU_AMD_PERFMON_V2;
	if (!strcmp(check, "netburst-thread"))
		return g->kind == PMU_INTEL_NETBURST && g->caps.netburst_ht;
	if (!strcmp(check, "netburst-cascade"))
		return g->kind == PMU_INTEL_NETBURST;
	if (!strcmp(check, "amd-legacy-alias"))
		return g->kind == PMU_AMD_CORE || g->kind == PMU_AMD_PERFMON_V2;
	return true;
}

static void test_correct_models_pass(void **state)
{
	(void)state;
	for (unsigned i = 0; i < NGENS; i++) {
		struct rig *r = rig_new(&gens[i], 0);
		struct pmucheck_summary sum;
		run_full(r, &sum);
		for (unsigned k = 0; k < r->nres; k++) {
			const struct pmucheck_result *x = &r->res[k];
			enum pmucheck_verdict want = applies(&gens[i], x->name) ? PMUCHECK_PASS : PMUCHECK_SKIP;
			if (getenv("PMUCHECK_VERBOSE"))   /* what each check measured, for people */
				printf("%s: %s %d: %s\n", gens[i].label, x->name, x->verdict, x->measured);
			if (x->verdict != want)
				fail_msg("%s: %s: verdict %d, want %d: %s | %s | %s", gens[i].label, x->name,
					 x->verdict, want, x->why, x->measured, x->rule);
			assert_true(x->rule[0] != '\0');
		}
		assert_int_equal(sum.failed, 0);
		/* The wraps' overflow flags are cleared again. */
		assert_int_equal(msr_model_get(&r->m, 0x38e), 0);
		assert_int_equal(msr_model_get(&r->m, 0xc0000300), 0);
		if (r->m.faults)
			fail_msg("%s: %s", gens[i].label, r->m.first_fault);
		free(r);
	}
}

static bool has_overflow_flag(const struct gen *g)
{
	return (g->kind == PMU_INTEL_ARCH && g->caps.version >= 2) || g->kind == PMU_AMD_PERFMON_V2 ||
	       g->kind == PMU_INTEL_NETBURST;
}

/* On the model with fault `broken`, check `name` must fail for every generation in
 * kinds (bit per enum pmu_kind). */
static void expect_fail(unsigned broken, const char *name, unsigned kinds)
{
	unsigned seen = 0;
	for (unsigned i = 0; i < NGENS; i++) {
		if (!(kinds & (1u << gens[i].kind)) || !applies(&gens[i], name))
			continue;
		if (broken == MSR_BREAK_OVF && !has_overflow_flag(&gens[i]))
			continue;
		struct rig *r = rig_new(&gens[i], broken);
		struct pmucheck_summary sum;
		run_full(r, &sum);
		const struct pmucheck_result *x = find(r, name);
		if (x->verdict != PMUCHECK_FAIL)
			fail_msg("%s with break 0x%x: %s did not fail (%s)", gens[i].label, broken, name,
				 x->measured);
		assert_true(x->why[0] != '\0');
		assert_true(sum.failed >= 1);
		seen++;
		free(r);
		continue;
	}
	assert_true(seen > 0);
}

#define ALL_KINDS   ((1u << PMU_KIND_COUNT) - 2)
#define KIND(k)     (1u << (k))

static void test_enable_ignored(void **state)
{
	(void)state;
	expect_fail(MSR_BREAK_ENABLE, "enable", ALL_KINDS);
	expect_fail(MSR_BREAK_ENABLE, "global-enable", ALL_KINDS);
}

static void test_wrong_width(void **state)
{
	(void)state;
	expect_fail(MSR_BREAK_WIDTH, "width-overflow", ALL_KINDS);
}

static void test_ring_swapped(void **state)
{
	(void)state;
	expect_fail(MSR_BREAK_RING, "privilege", ALL_KINDS);
}

static void test_cmask_ignored(void **state)
{
	(void)state;
	expect_fail(MSR_BREAK_CMASK, "cmask-inv", ALL_KINDS);
}

static void test_edge_ignored(void **state)
{
	(void)state;
	expect_fail(MSR_BREAK_EDGE, "edge", ALL_KINDS);
}

static void test_thread_swapped(void **state)
{
	(void)state;
	expect_fail(MSR_BREAK_THREAD, "netburst-thread", KIND(PMU_INTEL_NETBURST));
	expect_fail(MSR_BREAK_THREAD, "instructions", KIND(PMU_INTEL_NETBURST));
}

static void test_cascade_broken(void **state)
{
	(void)state;
	expect_fail(MSR_BREAK_CASCADE, "netburst-cascade", KIND(PMU_INTEL_NETBURST));
	expect_fail(MSR_BREAK_ENABLE, "netburst-cascade", KIND(PMU_INTEL_NETBURST));
}

static void test_no_overflow_flag(void **state)
{
	(void)state;
	expect_fail(MSR_BREAK_OVF, "width-overflow",
		    KIND(PMU_INTEL_ARCH) | KIND(PMU_AMD_PERFMON_V2) | KIND(PMU_INTEL_NETBURST));
}

static void test_alias_broken(void **state)
{
	(void)state;
	expect_fail(MSR_BREAK_ALIAS, "amd-legacy-alias", KIND(PMU_AMD_CORE) | KIND(PMU_AMD_PERFMON_V2));
}

static void test_rdpmc_broken(void **state)
{
	(void)state;
	expect_fail(MSR_BREAK_RDPMC, "rdpmc-rdmsr", ALL_KINDS);
}

/* The brief subset after the boot self-check: fewer checks, fewer runs, same answers. */
static void test_brief(void **state)
{
	(void)state;
	for (unsigned i = 0; i < NGENS; i++) {
		struct rig *r = rig_new(&gens[i], 0), *full = rig_new(&gens[i], 0);
		struct pmucheck_summary sum, fsum;
		pmucheck_run(&r->st, &r->env, PMUCHECK_BRIEF, NULL, &sum);
		run_full(full, &fsum);
		assert_int_equal(r->nres, pmucheck_count(PMUCHECK_BRIEF));
		assert_true(r->nres < full->nres);
		assert_true(r->runs < full->runs);
		assert_int_equal(sum.passed, r->nres);
		free(r);
		free(full);
		r = rig_new(&gens[i], MSR_BREAK_RING);
		pmucheck_run(&r->st, &r->env, PMUCHECK_BRIEF, NULL, &sum);
		assert_true(sum.failed >= 1);
		free(r);
	}
}

/* The payloads run at CPL 0 as in host_run and raise #GP at CPL 3. */
static int faulting_run(void *ctx, enum pmucheck_payload p, unsigned cpl, uint64_t n)
{
	return cpl == 3 ? 13 : host_run(ctx, p, cpl, n);
}

/* A payload that faults at CPL 3 fails the checks that run there, saying so, and the
 * run goes on to the end with every counter disabled. */
static void test_payload_fault(void **state)
{
	(void)state;
	struct rig *r = rig_new(&gens[3], 0);
	r->env.run = faulting_run;
	struct pmucheck_summary sum;
	run_full(r, &sum);
	const struct pmucheck_result *x = find(r, "instructions");
	assert_int_equal(x->verdict, PMUCHECK_FAIL);
	if (!strstr(x->why, "raised vector 13"))
		fail_msg("why: %s", x->why);
	assert_int_equal(find(r, "privilege")->verdict, PMUCHECK_FAIL);
	assert_int_equal(msr_model_get(&r->m, 0x38f), 0);      /* global control off */
	for (unsigned i = 0; i < 8; i++)
		assert_int_equal(msr_model_get(&r->m, 0x186 + i), 0);
	free(r);
}

/* No usable PMU: every check SKIPs with the reason, and nothing runs or is written. */
static void test_all_skip(void **state)
{
	(void)state;
	struct rig *r = rig_new(&gens[3], 0);
	unsigned writes = r->m.nlog;
	struct pmucheck_summary sum;
	pmucheck_run(&r->st, &r->env, PMUCHECK_FULL, "counters read 0", &sum);
	assert_int_equal(sum.skipped, pmucheck_count(PMUCHECK_FULL));
	assert_int_equal(sum.passed + sum.failed, 0);
	assert_int_equal(r->runs, 0);
	assert_int_equal(r->m.nlog, writes);
	for (unsigned k = 0; k < r->nres; k++) {
		assert_string_equal(r->res[k].rule, "counters read 0");
		assert_string_equal(r->res[k].name, pmucheck_name(PMUCHECK_FULL, k));
	}
	assert_null(pmucheck_name(PMUCHECK_FULL, pmucheck_count(PMUCHECK_FULL)));
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_correct_models_pass),
		cmocka_unit_test(test_enable_ignored),
		cmocka_unit_test(test_wrong_width),
		cmocka_unit_test(test_ring_swapped),
		cmocka_unit_test(test_cmask_ignored),
		cmocka_unit_test(test_edge_ignored),
		cmocka_unit_test(test_thread_swapped),
		cmocka_unit_test(test_no_overflow_flag),
		cmocka_unit_test(test_cascade_broken),
		cmocka_unit_test(test_alias_broken),
		cmocka_unit_test(test_rdpmc_broken),
		cmocka_unit_test(test_brief),
		cmocka_unit_test(test_all_skip),
		cmocka_unit_test(test_payload_fault),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
