/*
 * bareperf's event encodings against libpfm4's own (pfm_get_os_event_encoding,
 * PFM_OS_NONE) for every Intel/AMD model in the generated tables: every event alone,
 * every unit mask alone, modifier forms on a sample, and strings both must reject.
 * Only EN (bit 22) and INT (bit 20) are ignored in the comparison.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <perfmon/pfmlib.h>
#include "arch/x86/pmu/pmu.h"
#include "lib/event.h"
#include "lib/pfm_tables.h"
#include "lib/util.h"

#define IGNORED ((1ull << 22) | (1ull << 20))

static unsigned mismatches;

static void force_pmu(const char *name)
{
	pfm_terminate();
	setenv("LIBPFM_FORCE_PMU", name, 1);
	assert_int_equal(pfm_initialize(), PFM_SUCCESS);
}

/* libpfm4's encoding: the number of codes it gives (0 when it rejects the string), the
 * event select in *val and the second register's value in *val1. */
static int pfm_encode(const char *s, uint64_t *val, uint64_t *val1)
{
	uint64_t codes[4] = { 0 };
	pfm_pmu_encode_arg_t arg;
	memset(&arg, 0, sizeof(arg));
	arg.size = sizeof(arg);
	arg.codes = codes;
	arg.count = 4;
	if (pfm_get_os_event_encoding(s, PFM_PLM0 | PFM_PLM3, PFM_OS_NONE, &arg) != PFM_SUCCESS)
		return 0;
	*val = codes[0];
	*val1 = codes[1];
	assert_true(arg.count == 1 || arg.count == 2);
	return arg.count;
}

/* Second-register encodings whose both codes matched, and those refused as PEBS load
 * latency (libpfm4's second code is then the ldlat threshold). */
static unsigned extra_compared, pebs_refused;

/* libpfm4 4.13 gives a second code to spr::EXE (B7H/02H, EXE.AMX_BUSY) because its table
 * marks it as off-core response; Sapphire Rapids has no second register for it, so
 * bareperf encodes the event select alone (lib/event.c extra_regs). */
static int no_second_register(const char *s)
{
	return !strncmp(s, "spr::EXE", 8) && (s[8] == 0 || s[8] == ':');
}

/* Both codes of a string libpfm4 encodes with two, against bareperf's; 1 when equal. */
static int compare_second(const char *s, const struct ev_encoding *ev, uint64_t want1)
{
	if (ev->extra == EV_EXTRA_NONE && no_second_register(s))
		return 1;
	if (ev->extra == EV_EXTRA_NONE || ev->extra_value != want1) {
		printf("MISMATCH %s: libpfm4 second code 0x%llx, bareperf %s 0x%llx\n", s,
		       (unsigned long long)want1, ev->extra == EV_EXTRA_NONE ? "none" : "register",
		       (unsigned long long)ev->extra_value);
		mismatches++;
		return 0;
	}
	extra_compared++;
	return 1;
}

