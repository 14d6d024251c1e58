/*
 * Counter overflow for every PMU generation against the MSR model: the interrupt bit is
 * set only with a PMI handler installed, counters are preset to 2^width - period, the
 * overflow is found (status register, sign bit, NetBurst CCCR OVF) and acknowledged,
 * and banked periods make counts wider than the hardware counter.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "arch/x86/msr-index.h"
#include "arch/x86/pmu/pmu.h"
#include "kernel/sample-hist.h"
#include "lib/p4-events.h"
#include "lib/p4-regs.h"
#include "tests/unit/msr_model.h"

#define USR_OS   (ARCH_PERFMON_EVENTSEL_USR | ARCH_PERFMON_EVENTSEL_OS)
#define SEL(ev)  (ARCH_PERFMON_EVENTSEL_EVENT(ev) | USR_OS | ARCH_PERFMON_EVENTSEL_ENABLE)
#define INT_BIT  ARCH_PERFMON_EVENTSEL_INT

struct rig {
	struct msr_model m;
	struct pmu_state st;
	char err[256];
};

static struct rig *rig_new(const struct pmu_caps *pc, const struct msr_model_opts *o)
{
	struct rig *r = calloc(1, sizeof(*r));
	assert_non_null(r);
	msr_model_init_opts(&r->m, pc->kind, pc, o);
	r->st.be = pmu_backend_for(pc->kind);
	assert_non_null(r->st.be);
	r->st.caps = *pc;
	r->st.io = msr_model_io(&r->m);
	if (r->st.be->probe(&r->st, r->err, sizeof(r->err)))
		fail_msg("probe: %s", r->err);
	r->m.faults = 0;        /* probe may read PERF_CAPABILITIES where there is none */
	return r;
}

static void rig_done(struct rig *r)
{
	if (r->m.faults)
		fail_msg("model fault: %s", r->m.first_fault);
	free(r);
}

static struct ev_encoding gp_event(const char *name, uint64_t evtsel, uint32_t gp_mask,
				   uint32_t fixed_mask)
{
	struct ev_encoding e = { .cls = EV_CLASS_GP, .evtsel = evtsel, .gp_mask = gp_mask,
				 .fixed_mask = fixed_mask };
	snprintf(e.name, sizeof(e.name), "%s", name);
	return e;
}

static void assign(struct rig *r, const struct ev_encoding *ev, unsigned n)
{
	if (r->st.be->assign(&r->st, ev, n, r->err, sizeof(r->err)))
		fail_msg("assign: %s", r->err);
}

static void arm(struct rig *r, unsigned slot, uint64_t period)
{
	r->st.pmi_handler_installed = true;
	if (pmu_arm_overflow(&r->st, slot, period, r->err, sizeof(r->err)))
		fail_msg("arm slot %u: %s", slot, r->err);
}

/* What the kernel's PMI handler does: find, bank and re-preset, acknowledge. */
static uint32_t handle_pmi(struct rig *r)
{
	uint32_t mask = 0;
	assert_int_equal(r->st.be->overflowed(&r->st, &mask), 0);
	assert_int_equal(pmu_overflow_bank(&r->st, mask), 0);
	if (r->st.be->ack)
		assert_int_equal(r->st.be->ack(&r->st, mask), 0);
	return mask;
}

static uint64_t wide(struct rig *r, unsigned slot)
{
	uint64_t v = 0;
	assert_int_equal(pmu_read_wide(&r->st, slot, &v), 0);
	return v;
}

static struct pmu_caps arch_caps(unsigned version, unsigned width)
{
	return (struct pmu_caps){ .kind = PMU_INTEL_ARCH, .version = version, .gp_counters = 4,
				  .gp_width = width, .fixed_counters = version >= 2 ? 3 : 0,
				  .fixed_width = version >= 2 ? width : 0,
				  .fixed_counter_mask = version >= 2 ? 7 : 0 };
}

/* ---------------------------------------------------------------- the handler rule */

/* No handler installed: no generation sets an interrupt bit, and the select written by
 * program has none. With one, the same slot is armed. */
