/*
 * The event language (lib/event.c): perf generic names per PMU kind, tsc/aperf/mperf,
 * raw rXXXX and cpu/.../ forms, p4/.../ hand-off, error messages, event_split_list and
 * the CPU -> PMU model match. Expected event selects come from the manuals (SDM Vol. 3B
 * Table 20-1, Figure 20-6; AMD APM Vol. 2 Figure 13-7) and Linux's perf event maps;
 * libpfm4 names are compared against libpfm4 itself in test_encode_pfm.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "lib/p4-events.h"
#include "lib/cpuid-dump.h"
#include "lib/cpuinfo.h"
#include "arch/x86/pmu/pmu.h"
#include "lib/event.h"
#include "lib/util.h"
#include "tests/unit/test_data.h"

#define USR   (1ull << 16)
#define OS    (1ull << 17)
#define EDGE  (1ull << 18)
#define INT   (1ull << 20)
#define ANY   (1ull << 21)
#define EN    (1ull << 22)
#define INV   (1ull << 23)
#define CMASK(v) ((uint64_t)(v) << 24)
#define AMD_GUEST (1ull << 40)
#define AMD_HOST  (1ull << 41)

static char err[256];

static const struct pmu_model *model(const char *name, struct pmu_caps *pc)
{
	const struct pmu_model *m = pmu_model_by_name(name);
	if (!m)
		fail_msg("no PMU model '%s'", name);
	pmu_model_default_caps(m, pc);
	return m;
}

static struct ev_encoding parse_ok(const struct pmu_model *m, const struct pmu_caps *pc, const char *text)
{
	struct ev_encoding ev;
	if (event_parse(m, pc, pmu_generic_map_for_model(m), text, &ev, err, sizeof(err)) != 0)
		fail_msg("%s on %s: unexpected error: %s", text, m->pfm_name, err);
	assert_string_equal(ev.name, text);
	return ev;
}

/* Parses must fail with a message that contains want. */
static void parse_err(const struct pmu_model *m, const struct pmu_caps *pc, const char *text,
		      const char *want)
{
	struct ev_encoding ev;
	err[0] = 0;
	if (event_parse(m, pc, pmu_generic_map_for_model(m), text, &ev, err, sizeof(err)) == 0)
		fail_msg("%s on %s: accepted (evtsel 0x%llx), wanted error '%s'", text, m->pfm_name,
			 (unsigned long long)ev.evtsel, want);
	if (!strstr(err, want))
		fail_msg("%s on %s: error '%s' lacks '%s'", text, m->pfm_name, err, want);
}

static uint32_t all_gp(const struct pmu_caps *pc) { return (1u << pc->gp_counters) - 1; }

/* ---------------------------------------------------------------- generic names */
struct generic_case { const char *name; uint64_t sel; int fixed; };

static void check_generic(const char *pmu, const struct generic_case *c, unsigned n)
{
	struct pmu_caps pc;
	const struct pmu_model *m = model(pmu, &pc);
	for (unsigned i = 0; i < n; i++) {
		struct ev_encoding ev = parse_ok(m, &pc, c[i].name);
		if (ev.cls != EV_CLASS_GP || ev.evtsel != (c[i].sel | USR | OS | EN))
			fail_msg("%s::%s: evtsel 0x%llx, want 0x%llx", pmu, c[i].name,
				 (unsigned long long)ev.evtsel, (unsigned long long)(c[i].sel | USR | OS | EN));
		assert_int_equal(ev.fixed_mask, c[i].fixed < 0 ? 0 : 1u << c[i].fixed);
		/* ref-cycles' 0x0300 is a pseudo-encoding no GP counter takes */
		assert_int_equal(ev.gp_mask, c[i].fixed == 2 ? 0 : all_gp(&pc));
		assert_int_equal(ev.evtsel & INT, 0);
	}
}

static void test_generic_intel_arch(void **state)
{
	(void)state;
	static const struct generic_case skl[] = {                 /* SDM Vol. 3B Table 20-1 */
		{ "cycles", 0x003c, 1 }, { "instructions", 0x00c0, 0 }, { "ref-cycles", 0x0300, 2 },
		{ "branches", 0x00c4, -1 }, { "branch-misses", 0x00c5, -1 },
		{ "cache-references", 0x4f2e, -1 }, { "cache-misses", 0x412e, -1 },
	};
	check_generic("skl", skl, 7);
	check_generic("ix86arch", skl, 7);
	check_generic("icl", skl, 7);

	struct pmu_caps pc;
	const struct pmu_model *m = model("skl", &pc);
	assert_true(pc.gp_counters >= 4 && pc.fixed_counters == 3);
	assert_int_equal(parse_ok(m, &pc, "cycles:u").evtsel, 0x3c | USR | EN);
	assert_int_equal(parse_ok(m, &pc, "cycles:k").evtsel, 0x3c | OS | EN);
	assert_int_equal(parse_ok(m, &pc, "cycles:uk").evtsel, 0x3c | USR | OS | EN);
	assert_int_equal(parse_ok(m, &pc, "instructions:k:u").evtsel, 0xc0 | USR | OS | EN);
	/* privilege filters do not take an event off its fixed counter */
	assert_int_equal(parse_ok(m, &pc, "instructions:u").fixed_mask, 1);
	parse_err(m, &pc, "cycles:e", "cycles: unknown modifier 'e' (this form takes u and k)");
	parse_err(m, &pc, "cycles:", "cycles: empty modifier after ':'");
	parse_err(m, &pc, "cycles:u:", "cycles: empty modifier after ':'");
}