/* Compare one string; returns 1 when both encoded it. */
static int compare(const struct pmu_model *m, const struct pmu_caps *pc, const char *s)
{
	uint64_t want = 0, want1 = 0;
	struct ev_encoding ev;
	char err[256];
	int p = pfm_encode(s, &want, &want1);
	int b = event_parse(m, pc, pmu_generic_map_for_model(m), s, &ev, err, sizeof(err));
	if (!p) {
		if (b == 0) {
			printf("MISMATCH %s: libpfm4 rejects, bareperf gave 0x%llx\n", s,
			       (unsigned long long)ev.evtsel);
			mismatches++;
		}
		return 0;
	}
	if (b != 0) {
		/* load latency: bareperf refuses it with that reason, libpfm4 encodes it */
		if (p == 2 && strstr(err, "PEBS")) {
			pebs_refused++;
			return 0;
		}
		printf("MISMATCH %s: libpfm4 0x%llx, bareperf error: %s\n", s, (unsigned long long)want, err);
		mismatches++;
		return 0;
	}
	if ((ev.evtsel & ~IGNORED) != (want & ~IGNORED)) {
		printf("MISMATCH %s: libpfm4 0x%llx, bareperf 0x%llx\n", s, (unsigned long long)want,
		       (unsigned long long)ev.evtsel);
		mismatches++;
		return 0;
	}
	if (!(ev.evtsel & (1ull << 22)) || (ev.evtsel & (1ull << 20))) {
		printf("MISMATCH %s: EN must be set and INT clear, got 0x%llx\n", s,
		       (unsigned long long)ev.evtsel);
		mismatches++;
	}
	if (p == 2)
		return compare_second(s, &ev, want1);
	if (ev.extra != EV_EXTRA_NONE) {
		printf("MISMATCH %s: libpfm4 gives one code, bareperf a second register (0x%llx)\n",
		       s, (unsigned long long)ev.extra_value);
		mismatches++;
		return 0;
	}
	return 1;
}

/* Events with a second code or a load-latency unit mask: every unit mask with each of
 * these forms (thresholds in and out of libpfm4's ranges). */
static const char *const second_register_forms[] = {
	":fe_thres=1", ":fe_thres=9", ":fe_thres=4095", ":fe_thres=0", ":fe_thres=4096",
	":ldlat=3", ":ldlat=0", ":u", ":k:c=2", ":e:c=1", ":t",
};

static void compare_second_register_forms(const struct pmu_model *m, const struct pmu_caps *pc,
					  const char *pmu, const struct pfmt_event *ev)
{
	const char *evname = pfmt_strings + ev->name;
	char s[512];
	bool has = ev->flags & (PFMT_EV_EXTRA_CODE | PFMT_EV_EXTRA_REG);
	for (unsigned u = 0; u < ev->numasks; u++)
		has |= pfmt_umasks[ev->first_umask + u].flags & PFMT_UM_EXTRA_REG;
	if (!has)
		return;
	for (unsigned f = 0; f < ARRAY_SIZE(second_register_forms); f++) {
		snprintf(s, sizeof(s), "%s::%s%s", pmu, evname, second_register_forms[f]);
		compare(m, pc, s);
		for (unsigned u = 0; u < ev->numasks; u++) {
			snprintf(s, sizeof(s), "%s::%s:%s%s", pmu, evname,
				 pfmt_strings + pfmt_umasks[ev->first_umask + u].name,
				 second_register_forms[f]);
			compare(m, pc, s);
		}
	}
}

static const char *const modifier_forms[] = {
	":u", ":k", ":u=1:k=0", ":u=1:k=0:c=3", ":i", ":i=1:c=1", ":e", ":e=0", ":c=255", ":c=1:e",
	":t", ":t=1:u", ":h", ":g", ":h=1:g=0", ":intx", ":intxcp",
};

