/*
 * kernel/plan.c: payload selection (globs, test payloads, did-you-mean), CPL skips, and
 * the split of events into counter groups, against a made-up catalogue and a PMU model
 * of two counters whose events say which counters they may use.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "kernel/plan.h"
#include "lib/config.h"

/* ------------------------------------------------------------------ inputs */

#define BOTH (PL_CPL0 | PL_CPL3)

static const struct payload catalogue[] = {
	{ .name = "empty", .insns_per_iter = 2, .flags = BOTH },
	{ .name = "add_chain", .insns_per_iter = 10, .flags = BOTH },
	{ .name = "add_indep", .insns_per_iter = 10, .flags = BOTH },
	{ .name = "mem_chase", .insns_per_iter = 3, .flags = BOTH | PL_SIZES },
	{ .name = "sys_int80", .insns_per_iter = 3, .flags = PL_CPL3 | PL_KERNEL_CODE },
	{ .name = "cost_rdmsr", .insns_per_iter = 6, .flags = PL_CPL0 },
	{ .name = "fault_ud", .insns_per_iter = 3, .flags = BOTH | PL_FAULT, .expect_vector = 6 },
	{ .name = "fault_priv", .insns_per_iter = 3, .flags = PL_CPL3 | PL_FAULT, .expect_vector = 13 },
};
#define NCAT (sizeof(catalogue) / sizeof(catalogue[0]))

#define NCOUNTERS 2

/* Events of the model: which of the two counters each may use (bit i = counter i). */
static const struct { const char *name; enum ev_class cls; uint32_t mask; } model[] = {
	{ "cycles", EV_CLASS_GP, 0x3 },
	{ "instructions", EV_CLASS_GP, 0x3 },
	{ "branches", EV_CLASS_GP, 0x3 },
	{ "misses", EV_CLASS_GP, 0x3 },
	{ "ctr0_a", EV_CLASS_GP, 0x1 },      /* counter 0 only */
	{ "ctr0_b", EV_CLASS_GP, 0x1 },
	{ "nowhere", EV_CLASS_GP, 0x0 },     /* no counter can count it */
	{ "tsc", EV_CLASS_TSC, 0 },
	{ "aperf", EV_CLASS_APERF, 0 },
	{ "mperf", EV_CLASS_MPERF, 0 },
	{ "energy-pkg", EV_CLASS_ENERGY, RAPL_PKG },     /* mask: the RAPL domain */
	{ "energy-cores", EV_CLASS_ENERGY, RAPL_CORES },
	{ "power/energy-pkg/", EV_CLASS_ENERGY, RAPL_PKG },
};

static unsigned parse_calls, assign_calls;

static int fake_parse(const char *text, struct ev_encoding *ev, char *err, size_t errlen)
{
	parse_calls++;
	for (unsigned i = 0; i < sizeof(model) / sizeof(model[0]); i++) {
		if (strcmp(text, model[i].name))
			continue;
		memset(ev, 0, sizeof(*ev));
		ev->cls = model[i].cls;
		snprintf(ev->name, sizeof(ev->name), "%s", text);
		if (ev->cls == EV_CLASS_ENERGY) {
			ev->energy.domain = (uint8_t)model[i].mask;
			ev->energy.esu = 14;
		} else {
			ev->gp_mask = model[i].mask;
		}
		return 0;
	}
	snprintf(err, errlen, "unknown event '%s'", text);
	return -1;
}

/* Exhaustive matching of events to distinct counters, as a backend's assign would. */
static bool place(const struct ev_encoding *ev, unsigned n, unsigned k, unsigned used)
{
	if (k == n)
		return true;
	for (unsigned c = 0; c < NCOUNTERS; c++)
		if ((ev[k].gp_mask & (1u << c)) && !(used & (1u << c)) &&
		    place(ev, n, k + 1, used | (1u << c)))
			return true;
	return false;
}

static int fake_assign(const struct ev_encoding *ev, unsigned n, unsigned *width, char *err,
		       size_t errlen)
{
	assign_calls++;
	if (n > NCOUNTERS || !place(ev, n, 0, 0)) {
		snprintf(err, errlen, "no counter left for '%s'", ev[n - 1].name);
		return -1;
	}
	for (unsigned i = 0; width && i < n; i++)
		width[i] = 40 + i;          /* distinct, so the plan is seen to keep them */
	return 0;
}

