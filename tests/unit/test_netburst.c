/*
 * NetBurst PMU: encodings against libpfm4's netburst PMU, allocation against a brute-force
 * oracle, and the backend's MSR sequence against a model of the NetBurst MSRs.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <perfmon/pfmlib.h>
#include "lib/p4-events.h"
#include "lib/p4-regs.h"
#include "arch/x86/pmu/netburst.h"
#include "arch/x86/pmu/core.h"
#include "tests/unit/msr_model.h"
#include "lib/util.h"

/* tests/unit/msr_model_netburst.c: the model variants by HT and by model (IQ_ESCR0/1). */
unsigned msr_model_netburst_defs_for(struct msr_def *out, unsigned max, bool ht, bool iq_escrs);

static const struct pmu_caps ht_caps = { .kind = PMU_INTEL_NETBURST, .netburst_ht = true };
static const struct pmu_caps nonht_caps = { .kind = PMU_INTEL_NETBURST, .netburst_ht = false };

/* ---------------------------------------------------------------- libpfm4 */

static int pfm_encode(const char *text, uint64_t *escr, uint64_t *cccr)
{
	uint64_t codes[4] = { 0 };
	pfm_pmu_encode_arg_t arg;
	memset(&arg, 0, sizeof(arg));
	arg.size = sizeof(arg);
	arg.codes = codes;
	arg.count = 4;
	int ret = pfm_get_os_event_encoding(text, PFM_PLM0 | PFM_PLM3, PFM_OS_NONE, &arg);
	if (ret != PFM_SUCCESS)
		return ret;
	assert_int_equal(arg.count, 2);     /* codes[0] = ESCR, codes[1] = CCCR */
	*escr = codes[0];
	*cccr = codes[1];
	return 0;
}

static int setup_pfm(void **state)
{
	(void)state;
	setenv("LIBPFM_FORCE_PMU", "netburst", 1);
	return pfm_initialize() == PFM_SUCCESS ? 0 : -1;
}

/* The bus events whose CCCR ESCR-select libpfm4 (and Linux) give as 03H, which names
 * ITLB_ESCR0/1 on the counters the FSB ESCRs feed; we select the FSB ESCR they program,
 * 06H (lib/p4-event-table.c, docs/events.md). Everything else about them must match. */
static const char *const fsb_select_fixed[] = { "b2b_cycles", "bnr", "snoop", "response" };
#define LIBPFM_FSB_BUS_ESEL 3

static bool is_fsb_select_fixed(const char *event)
{
	for (unsigned i = 0; i < ARRAY_SIZE(fsb_select_fixed); i++)
		if (strcmp(event, fsb_select_fixed[i]) == 0)
			return true;
	return false;
}

/* libpfm4's CCCR for text, with the ESCR select ours uses where we deviate on purpose. */
static uint64_t pfm_cccr_as_ours(const char *text, uint64_t cccr)
{
	char event[64];
	size_t n = strcspn(text, ":");
	snprintf(event, sizeof(event), "%.*s", (int)n, text);
	if (!is_fsb_select_fixed(event))
		return cccr;
	assert_int_equal(P4_CCCR_GET_ESEL(cccr), LIBPFM_FSB_BUS_ESEL);
	return (cccr & ~(uint64_t)P4_CCCR_ESEL(7)) | P4_CCCR_ESEL(p4_escr_table[P4_ESCR_FSB0].escr_select);
}

/* libpfm4 sets T0 and T1 alike for u/k: our LP0 value widened to both threads. */
static void expect_same_as_pfm(const char *text)
{
	struct ev_encoding ev;
	char err[256] = "";
	uint64_t escr, cccr;
	char full[160];

	snprintf(full, sizeof(full), "netburst::%s", text);
	int pret = pfm_encode(full, &escr, &cccr);
	if (pret != 0)
		fail_msg("libpfm4 rejects '%s': %s", full, pfm_strerror(pret));
	if (netburst_event_parse(text, &ht_caps, &ev, err, sizeof(err)) != 0)
		fail_msg("'%s' rejected: %s", text, err);
	cccr = pfm_cccr_as_ours(text, cccr);
	uint32_t ours = netburst_escr_for_thread(ev.nb.escr, ev.nb.usr, ev.nb.os, 0, true, true);
	if (ours != escr || ev.nb.cccr != cccr)
		fail_msg("'%s': escr %#x cccr %#x, libpfm4 %#llx %#llx", text, ours, ev.nb.cccr,
			 (unsigned long long)escr, (unsigned long long)cccr);
	assert_int_equal(ev.nb.escr & (P4_ESCR_T1_OS | P4_ESCR_T1_USR), 0);
}

static void expect_both_reject(const char *text)
{
	struct ev_encoding ev;
	char err[256] = "", full[160];
	uint64_t escr, cccr;
	snprintf(full, sizeof(full), "netburst::%s", text);
	if (pfm_encode(full, &escr, &cccr) == 0)
		fail_msg("libpfm4 accepts '%s'", text);
	if (netburst_event_parse(text, &ht_caps, &ev, err, sizeof(err)) == 0)
		fail_msg("'%s' accepted", text);
	assert_true(err[0] != '\0');
}

/* b2b_cycles:BIT5/BIT6: libpfm4 maps both to mask bit 4; Table A-9 has bits 6:1. */
static bool libpfm_b2b_quirk(const struct nb_event *e, unsigned u)
{
	return strcmp(e->name, "b2b_cycles") == 0 && e->umask[u].bit >= 5;
}