/* CPUID.0AH says which architectural events exist and which fixed counters. */
static void test_generic_intel_caps(void **state)
{
	(void)state;
	struct pmu_caps pc;
	const struct pmu_model *m = model("skl", &pc);
	pc.arch_events_unavail = 1u << 6;           /* branch mispredicts retired */
	parse_err(m, &pc, "branch-misses", "branch-misses: architectural event 6 not available on this CPU "
		  "(CPUID.0AH:EBX bit 6)");
	parse_ok(m, &pc, "branches");
	pc.arch_events_unavail = 0;
	pc.arch_events_len = 4;                      /* events 4.. not enumerated */
	parse_err(m, &pc, "cache-misses", "(CPUID.0AH:EBX bit 4)");
	parse_ok(m, &pc, "cache-references");

	/* two fixed counters only: ref-cycles has nowhere to go */
	m = model("skl", &pc);
	pc.fixed_counters = 2;
	pc.fixed_counter_mask = 0x3;
	parse_err(m, &pc, "ref-cycles", "ref-cycles needs fixed counter 2 (reference cycles), which this CPU lacks");
	assert_int_equal(parse_ok(m, &pc, "cycles").fixed_mask, 1u << 1);
	/* v5 bitmap: fixed counter 2 only */
	pc.fixed_counters = 0;
	pc.fixed_counter_mask = 0x4;
	assert_int_equal(parse_ok(m, &pc, "ref-cycles").fixed_mask, 1u << 2);
	assert_int_equal(parse_ok(m, &pc, "instructions").fixed_mask, 0);
	/* no counter at all (a hypervisor that hides the PMU): the message says so, and
	 * does not blame fixed counter 2 for cycles */
	m = model("skl", &pc);
	pc.gp_counters = 0;
	pc.fixed_counters = 0;
	pc.fixed_counter_mask = 0;
	parse_err(m, &pc, "cycles", "cycles: this CPU reports no counter that can count it "
		  "(0 general-purpose, 0 fixed)");

	/* Core Duo: version 1, no fixed counters */
	m = model("coreduo", &pc);
	assert_int_equal(pc.fixed_counters, 0);
	struct ev_encoding ev = parse_ok(m, &pc, "instructions");
	assert_int_equal(ev.evtsel, 0xc0 | USR | OS | EN);
	assert_int_equal(ev.fixed_mask, 0);
	parse_err(m, &pc, "ref-cycles", "which this CPU lacks");
}

static void test_generic_p6(void **state)
{
	(void)state;
	static const struct generic_case p6[] = {                   /* Linux p6_perfmon_event_map */
		{ "cycles", 0x0079, -1 }, { "instructions", 0x00c0, -1 }, { "branches", 0x00c4, -1 },
		{ "branch-misses", 0x00c5, -1 }, { "cache-references", 0x0f2e, -1 },
		{ "cache-misses", 0x012e, -1 },
	};
	check_generic("p6", p6, 6);
	check_generic("pm", p6, 6);
	struct pmu_caps pc;
	const struct pmu_model *m = model("ppro", &pc);
	assert_int_equal(pc.gp_counters, 2);
	assert_int_equal(parse_ok(m, &pc, "cycles:k").gp_mask, 0x3);
	parse_err(m, &pc, "ref-cycles", "ref-cycles is not available on PMU ppro");
	/* libpfm4 names, from libpfm4:i386's tables (test_encode_pfm compares them all):
	 * INST_RETIRED C0H; L2_LD 29H with the MESI unit mask M 08H, E 04H (SDM Vol. 3B,
	 * "Performance Monitoring Events for P6 Family Processors") */
	assert_int_equal(parse_ok(m, &pc, "INST_RETIRED").evtsel, 0xc0 | USR | OS | EN);
	assert_int_equal(parse_ok(m, &pc, "ppro::INST_RETIRED:k").evtsel, 0xc0 | OS | EN);
	m = model("p6", &pc);
	assert_int_equal(parse_ok(m, &pc, "L2_LD:M:E:u").evtsel, 0x0c29 | USR | EN);
	parse_err(m, &pc, "L2_LD:t", "modifier 't' is not valid for PMU p6 event L2_LD");
	/* the Pentium Pro has no MMX: its table lacks the Pentium II's MMX events */
	parse_ok(model("pii", &pc), &pc, "MMX_INSTR_EXEC");
	m = model("ppro", &pc);
	parse_err(m, &pc, "MMX_INSTR_EXEC", "unknown event 'MMX_INSTR_EXEC' for PMU ppro");
	/* Core Duo: architectural perfmon v1, two counters, its own names */
	m = model("coreduo", &pc);
	assert_int_equal(pc.gp_counters, 2);
	assert_int_equal(parse_ok(m, &pc, "INSTRUCTIONS_RETIRED").evtsel, 0xc0 | USR | OS | EN);
}