static void test_int_needs_handler(void **state)
{
	(void)state;
	const struct pmu_caps caps[] = {
		arch_caps(4, 48),
		{ .kind = PMU_INTEL_P6, .gp_counters = 2, .gp_width = 40 },
		{ .kind = PMU_AMD_LEGACY, .gp_counters = 4, .gp_width = 48 },
		{ .kind = PMU_AMD_CORE, .gp_counters = 6, .gp_width = 48, .amd_perfctr_core = true },
		{ .kind = PMU_AMD_PERFMON_V2, .gp_counters = 6, .gp_width = 48,
		  .amd_perfctr_core = true, .amd_perfmon_v2 = true },
	};
	for (unsigned k = 0; k < sizeof(caps) / sizeof(caps[0]); k++) {
		struct msr_model_opts o = { 0 };
		struct rig *r = rig_new(&caps[k], &o);
		struct ev_encoding ev = gp_event("instructions", SEL(0xc0), 0x3, 0);
		assign(r, &ev, 1);
		assert_int_equal(pmu_arm_overflow(&r->st, 0, 1000, r->err, sizeof(r->err)), -1);
		assert_non_null(strstr(r->err, "no PMI handler is installed"));
		assert_int_equal(r->st.slot[0].ctl_value & INT_BIT, 0);
		assert_int_equal(r->st.be->program(&r->st), 0);
		assert_int_equal(msr_model_get(&r->m, r->st.slot[0].ctl_msr) & INT_BIT, 0);
		assert_int_equal(msr_model_get(&r->m, r->st.slot[0].ctr_msr), 0);

		arm(r, 0, 1000);
		assert_int_equal(r->st.be->program(&r->st), 0);
		assert_int_equal(msr_model_get(&r->m, r->st.slot[0].ctl_msr) & INT_BIT, INT_BIT);
		assert_int_equal(msr_model_get(&r->m, r->st.slot[0].ctr_msr), (1ull << caps[k].gp_width) - 1000);
		rig_done(r);
	}
}

static void test_period_limits(void **state)
{
	(void)state;
	struct pmu_caps c = arch_caps(4, 48);
	struct msr_model_opts o = { .pdcm = true };
	struct rig *r = rig_new(&c, &o);
	struct ev_encoding ev[2] = { gp_event("branches", SEL(0xc4), 0xf, 0),
				     { .cls = EV_CLASS_TSC, .name = "tsc" } };
	assign(r, ev, 2);
	r->st.pmi_handler_installed = true;
	/* IA32_PMCx writes sign-extend bit 31: 2^31 is the longest period. */
	assert_int_equal(pmu_max_period(&r->st, 0), 1ull << 31);
	assert_int_equal(pmu_arm_overflow(&r->st, 0, (1ull << 31) + 1, r->err, sizeof(r->err)), -1);
	assert_non_null(strstr(r->err, "at most 2147483648"));
	assert_int_equal(pmu_arm_overflow(&r->st, 1, 100, r->err, sizeof(r->err)), -1);
	assert_non_null(strstr(r->err, "not a counter"));
	arm(r, 0, 0);
	assert_int_equal(r->st.slot[0].period, 1ull << 31);
	assert_int_equal(r->st.be->program(&r->st), 0);
	assert_int_equal(msr_model_get(&r->m, MSR_IA32_PMC0), (1ull << 48) - (1ull << 31));
	rig_done(r);

	/* Full-width writes (IA32_A_PMCx): the whole lower half of the counter. */
	o.full_width = true;
	r = rig_new(&c, &o);
	assign(r, ev, 1);
	assert_int_equal(pmu_max_period(&r->st, 0), 1ull << 47);
	arm(r, 0, 0);
	assert_int_equal(r->st.be->program(&r->st), 0);
	assert_int_equal(msr_model_get(&r->m, MSR_IA32_PMC0), 1ull << 47);
	rig_done(r);
}

/* ---------------------------------------------------------------- per generation */

/* v2+: the status register names the overflowed counters; the acknowledgement clears
 * only the bits of the slots handled. */