/* Messages, as the report would print them. */
static char errors[16][256], notes[16][512];
static unsigned nerrors, nnotes;

static void collect_error(const char *context, const char *msg)
{
	assert_non_null(context);
	if (nerrors < 16)
		snprintf(errors[nerrors], sizeof(errors[0]), "%s: %s", context, msg);
	nerrors++;
}

static void collect_note(const char *context, const char *msg)
{
	if (nnotes < 16)
		snprintf(notes[nnotes], sizeof(notes[0]), "%s: %s", context, msg);
	nnotes++;
}

static struct plan_env env_with_pmu(void)
{
	return (struct plan_env){
		.cpls = CFG_CPL0 | CFG_CPL3, .single_step = true, .trace_msr = false,
		.pmu_functional = true, .pmu_backend = true, .pmu_reason = "",
		.parse = fake_parse, .assign = fake_assign,
		.error = collect_error, .note = collect_note,
	};
}

static struct plan plan;

static int reset(void **state)
{
	(void)state;
	plan_init(&plan);
	nerrors = nnotes = parse_calls = assign_calls = 0;
	memset(errors, 0, sizeof(errors));
	memset(notes, 0, sizeof(notes));
	return 0;
}

static void select_list(const char *list)
{
	struct plan_env env = env_with_pmu();
	plan_select(&plan, list, catalogue, NCAT, &env);
}

static void assert_selected(const char *const *names, unsigned n)
{
	if (plan.nsel != n) {
		for (unsigned i = 0; i < plan.nsel; i++)
			print_message("selected: %s\n", plan.sel[i]->name);
		fail_msg("%u payloads selected, expected %u", plan.nsel, n);
	}
	for (unsigned i = 0; i < n; i++)
		assert_string_equal(plan.sel[i]->name, names[i]);
}

/* ------------------------------------------------------------------ selection */

static void test_select_names_and_globs_in_catalogue_order(void **state)
{
	(void)state;
	select_list("mem_chase,add_*,empty,add_chain");
	static const char *const want[] = { "empty", "add_chain", "add_indep", "mem_chase" };
	assert_selected(want, 4);
	assert_int_equal(nerrors, 0);
	assert_int_equal(plan.errors, 0);
	/* the selection points into the catalogue given, not at copies */
	assert_ptr_equal(plan.sel[0], &catalogue[0]);
}

static void test_select_star_leaves_out_test_payloads(void **state)
{
	(void)state;
	select_list("*");
	static const char *const want[] = { "empty", "add_chain", "add_indep", "mem_chase",
					    "sys_int80", "cost_rdmsr" };
	assert_selected(want, 6);
	reset(state);
	select_list("fault_*,empty");
	static const char *const with_tests[] = { "empty", "fault_ud", "fault_priv" };
	assert_selected(with_tests, 3);
	reset(state);
	/* a glob that does not start with "fault" matches them but does not take them */
	select_list("*_ud");
	assert_int_equal(plan.nsel, 0);
	assert_int_equal(nerrors, 1);
	assert_string_equal(errors[0], "config: payloads: '*_ud' matches no payload");
}

static void test_select_did_you_mean(void **state)
{
	(void)state;
	select_list("add_chian,empty");
	static const char *const want[] = { "empty" };
	assert_selected(want, 1);
	assert_int_equal(nerrors, 1);
	assert_int_equal(plan.errors, 1);
	assert_string_equal(errors[0],
			    "config: payloads: 'add_chian' matches no payload (did you mean 'add_chain'?)");
	reset(state);
	/* nothing within edit distance 3: no suggestion */
	select_list("zzzzzzzz");
	assert_int_equal(plan.nsel, 0);
	assert_string_equal(errors[0], "config: payloads: 'zzzzzzzz' matches no payload");
	reset(state);
	/* the nearest of several: "mem_chas" is 1 from mem_chase */
	select_list("mem_chas");
	assert_string_equal(errors[0],
			    "config: payloads: 'mem_chas' matches no payload (did you mean 'mem_chase'?)");
	reset(state);
	/* "ty" is three edits from "empty": as far as the word is long, so no hint */
	select_list("ty");
	assert_string_equal(errors[0], "config: payloads: 'ty' matches no payload");
	reset(state);
	select_list("empt");
	assert_string_equal(errors[0],
			    "config: payloads: 'empt' matches no payload (did you mean 'empty'?)");
}

