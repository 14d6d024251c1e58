/*
 * RAPL energy counters: event names, the Intel model list, units, the 32-bit wrap, joules
 * as text (lib/rapl.c), the boot probe against a small MSR table (arch/x86/pmu/rapl-probe.c),
 * event parsing and slots, and the @result fields (kernel/result-json.c).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "arch/x86/pmu/pmu.h"
#include "kernel/result-json.h"
#include "lib/event.h"
#include "lib/rapl.h"
#include "lib/util.h"

static const char *joules(int64_t milli, uint64_t per, unsigned esu, unsigned sig)
{
	static char buf[64];
	int n = rapl_fmt_joules(buf, sizeof(buf), milli, per, esu, sig);
	assert_int_equal(n, (int)strlen(buf));
	return buf;
}

static const char *joules_si(int64_t milli, uint64_t per, unsigned esu, unsigned sig)
{
	static char buf[64];
	rapl_fmt_joules_si(buf, sizeof(buf), milli, per, esu, sig);
	return buf;
}

static void test_event_names(void **state)
{
	(void)state;
	assert_int_equal(rapl_event_domain("energy-pkg"), RAPL_PKG);
	assert_int_equal(rapl_event_domain("ENERGY-Cores"), RAPL_CORES);
	assert_int_equal(rapl_event_domain("energy-ram"), RAPL_RAM);
	assert_int_equal(rapl_event_domain("power/energy-pkg/"), RAPL_PKG);
	assert_int_equal(rapl_event_domain("power/energy-ram/"), RAPL_RAM);
	static const char *const not_energy[] = {
		"power/energy-pkg", "energy-pkg/", "energy-gpu", "energy-pkgx", "energy-",
		"energy", "power/", "power//", "power/energy-psys/", "cpu/energy-pkg/", "pkg",
	};
	for (unsigned i = 0; i < ARRAY_SIZE(not_energy); i++)
		if (rapl_event_domain(not_energy[i]) != -1)
			fail_msg("'%s' taken for an energy event", not_energy[i]);
	assert_string_equal(rapl_domain_name(RAPL_CORES), "cores");
}

static void test_intel_models(void **state)
{
	(void)state;
	bool fixed = true;
	assert_true(rapl_intel_model(0x2a, &fixed));     /* Sandy Bridge: the first */
	assert_false(fixed);
	assert_true(rapl_intel_model(0x5e, &fixed));     /* Skylake client */
	assert_false(fixed);
	assert_true(rapl_intel_model(0x55, &fixed));     /* Skylake-SP: 15.3 uJ DRAM */
	assert_true(fixed);
	assert_true(rapl_intel_model(0x3f, &fixed) && fixed);   /* Haswell-EP */
	assert_true(rapl_intel_model(0x6a, &fixed) && fixed);   /* Ice Lake-SP */
	/* Sapphire and Emerald Rapids count DRAM in the power-unit MSR's unit (SDM Vol. 4,
	 * 4th/5th Gen Xeon Scalable table, 619H: "Energy in 61 micro-joules"). */
	assert_true(rapl_intel_model(0x8f, &fixed));
	assert_false(fixed);
	fixed = true;
	assert_true(rapl_intel_model(0xcf, &fixed));
	assert_false(fixed);
	assert_false(rapl_intel_model(0x1a, &fixed));    /* Nehalem: before RAPL */
	assert_false(fixed);
	assert_false(rapl_intel_model(0x2c, &fixed));    /* Westmere-EP */
	assert_false(rapl_intel_model(0x0f, &fixed));    /* Conroe */
}

static void test_units(void **state)
{
	(void)state;
	assert_int_equal(rapl_esu(0x000a0e03), 14);     /* Sandy Bridge's usual value */
	assert_int_equal(rapl_esu(0x000a1003), 16);     /* Zen's usual value */
	assert_int_equal(rapl_esu(0xffffffffffffe0ffull), 0);
	assert_int_equal(rapl_esu(0x1f00), 31);

	struct rapl_caps rc = { .vendor = RAPL_VENDOR_INTEL, .dram_fixed_unit = true };
	rapl_set_units(&rc, 0x000a0e03, RAPL_DOMAIN_BIT(RAPL_PKG) | RAPL_DOMAIN_BIT(RAPL_RAM));
	assert_int_equal(rc.state, RAPL_PRESENT);
	assert_int_equal(rc.esu[RAPL_PKG], 14);
	assert_int_equal(rc.esu[RAPL_RAM], RAPL_DRAM_FIXED_ESU);
	rc.dram_fixed_unit = false;
	rapl_set_units(&rc, 0x000a0e03, RAPL_DOMAIN_BIT(RAPL_RAM));
	assert_int_equal(rc.esu[RAPL_RAM], 14);
}

