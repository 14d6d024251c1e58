/*
 * bareperf's event encodings against libpfm4's own (pfm_get_os_event_encoding,
 * PFM_OS_NONE) for every Intel/AMD model in the generated tables: every event alone,
 * every unit mask alone, modifier forms on a sample, and strings both must reject.
 * Only EN (bit 22) and INT (bit 20) are ignored in the comparison.
 * The P6 family (ppro, pii, p6, pm, coreduo) is not in the amd64 libpfm4 this test links:
 * its encodings come from libpfm4:i386, written at build time under qemu-i386 by
 * scripts/gen/pfm-p6-reference.c (PFM_P6_REFERENCE), with the PMU libpfm4:i386 detects
 * for each family 6 model (PFM_P6_DETECT).
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

/* Compare one string with libpfm4's answer: p codes (0 when it rejects the string), the
 * event select want and the second code want1. Returns 1 when both encoded it. */
static int compare_codes(const struct pmu_model *m, const struct pmu_caps *pc, const char *s,
			 int p, uint64_t want, uint64_t want1)
{
	struct ev_encoding ev;
	char err[256];
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

/* Compare one string with the libpfm4 this test links; returns 1 when both encoded it. */
static int compare(const struct pmu_model *m, const struct pmu_caps *pc, const char *s)
{
	uint64_t want = 0, want1 = 0;
	int p = pfm_encode(s, &want, &want1);
	return compare_codes(m, pc, s, p, want, want1);
}

/* Whether the libpfm4 this test links has the PMU (its amd64 build lacks the P6 family).
 * The names are read once, from libpfm4 initialised with no PMU forced. */
static bool native_pmu(const char *name)
{
	static char names[PFM_PMU_MAX][64];
	static int loaded;
	if (!loaded) {
		pfm_terminate();
		unsetenv("LIBPFM_FORCE_PMU");
		assert_int_equal(pfm_initialize(), PFM_SUCCESS);
		for (int p = 0; p < PFM_PMU_MAX; p++) {
			pfm_pmu_info_t pi;
			memset(&pi, 0, sizeof(pi));
			pi.size = sizeof(pi);
			if (pfm_get_pmu_info(p, &pi) == PFM_SUCCESS)
				snprintf(names[p], sizeof(names[p]), "%s", pi.name);
		}
		loaded = 1;
	}
	for (int p = 0; p < PFM_PMU_MAX; p++)        /* most are empty: the first letter first */
		if (names[p][0] == name[0] && !strcmp(names[p], name))
			return true;
	return false;
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
	unsigned total_models = 0, i386_only = 0;
	for (unsigned mi = 0; mi < pfmt_nmodels; mi++) {
		const struct pfmt_model *tm = &pfmt_models[mi];
		const char *pmu = pfmt_strings + tm->name;
		const struct pmu_model *m = pmu_model_by_name(pmu);
		assert_non_null(m);
		if (!native_pmu(pmu)) {         /* test_p6_family_reference compares it */
			i386_only++;
			continue;
		}
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
	printf("%u models compared, %u mismatches (%u from libpfm4:i386 compared below)\n",
	       total_models, mismatches, i386_only);
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
		if (!native_pmu(pmu))           /* triples of the P6 family: in the reference */
			continue;
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

/* Reference lines name an event alone ("pmu::EVENT") or one unit mask ("pmu::EVENT:UM"):
 * mark those table entries as compared. */
static void mark_covered(const struct pfmt_model *tm, const char *rest, bool *ev_seen, bool *um_seen)
{
	const char *colon = strchr(rest, ':');
	size_t n = colon ? (size_t)(colon - rest) : strlen(rest);
	for (unsigned e = 0; e < tm->nevents; e++) {
		const struct pfmt_event *ev = &pfmt_events[tm->first_event + e];
		const char *name = pfmt_strings + ev->name;
		if (strlen(name) != n || strncmp(name, rest, n))
			continue;
		if (!colon) {
			ev_seen[tm->first_event + e] = true;
			return;
		}
		for (unsigned u = 0; u < ev->numasks; u++)
			if (!strcmp(colon + 1, pfmt_strings + pfmt_umasks[ev->first_umask + u].name))
				um_seen[ev->first_umask + u] = true;
		return;
	}
}

struct ref_counts { unsigned strings, encoded, mismatches; };

/* The P6 family: every string of libpfm4:i386's reference, encoded alike or rejected
 * alike; every event and unit mask of the tables among them. */
static void test_p6_family_reference(void **state)
{
	(void)state;
	FILE *f = fopen(PFM_P6_REFERENCE, "r");
	if (!f)
		fail_msg("cannot open %s (make builds it; tests run from the repository root)",
			 PFM_P6_REFERENCE);
	size_t nev = 0, num = 0;       /* ends of the events and unit masks in use */
	for (unsigned mi = 0; mi < pfmt_nmodels; mi++) {
		if (pfmt_models[mi].first_event + pfmt_models[mi].nevents > nev)
			nev = pfmt_models[mi].first_event + pfmt_models[mi].nevents;
		for (unsigned e = 0; e < pfmt_models[mi].nevents; e++) {
			const struct pfmt_event *ev = &pfmt_events[pfmt_models[mi].first_event + e];
			if (ev->first_umask + ev->numasks > num)
				num = ev->first_umask + ev->numasks;
		}
	}
	bool *ev_seen = calloc(nev, 1), *um_seen = calloc(num + 1, 1);
	struct ref_counts counts[PFM_PMU_MAX] = { { 0 } };
	assert_true(ev_seen && um_seen && pfmt_nmodels <= PFM_PMU_MAX);
	char line[640], s[512], pmu[512] = "";
	int p;
	unsigned long long want, want1;
	unsigned before = mismatches, total = 0;
	const struct pmu_model *m = NULL;
	struct pmu_caps pc;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%511s %d %llx %llx", s, &p, &want, &want1) != 4)
			fail_msg("%s: bad line '%s'", PFM_P6_REFERENCE, line);
		char *sep = strstr(s, "::");
		assert_non_null(sep);
		*sep = 0;
		/* the lines come a PMU at a time: its model looked up at its first line */
		if (strcmp(s, pmu)) {
			m = pmu_model_by_name(s);
			if (!m || m->table == ~0u || native_pmu(s))
				fail_msg("%s: PMU %s has no table of its own from libpfm4:i386", PFM_P6_REFERENCE, s);
			pmu_model_default_caps(m, &pc);
			strcpy(pmu, s);
		}
		*sep = ':';
		struct ref_counts *c = &counts[m->table];
		unsigned had = mismatches;
		c->encoded += compare_codes(m, &pc, s, p, want, want1);
		c->mismatches += mismatches - had;
		c->strings++;
		total++;
		mark_covered(&pfmt_models[m->table], sep + 2, ev_seen, um_seen);
	}
	fclose(f);
	unsigned models = 0;
	for (unsigned mi = 0; mi < pfmt_nmodels; mi++) {
		const struct pfmt_model *tm = &pfmt_models[mi];
		const char *pmu = pfmt_strings + tm->name;
		if (native_pmu(pmu))
			continue;
		unsigned evs = 0, ums = 0, ums_seen = 0;
		for (unsigned e = 0; e < tm->nevents; e++) {
			const struct pfmt_event *ev = &pfmt_events[tm->first_event + e];
			evs += ev_seen[tm->first_event + e];
			ums += ev->numasks;
			for (unsigned u = 0; u < ev->numasks; u++)
				ums_seen += um_seen[ev->first_umask + u];
		}
		printf("%-8s (libpfm4:i386) events %3u of %3u, unit masks %3u of %3u, strings %5u "
		       "(%5u encoded alike), mismatches %u\n", pmu, evs, tm->nevents, ums_seen, ums,
		       counts[mi].strings, counts[mi].encoded, counts[mi].mismatches);
		assert_int_equal(evs, tm->nevents);
		assert_int_equal(ums_seen, ums);
		models++;
	}
	free(ev_seen);
	free(um_seen);
	printf("P6 family: %u models, %u strings compared with libpfm4:i386, %u mismatches\n",
	       models, total, mismatches - before);
	assert_int_equal(models, 5);
	assert_true(total > 10000);
	assert_int_equal(mismatches, before);
}

/* The model bareperf picks from CPUID's family 6 model is the one libpfm4:i386 detects
 * there (qemu-i386 -cpu gave it the model; "-": libpfm4 has none for it). */
static void test_p6_family_detect(void **state)
{
	(void)state;
	FILE *f = fopen(PFM_P6_DETECT, "r");
	if (!f)
		fail_msg("cannot open %s (make builds it)", PFM_P6_DETECT);
	char line[256], pmu[64], more[64];
	unsigned family, model, compared = 0, before = mismatches;
	while (fgets(line, sizeof(line), f)) {
		int n = sscanf(line, "detect %u %u %63s %63s", &family, &model, pmu, more);
		if (n != 3)
			fail_msg("%s: expected one PMU: '%s'", PFM_P6_DETECT, line);
		if (!strcmp(pmu, "-"))
			continue;
		struct cpu_info ci = { .vendor = VENDOR_INTEL, .family = family, .model = model };
		struct pmu_caps pc = { .kind = PMU_INTEL_P6 };
		const struct pmu_model *m = pmu_model_for_cpu(&ci, &pc);
		if (strcmp(m->pfm_name, pmu) || m->table == ~0u) {
			printf("MISMATCH family %u model %u: libpfm4:i386 detects %s, bareperf picks %s%s\n",
			       family, model, pmu, m->pfm_name, m->table == ~0u ? " (no table)" : "");
			mismatches++;
		}
		compared++;
	}
	fclose(f);
	printf("family 6 models whose PMU libpfm4:i386 detects: %u, mismatches %u\n", compared,
	       mismatches - before);
	assert_true(compared >= 12);    /* 1, 3, 5-11, 13-15 */
	assert_int_equal(mismatches, before);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_all_models),
		cmocka_unit_test(test_unit_mask_triples),
		cmocka_unit_test(test_prefix_and_case),
		cmocka_unit_test(test_p6_family_reference),
		cmocka_unit_test(test_p6_family_detect),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