static void test_select_bad_items(void **state)
{
	(void)state;
	select_list("empty,,add_chain");
	static const char *const want[] = { "empty", "add_chain" };
	assert_selected(want, 2);
	assert_int_equal(nerrors, 1);
	assert_string_equal(errors[0], "config: payloads: bad item near ',add_chain'");
	reset(state);
	char longname[100];
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = 0;
	select_list(longname);
	assert_int_equal(plan.nsel, 0);
	assert_int_equal(nerrors, 1);
	assert_true(strncmp(errors[0], "config: payloads: bad item near 'aaaa", 37) == 0);
}

/* ------------------------------------------------------------------ CPLs */

static void test_cpl_skips(void **state)
{
	(void)state;
	const struct payload *both = &catalogue[1], *cpl3 = &catalogue[4], *cpl0 = &catalogue[5];
	assert_int_equal(plan_payload_cpls(both, CFG_CPL0 | CFG_CPL3), CFG_CPL0 | CFG_CPL3);
	assert_int_equal(plan_payload_cpls(both, CFG_CPL3), CFG_CPL3);
	assert_int_equal(plan_payload_cpls(cpl3, CFG_CPL0 | CFG_CPL3), CFG_CPL3);
	assert_int_equal(plan_payload_cpls(cpl0, CFG_CPL3), 0);
	assert_null(plan_cpl_skip(both, CFG_CPL0));
	assert_null(plan_cpl_skip(both, CFG_CPL3));
	assert_null(plan_cpl_skip(cpl0, CFG_CPL0 | CFG_CPL3));
	assert_null(plan_cpl_skip(cpl3, CFG_CPL3));
	assert_string_equal(plan_cpl_skip(cpl0, CFG_CPL3),
			    "runs only at CPL 0, and cpl= leaves CPL 0 out");
	assert_string_equal(plan_cpl_skip(cpl3, CFG_CPL0),
			    "runs only at CPL 3, and cpl= leaves CPL 3 out");
}

/* ------------------------------------------------------------------ counter groups */

static void plan_list(const char *list, const struct plan_env *env)
{
	plan_events(&plan, list, env);
}

static void assert_group(unsigned g, const char *const *names, unsigned n)
{
	assert_true(g < plan.ngroups);
	if (plan.groups[g].n != n)
		fail_msg("group %u has %u events, expected %u", g, plan.groups[g].n, n);
	for (unsigned i = 0; i < n; i++) {
		assert_string_equal(plan.groups[g].ev[i].name, names[i]);
		assert_int_equal(plan.groups[g].width[i], 40 + i);
	}
}

static void test_events_fit_one_group(void **state)
{
	(void)state;
	struct plan_env env = env_with_pmu();
	plan_list("tsc,cycles,instructions", &env);
	assert_int_equal(plan.ngroups, 1);
	static const char *const g0[] = { "cycles", "instructions" };
	assert_group(0, g0, 2);
	assert_false(plan.step);
	assert_int_equal(nerrors, 0);
	assert_int_equal(nnotes, 0);
}

static void test_events_split_into_groups(void **state)
{
	(void)state;
	struct plan_env env = env_with_pmu();
	/* two counters: the third event opens a second group, the fourth joins it */
	plan_list("cycles,instructions,branches,misses", &env);
	assert_int_equal(plan.ngroups, 2);
	static const char *const g0[] = { "cycles", "instructions" };
	static const char *const g1[] = { "branches", "misses" };
	assert_group(0, g0, 2);
	assert_group(1, g1, 2);
	reset(state);
	/* both need counter 0: they can never share a group, although two counters exist */
	plan_list("ctr0_a,ctr0_b,cycles", &env);
	assert_int_equal(plan.ngroups, 2);
	static const char *const h0[] = { "ctr0_a", "cycles" };
	static const char *const h1[] = { "ctr0_b" };
	assert_group(0, h0, 2);
	assert_group(1, h1, 1);
	assert_int_equal(nerrors, 0);
}