static void test_generic_amd(void **state)
{
	(void)state;
	static const struct generic_case k8[] = {                   /* Linux amd_perfmon_event_map */
		{ "cycles", 0x0076, -1 }, { "instructions", 0x00c0, -1 }, { "branches", 0x00c2, -1 },
		{ "branch-misses", 0x00c3, -1 }, { "cache-references", 0x0080, -1 },
		{ "cache-misses", 0x0081, -1 },
	};
	check_generic("amd64_k7", k8, 6);
	check_generic("amd64_k8_revg", k8, 6);
	check_generic("amd64_fam15h_interlagos", k8, 6);
	static const struct generic_case zen[] = {                  /* Linux amd_zen1..3 maps */
		{ "cycles", 0x0076, -1 }, { "instructions", 0x00c0, -1 }, { "branches", 0x00c2, -1 },
		{ "branch-misses", 0x00c3, -1 }, { "cache-references", 0xff60, -1 },
		{ "cache-misses", 0x0964, -1 },
	};
	check_generic("amd64_fam17h_zen1", zen, 6);
	check_generic("amd64_fam17h_zen2", zen, 6);
	check_generic("amd64_fam19h_zen3", zen, 6);
	/* Zen 4 adds ref-cycles as event 0x120 unit mask 0x01: event bits 11:8 go to 35:32 */
	static const struct generic_case zen4[] = {
		{ "cycles", 0x0076, -1 }, { "ref-cycles", 0x100000120ull, -1 },
		{ "cache-misses", 0x0964, -1 },
	};
	check_generic("amd64_fam19h_zen4", zen4, 3);

	struct pmu_caps pc;
	const struct pmu_model *m = model("amd64_k8_revg", &pc);
	assert_int_equal(pc.gp_counters, 4);
	assert_int_equal(parse_ok(m, &pc, "cycles:u").evtsel, 0x76 | USR | EN);
	parse_err(m, &pc, "ref-cycles", "ref-cycles is not available on PMU amd64_k8_revg");
	m = model("amd64_fam17h_zen2", &pc);
	assert_int_equal(pc.gp_counters, 6);
	assert_int_equal(parse_ok(m, &pc, "instructions").gp_mask, 0x3f);
}

/* NetBurst's generic names are libpfm4 strings (Linux p4_general_events) handed to the
 * NetBurst parser, modifiers included. */
static void test_generic_netburst(void **state)
{
	(void)state;
	static const char *const map[][2] = {
		{ "cycles", "global_power_events:RUNNING" },
		{ "instructions", "instr_retired:NBOGUSNTAG:NBOGUSTAG" },
		{ "branches", "branch_retired:MMNP:MMNM:MMTP:MMTM" },
		{ "branch-misses", "mispred_branch_retired:BOGUS" },
		{ "cache-references", "bsq_cache_reference:RD_2ndL_HITS:RD_2ndL_HITE:RD_2ndL_HITM:"
				      "RD_3rdL_HITS:RD_3rdL_HITE:RD_3rdL_HITM" },
		{ "cache-misses", "bsq_cache_reference:RD_2ndL_MISS:RD_3rdL_MISS:WR_2ndL_MISS" },
		{ "cycles:u", "global_power_events:RUNNING:u" },
		{ "instructions:k", "instr_retired:NBOGUSNTAG:NBOGUSTAG:k" },
	};
	struct pmu_caps pc;
	const struct pmu_model *m = model("netburst", &pc);
	for (unsigned i = 0; i < ARRAY_SIZE(map); i++) {
		struct ev_encoding a, b;
		if (event_parse(m, &pc, pmu_generic_map_for_model(m), map[i][0], &a, err, sizeof(err)))
			fail_msg("%s: %s", map[i][0], err);
		if (netburst_event_parse(map[i][1], &pc, &b, err, sizeof(err)))
			fail_msg("%s: %s", map[i][1], err);
		assert_int_equal(a.cls, EV_CLASS_NETBURST);
		assert_int_equal(a.nb.event, b.nb.event);
		assert_int_equal(a.nb.escr, b.nb.escr);
		assert_int_equal(a.nb.cccr, b.nb.cccr);
		assert_int_equal(a.nb.usr, b.nb.usr);
		assert_int_equal(a.nb.os, b.nb.os);
	}
	struct ev_encoding u = parse_ok(m, &pc, "cycles:u");
	assert_true(u.nb.usr && !u.nb.os);
	parse_err(m, &pc, "ref-cycles", "ref-cycles is not available on NetBurst");
	/* netburst:: and netburst_p:: name the same hand table */
	m = model("netburst_p", &pc);
	assert_int_equal(parse_ok(m, &pc, "netburst::global_power_events:RUNNING").cls, EV_CLASS_NETBURST);
}