static void test_every_event_and_umask_matches_libpfm(void **state)
{
	(void)state;
	unsigned checked = 0;
	for (unsigned i = 0; i < nb_event_count; i++) {
		const struct nb_event *e = &nb_event_table[i];
		char text[160];
		if (e->prescott_only)
			continue;
		bool has_dfl = false;
		for (unsigned u = 0; u < e->numasks; u++)
			has_dfl |= e->umask[u].dfl;
		if (has_dfl)
			expect_same_as_pfm(e->name);
		else
			expect_both_reject(e->name);
		for (unsigned u = 0; u < e->numasks; u++) {
			snprintf(text, sizeof(text), "%s:%s", e->name, e->umask[u].name);
			if (libpfm_b2b_quirk(e, u)) {
				struct ev_encoding ev;
				uint64_t escr, cccr;
				char full[170];
				snprintf(full, sizeof(full), "netburst::%s", text);
				assert_int_equal(pfm_encode(full, &escr, &cccr), 0);
				assert_int_equal(P4_ESCR_GET_EMASK(escr), 1u << 4);
				assert_int_equal(netburst_event_parse(text, &ht_caps, &ev, NULL, 0), 0);
				assert_int_equal(P4_ESCR_GET_EMASK(ev.nb.escr), 1u << e->umask[u].bit);
				continue;
			}
			expect_same_as_pfm(text);
			checked++;
		}
		/* all umasks together (except replay_event's virtual bits and the quirk) */
		size_t off = (size_t)snprintf(text, sizeof(text), "%s", e->name);
		for (unsigned u = 0; u < e->numasks && off < sizeof(text) - 20; u++)
			if (!libpfm_b2b_quirk(e, u))
				off += (size_t)snprintf(text + off, sizeof(text) - off, ":%s", e->umask[u].name);
		expect_same_as_pfm(text);
	}
	assert_true(checked > 150);
}

/* Every event and umask libpfm4 knows for netburst is in our table, under the same name
 * with the same bit and default. */
static void test_table_covers_libpfm(void **state)
{
	(void)state;
	pfm_pmu_info_t pinfo;
	memset(&pinfo, 0, sizeof(pinfo));
	pinfo.size = sizeof(pinfo);
	assert_int_equal(pfm_get_pmu_info(PFM_PMU_INTEL_NETBURST, &pinfo), PFM_SUCCESS);
	unsigned ours = 0;
	for (unsigned i = 0; i < nb_event_count; i++)
		ours += !nb_event_table[i].prescott_only;
	assert_int_equal((unsigned)pinfo.nevents, ours);

	for (int idx = pinfo.first_event; idx != -1; idx = pfm_get_event_next(idx)) {
		pfm_event_info_t info;
		memset(&info, 0, sizeof(info));
		info.size = sizeof(info);
		assert_int_equal(pfm_get_event_info(idx, PFM_OS_NONE, &info), PFM_SUCCESS);
		if (info.pmu != PFM_PMU_INTEL_NETBURST)
			continue;
		const struct nb_event *e = NULL;
		for (unsigned i = 0; i < nb_event_count; i++)
			if (strcmp(nb_event_table[i].name, info.name) == 0)
				e = &nb_event_table[i];
		if (!e)
			fail_msg("libpfm4 event %s missing from the table", info.name);
		/* libpfm4's code: event select | CCCR ESCR select << 8 */
		unsigned esel = is_fsb_select_fixed(e->name) ? LIBPFM_FSB_BUS_ESEL : e->escr_select;
		assert_int_equal(info.code, e->event_select | (esel << 8));
		unsigned numasks = 0;
		for (int a = 0; a < info.nattrs; a++) {
			pfm_event_attr_info_t ai;
			memset(&ai, 0, sizeof(ai));
			ai.size = sizeof(ai);
			assert_int_equal(pfm_get_event_attr_info(idx, a, PFM_OS_NONE, &ai), PFM_SUCCESS);
			if (ai.type != PFM_ATTR_UMASK)
				continue;
			assert_true(numasks < e->numasks);
			assert_string_equal(e->umask[numasks].name, ai.name);
			if (strcmp(e->name, "b2b_cycles") != 0)
				assert_int_equal(e->umask[numasks].bit, ai.code);
			assert_int_equal(e->umask[numasks].dfl, ai.is_dfl);
			numasks++;
		}
		assert_int_equal(numasks, e->numasks);
	}
}

/* The whole table is self-consistent: every ESCR an event may be programmed in is the
 * one its CCCR ESCR-select names on every counter that ESCR feeds, and no two ESCRs that
 * feed one counter share a select (so the CCCR names exactly one). */
static void test_escr_select_names_programmed_escr(void **state)
{
	(void)state;
	for (unsigned i = 0; i < nb_event_count; i++) {
		const struct nb_event *e = &nb_event_table[i];
		assert_true(e->nescrs == 1 || e->nescrs == 2);
		for (unsigned k = 0; k < e->nescrs; k++) {
			const struct p4_escr_info *x = &p4_escr_table[e->escr[k]];
			if (x->escr_select != e->escr_select)
				fail_msg("%s: CCCR ESCR select %u, but %s is select %u", e->name,
					 e->escr_select, x->name, x->escr_select);
		}
	}
	for (unsigned c = 0; c < 18; c++) {
		unsigned seen = 0, feeders = 0;
		for (unsigned x = 0; x < P4_ESCR_COUNT; x++) {
			const struct p4_escr_info *in = &p4_escr_table[x];
			const struct p4_group_info *g = &p4_group_table[in->group];
			bool feeds = false;
			for (unsigned j = 0; j < in->ncounters; j++) {
				assert_true(in->counter[j] >= g->first && in->counter[j] < g->first + g->count);
				feeds |= in->counter[j] == c;
			}
			if (!feeds)
				continue;
			if (seen >> in->escr_select & 1)
				fail_msg("counter %u: two ESCRs with select %u", c, in->escr_select);
			seen |= 1u << in->escr_select;
			feeders++;
		}
		assert_true(feeders >= 3);      /* the MS group's three units are the fewest */
	}
	/* The four deviating bus events: select 06H, FSB_ESCR0/1, and it reaches the CCCR. */
	for (unsigned i = 0; i < ARRAY_SIZE(fsb_select_fixed); i++) {
		struct ev_encoding ev;
		char text[64];
		snprintf(text, sizeof(text), "%s:BIT2", fsb_select_fixed[i]);
		if (strcmp(fsb_select_fixed[i], "bnr") == 0)
			snprintf(text, sizeof(text), "bnr:BIT0");
		assert_int_equal(netburst_event_parse(text, &ht_caps, &ev, NULL, 0), 0);
		const struct nb_event *e = &nb_event_table[ev.nb.event];
		assert_int_equal(e->escr[0], P4_ESCR_FSB0);
		assert_int_equal(e->escr[1], P4_ESCR_FSB1);
		assert_int_equal(P4_CCCR_GET_ESEL(ev.nb.cccr), 6);
		assert_int_equal(p4_escr_table[P4_ESCR_FSB0].escr_select, 6);
		assert_int_equal(p4_escr_table[P4_ESCR_ITLB0].escr_select, LIBPFM_FSB_BUS_ESEL);
	}
}