static void test_event_that_fits_no_counter(void **state)
{
	(void)state;
	struct plan_env env = env_with_pmu();
	plan_list("cycles,nowhere,instructions", &env);
	assert_int_equal(plan.ngroups, 1);
	static const char *const g0[] = { "cycles", "instructions" };
	assert_group(0, g0, 2);
	assert_int_equal(nerrors, 1);
	assert_int_equal(plan.errors, 1);
	assert_string_equal(errors[0], "event: event 'nowhere' cannot be placed on any counter: "
				       "no counter left for 'nowhere'");
}

static void test_more_groups_than_the_harness_runs(void **state)
{
	(void)state;
	struct plan_env env = env_with_pmu();
	/* each ctr0 event needs a group of its own: the ninth has none left */
	char list[256] = "";
	for (unsigned i = 0; i < PLAN_MAX_GROUPS + 1; i++)
		strcat(list, i ? ",ctr0_a" : "ctr0_a");
	plan_list(list, &env);
	assert_int_equal(plan.ngroups, PLAN_MAX_GROUPS);
	assert_int_equal(nerrors, 1);
	assert_string_equal(errors[0], "event: event 'ctr0_a': more than 8 counter groups");
}

static void test_unknown_and_malformed_events(void **state)
{
	(void)state;
	struct plan_env env = env_with_pmu();
	plan_list("cycles,INST_RETIRD", &env);
	assert_int_equal(nerrors, 1);
	assert_string_equal(errors[0], "event: unknown event 'INST_RETIRD'");
	assert_int_equal(plan.ngroups, 1);
	reset(state);
	/* an empty list still gives one (TSC-only) pass */
	plan_list("", &env);
	assert_int_equal(plan.ngroups, 1);
	assert_int_equal(plan.groups[0].n, 0);
	assert_int_equal(nerrors, 0);
	reset(state);
	/* more than EV_MAX_EVENTS names: the split refuses the whole list */
	char list[EV_MAX_EVENTS * 8 + 16] = "";
	for (unsigned i = 0; i < EV_MAX_EVENTS + 1; i++)
		strcat(list, i ? ",cycles" : "cycles");
	plan_list(list, &env);
	assert_int_equal(nerrors, 1);
	assert_true(strncmp(errors[0], "event: events: ", 15) == 0);
	assert_int_equal(parse_calls, 0);
}

static void test_free_running_msrs(void **state)
{
	(void)state;
	struct plan_env env = env_with_pmu();
	plan_list("aperf,cycles,mperf,aperf", &env);
	assert_int_equal(plan.nmsr, 2);                 /* aperf named twice counts once */
	assert_int_equal(plan.msr_ev[0].cls, EV_CLASS_APERF);
	assert_int_equal(plan.msr_ev[1].cls, EV_CLASS_MPERF);
	assert_int_equal(plan.msr_slot[0].ctr_msr, 0xe8);   /* IA32_APERF */
	assert_int_equal(plan.msr_slot[1].ctr_msr, 0xe7);   /* IA32_MPERF */
	assert_int_equal(plan.groups[0].n, 1);
	assert_int_equal(nnotes, 2);
	assert_string_equal(notes[0], "event: event 'aperf' is measured in the CPL 0 runs only: "
				      "it is read with RDMSR, which CPL 3 may not execute");
	reset(state);
	env.cpls = CFG_CPL3;
	plan_list("mperf", &env);
	assert_string_equal(notes[0], "event: event 'mperf' not measured: it is read with RDMSR, "
				      "which only CPL 0 may execute, and cpl= leaves CPL 0 out");
	reset(state);
	env.cpls = CFG_CPL0;
	plan_list("mperf", &env);
	assert_int_equal(nnotes, 0);
	assert_int_equal(plan.nmsr, 1);
}