static void test_free_running(void **state)
{
	(void)state;
	/* APERF/MPERF exist where CPUID.06H:ECX[0] says so: the default caps of a model
	 * follow the hardware (Core 2 and later, AMD family 10h and later), and a CPU's
	 * own CPUID overrides them. */
	static const struct { const char *pmu; bool aperf; } pmus[] = {
		{ "skl", true }, { "p6", false }, { "netburst", false }, { "amd64_k7", false },
		{ "amd64_k8_revg", false }, { "amd64_fam10h_barcelona", true },
		{ "amd64_fam19h_zen4", true },
	};
	for (unsigned i = 0; i < ARRAY_SIZE(pmus); i++) {
		struct pmu_caps pc;
		const struct pmu_model *m = model(pmus[i].pmu, &pc);
		assert_int_equal(parse_ok(m, &pc, "tsc").cls, EV_CLASS_TSC);
		assert_int_equal(parse_ok(m, &pc, "TSC").cls, EV_CLASS_TSC);
		if (pmus[i].aperf) {
			assert_int_equal(parse_ok(m, &pc, "aperf").cls, EV_CLASS_APERF);
			assert_int_equal(parse_ok(m, &pc, "mperf").cls, EV_CLASS_MPERF);
			pc.aperfmperf = false;
		}
		parse_err(m, &pc, "mperf", "mperf: this CPU has no APERF/MPERF (CPUID.06H:ECX bit 0 is clear)");
		pc.aperfmperf = true;
		assert_int_equal(parse_ok(m, &pc, "aperf").cls, EV_CLASS_APERF);
	}
	struct pmu_caps pc;
	const struct pmu_model *m = model("skl", &pc);
	parse_err(m, &pc, "tsc:u", "unknown event 'tsc'");
}

/* ---------------------------------------------------------------- raw forms */
static void test_raw_hex(void **state)
{
	(void)state;
	struct pmu_caps pc;
	const struct pmu_model *m = model("skl", &pc);
	struct ev_encoding ev = parse_ok(m, &pc, "r003c");
	assert_int_equal(ev.evtsel, 0x3c | USR | OS | EN);
	assert_int_equal(ev.fixed_mask, 1u << 1);
	assert_int_equal(parse_ok(m, &pc, "r412e:u").evtsel, 0x412e | USR | EN);
	assert_int_equal(parse_ok(m, &pc, "r412E:k").evtsel, 0x412e | OS | EN);
	/* cmask 1, inv, edge, AnyThread: bits 24, 23, 18, 21 as written */
	ev = parse_ok(m, &pc, "r01a401c2");
	assert_int_equal(ev.evtsel, 0x01c2 | CMASK(1) | INV | ANY | EDGE | USR | OS | EN);
	assert_int_equal(ev.fixed_mask, 0);
	/* INST_RETIRED.ANY_P with a cmask is no longer fixed counter 0's event */
	assert_int_equal(parse_ok(m, &pc, "r00c0").fixed_mask, 1u << 0);
	assert_int_equal(parse_ok(m, &pc, "r10000c0").fixed_mask, 0);
	assert_int_equal(parse_ok(m, &pc, "r01c0").fixed_mask, 0);
	ev = parse_ok(m, &pc, "r0300");
	assert_int_equal(ev.gp_mask, 0);
	assert_int_equal(ev.fixed_mask, 1u << 2);
	/* TSX in_tx is Intel's bit 32 */
	assert_int_equal(parse_ok(m, &pc, "r1000001c2").evtsel, 0x1000001c2ull | USR | OS | EN);

	parse_err(m, &pc, "r1003c", "raw event 'r1003c': reserved bits 0x10000 set for PMU skl "
		  "(USR/OS come from :u/:k)");
	parse_err(m, &pc, "r10003c", "reserved bits 0x100000 set");     /* INT */
	parse_err(m, &pc, "r40003c", "reserved bits 0x400000 set");     /* EN */
	parse_err(m, &pc, "r12345678901234567", "expected r followed by 1-16 hex digits");
	parse_err(m, &pc, "r003c:x", "r003c:x: unknown modifier 'x' (this form takes u and k)");
	parse_err(m, &pc, "r3c:u:", "empty modifier after ':'");
	/* not hex: a libpfm4 name like any other */
	parse_err(m, &pc, "r3cz", "unknown event 'r3cz' for PMU skl");

	m = model("p6", &pc);
	parse_err(m, &pc, "r20003c", "reserved bits 0x200000 set for PMU p6");     /* no AnyThread */
	parse_err(m, &pc, "r1000000c0", "reserved bits 0x100000000 set for PMU p6");

	/* AMD: event bits 11:8 in hex digits 9..11; host/guest on family 10h+ only */
	m = model("amd64_fam17h_zen2", &pc);
	assert_int_equal(parse_ok(m, &pc, "r100000020").evtsel, 0x100000020ull | USR | OS | EN);
	assert_int_equal(parse_ok(m, &pc, "r30000000076").evtsel, 0x76 | AMD_HOST | AMD_GUEST | USR | OS | EN);
	parse_err(m, &pc, "r200076", "reserved bits 0x200000 set for PMU amd64_fam17h_zen2");
	m = model("amd64_k8_revg", &pc);
	parse_err(m, &pc, "r10000000076", "reserved bits 0x10000000000 set for PMU amd64_k8_revg");

	m = model("netburst", &pc);
	parse_err(m, &pc, "r003c", "'r003c': NetBurst raw events are p4/escr=...,cccr=.../");
}