static void test_modifiers_match_libpfm(void **state)
{
	(void)state;
	static const char *const mods[] = {
		":u", ":k", ":u:k", ":cmpl", ":thr=8", ":e", ":u=0", ":k=1", ":u=1:k=0", ":cmpl=1",
		":cmpl=0", ":e=1", ":e=0", ":thr=0", ":thr=15", ":thr=0x8", ":cmpl:thr=8:u",
		":e:thr=3:k", ":u:u", ":u=y", ":k=n",
	};
	static const char *const events[] = {
		"global_power_events", "global_power_events:RUNNING", "instr_retired:NBOGUSNTAG",
		"x87_FP_uop:TAG1", "BSQ_allocation:REQ_TYPE0:MEM_TYPE1", "machine_clear:CLEAR",
		"replay_event:NBOGUS:DTLB_LD_MISS", "IOQ_active_entries:ALL_READ",
	};
	for (size_t e = 0; e < ARRAY_SIZE(events); e++)
		for (size_t m = 0; m < ARRAY_SIZE(mods); m++) {
			char text[160];
			snprintf(text, sizeof(text), "%s%s", events[e], mods[m]);
			expect_same_as_pfm(text);
		}
	/* case-insensitive names, as libpfm4 */
	expect_same_as_pfm("GLOBAL_POWER_EVENTS:running:U");

	/* Hand-computed: global_power_events:RUNNING:cmpl:thr=8:u
	 * ESCR = 0x13<<25 (0x26000000) | RUNNING 1<<9 (0x200) | T0_USR 0x4 = 0x26000204
	 * CCCR = enable 0x1000 | esel 6<<13 (0xc000) | any 3<<16 (0x30000) | compare 0x40000
	 *        | complement 0x80000 | thr 8<<20 (0x800000) = 0x8fd000 */
	struct ev_encoding ev;
	assert_int_equal(netburst_event_parse("global_power_events:RUNNING:cmpl:thr=8:u", &ht_caps,
					      &ev, NULL, 0), 0);
	assert_int_equal(ev.nb.escr, 0x26000204);
	assert_int_equal(ev.nb.cccr, 0x8fd000);
	assert_true(ev.nb.usr);
	assert_false(ev.nb.os);
	assert_string_equal(netburst_event_name(ev.nb.event), "global_power_events");
}

static void expect_error(const char *text, const struct pmu_caps *pc, const char *want)
{
	struct ev_encoding ev;
	char err[256] = "";
	if (netburst_event_parse(text, pc, &ev, err, sizeof(err)) == 0)
		fail_msg("'%s' accepted", text);
	if (!strstr(err, want))
		fail_msg("'%s': error '%s' lacks '%s'", text, err, want);
}