/* RAPL energy counters go the way of APERF: read by RDMSR at CPL 0, 32 bits wide; the
 * same MSR named twice (energy-pkg and perf's power/energy-pkg/) is read once. */
static void test_energy_msrs(void **state)
{
	struct plan_env env = env_with_pmu();
	plan_list("energy-pkg,cycles,aperf,power/energy-pkg/,energy-cores", &env);
	assert_int_equal(nerrors, 0);
	assert_int_equal(plan.nmsr, 3);
	assert_int_equal(plan.msr_ev[0].cls, EV_CLASS_ENERGY);
	assert_int_equal(plan.msr_slot[0].ctr_msr, 0x611);   /* MSR_PKG_ENERGY_STATUS */
	assert_int_equal(plan.msr_slot[0].width, 32);
	assert_int_equal(plan.msr_slot[1].ctr_msr, 0xe8);
	assert_int_equal(plan.msr_slot[1].width, 64);
	assert_int_equal(plan.msr_slot[2].ctr_msr, 0x639);   /* MSR_PP0_ENERGY_STATUS */
	assert_int_equal(plan.groups[0].n, 1);
	assert_int_equal(nnotes, 3);
	assert_string_equal(notes[0], "event: event 'energy-pkg' is measured in the CPL 0 runs "
				      "only: it is read with RDMSR, which CPL 3 may not execute");
	reset(state);
	env.cpls = CFG_CPL3;
	plan_list("energy-cores", &env);
	assert_string_equal(notes[0], "event: event 'energy-cores' not measured: it is read with "
				      "RDMSR, which only CPL 0 may execute, and cpl= leaves CPL 0 out");
}

static void test_no_working_pmu(void **state)
{
	(void)state;
	struct plan_env env = env_with_pmu();
	env.pmu_functional = false;
	env.pmu_reason = "leaf 0xA is empty";
	plan_list("cycles,instructions", &env);
	assert_true(plan.step);
	assert_false(plan.trace_only);
	assert_int_equal(plan.ngroups, 1);
	assert_int_equal(plan.groups[0].n, 0);          /* nothing programmed */
	assert_int_equal(assign_calls, 0);
	assert_int_equal(nnotes, 1);
	assert_string_equal(notes[0], "event: event 'cycles' not measured: no working PMU "
				      "(leaf 0xA is empty); the TSC and single-stepped "
				      "instructions are measured instead");
	reset(state);
	/* insn_count=off: instructions are not stepped either */
	env.single_step = false;
	plan_list("instructions", &env);
	assert_false(plan.step);
	assert_string_equal(notes[0], "event: event 'instructions' not measured: no working PMU "
				      "(leaf 0xA is empty); the TSC is measured instead");
	reset(state);
	/* trace=msr with a backend: the groups are still planned, to be programmed */
	env.trace_msr = true;
	plan_list("cycles,instructions,branches", &env);
	assert_true(plan.trace_only);
	assert_int_equal(plan.ngroups, 2);
	assert_int_equal(nnotes, 3);
	assert_non_null(strstr(notes[0], "(its counter is still programmed, for trace=msr)"));
	reset(state);
	env.pmu_backend = false;
	plan_list("cycles", &env);
	assert_false(plan.trace_only);
	assert_int_equal(plan.groups[0].n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_select_names_and_globs_in_catalogue_order, reset),
		cmocka_unit_test_setup(test_select_star_leaves_out_test_payloads, reset),
		cmocka_unit_test_setup(test_select_did_you_mean, reset),
		cmocka_unit_test_setup(test_select_bad_items, reset),
		cmocka_unit_test_setup(test_cpl_skips, reset),
		cmocka_unit_test_setup(test_events_fit_one_group, reset),
		cmocka_unit_test_setup(test_events_split_into_groups, reset),
		cmocka_unit_test_setup(test_event_that_fits_no_counter, reset),
		cmocka_unit_test_setup(test_more_groups_than_the_harness_runs, reset),
		cmocka_unit_test_setup(test_unknown_and_malformed_events, reset),
		cmocka_unit_test_setup(test_free_running_msrs, reset),
		cmocka_unit_test_setup(test_energy_msrs, reset),
		cmocka_unit_test_setup(test_no_working_pmu, reset),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