static void test_raw_cpu_form(void **state)
{
	(void)state;
	struct pmu_caps pc;
	const struct pmu_model *m = model("skl", &pc);
	struct ev_encoding ev = parse_ok(m, &pc, "cpu/event=0x3c,umask=0x00,cmask=1,inv,edge,any/");
	assert_int_equal(ev.evtsel, 0x3c | CMASK(1) | INV | EDGE | ANY | USR | OS | EN);
	assert_int_equal(ev.fixed_mask, 0);
	assert_int_equal(parse_ok(m, &pc, "cpu/event=0x3c,umask=0x00,cmask=1,inv,edge,any/:u").evtsel,
			 0x3c | CMASK(1) | INV | EDGE | ANY | USR | EN);
	ev = parse_ok(m, &pc, "cpu/event=0xc0/:k");
	assert_int_equal(ev.evtsel, 0xc0 | OS | EN);
	assert_int_equal(ev.fixed_mask, 1u << 0);
	/* decimal values, =0 clears a flag, a later key wins */
	assert_int_equal(parse_ok(m, &pc, "cpu/event=46,umask=79,inv=1,inv=0/").evtsel, 0x4f2e | USR | OS | EN);

	parse_err(m, &pc, "cpu/event=0x3c,period=1000/", "unknown key 'period' (keys: event, umask, cmask, inv, edge, any)");
	parse_err(m, &pc, "cpu/event=0x3c,umask=256/", "umask=256 out of range 0-255");
	parse_err(m, &pc, "cpu/event=0x13c/", "event=316 out of range 0-255");
	parse_err(m, &pc, "cpu/event=0x3c,cmask=zz/", "bad number 'zz' for cmask");
	parse_err(m, &pc, "cpu/event=0x3c,,umask=1/", "empty key");
	parse_err(m, &pc, "cpu/event=0x3c", "missing closing '/'");
	parse_err(m, &pc, "cpu/event=0x3c/x", "unexpected 'x' (modifiers follow ':')");
	parse_err(m, &pc, "cpu/event=0x3c/:e", "unknown modifier 'e'");

	m = model("amd64_fam17h_zen2", &pc);
	assert_int_equal(parse_ok(m, &pc, "cpu/event=0x120,umask=0x1/").evtsel,
			 0x100000120ull | USR | OS | EN);
	parse_err(m, &pc, "cpu/event=0x76,any/", "'any' (AnyThread) is Intel architectural only");
	parse_err(m, &pc, "cpu/event=0x1076/", "event=4214 out of range 0-4095");

	m = model("netburst", &pc);
	parse_err(m, &pc, "cpu/event=0x3c/", "NetBurst raw events are p4/escr=...,cccr=.../");
}

static void test_raw_p4_form(void **state)
{
	(void)state;
	struct pmu_caps pc;
	const struct pmu_model *m = model("skl", &pc);
	parse_err(m, &pc, "p4/escr=0x2600020c,cccr=0x39000/", "p4/.../ raw events need the netburst PMU (this is skl)");

	m = model("netburst", &pc);
	/* whatever the NetBurst parser makes of the body, event_parse hands it over as is */
	static const char *const bodies[] = { "escr=0x2600020c,cccr=0x3d000", "escr=0x1,cccr=0x2", "cccr=1" };
	unsigned accepted = 0;
	for (unsigned i = 0; i < 3; i++) {
		char text[128], err2[256];
		snprintf(text, sizeof(text), "p4/%s/", bodies[i]);
		struct ev_encoding a, b;
		int ra = event_parse(m, &pc, pmu_generic_map_for_model(m), text, &a, err, sizeof(err));
		int rb = netburst_event_parse_raw(bodies[i], &pc, &b, err2, sizeof(err2));
		assert_int_equal(ra, rb);
		if (ra == 0) {
			assert_int_equal(a.cls, EV_CLASS_NETBURST);
			assert_int_equal(a.nb.escr, b.nb.escr);
			assert_int_equal(a.nb.cccr, b.nb.cccr);
			assert_string_equal(a.name, text);
			accepted++;
		} else {
			assert_string_equal(err, err2);
		}
	}
	assert_int_equal(accepted, 1);     /* global_power_events:RUNNING, as bareperf-encode shows it */
	parse_err(m, &pc, "p4/escr=0x1,cccr=0x2", "missing closing '/'");
	parse_err(m, &pc, "p4/escr=0x1,cccr=0x2/:u", "unexpected ':u' after the closing '/'");
}