static void test_arch_global_status(void **state)
{
	(void)state;
	struct pmu_caps c = arch_caps(4, 48);
	struct msr_model_opts o = { .pdcm = true };
	struct rig *r = rig_new(&c, &o);
	struct ev_encoding ev[3] = { gp_event("instructions", SEL(0xc0), 0xf, 1u << 0),
				     gp_event("branches", SEL(0xc4), 0xf, 0),
				     gp_event("llc", SEL(0x2e), 0xf, 0) };
	assign(r, ev, 3);
	assert_int_equal(r->st.slot[0].type, SLOT_FIXED);
	arm(r, 0, 500);
	arm(r, 1, 1000);
	assert_int_equal(r->st.be->program(&r->st), 0);
	assert_int_equal(FIXED_CTR_CTRL_GET(msr_model_get(&r->m, MSR_IA32_FIXED_CTR_CTRL), 0) &
			 FIXED_CTR_CTRL_PMI, FIXED_CTR_CTRL_PMI);
	assert_int_equal(msr_model_get(&r->m, r->st.slot[2].ctl_msr) & INT_BIT, 0);
	assert_int_equal(r->st.be->start(&r->st), 0);

	msr_model_advance(&r->m, 499);
	uint32_t mask = 1;
	assert_int_equal(r->st.be->overflowed(&r->st, &mask), 0);
	assert_int_equal(mask, 0);
	msr_model_advance(&r->m, 600);          /* 1099: fixed passed 500, GP passed 1000 */
	assert_int_equal(r->st.be->overflowed(&r->st, &mask), 0);
	assert_int_equal(mask, 0x3);
	/* Handle only the fixed counter: the GP counter's status bit stays. */
	assert_int_equal(pmu_overflow_bank(&r->st, 0x1), 0);
	assert_int_equal(r->st.be->ack(&r->st, 0x1), 0);
	assert_int_equal(msr_model_get(&r->m, MSR_IA32_PERF_GLOBAL_STATUS), GLOBAL_CTRL_PMC(r->st.slot[1].index));
	assert_int_equal(handle_pmi(r), 0x2);
	assert_int_equal(msr_model_get(&r->m, MSR_IA32_PERF_GLOBAL_STATUS), 0);
	msr_model_advance(&r->m, 10);
	assert_int_equal(r->st.be->stop(&r->st), 0);
	assert_int_equal(wide(r, 0), 1109);
	assert_int_equal(wide(r, 1), 1109);
	assert_int_equal(wide(r, 2), 1109);     /* not armed: the plain counter */
	assert_int_equal(r->st.slot[0].overflows, 1);
	assert_int_equal(r->st.slot[1].overflows, 1);
	rig_done(r);
}

/* Generations without a status register: the armed counter's top bit clears when it
 * passes its preset; an unarmed counter is never reported. */
static void sign_bit_generation(const struct pmu_caps *c)
{
	struct msr_model_opts o = { 0 };
	struct rig *r = rig_new(c, &o);
	struct ev_encoding ev[2] = { gp_event("instructions", SEL(0xc0), 0x3, 0),
				     gp_event("branches", SEL(0xc4), 0x3, 0) };
	assign(r, ev, 2);
	arm(r, 1, 100);
	assert_int_equal(r->st.be->program(&r->st), 0);
	assert_int_equal(r->st.be->start(&r->st), 0);
	uint32_t mask = 1;
	msr_model_advance(&r->m, 99);
	assert_int_equal(r->st.be->overflowed(&r->st, &mask), 0);
	assert_int_equal(mask, 0);
	msr_model_advance(&r->m, 1);
	assert_int_equal(handle_pmi(r), 0x2);
	assert_int_equal(msr_model_get(&r->m, r->st.slot[1].ctr_msr),
			 (1ull << c->gp_width) - 100);
	msr_model_advance(&r->m, 30);
	assert_int_equal(r->st.be->overflowed(&r->st, &mask), 0);
	assert_int_equal(mask, 0);
	assert_int_equal(wide(r, 1), 130);
	assert_int_equal(wide(r, 0), 130);
	rig_done(r);
}