static void test_all_models(void **state)
{
	(void)state;
	unsigned total_models = 0;
	for (unsigned mi = 0; mi < pfmt_nmodels; mi++) {
		const struct pfmt_model *tm = &pfmt_models[mi];
		const char *pmu = pfmt_strings + tm->name;
		const struct pmu_model *m = pmu_model_by_name(pmu);
		assert_non_null(m);
		struct pmu_caps pc;
		pmu_model_default_caps(m, &pc);
		force_pmu(pmu);
		unsigned nev = 0, num = 0, npair = 0, nmod = 0, before = mismatches;
		char s[512];
		for (unsigned e = 0; e < tm->nevents; e++) {
			const struct pfmt_event *ev = &pfmt_events[tm->first_event + e];
			const char *evname = pfmt_strings + ev->name;
			snprintf(s, sizeof(s), "%s::%s", pmu, evname);
			nev += compare(m, &pc, s);
			compare_second_register_forms(m, &pc, pmu, ev);
			for (unsigned u = 0; u < ev->numasks; u++) {
				const char *um = pfmt_strings + pfmt_umasks[ev->first_umask + u].name;
				snprintf(s, sizeof(s), "%s::%s:%s", pmu, evname, um);
				num += compare(m, &pc, s);
				/* every pair: accepted or rejected alike (groups, exclusivity, defaults) */
				for (unsigned v = u + 1; v < ev->numasks; v++) {
					snprintf(s, sizeof(s), "%s::%s:%s:%s", pmu, evname, um,
						 pfmt_strings + pfmt_umasks[ev->first_umask + v].name);
					npair += compare(m, &pc, s);
				}
			}
			/* modifiers on every 4th event, with its first unit mask when it needs one */
			if (e % 4)
				continue;
			const char *um0 = ev->numasks ? pfmt_strings + pfmt_umasks[ev->first_umask].name : NULL;
			for (unsigned f = 0; f < ARRAY_SIZE(modifier_forms); f++) {
				if (um0 && (ev->flags & PFMT_EV_NEEDS_UMASK))
					snprintf(s, sizeof(s), "%s::%s:%s%s", pmu, evname, um0, modifier_forms[f]);
				else
					snprintf(s, sizeof(s), "%s::%s%s", pmu, evname, modifier_forms[f]);
				nmod += compare(m, &pc, s);
			}
			/* strings libpfm4 rejects */
			const char *bad[] = { ":c=256", ":NO_SUCH_UMASK", ":u=2", ":c" };
			for (unsigned f = 0; f < 4; f++) {
				snprintf(s, sizeof(s), "%s::%s%s", pmu, evname, bad[f]);
				compare(m, &pc, s);
			}
		}
		snprintf(s, sizeof(s), "%s::NO_SUCH_EVENT_XYZ", pmu);
		compare(m, &pc, s);
		printf("%-26s events %4u, unit masks %5u, pairs %6u, modifier forms %4u, mismatches %u\n",
		       pmu, nev, num, npair, nmod, mismatches - before);
		total_models++;
		assert_true(nev > 0);
	}
	printf("%u models compared, %u mismatches\n", total_models, mismatches);
	printf("second-register encodings compared on both codes: %u; refused as PEBS load "
	       "latency: %u\n", extra_compared, pebs_refused);
	assert_true(total_models >= 40);
	assert_true(extra_compared > 10000);
	assert_true(pebs_refused > 0);
	assert_int_equal(mismatches, 0);
}

/* Whether libpfm4 lists an alias ("equiv") among the event's unit masks. */
static int has_alias_umask(const char *pmu_event)
{
	int idx = pfm_find_event(pmu_event);
	pfm_event_info_t ei;
	memset(&ei, 0, sizeof(ei));
	ei.size = sizeof(ei);
	assert_true(idx >= 0);
	assert_int_equal(pfm_get_event_info(idx, PFM_OS_NONE, &ei), PFM_SUCCESS);
	for (int a = 0; a < ei.nattrs; a++) {
		pfm_event_attr_info_t ai;
		memset(&ai, 0, sizeof(ai));
		ai.size = sizeof(ai);
		assert_int_equal(pfm_get_event_attr_info(idx, a, PFM_OS_NONE, &ai), PFM_SUCCESS);
		if (ai.type == PFM_ATTR_UMASK && ai.equiv)
			return 1;
	}
	return 0;
}

/*
 * Triples of unit masks (the first 12 of each event). Events with alias unit masks
 * are left out: libpfm4 expands an alias into its targets and then removes duplicate
 * attributes in one pass that skips the entry after each removal
 * (pfmlib_sanitize_event), so a target named three times survives twice. The result
 * depends on the order written: snb::UOPS_RETIRED:ALL:ANY:STALL_CYCLES is rejected
 * although every pair of it is accepted, and bdw::UOPS_EXECUTED:STALL_CYCLES:
 * CYCLES_GE_1_UOP_EXEC:CYCLES_GE_2_UOPS_EXEC is accepted with c=2 although its
 * pairs conflict on c. bareperf treats an alias as the set of its targets.
 */