/* ---------------------------------------------------------------- libpfm4 names: errors */
static void test_pfm_errors(void **state)
{
	(void)state;
	struct pmu_caps pc;
	const struct pmu_model *m = model("skl", &pc);
	parse_err(m, &pc, "", "empty event");
	parse_err(m, &pc, "INST_RETIRE", "unknown event 'INST_RETIRE' for PMU skl (did you mean 'INST_RETIRED'?)");
	parse_err(m, &pc, "skl::XYZZY_PLUGH_FROB", "unknown event 'XYZZY_PLUGH_FROB' for PMU skl");
	parse_err(m, &pc, "INST_RETIRED:ANY_PP", "unknown unit mask or modifier 'ANY_PP' for event INST_RETIRED "
		  "(did you mean 'ANY_P'?)");
	parse_err(m, &pc, "INST_RETIRED:ANY_P:zz=1", "unknown unit mask or modifier 'zz=1' for event INST_RETIRED");
	parse_err(m, &pc, "INST_RETIRED:ANY_P:c=256", "c=256 out of range 0-255");
	parse_err(m, &pc, "INST_RETIRED:ANY_P:c=0x100", "c=256 out of range 0-255");
	parse_err(m, &pc, "INST_RETIRED:ANY_P:c=abc", "'c=abc': 'abc' is not a number");
	parse_err(m, &pc, "INST_RETIRED:ANY_P:c", "modifier 'c' needs a value (c=N)");
	parse_err(m, &pc, "INST_RETIRED:ANY_P:u=2", "u=2: modifier 'u' takes 0 or 1");
	parse_err(m, &pc, "INST_RETIRED:ANY_P:c=1:c=2", "modifier 'c' given twice with different values (1, 2)");
	parse_err(m, &pc, "INST_RETIRED:ANY_P:h", "modifier 'h' is not valid for PMU skl event INST_RETIRED");
	parse_err(m, &pc, "INST_RETIRED:ANY_P:e", "e (edge) needs a counter mask: add c=N (event INST_RETIRED)");
	parse_err(m, &pc, "INST_RETIRED:ANY_P:PREC_DIST", "unit masks ANY_P and PREC_DIST cannot be combined on event INST_RETIRED");
	parse_err(m, &pc, "INST_RETIRED:ANY_P:", "empty unit mask or modifier after ':'");
	parse_err(m, &pc, "INST_RETIRED:ANY_P extra", "unexpected character at offset 18");
	parse_err(m, &pc, "hsw::INST_RETIRED:ANY_P", "'hsw::INST_RETIRED:ANY_P' is for PMU hsw, but the PMU in use is skl");
	parse_err(m, &pc, "skl::", "missing event name");

	/* same value twice is one modifier, as libpfm4 takes it */
	assert_int_equal(parse_ok(m, &pc, "INST_RETIRED:ANY_P:u:u").evtsel, 0xc0 | USR | EN);

	pc.any_thread_deprecated = true;
	parse_err(m, &pc, "CPU_CLK_THREAD_UNHALTED:THREAD_P:t", "modifier 't' (AnyThread) is deprecated on this CPU");

	/* a unit mask that fixes edge and cmask (snb L1D_PEND_MISS:OCCURRENCES = PENDING:e=1:c=1) */
	m = model("snb", &pc);
	parse_err(m, &pc, "L1D_PEND_MISS:OCCURRENCES:e=0", "e=0 conflicts with a unit mask of L1D_PEND_MISS that fixes it");
	parse_err(m, &pc, "L1D_PEND_MISS:OCCURRENCES:c=2", "c=2 conflicts with a unit mask");
	assert_int_equal(parse_ok(m, &pc, "L1D_PEND_MISS:OCCURRENCES:c=1").evtsel,
			 0x0148 | EDGE | CMASK(1) | USR | OS | EN);
	parse_err(m, &pc, "L1D_PEND_MISS", "event L1D_PEND_MISS needs a unit mask (one of: ");

	/* AMD: no AnyThread; host/guest from family 10h */
	m = model("amd64_fam17h", &pc);
	parse_err(m, &pc, "amd64_fam17h::RETIRED_UOPS:t", "modifier 't' is not valid for PMU amd64_fam17h event RETIRED_UOPS");
	m = model("amd64_k8_revg", &pc);
	parse_err(m, &pc, "RETIRED_INSTRUCTIONS:h", "modifier 'h' is not valid for PMU amd64_k8_revg");
	m = model("amd64_fam10h_barcelona", &pc);
	/* libpfm4 counts h as a privilege filter: host-only, neither USR nor OS */
	assert_int_equal(parse_ok(m, &pc, "RETIRED_INSTRUCTIONS:h").evtsel, 0xc0 | AMD_HOST | EN);
	assert_int_equal(parse_ok(m, &pc, "RETIRED_INSTRUCTIONS:g").evtsel, 0xc0 | AMD_GUEST | USR | OS | EN);
	parse_err(m, &pc, "RETIRED_INSTRUCTIONS:c=300", "c=300 out of range 0-255");
}

/* A hint must be closer than the word is long: "r" is three edits from GART, which is no
 * hint at all; a long word still gets one. */
static void test_no_hint_for_short_words(void **state)
{
	(void)state;
	struct pmu_caps pc;
	static const char *const pmus[] = { "amd64_k8_revg", "skl", "amd64_fam17h" };
	static const char *const words[] = { "r", "ab", "xyz" };
	for (unsigned i = 0; i < sizeof(pmus) / sizeof(pmus[0]); i++) {
		const struct pmu_model *m = model(pmus[i], &pc);
		for (unsigned j = 0; j < sizeof(words) / sizeof(words[0]); j++) {
			parse_err(m, &pc, words[j], "unknown event");
			if (strstr(err, "did you mean"))
				fail_msg("'%s' on %s: %s", words[j], pmus[i], err);
		}
	}
	struct pmu_caps k8;
	parse_err(model("amd64_k8_revg", &k8), &k8, "GARTT", "(did you mean 'GART'?)");
	/* Unit masks, NetBurst fields and PMU prefixes follow the same rule. */
	static const char *const more[][2] = {
		{ "skl", "INST_RETIRED:ab" },
		{ "netburst", "global_power_events:RUNNING:x" },
		{ "netburst", "ab" },
		{ "skl", "ab::INST_RETIRED" },
		{ "skl", "c::INST_RETIRED" },
	};
	for (unsigned i = 0; i < sizeof(more) / sizeof(more[0]); i++) {
		const struct pmu_model *m = model(more[i][0], &pc);
		parse_err(m, &pc, more[i][1], "");
		if (strstr(err, "did you mean") || strstr(err, "close:"))
			fail_msg("'%s' on %s: %s", more[i][1], more[i][0], err);
	}
	parse_err(model("netburst", &pc), &pc, "global_power_events:RUNING", "(did you mean 'RUNNING'?)");
	parse_err(model("skl", &pc), &pc, "sklz::INST_RETIRED", "close: 'skl'");
}