static void test_wrap_delta(void **state)
{
	(void)state;
	assert_int_equal(rapl_delta(0xfffffff0, 0x00000010), 0x20);
	assert_int_equal(rapl_delta(5, 5), 0);
	assert_int_equal(rapl_delta(0x10, 0xfffffff0), 0xffffffe0);
	assert_int_equal(rapl_delta(0xffffffff, 0), 1);
	/* What the engine does: end - start in 64 bits, then the 32-bit mask of the slot. */
	assert_int_equal(pmu_delta(0xfffffff0, 0x10, RAPL_ENERGY_WIDTH), 0x20);
}

static void test_joules_text(void **state)
{
	(void)state;
	/* one count at 2^-14 J = 61.03515625 uJ */
	assert_string_equal(joules(1000, 1, 14, 6), "6.10352e-05");
	assert_string_equal(joules(1000, 1, 14, 10), "6.103515625e-05");
	assert_string_equal(joules_si(1000, 1, 14, 4), "61.04 uJ");
	assert_string_equal(joules_si(1000, 1, 16, 4), "15.26 uJ");
	assert_string_equal(joules(-1000, 1, 14, 3), "-6.10e-05");
	assert_string_equal(joules(0, 1, 14, 6), "0");
	assert_string_equal(joules_si(0, 7, 14, 4), "0 J");
	/* 16384 counts over 1000 iterations at 2^-14 J: 1 mJ per iteration */
	assert_string_equal(joules_si(16384000, 1000, 14, 4), "1.000 mJ");
	assert_string_equal(joules(16384000, 1000, 14, 4), "1.000e-03");
	/* a median of 0.5 counts (milli 500) over 10^6 iterations at 2^-16 J */
	assert_string_equal(joules(500, 1000000, 16, 6), "7.62939e-12");
	assert_string_equal(joules_si(500, 1000000, 16, 4), "7.629 pJ");
	/* rounding carries into a new digit: 999.999 J -> 1.000 kJ */
	assert_string_equal(joules_si(999999, 1, 0, 4), "1.000 kJ");
	assert_string_equal(joules(999999, 1, 0, 4), "1.000e+03");
	/* more whole digits than significant ones */
	assert_string_equal(joules_si(123000, 1, 0, 2), "120 J");
	/* the extremes: the smallest nonzero value, and a whole 32-bit counter of joules */
	assert_string_equal(joules(1, 1, 31, 6), "4.65661e-13");
	assert_string_equal(joules_si(1, 1, 31, 4), "465.7 fJ");
	assert_string_equal(joules(4294967295000ll, 1, 0, 6), "4.29497e+09");
	assert_string_equal(joules_si(4294967295000ll, 1, 0, 4), "4.295e+09 J");
	/* sig is clamped to 1..18 */
	assert_string_equal(joules(1000, 1, 14, 0), "6e-05");
	/* a buffer too short is cut, and the length says what it needed */
	char small[6];
	assert_int_equal(rapl_fmt_joules(small, sizeof(small), 1000, 1, 14, 6), 11);
	assert_string_equal(small, "6.103");
}

/* ---------------------------------------------------------------- the boot probe */

struct fake_msr { uint32_t msr; uint64_t val; bool fault; };
struct fake_msrs { const struct fake_msr *m; unsigned n; unsigned reads; };

/* An MSR not in the table faults, as on hardware. */
static int fake_read(void *ctx, uint32_t msr, uint64_t *val)
{
	struct fake_msrs *f = ctx;
	f->reads++;
	for (unsigned i = 0; i < f->n; i++)
		if (f->m[i].msr == msr) {
			*val = f->m[i].val;
			return f->m[i].fault ? 13 : 0;
		}
	return 13;
}

static int fake_write(void *ctx, uint32_t msr, uint64_t val)
{
	(void)ctx; (void)msr; (void)val;
	fail_msg("the RAPL probe writes no MSR");
	return 13;
}