static void test_unit_mask_triples(void **state)
{
	(void)state;
	unsigned before = mismatches, ntriple = 0, skipped = 0;
	for (unsigned mi = 0; mi < pfmt_nmodels; mi++) {
		const struct pfmt_model *tm = &pfmt_models[mi];
		const char *pmu = pfmt_strings + tm->name;
		const struct pmu_model *m = pmu_model_by_name(pmu);
		struct pmu_caps pc;
		pmu_model_default_caps(m, &pc);
		force_pmu(pmu);
		char s[512];
		for (unsigned e = 0; e < tm->nevents; e++) {
			const struct pfmt_event *ev = &pfmt_events[tm->first_event + e];
			const char *evname = pfmt_strings + ev->name;
			if (ev->numasks < 3)
				continue;
			snprintf(s, sizeof(s), "%s::%s", pmu, evname);
			if (has_alias_umask(s)) {
				skipped++;
				continue;
			}
			unsigned nu = ev->numasks > 12 ? 12 : ev->numasks;
			const char *um[12];
			for (unsigned u = 0; u < nu; u++)
				um[u] = pfmt_strings + pfmt_umasks[ev->first_umask + u].name;
			for (unsigned a = 0; a < nu; a++)
				for (unsigned b = a + 1; b < nu; b++)
					for (unsigned c = b + 1; c < nu; c++) {
						snprintf(s, sizeof(s), "%s::%s:%s:%s:%s", pmu, evname, um[a],
							 um[b], um[c]);
						ntriple += compare(m, &pc, s);
					}
		}
	}
	printf("unit-mask triples encoded alike: %u (%u events with alias unit masks left out), "
	       "mismatches %u\n", ntriple, skipped, mismatches - before);
	assert_true(ntriple > 1000);
	assert_int_equal(mismatches, before);
}

/* Prefix-less names mean the selected model; case does not matter, as in libpfm4. */
static void test_prefix_and_case(void **state)
{
	(void)state;
	const struct pmu_model *m = pmu_model_by_name("skl");
	struct pmu_caps pc;
	struct ev_encoding a, b;
	char err[256];
	pmu_model_default_caps(m, &pc);
	force_pmu("skl");
	assert_int_equal(event_parse(m, &pc, pmu_generic_map_for_model(m), "INST_RETIRED:ANY_P", &a, err, sizeof(err)), 0);
	assert_int_equal(event_parse(m, &pc, pmu_generic_map_for_model(m), "skl::inst_retired:any_p", &b, err, sizeof(err)), 0);
	assert_true(a.evtsel == b.evtsel);
	uint64_t want, want1;
	assert_int_equal(pfm_encode("skl::INST_RETIRED:ANY_P:u:c=1:i", &want, &want1), 1);
	assert_int_equal(event_parse(m, &pc, pmu_generic_map_for_model(m), "skl::INST_RETIRED:ANY_P:u:c=1:i", &a, err, sizeof(err)), 0);
	assert_true((a.evtsel & ~IGNORED) == (want & ~IGNORED));
	m = pmu_model_by_name("amd64_fam17h");
	pmu_model_default_caps(m, &pc);
	force_pmu("amd64_fam17h");
	assert_int_equal(pfm_encode("amd64_fam17h::RETIRED_UOPS:k", &want, &want1), 1);
	assert_int_equal(event_parse(m, &pc, pmu_generic_map_for_model(m), "amd64_fam17h::RETIRED_UOPS:k", &a, err, sizeof(err)), 0);
	assert_true((a.evtsel & ~IGNORED) == (want & ~IGNORED));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_all_models),
		cmocka_unit_test(test_unit_mask_triples),
		cmocka_unit_test(test_prefix_and_case),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