/* An unknown PMU prefix lists at most three close names, the closest first. */
static void test_unknown_pmu_hint(void **state)
{
	(void)state;
	struct pmu_caps pc;
	const struct pmu_model *m = model("skl", &pc);
	parse_err(m, &pc, "sklx::INST_RETIRED", "unknown PMU 'sklx' (close: 'skl'");
	parse_err(m, &pc, "zzzzzzzzzz::INST_RETIRED", "unknown PMU 'zzzzzzzzzz' (see bareperf-encode --list-pmus)");
	/* "hs" is one edit from hsw, bdw? no: from "hsw" only by one; many names are two away */
	struct ev_encoding ev;
	assert_int_equal(event_parse(m, &pc, pmu_generic_map_for_model(m), "ic::X", &ev, err, sizeof(err)), -1);
	unsigned quotes = 0;
	for (const char *p = err; *p; p++)
		quotes += *p == '\'';
	/* 'ic' itself plus at most three names, two quotes each */
	assert_true(quotes >= 4 && quotes <= 8);
	assert_non_null(strstr(err, "'icl'"));
	assert_non_null(strstr(err, "'icx'"));
}

static void test_case_and_prefix(void **state)
{
	(void)state;
	struct pmu_caps pc;
	const struct pmu_model *m = model("skl", &pc);
	uint64_t want = 0xc0 | CMASK(1) | INV | USR | EN;
	assert_int_equal(parse_ok(m, &pc, "skl::INST_RETIRED:ANY_P:u:c=1:i").evtsel, want);
	assert_int_equal(parse_ok(m, &pc, "SKL::inst_retired:any_p:u:c=1:i=1").evtsel, want);
	assert_int_equal(parse_ok(m, &pc, "INST_RETIRED:ANY_P:u=1:k=0:c=1:i").evtsel, want);
	assert_ptr_equal(pmu_model_by_name("SKL"), m);
	assert_null(pmu_model_by_name("skl "));
	assert_null(pmu_model_by_name("sk"));
	assert_non_null(pmu_model_by_name("netburst"));
	assert_non_null(pmu_model_by_name("p6"));
	/* every listed model is found by its own name, and no name is listed twice */
	unsigned n = pmu_model_count();
	assert_true(n > 45);
	for (unsigned i = 0; i < n; i++) {
		const struct pmu_model *a = pmu_model_at(i);
		assert_ptr_equal(pmu_model_by_name(a->pfm_name), a);
	}
	assert_null(pmu_model_at(n));
}

/* ---------------------------------------------------------------- event_split_list */
static void test_split_list(void **state)
{
	(void)state;
	char names[EV_MAX_EVENTS][EV_NAME_MAX];
	int n = event_split_list("cycles,instructions, skl::INST_RETIRED:ANY_P:u ,tsc", names, EV_MAX_EVENTS,
				 err, sizeof(err));
	assert_int_equal(n, 4);
	assert_string_equal(names[0], "cycles");
	assert_string_equal(names[1], "instructions");
	assert_string_equal(names[2], "skl::INST_RETIRED:ANY_P:u");
	assert_string_equal(names[3], "tsc");

	n = event_split_list("cpu/event=0x3c,umask=0,cmask=1/:u,p4/escr=0x1,cccr=0x2/,r003c", names,
			     EV_MAX_EVENTS, err, sizeof(err));
	assert_int_equal(n, 3);
	assert_string_equal(names[0], "cpu/event=0x3c,umask=0,cmask=1/:u");
	assert_string_equal(names[1], "p4/escr=0x1,cccr=0x2/");
	assert_string_equal(names[2], "r003c");

	assert_int_equal(event_split_list("", names, EV_MAX_EVENTS, err, sizeof(err)), 0);
	assert_int_equal(event_split_list("cycles,cpu/event=0x3c,umask=0", names, EV_MAX_EVENTS, err, sizeof(err)), -1);
	assert_string_equal(err, "unbalanced '/' in event 'cpu/event=0x3c,umask=0'");
	assert_int_equal(event_split_list("cycles,,tsc", names, EV_MAX_EVENTS, err, sizeof(err)), -1);
	assert_string_equal(err, "empty event in list at position 2");
	assert_int_equal(event_split_list("cycles,", names, EV_MAX_EVENTS, err, sizeof(err)), -1);
	assert_string_equal(err, "empty event in list at position 2");
	assert_int_equal(event_split_list("a,b,c", names, 2, err, sizeof(err)), -1);
	assert_string_equal(err, "more than 2 events in the list");
	assert_int_equal(event_split_list("a,b", names, 2, err, sizeof(err)), 2);

	char longlist[EV_NAME_MAX + 16];
	memset(longlist, 'x', sizeof(longlist));
	memcpy(longlist, "tsc,", 4);
	longlist[sizeof(longlist) - 1] = 0;
	assert_int_equal(event_split_list(longlist, names, EV_MAX_EVENTS, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "event 2 is longer than"));
	/* the longest fitting name passes */
	longlist[4 + EV_NAME_MAX - 1] = 0;
	assert_int_equal(event_split_list(longlist, names, EV_MAX_EVENTS, err, sizeof(err)), 2);
	assert_int_equal(strlen(names[1]), EV_NAME_MAX - 1);
}