static void test_sign_bit(void **state)
{
	(void)state;
	const struct pmu_caps caps[] = {
		arch_caps(1, 40),
		{ .kind = PMU_INTEL_P6, .gp_counters = 2, .gp_width = 40 },
		{ .kind = PMU_AMD_LEGACY, .gp_counters = 4, .gp_width = 48 },
		{ .kind = PMU_AMD_CORE, .gp_counters = 6, .gp_width = 48, .amd_perfctr_core = true },
	};
	for (unsigned k = 0; k < sizeof(caps) / sizeof(caps[0]); k++)
		sign_bit_generation(&caps[k]);
}

static void test_perfmon_v2_status(void **state)
{
	(void)state;
	struct pmu_caps c = { .kind = PMU_AMD_PERFMON_V2, .gp_counters = 6, .gp_width = 48,
			      .amd_perfctr_core = true, .amd_perfmon_v2 = true };
	struct msr_model_opts o = { 0 };
	struct rig *r = rig_new(&c, &o);
	struct ev_encoding ev[2] = { gp_event("instructions", SEL(0xc0), 0x3f, 0),
				     gp_event("branches", SEL(0xc2), 0x3f, 0) };
	assign(r, ev, 2);
	arm(r, 1, 64);
	assert_int_equal(r->st.be->program(&r->st), 0);
	assert_int_equal(r->st.be->start(&r->st), 0);
	msr_model_advance(&r->m, 70);
	assert_int_equal(msr_model_get(&r->m, MSR_AMD64_PERF_CNTR_GLOBAL_STATUS),
			 1ull << r->st.slot[1].index);
	assert_int_equal(handle_pmi(r), 0x2);
	assert_int_equal(msr_model_get(&r->m, MSR_AMD64_PERF_CNTR_GLOBAL_STATUS), 0);
	assert_int_equal(wide(r, 1), 70);
	rig_done(r);
}

/* NetBurst: OVF_PMI_T0 or T1 by the logical processor counting; CCCR OVF read and
 * written back clear, the CCCR's other bits kept. */
static void test_netburst_cccr(void **state)
{
	(void)state;
	struct pmu_caps c = { .kind = PMU_INTEL_NETBURST, .gp_counters = 18, .gp_width = 40,
			      .netburst_ht = true };
	for (unsigned lp = 0; lp < 2; lp++) {
		struct msr_model_opts o = { 0 };
		struct rig *r = rig_new(&c, &o);
		r->st.logical_cpu = lp;
		struct ev_encoding ev;
		memset(&ev, 0, sizeof(ev));
		assert_int_equal(netburst_event_parse("global_power_events:RUNNING:u", &c, &ev, r->err,
						      sizeof(r->err)), 0);
		assign(r, &ev, 1);
		arm(r, 0, 1000);
		assert_int_equal(r->st.be->program(&r->st), 0);
		assert_int_equal(r->st.be->start(&r->st), 0);
		const struct pmu_slot *s = &r->st.slot[0];
		uint64_t cccr = msr_model_get(&r->m, s->ctl_msr);
		assert_int_equal(cccr & (P4_CCCR_OVF_PMI_T0 | P4_CCCR_OVF_PMI_T1),
				 lp ? P4_CCCR_OVF_PMI_T1 : P4_CCCR_OVF_PMI_T0);
		assert_int_equal(msr_model_get(&r->m, s->ctr_msr), (1ull << 40) - 1000);
		uint32_t mask = 1;
		assert_int_equal(r->st.be->overflowed(&r->st, &mask), 0);
		assert_int_equal(mask, 0);
		/* The model does not count NetBurst events: overflow by hand, as the CPU does. */
		msr_model_set(&r->m, s->ctr_msr, 5);
		msr_model_set(&r->m, s->ctl_msr, cccr | P4_CCCR_OVF);
		assert_int_equal(handle_pmi(r), 0x1);
		assert_int_equal(msr_model_get(&r->m, s->ctl_msr), cccr);
		assert_int_equal(msr_model_get(&r->m, s->ctr_msr), (1ull << 40) - 1000);
		assert_int_equal(wide(r, 0), 1005);
		rig_done(r);
	}
}