static struct rapl_caps probe(enum rapl_vendor v, bool fixed, const struct fake_msr *m,
			      unsigned n, unsigned *reads)
{
	struct fake_msrs f = { m, n, 0 };
	struct msr_io io = { fake_read, fake_write, &f };
	struct rapl_caps rc = { .vendor = v, .dram_fixed_unit = fixed, .state = RAPL_UNPROBED };
	rapl_probe(&io, &rc);
	if (reads)
		*reads = f.reads;
	return rc;
}

static void test_probe(void **state)
{
	(void)state;
	unsigned reads;
	/* A Xeon with all three domains and the fixed DRAM unit. */
	static const struct fake_msr server[] = {
		{ 0x606, 0x000a0e03, false }, { 0x611, 0x12345678, false },
		{ 0x639, 0, false }, { 0x619, 0x9, false },
	};
	struct rapl_caps rc = probe(RAPL_VENDOR_INTEL, true, server, ARRAY_SIZE(server), &reads);
	assert_int_equal(rc.state, RAPL_PRESENT);
	assert_int_equal(rc.domains, 7);
	assert_int_equal(rc.esu[RAPL_PKG], 14);
	assert_int_equal(rc.esu[RAPL_CORES], 14);
	assert_int_equal(rc.esu[RAPL_RAM], 16);
	assert_int_equal(reads, 4);
	assert_null(rapl_unavailable(&rc, RAPL_RAM));

	/* A client part whose DRAM status MSR faults. */
	static const struct fake_msr client[] = {
		{ 0x606, 0x000a0e03, false }, { 0x611, 1, false }, { 0x639, 1, false },
	};
	rc = probe(RAPL_VENDOR_INTEL, false, client, ARRAY_SIZE(client), NULL);
	assert_int_equal(rc.domains, RAPL_DOMAIN_BIT(RAPL_PKG) | RAPL_DOMAIN_BIT(RAPL_CORES));
	assert_non_null(strstr(rapl_unavailable(&rc, RAPL_RAM), "no such domain"));

	/* QEMU TCG: the unit MSR reads 0; or a machine where it faults. */
	static const struct fake_msr tcg[] = { { 0x606, 0, false }, { 0x611, 0, false } };
	rc = probe(RAPL_VENDOR_INTEL, false, tcg, ARRAY_SIZE(tcg), &reads);
	assert_int_equal(rc.state, RAPL_UNIT_ZERO);
	assert_int_equal(rc.domains, 0);
	assert_int_equal(reads, 1);
	assert_non_null(strstr(rapl_unavailable(&rc, RAPL_PKG), "reads 0"));
	rc = probe(RAPL_VENDOR_INTEL, false, NULL, 0, NULL);
	assert_int_equal(rc.state, RAPL_UNIT_FAULT);
	assert_non_null(strstr(rapl_unavailable(&rc, RAPL_PKG), "faulted"));

	/* AMD: its own MSRs, no DRAM domain even if 0x619 would read. */
	static const struct fake_msr zen[] = {
		{ 0xc0010299, 0x000a1003, false }, { 0xc001029a, 5, false },
		{ 0xc001029b, 6, false }, { 0x619, 7, false },
	};
	rc = probe(RAPL_VENDOR_AMD, false, zen, ARRAY_SIZE(zen), &reads);
	assert_int_equal(rc.state, RAPL_PRESENT);
	assert_int_equal(rc.domains, RAPL_DOMAIN_BIT(RAPL_PKG) | RAPL_DOMAIN_BIT(RAPL_CORES));
	assert_int_equal(rc.esu[RAPL_PKG], 16);
	assert_int_equal(reads, 3);
	assert_string_equal(rapl_unavailable(&rc, RAPL_RAM), "AMD's RAPL has no DRAM domain");

	/* No RAPL in CPUID or the model list: nothing is read. */
	rc = probe(RAPL_VENDOR_NONE, false, zen, ARRAY_SIZE(zen), &reads);
	assert_int_equal(rc.state, RAPL_ABSENT);
	assert_int_equal(reads, 0);
	assert_non_null(strstr(rapl_unavailable(&rc, RAPL_PKG), "CPUID 0x80000007 EDX bit 14 is clear"));
}

/* ---------------------------------------------------------------- events and slots */

static int parse(const struct pmu_caps *pc, const char *text, struct ev_encoding *ev,
		 char *err, size_t errlen)
{
	const struct pmu_model *m = pmu_model_by_name("skl");
	assert_non_null(m);
	return event_parse(m, pc, NULL, text, ev, err, errlen);
}