static void test_rejections(void **state)
{
	(void)state;
	static const char *const bad[] = {
		"global_power_events:thr=16", "global_power_events:thr", "global_power_events:u=2",
		"global_power_events:bogus", "global_power_events:zz=1", "nosuchevent",
		"replay_event", "global_power_events:thr=abc", "global_power_events:RUNNING:cmpl=3",
		"TC_deliver_mode", "global_power_events::u",
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		expect_both_reject(bad[i]);
	expect_error("global_power_event", &ht_caps,
		     "unknown event 'global_power_event' for PMU netburst (did you mean 'global_power_events'?)");
	expect_error("global_power_events:thr=16", &ht_caps, "thr=16 out of range 0-15");
	expect_error("global_power_events:RUNING", &ht_caps, "did you mean 'RUNNING'?");
	expect_error("global_power_events:zz=1", &ht_caps, "unknown modifier 'zz'");
	expect_error("global_power_events:u=2", &ht_caps, "u=2: expected 0 or 1");
	expect_error("replay_event", &ht_caps, "has no default umask: give one of NBOGUS, BOGUS");
	expect_error("global_power_events:t", &nonht_caps, "needs a processor with Hyper-Threading");
	expect_error("", &ht_caps, "missing event name");
}

static void test_raw(void **state)
{
	(void)state;
	struct ev_encoding ev;
	char err[256] = "";
	/* global_power_events:RUNNING for both threads, user and kernel */
	assert_int_equal(netburst_event_parse_raw("escr=0x2600020f,cccr=0x3d000", &ht_caps, &ev,
						  err, sizeof(err)), 0);
	assert_string_equal(netburst_event_name(ev.nb.event), "global_power_events");
	assert_int_equal(ev.nb.escr, 0x2600020c);
	assert_true(ev.nb.both_threads && ev.nb.usr && ev.nb.os);
	assert_int_equal(ev.nb.cccr, 0x3d000);
	/* the enable bit is ours to manage: given without it, the encoding has it */
	assert_int_equal(netburst_event_parse_raw("cccr=0x3c000,escr=0x26000208", &nonht_caps, &ev,
						  err, sizeof(err)), 0);
	assert_int_equal(ev.nb.cccr, 0x3d000);
	assert_false(ev.nb.both_threads);

	static const struct { const char *body; const struct pmu_caps *pc; const char *want; } bad[] = {
		{ "escr=0x80000000,cccr=0x3d000", &ht_caps, "reserved bits 0x80000000" },
		{ "escr=0x2600020f,cccr=0x3d001", &ht_caps, "reserved bits 0x1 " },
		{ "escr=0x2600020f,cccr=0x1003d000", &ht_caps, "reserved bits 0x10000000" },
		{ "escr=0x26000203,cccr=0x3d000", &nonht_caps, "T1_OS/T1_USR" },
		{ "escr=0x2600020c,cccr=0x403d000", &ht_caps, "overflow/interrupt/cascade" },
		{ "escr=0x2600020c,cccr=0x1d000", &ht_caps, "must be 11b" },
		{ "escr=0x7e00020c,cccr=0x3d000", &ht_caps, "event select 0x3f with cccr ESCR select 6 is no NetBurst event" },
		{ "escr=0x0a00020c,cccr=0x35000", &ht_caps, "is both store_port_replay (SAAT_ESCR0) and retired_mispred_branch_type (TBPU_ESCR0)" },
		{ "escr=0x2600020c", &ht_caps, "both escr= and cccr= are needed" },
		{ "escr=0x2600020c,cccr=0x3d000,foo=1", &ht_caps, "unknown key 'foo'" },
		{ "escr=zz,cccr=0x3d000", &ht_caps, "escr=zz is not a number" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		err[0] = '\0';
		if (netburst_event_parse_raw(bad[i].body, bad[i].pc, &ev, err, sizeof(err)) == 0)
			fail_msg("'%s' accepted", bad[i].body);
		if (!strstr(err, bad[i].want))
			fail_msg("'%s': error '%s' lacks '%s'", bad[i].body, err, bad[i].want);
	}
}

/* ---------------------------------------------------------------- allocation */

static void parse_or_die(const char *text, struct ev_encoding *ev)
{
	char err[256] = "";
	if (netburst_event_parse(text, &ht_caps, ev, err, sizeof(err)) != 0)
		fail_msg("'%s': %s", text, err);
}

/* Independent oracle: try every (ESCR, counter it feeds) pair for each event in input order. */
static bool oracle(const struct ev_encoding *ev, unsigned n, unsigned k, uint64_t escrs, uint32_t ctrs)
{
	if (k == n)
		return true;
	const struct nb_event *e = &nb_event_table[ev[k].nb.event];
	for (unsigned i = 0; i < e->nescrs; i++) {
		const struct p4_escr_info *x = &p4_escr_table[e->escr[i]];
		if (escrs >> e->escr[i] & 1)
			continue;
		for (unsigned j = 0; j < x->ncounters; j++) {
			unsigned c = x->counter[j];
			if (ctrs >> c & 1)
				continue;
			if (oracle(ev, n, k + 1, escrs | 1ull << e->escr[i], ctrs | 1u << c))
				return true;
		}
	}
	return false;
}

/* Every slot is a counter its ESCR feeds; no ESCR or counter is used twice. */
static void check_slots(const struct pmu_state *st, const struct ev_encoding *ev, unsigned n)
{
	uint64_t escrs = 0;
	uint32_t ctrs = 0;
	assert_int_equal(st->nslots, n);
	for (unsigned i = 0; i < n; i++) {
		const struct pmu_slot *s = &st->slot[i];
		const struct nb_event *e = &nb_event_table[ev[i].nb.event];
		int x = p4_escr_by_msr(s->extra_msr);
		assert_true(x >= 0);
		assert_true(x == e->escr[0] || (e->nescrs == 2 && x == e->escr[1]));
		bool feeds = false;
		for (unsigned j = 0; j < p4_escr_table[x].ncounters; j++)
			feeds |= p4_escr_table[x].counter[j] == s->index;
		assert_true(feeds);
		assert_false(escrs >> x & 1);
		assert_false(ctrs >> s->index & 1);
		escrs |= 1ull << x;
		ctrs |= 1u << s->index;
		assert_int_equal(s->ctr_msr, 0x300 + s->index);
		assert_int_equal(s->ctl_msr, 0x360 + s->index);
		assert_int_equal(s->rdpmc_index, s->index);
		assert_int_equal(s->width, 40);
		assert_int_equal(P4_CCCR_GET_ESEL(s->ctl_value), e->escr_select);
		/* and that select names the ESCR actually programmed */
		assert_int_equal(P4_CCCR_GET_ESEL(s->ctl_value), p4_escr_table[x].escr_select);
	}
}

static void test_allocation_matches_oracle(void **state)
{
	(void)state;
	uint64_t seed = 12345;
	unsigned feasible = 0, infeasible = 0;
	struct ev_encoding ev[10];
	unsigned usable[64], nusable = 0;
	for (unsigned i = 0; i < nb_event_count; i++) {
		/* events with a default umask parse by name alone */
		for (unsigned u = 0; u < nb_event_table[i].numasks; u++)
			if (nb_event_table[i].umask[u].dfl)
				usable[nusable++] = i;
	}
	/* also events of the crowded FSB/BSU and CRU units, with an explicit umask */
	static const char *const extra[] = { "BSQ_allocation:REQ_TYPE0", "BSQ_active_entries:REQ_TYPE0",
		"IOQ_active_entries:ALL_READ", "instr_retired:NBOGUSNTAG", "front_end_event:NBOGUS",
		"uops_type:TAGLOADS", "machine_clear:CLEAR", "page_walk_type:DTMISS" };
	for (unsigned iter = 0; iter < 3000; iter++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		unsigned n = 1 + (unsigned)(seed >> 33) % 10;
		for (unsigned k = 0; k < n; k++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			unsigned pick = (unsigned)(seed >> 33) % (nusable + 8);
			if (pick < nusable)
				parse_or_die(nb_event_table[usable[pick]].name, &ev[k]);
			else
				parse_or_die(extra[pick - nusable], &ev[k]);
		}
		struct pmu_state st = { .be = pmu_backend_for(PMU_INTEL_NETBURST), .caps = ht_caps };
		char err[256] = "";
		bool want = oracle(ev, n, 0, 0, 0);
		int got = pmu_backend_for(PMU_INTEL_NETBURST)->assign(&st, ev, n, err, sizeof(err));
		if (want != (got == 0))
			fail_msg("iteration %u: oracle %d, assign %d (%s)", iter, want, got, err);
		if (got == 0) {
			check_slots(&st, ev, n);
			feasible++;
		} else {
			assert_true(strstr(err, "'") != NULL);      /* names the events */
			infeasible++;
		}
	}
	assert_true(feasible > 300 && infeasible > 300);
}

static const char *const full_set[18] = {
	"BPU_fetch_request", "BPU_fetch_request:u", "ITLB_reference:HIT", "ITLB_reference:MISS",
	"tc_ms_xfer", "tc_ms_xfer:k", "TC_misc", "TC_misc:u",
	"x87_FP_uop", "x87_FP_uop:u", "memory_cancel:ST_RB_FULL", "memory_cancel:64K_CONF",
	"instr_retired:NBOGUSNTAG", "instr_retired:BOGUSNTAG", "front_end_event:NBOGUS",
	"front_end_event:BOGUS", "uops_type:TAGLOADS", "uops_type:TAGSTORES",
};

static void expect_assign_error(const char *const *texts, unsigned n, const char *want)
{
	struct ev_encoding ev[EV_MAX_EVENTS];
	struct pmu_state st = { .be = pmu_backend_for(PMU_INTEL_NETBURST), .caps = ht_caps };
	char err[512] = "";
	for (unsigned i = 0; i < n; i++)
		parse_or_die(texts[i], &ev[i]);
	if (pmu_backend_for(PMU_INTEL_NETBURST)->assign(&st, ev, n, err, sizeof(err)) == 0)
		fail_msg("%u events placed, expected '%s'", n, want);
	if (!strstr(err, want))
		fail_msg("error '%s' lacks '%s'", err, want);
}

static void test_allocation_limits(void **state)
{
	(void)state;
	struct ev_encoding ev[19];
	struct pmu_state st = { .be = pmu_backend_for(PMU_INTEL_NETBURST), .caps = ht_caps };
	char err[256] = "";
	for (unsigned i = 0; i < 18; i++)
		parse_or_die(full_set[i], &ev[i]);
	assert_int_equal(pmu_backend_for(PMU_INTEL_NETBURST)->assign(&st, ev, 18, err, sizeof(err)), 0);
	check_slots(&st, ev, 18);

	const char *nineteen[19];
	memcpy(nineteen, full_set, sizeof(full_set));
	nineteen[18] = "global_power_events";
	expect_assign_error(nineteen, 19, "19 NetBurst events, but there are only 18 counters");

	const char *bsq[] = { "BSQ_allocation:REQ_TYPE0", "BSQ_allocation:REQ_TYPE1" };
	expect_assign_error(bsq, 2, "events 'BSQ_allocation:REQ_TYPE0' and 'BSQ_allocation:REQ_TYPE1' "
			    "both need ESCR MSR_BSU_ESCR0 (only 1 exists)");
	const char *fsb[] = { "global_power_events", "ITLB_reference:HIT", "global_power_events:u",
			      "IOQ_allocation:ALL_READ" };
	expect_assign_error(fsb, 4, "events 'global_power_events', 'global_power_events:u' and "
			    "'IOQ_allocation:ALL_READ' all need ESCR MSR_FSB_ESCR0/1 (only 2 exist)");
	const char *bpu[] = { "BPU_fetch_request", "BPU_fetch_request:u", "ITLB_reference:HIT",
			      "ITLB_reference:MISS", "global_power_events" };
	expect_assign_error(bpu, 5, "need a counter of the BPU group (only 4 exist)");
	/* Three events held to ESCR0s (BSU0, FSB0 once FSB1 is taken, ...) share counters 0-1. */
	const char *side[] = { "BSQ_allocation:REQ_TYPE0", "IOQ_active_entries:ALL_READ",
			       "global_power_events", "BSQ_active_entries:REQ_TYPE0",
			       "ITLB_reference:HIT" };
	expect_assign_error(side, 5, "need a counter of the BPU group");
	const char *side2[] = { "BSQ_allocation:REQ_TYPE0", "IOQ_active_entries:ALL_READ",
				"global_power_events", "BSQ_active_entries:REQ_TYPE0" };
	for (unsigned i = 0; i < 4; i++)
		parse_or_die(side2[i], &ev[i]);
	assert_int_equal(pmu_backend_for(PMU_INTEL_NETBURST)->assign(&st, ev, 4, err, sizeof(err)), 0);
	check_slots(&st, ev, 4);
	const char *ctr[] = { "BSQ_allocation:REQ_TYPE0", "page_walk_type:DTMISS",
			      "page_walk_type:ITMISS", "ITLB_reference:HIT", "BPU_fetch_request" };
	expect_assign_error(ctr, 5, "only 4 exist");
}

/* ---------------------------------------------------------------- backend against the model */

/* The shared MSR model, with ESCR bits 1:0 reserved for a part without HT (the generic
 * model builds the HT layout) and one MSR whose writes fault, to see faults propagate. */
struct nbm {
	struct msr_model model;
	struct msr_io inner;
	uint32_t inject_msr;
};

static int nbm_read(void *ctx, uint32_t msr, uint64_t *val)
{
	struct nbm *m = ctx;
	return m->inner.read(m->inner.ctx, msr, val);
}

static int nbm_write(void *ctx, uint32_t msr, uint64_t val)
{
	struct nbm *m = ctx;
	if (msr == m->inject_msr)
		return 13;
	return m->inner.write(m->inner.ctx, msr, val);
}

static void nbm_init(struct nbm *m, const struct pmu_caps *caps)
{
	memset(m, 0, sizeof(*m));
	msr_model_init(&m->model, PMU_INTEL_NETBURST, caps);
	m->inner = msr_model_io(&m->model);
	if (!caps->netburst_ht)
		for (unsigned i = 0; i < m->model.ndefs; i++)
			if (p4_escr_by_msr(m->model.defs[i].msr) >= 0)
				m->model.defs[i].reserved |= P4_ESCR_T1_OS | P4_ESCR_T1_USR;
}

static void test_model_defs(void **state)
{
	(void)state;
	struct msr_def d[MSR_MODEL_MAX];
	assert_int_equal(msr_model_netburst_defs(d, MSR_MODEL_MAX), 18 + 18 + 43);
	assert_int_equal(msr_model_netburst_defs_for(d, MSR_MODEL_MAX, true, true), 18 + 18 + 45);
	/* every address once, inside the NetBurst ranges */
	for (unsigned i = 0; i < 81; i++) {
		assert_true((d[i].msr >= 0x300 && d[i].msr <= 0x311) ||
			    (d[i].msr >= 0x360 && d[i].msr <= 0x371) ||
			    (d[i].msr >= 0x3a0 && d[i].msr <= 0x3e1));
		for (unsigned j = 0; j < i; j++)
			assert_int_not_equal(d[i].msr, d[j].msr);
	}
	assert_int_equal(d[0].reserved, 0xffffff0000000000ull);          /* 40-bit counter */
	assert_int_equal(d[18].reserved, 0xffffffff30000fffull);         /* CCCR */
	assert_int_equal(d[36].reserved, 0xffffffff80000000ull);         /* ESCR with HT */
	msr_model_netburst_defs_for(d, MSR_MODEL_MAX, false, false);
	assert_int_equal(d[36].reserved, 0xffffffff80000003ull);         /* T1 bits without HT */
}

struct backend_case {
	const char *label;
	bool ht;
	unsigned lp;
	const char *gpe;                /* the global_power_events event text */
	uint32_t gpe_escr;              /* hand-computed ESCR value written */
	uint32_t ir_escr;               /* instr_retired:NBOGUSNTAG:cmpl:thr=8 */
};

/* ESCR = event select << 25 | mask << 9 | T bits (T0_OS 8, T0_USR 4, T1_OS 2, T1_USR 1):
 * global_power_events:RUNNING: 0x13 << 25 = 0x26000000, 1 << 9 = 0x200
 * instr_retired:NBOGUSNTAG:    0x02 << 25 = 0x04000000, 1 << 9 = 0x200 */
static const struct backend_case cases[] = {
	{ "no HT, LP0", false, 0, "global_power_events:u", 0x26000204, 0x0400020c },
	{ "HT, LP0", true, 0, "global_power_events:u", 0x26000204, 0x0400020c },
	{ "HT, LP1", true, 1, "global_power_events:u", 0x26000201, 0x04000203 },
	{ "HT, both", true, 1, "global_power_events:u:t", 0x26000205, 0x04000203 },
};

/* Assigns the case's two events and the TSC; checks the ESCR and CCCR values against
 * the hand-computed ones. */
static void assign_case_events(struct pmu_state *st, const struct backend_case *c,
			       struct ev_encoding ev[3])
{
	char err[256] = "";
	assert_int_equal(netburst_event_parse(c->gpe, &st->caps, &ev[0], err, sizeof(err)), 0);
	assert_int_equal(netburst_event_parse("instr_retired:NBOGUSNTAG:cmpl:thr=8", &st->caps, &ev[1],
					      err, sizeof(err)), 0);
	memset(&ev[2], 0, sizeof(ev[2]));
	ev[2].cls = EV_CLASS_TSC;
	strcpy(ev[2].name, "tsc");

	assert_int_equal(st->be->probe(st, err, sizeof(err)), 0);
	if (st->be->assign(st, ev, 3, err, sizeof(err)) != 0)
		fail_msg("%s: %s", c->label, err);
	assert_int_equal(st->nslots, 3);
	assert_int_equal(st->slot[0].extra_value, c->gpe_escr);
	assert_int_equal(st->slot[1].extra_value, c->ir_escr);
	/* CCCR, global_power_events: enable 0x1000 | esel 6 << 13 (0xc000) | any 3 << 16
	 * (0x30000) = 0x3d000. instr_retired: enable 0x1000 | esel 4 << 13 (0x8000) |
	 * 0x30000 | compare 0x40000 | complement 0x80000 | thr 8 << 20 (0x800000) = 0x8f9000. */
	assert_int_equal(st->slot[0].ctl_value, 0x3d000);
	assert_int_equal(st->slot[1].ctl_value, 0x8f9000);
	assert_int_equal(st->slot[2].type, SLOT_TSC);
}

/* program writes ESCR, CCCR without enable, counter = 0, per slot, and leaves the TSC
 * alone; start then sets the CCCR enables. */
static void check_program_start(struct pmu_state *st, struct nbm *m)
{
	assert_int_equal(st->be->program(st), 0);
	assert_int_equal(m->model.nlog, 6);
	for (unsigned i = 0; i < 2; i++) {
		assert_int_equal(m->model.log[3 * i].msr, st->slot[i].extra_msr);
		assert_int_equal(m->model.log[3 * i].val, st->slot[i].extra_value);
		assert_int_equal(m->model.log[3 * i + 1].msr, st->slot[i].ctl_msr);
		assert_int_equal(m->model.log[3 * i + 1].val, st->slot[i].ctl_value & ~0x1000ull);
		assert_int_equal(m->model.log[3 * i + 2].msr, st->slot[i].ctr_msr);
		assert_int_equal(m->model.log[3 * i + 2].val, 0);
	}
	/* first choices: FSB_ESCR0 feeding BPU_COUNTER0; CRU_ESCR0 feeding IQ_COUNTER0 */
	assert_int_equal(st->slot[0].extra_msr, MSR_FSB_ESCR0);
	assert_int_equal(st->slot[0].ctr_msr, MSR_BPU_COUNTER0);
	assert_int_equal(st->slot[1].extra_msr, MSR_CRU_ESCR0);
	assert_int_equal(st->slot[1].ctl_msr, MSR_IQ_CCCR0);

	assert_int_equal(st->be->start(st), 0);
	assert_int_equal(m->model.log[6].msr, MSR_BPU_CCCR0);
	assert_int_equal(m->model.log[6].val, 0x3d000);
	assert_int_equal(m->model.log[7].val, 0x8f9000);
}

/* A counter read across the 40-bit wrap, and the TSC slot read from MSR 0x10. */
static void check_reads(struct pmu_state *st, struct nbm *m)
{
	/* 40-bit wrap: from 2^40 - 5 to 10 is 15 events */
	uint64_t before, after;
	msr_model_set(&m->model, MSR_BPU_COUNTER0, (1ull << 40) - 5);
	assert_int_equal(st->be->read(st, 0, &before), 0);
	assert_int_equal(before, 0xfffffffffbull);
	msr_model_set(&m->model, MSR_BPU_COUNTER0, 10);
	assert_int_equal(st->be->read(st, 0, &after), 0);
	assert_int_equal(pmu_delta(before, after, st->slot[0].width), 15);
	msr_model_set(&m->model, 0x10, 0x123456789abcull);
	assert_int_equal(st->be->read(st, 2, &after), 0);
	assert_int_equal(after, 0x123456789abcull);
}

/* stop clears the CCCR enables; reset zeroes the counters but never writes the TSC. */
static void check_stop_reset(struct pmu_state *st, struct nbm *m)
{
	unsigned mark = m->model.nlog;
	assert_int_equal(st->be->stop(st), 0);
	assert_int_equal(m->model.log[mark].val, 0x3c000);
	assert_int_equal(m->model.log[mark + 1].val, 0x8f8000);
	assert_int_equal(st->be->reset(st), 0);
	assert_int_equal(msr_model_get(&m->model, MSR_BPU_COUNTER0), 0);
	assert_int_equal(msr_model_get(&m->model, 0x10), 0x123456789abcull);   /* TSC not written */
}

/* disable_all writes the 18 CCCRs to just their active-thread field (0x30000) and the
 * 43 ESCRs to 0. */
static void check_disable_all(struct pmu_state *st, struct nbm *m)
{
	unsigned mark = m->model.nlog;
	assert_int_equal(st->be->disable_all(st), 0);
	assert_int_equal(m->model.nlog - mark, 18 + 43);
	for (unsigned i = mark; i < m->model.nlog; i++) {
		if (m->model.log[i].msr >= 0x360 && m->model.log[i].msr <= 0x371)
			assert_int_equal(m->model.log[i].val, 0x30000);
		else
			assert_int_equal(m->model.log[i].val, 0);
	}
	for (unsigned c = 0; c < 18; c++)
		assert_int_equal(msr_model_get(&m->model, 0x360 + c) & P4_CCCR_ENABLE, 0);
}

static void run_backend_case(const struct backend_case *c)
{
	struct nbm m;
	struct ev_encoding ev[3];
	const struct pmu_caps *caps = c->ht ? &ht_caps : &nonht_caps;

	nbm_init(&m, caps);
	struct pmu_state st = { .be = pmu_backend_for(PMU_INTEL_NETBURST), .caps = *caps,
				.logical_cpu = c->lp, .io = { nbm_read, nbm_write, &m } };
	assign_case_events(&st, c, ev);
	check_program_start(&st, &m);
	check_reads(&st, &m);
	check_stop_reset(&st, &m);
	check_disable_all(&st, &m);

	if (m.model.faults)
		fail_msg("%s: %u faults, first: %s", c->label, m.model.faults, m.model.first_fault);
	/* without HT, no ESCR write ever set T1 bits (the model's reserved bits say so too) */
	for (unsigned i = 0; i < m.model.nlog && !c->ht; i++)
		if (m.model.log[i].msr >= 0x3a0)
			assert_int_equal(m.model.log[i].val & 3, 0);
}

static void test_backend_sequence(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		run_backend_case(&cases[i]);
}

static void test_backend_errors(void **state)
{
	(void)state;
	struct nbm m;
	struct ev_encoding ev;
	char err[256] = "";
	nbm_init(&m, &nonht_caps);
	struct pmu_state st = { .be = pmu_backend_for(PMU_INTEL_NETBURST), .caps = nonht_caps, .logical_cpu = 1,
				.io = { nbm_read, nbm_write, &m } };
	parse_or_die("global_power_events", &ev);
	assert_int_equal(pmu_backend_for(PMU_INTEL_NETBURST)->assign(&st, &ev, 1, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "logical processor 1 does not exist on this processor (no Hyper-Threading)"));

	/* a both-threads encoding on a part without HT gets T0 bits only */
	st.logical_cpu = 0;
	ev.nb.both_threads = true;
	assert_int_equal(pmu_backend_for(PMU_INTEL_NETBURST)->assign(&st, &ev, 1, err, sizeof(err)), 0);
	assert_int_equal(st.slot[0].extra_value, 0x2600020c);

	/* a fault is returned as its vector and remembered */
	m.inject_msr = st.slot[0].ctl_msr;
	assert_int_equal(pmu_backend_for(PMU_INTEL_NETBURST)->program(&st), 13);
	assert_int_equal(st.last_fault, 13);
	m.inject_msr = MSR_CRU_ESCR5;
	st.last_fault = 0;
	assert_int_equal(pmu_backend_for(PMU_INTEL_NETBURST)->disable_all(&st), 13);
	assert_int_equal(st.last_fault, 13);

	struct pmu_state other = { .caps = { .kind = PMU_INTEL_ARCH } };
	assert_int_equal(pmu_backend_for(PMU_INTEL_NETBURST)->probe(&other, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "family 15"));

	struct ev_encoding gp = { .cls = EV_CLASS_GP, .name = "cycles" };
	assert_int_equal(pmu_backend_for(PMU_INTEL_NETBURST)->assign(&st, &gp, 1, err, sizeof(err)), -1);
	assert_string_equal(err, "event 'cycles' is not a NetBurst event");
}

/* ---------------------------------------------------------------- trace=msr */

static void test_describe(void **state)
{
	(void)state;
	char buf[200];
	assert_true(netburst_msr_describe(MSR_IQ_CCCR0, 0x3d000, buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "IQ_CCCR0 0x36c <- 0x0003d000 enable esel=6 active=any");
	netburst_msr_describe(MSR_BPU_CCCR1, 0x8f8000, buf, sizeof(buf));
	assert_string_equal(buf, "BPU_CCCR1 0x361 <- 0x008f8000 esel=4 active=any thr=8 compare complement");
	netburst_msr_describe(MSR_MS_CCCR3, 0x1030000, buf, sizeof(buf));
	assert_string_equal(buf, "MS_CCCR3 0x367 <- 0x01030000 esel=0 active=any edge");
	netburst_msr_describe(MSR_FSB_ESCR0, 0x26000204, buf, sizeof(buf));
	assert_string_equal(buf, "FSB_ESCR0 0x3a2 <- 0x26000204 evsel=0x13 emask=0x1 t0_usr (global_power_events)");
	/* 0x090000fa = evsel 4 << 25 (0x08000000) | ALL 1 << (15 + 9) (0x01000000) |
	 * tag 7 << 5 (0xe0) | tag enable 0x10 | T0_OS 0x8 | T1_OS 0x2 */
	netburst_msr_describe(MSR_FIRM_ESCR1, 0x090000fa, buf, sizeof(buf));
	assert_string_equal(buf, "FIRM_ESCR1 0x3a5 <- 0x090000fa evsel=0x4 emask=0x8000 tag=0x7 t0_os t1_os (x87_FP_uop)");
	netburst_msr_describe(MSR_CRU_ESCR5, 0, buf, sizeof(buf));
	assert_string_equal(buf, "CRU_ESCR5 0x3e1 <- 0x00000000 evsel=0 emask=0");
	netburst_msr_describe(MSR_IQ_COUNTER5, 0xffffffffffull, buf, sizeof(buf));
	assert_string_equal(buf, "IQ_COUNTER5 0x311 <- 0xffffffffff");
	assert_int_equal(netburst_msr_describe(0x186, 0, buf, sizeof(buf)), -1);
	assert_int_equal(netburst_msr_describe(0x3c6, 0, buf, sizeof(buf)), -1);   /* gap */
}

/* T0/T1 is the SMT field of the initial APIC ID only (SDM Vol. 3A 10.9.1): a Pentium D
 * (two cores, one thread each: APIC IDs 0, 1) runs T0 on both cores; a Pentium Extreme
 * Edition (two cores of two threads: 0-3) has T1 at the odd IDs, T0 at core 1's ID 2. */
static void test_thread_of_apic_id(void **state)
{
	(void)state;
	assert_int_equal(netburst_thread_of(0, 1), 0);
	assert_int_equal(netburst_thread_of(1, 1), 0);     /* Pentium D, core 1 */
	assert_int_equal(netburst_thread_of(0, 2), 0);
	assert_int_equal(netburst_thread_of(1, 2), 1);     /* Prescott HT, second thread */
	assert_int_equal(netburst_thread_of(2, 2), 0);     /* Pentium EE, core 1 thread 0 */
	assert_int_equal(netburst_thread_of(3, 2), 1);
	assert_int_equal(netburst_thread_of(6, 2), 0);     /* second package */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_event_and_umask_matches_libpfm),
		cmocka_unit_test(test_table_covers_libpfm),
		cmocka_unit_test(test_escr_select_names_programmed_escr),
		cmocka_unit_test(test_modifiers_match_libpfm),
		cmocka_unit_test(test_rejections),
		cmocka_unit_test(test_raw),
		cmocka_unit_test(test_allocation_matches_oracle),
		cmocka_unit_test(test_allocation_limits),
		cmocka_unit_test(test_model_defs),
		cmocka_unit_test(test_backend_sequence),
		cmocka_unit_test(test_backend_errors),
		cmocka_unit_test(test_describe),
		cmocka_unit_test(test_thread_of_apic_id),
	};
	return cmocka_run_group_tests(tests, setup_pfm, NULL);
}