/* ---------------------------------------------------------------- wider than the counter */

/* P6's 40-bit counters take 32-bit sign-extended writes: with period 2^31 the count goes
 * on past 2^40 through the banked periods, also read while a wrap is still unhandled. */
static void test_widening_p6(void **state)
{
	(void)state;
	struct pmu_caps c = { .kind = PMU_INTEL_P6, .gp_counters = 2, .gp_width = 40 };
	struct msr_model_opts o = { 0 };
	struct rig *r = rig_new(&c, &o);
	struct ev_encoding ev = gp_event("instructions", SEL(0xc0), 0x3, 0);
	assign(r, &ev, 1);
	arm(r, 0, 0);
	assert_int_equal(r->st.slot[0].period, 1ull << 31);
	assert_int_equal(r->st.be->program(&r->st), 0);
	assert_int_equal(r->st.be->start(&r->st), 0);
	uint64_t total = 0, step = (1ull << 31) + 12345;
	for (unsigned i = 0; i < 600; i++) {     /* 600 periods: more than 2^40 events */
		msr_model_advance(&r->m, step);
		total += step;
		assert_int_equal(wide(r, 0), total);    /* the wrap not handled yet */
		assert_int_equal(handle_pmi(r), 0x1);
		assert_int_equal(wide(r, 0), total);
	}
	assert_true(total > (1ull << 40));
	assert_int_equal(r->st.slot[0].overflows, 600);
	assert_int_equal(r->st.be->reset(&r->st), 0);
	assert_int_equal(wide(r, 0), 0);
	rig_done(r);
}

/* ---------------------------------------------------------------- the histogram */

static void test_sample_hist(void **state)
{
	(void)state;
	struct sample_hist h;
	sample_hist_reset(&h, 0x401000);
	static const uintptr_t ips[] = { 0x401004, 0x401010, 0x401004, 0x400fff, 0x401010,
					 0x401004, 0x411000, 0x401008 };
	for (unsigned i = 0; i < sizeof(ips) / sizeof(ips[0]); i++)
		sample_hist_add(&h, ips[i]);
	sample_hist_sort(&h);
	assert_int_equal(h.total, 8);
	assert_int_equal(h.outside, 2);         /* before the entry, and 64 KiB past it */
	assert_int_equal(h.n, 3);
	assert_int_equal(h.bin[0].offset, 4);
	assert_int_equal(h.bin[0].count, 3);
	assert_int_equal(h.bin[1].offset, 0x10);
	assert_int_equal(h.bin[2].offset, 8);

	struct sample_run run = { .bench = "add_chain", .size = 0, .cpl = 3,
				  .event = "instructions", .period = 5000, .events = 41234 };
	char buf[512];
	int n = sample_json(&run, &h, buf, sizeof(buf));
	assert_string_equal(buf, "{\"bench\":\"add_chain\",\"size\":0,\"cpl\":3,\"event\":"
			    "\"instructions\",\"period\":5000,\"events\":41234,\"samples\":8,"
			    "\"outside\":2,\"unbinned\":0,\"offsets\":[[4,3],[16,2],[8,1]]}");
	assert_int_equal(n, (int)strlen(buf));
	assert_int_equal(sample_json(&run, &h, buf, 40), -1);

	/* More distinct offsets than bins: counted, never lost. */
	sample_hist_reset(&h, 0x1000);
	for (unsigned i = 0; i < SAMPLE_HIST_BINS + 5; i++)
		sample_hist_add(&h, 0x1000 + i);
	assert_int_equal(h.n, SAMPLE_HIST_BINS);
	assert_int_equal(h.unbinned, 5);
	assert_int_equal(h.total, SAMPLE_HIST_BINS + 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_int_needs_handler),
		cmocka_unit_test(test_period_limits),
		cmocka_unit_test(test_arch_global_status),
		cmocka_unit_test(test_sign_bit),
		cmocka_unit_test(test_perfmon_v2_status),
		cmocka_unit_test(test_netburst_cccr),
		cmocka_unit_test(test_widening_p6),
		cmocka_unit_test(test_sample_hist),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