static void test_events_and_slots(void **state)
{
	(void)state;
	struct pmu_caps pc = { .kind = PMU_INTEL_ARCH };
	struct ev_encoding ev;
	struct pmu_slot s;
	char err[256];

	pc.rapl = (struct rapl_caps){ .vendor = RAPL_VENDOR_INTEL, .dram_fixed_unit = true };
	rapl_set_units(&pc.rapl, 0x000a0e03, 7);
	assert_int_equal(parse(&pc, "energy-pkg", &ev, err, sizeof(err)), 0);
	assert_int_equal(ev.cls, EV_CLASS_ENERGY);
	assert_int_equal(ev.energy.domain, RAPL_PKG);
	assert_int_equal(ev.energy.esu, 14);
	assert_false(ev.energy.amd);
	assert_true(pmu_slot_free_running(&s, &ev));
	assert_int_equal(s.type, SLOT_ENERGY);
	assert_int_equal(s.ctr_msr, 0x611);
	assert_int_equal(s.width, 32);
	assert_int_equal(s.ctl_msr, 0);
	assert_int_equal(parse(&pc, "power/energy-ram/", &ev, err, sizeof(err)), 0);
	assert_int_equal(ev.energy.esu, 16);
	assert_string_equal(ev.name, "power/energy-ram/");
	assert_true(pmu_slot_free_running(&s, &ev));
	assert_int_equal(s.ctr_msr, 0x619);
	assert_int_equal(parse(&pc, "energy-cores", &ev, err, sizeof(err)), 0);
	assert_true(pmu_slot_free_running(&s, &ev));
	assert_int_equal(s.ctr_msr, 0x639);

	pc.rapl = (struct rapl_caps){ .vendor = RAPL_VENDOR_AMD };
	rapl_set_units(&pc.rapl, 0x000a1003, RAPL_DOMAIN_BIT(RAPL_PKG) | RAPL_DOMAIN_BIT(RAPL_CORES));
	assert_int_equal(parse(&pc, "energy-cores", &ev, err, sizeof(err)), 0);
	assert_true(ev.energy.amd);
	assert_true(pmu_slot_free_running(&s, &ev));
	assert_int_equal(s.ctr_msr, 0xc001029a);
	assert_int_equal(parse(&pc, "energy-ram", &ev, err, sizeof(err)), -1);
	assert_string_equal(err, "energy-ram: AMD's RAPL has no DRAM domain");

	pc.rapl = (struct rapl_caps){ .vendor = RAPL_VENDOR_INTEL, .state = RAPL_UNIT_ZERO };
	assert_int_equal(parse(&pc, "energy-pkg", &ev, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "energy-pkg: the RAPL power-unit MSR reads 0"));
	pc.rapl = (struct rapl_caps){ .state = RAPL_ABSENT };
	assert_int_equal(parse(&pc, "energy-pkg", &ev, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "no RAPL energy counters"));
}

/* ---------------------------------------------------------------- @result */

static void test_result_json(void **state)
{
	(void)state;
	static const struct payload pl = { .name = "add_chain", .insns_per_iter = 1, .flags = PL_CPL0 };
	struct result r = { .pl = &pl, .cpl = 0, .source = SRC_MSR, .reps = 3, .iters = 1000,
			    .energy = true, .energy_esu = 14 };
	snprintf(r.event, sizeof(r.event), "energy-pkg");
	r.st.median_milli = 16384000;               /* 16384 counts = 1 J */
	r.per_iter_milli = 16384;                   /* 16.384 counts per iteration */
	char buf[1024];
	assert_true(result_json(&r, buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "\"source\":\"msr\",\"unit\":\"energy-units\""));
	assert_non_null(strstr(buf, "\"per_iter\":16.384,"));
	assert_non_null(strstr(buf, ",\"joules_per_unit\":6.10351562500e-05,"));
	assert_non_null(strstr(buf, ",\"median_joules\":1.00000e+00,"));
	assert_non_null(strstr(buf, ",\"per_iter_joules\":1.00000e-03}"));

	r.energy = false;                           /* APERF: no joules */
	assert_true(result_json(&r, buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "\"unit\":\"events\""));
	assert_null(strstr(buf, "joules"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_event_names),
		cmocka_unit_test(test_intel_models),
		cmocka_unit_test(test_units),
		cmocka_unit_test(test_wrap_delta),
		cmocka_unit_test(test_joules_text),
		cmocka_unit_test(test_probe),
		cmocka_unit_test(test_events_and_slots),
		cmocka_unit_test(test_result_json),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