/* ---------------------------------------------------------------- CPU -> model */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		fail_msg("cannot open %s (run from the repository root)", path);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	buf[n] = 0;
	*len = (size_t)n;
	return buf;
}

static void test_model_for_cpu(void **state)
{
	(void)state;
	static const struct { const char *file, *pmu; } dumps[] = {
		{ TEST_CPUID_DIR "GenuineIntel00506E3_Skylake_CPUID.txt", "skl" },
		{ TEST_CPUID_DIR "GenuineIntel00006F6_Conroe_CPUID.txt", "core" },
		{ TEST_CPUID_DIR "GenuineIntel0000673_P3_Katmai_CPUID.txt", "p6" },
		{ TEST_CPUID_DIR "GenuineIntel0000F24_P4_Northwood_CPUID.txt", "netburst" },
		{ TEST_CPUID_DIR "GenuineIntel0000F34_P4_Prescott_HT_CPUID.txt", "netburst_p" },
		{ TEST_CPUID_DIR "GenuineIntel00006D8_PentiumM_Dothan_CPUID.txt", "pm" },
		{ TEST_CPUID_DIR "GenuineIntel0090672_AlderLake_S_CPUID.txt", "ix86arch" },
		{ TEST_CPUID_DIR "AuthenticAMD0000622_K7_Pluto_CPUID.txt", "amd64_k7" },
		{ TEST_CPUID_DIR "AuthenticAMD0000F51_K8_Sledgehammer_CPUID.txt", "amd64_k8_revc" },
		{ TEST_CPUID_DIR "AuthenticAMD0600F01_K15_Bulldozer_CPUID.txt", "amd64_fam15h_interlagos" },
		{ TEST_CPUID_DIR "AuthenticAMD0870F10_Zen2_Matisse_CPUID.txt", "amd64_fam17h_zen2" },
		{ TEST_CPUID_DIR "AuthenticAMD0A60F12_K19_Raphael_01_CPUID.txt", "amd64_fam19h_zen4" },
	};
	static struct cpuid_dump d;
	for (unsigned i = 0; i < ARRAY_SIZE(dumps); i++) {
		size_t len;
		char *text = slurp(dumps[i].file, &len);
		assert_true(cpuid_dump_parse(&d, text, len, err, sizeof(err)) > 0);
		free(text);
		struct cpu_info ci;
		struct pmu_caps pc;
		cpuinfo_decode(cpuid_dump_read, &d, &ci, &pc);
		const struct pmu_model *m = pmu_model_for_cpu(&ci, &pc);
		if (strcmp(m->pfm_name, dumps[i].pmu))
			fail_msg("%s: model %s, want %s", dumps[i].file, m->pfm_name, dumps[i].pmu);
		/* the model's kind agrees with what CPUID says */
		assert_int_equal(m->kind, pc.kind);
	}

	/* unknown vendor or family: the PMU kind decides */
	struct cpu_info ci;
	struct pmu_caps pc;
	memset(&ci, 0, sizeof(ci));
	memset(&pc, 0, sizeof(pc));
	pc.kind = PMU_AMD_PERFMON_V2;
	assert_string_equal(pmu_model_for_cpu(&ci, &pc)->pfm_name, "amd64_fam19h_zen4");
	pc.kind = PMU_INTEL_ARCH;
	assert_string_equal(pmu_model_for_cpu(&ci, &pc)->pfm_name, "ix86arch");
	ci.vendor = VENDOR_INTEL;
	ci.family = 6;
	ci.model = 0x55;
	ci.stepping = 7;             /* Cascade Lake shares Skylake-X's model number */
	assert_string_equal(pmu_model_for_cpu(&ci, &pc)->pfm_name, "clx");
	ci.stepping = 4;
	assert_string_equal(pmu_model_for_cpu(&ci, &pc)->pfm_name, "skx");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_generic_intel_arch),
		cmocka_unit_test(test_generic_intel_caps),
		cmocka_unit_test(test_generic_p6),
		cmocka_unit_test(test_generic_amd),
		cmocka_unit_test(test_generic_netburst),
		cmocka_unit_test(test_free_running),
		cmocka_unit_test(test_raw_hex),
		cmocka_unit_test(test_raw_cpu_form),
		cmocka_unit_test(test_raw_p4_form),
		cmocka_unit_test(test_pfm_errors),
		cmocka_unit_test(test_no_hint_for_short_words),
		cmocka_unit_test(test_unknown_pmu_hint),
		cmocka_unit_test(test_case_and_prefix),
		cmocka_unit_test(test_split_list),
		cmocka_unit_test(test_model_for_cpu),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
