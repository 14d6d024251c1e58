/*
 * Every PMU backend run through probe, assign, program, start, stop, read, reset and
 * disable_all against the MSR model of its generation, for several capability variants.
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
#include "lib/p4-events.h"
#include "arch/x86/pmu/pmu.h"
#include "tests/unit/msr_model.h"

#define USR_OS   (ARCH_PERFMON_EVENTSEL_USR | ARCH_PERFMON_EVENTSEL_OS)
#define EN       ARCH_PERFMON_EVENTSEL_ENABLE
/* Encodings as the event parser produces them: EN set, INT clear. */
#define SEL(ev, um) (ARCH_PERFMON_EVENTSEL_EVENT(ev) | ARCH_PERFMON_EVENTSEL_UMASK(um) | USR_OS | EN)

struct rig {
	struct msr_model m;
	struct pmu_state st;
	char err[256];
};

static struct rig *rig_new(enum pmu_kind kind, const struct pmu_caps *pc, const struct msr_model_opts *o)
{
	struct rig *r = calloc(1, sizeof(*r));
	assert_non_null(r);
	msr_model_init_opts(&r->m, kind, pc, o);
	assert_int_equal(r->m.faults, 0);
	r->st.be = pmu_backend_for(kind);
	assert_non_null(r->st.be);
	r->st.caps = *pc;
	r->st.io = msr_model_io(&r->m);
	return r;
}

static struct ev_encoding gp_event(const char *name, uint64_t evtsel, uint32_t gp_mask, uint32_t fixed_mask)
{
	struct ev_encoding e = { .cls = EV_CLASS_GP, .evtsel = evtsel, .gp_mask = gp_mask,
				 .fixed_mask = fixed_mask };
	snprintf(e.name, sizeof(e.name), "%s", name);
	return e;
}

static struct ev_encoding tsc_event(void)
{
	struct ev_encoding e = { .cls = EV_CLASS_TSC };
	snprintf(e.name, sizeof(e.name), "tsc");
	return e;
}

/* Position of the first logged write to msr at or after from, or -1. */
static int log_find(const struct msr_model *m, uint32_t msr, unsigned from)
{
	for (unsigned i = from; i < m->nlog; i++)
		if (m->log[i].msr == msr)
			return (int)i;
	return -1;
}

static unsigned log_count(const struct msr_model *m, uint32_t msr)
{
	unsigned n = 0;
	for (unsigned i = 0; i < m->nlog; i++)
		n += m->log[i].msr == msr;
	return n;
}

static void probe_ok(struct rig *r, unsigned expected_faults)
{
	assert_int_equal(r->st.be->probe(&r->st, r->err, sizeof(r->err)), 0);
	/* Without PDCM the PERF_CAPABILITIES read faults, which probe takes as "no". */
	assert_int_equal(r->m.faults, expected_faults);
	if (expected_faults)
		assert_non_null(strstr(r->m.first_fault, "0x345"));
	r->m.faults = 0;
}

static void assign_ok(struct rig *r, const struct ev_encoding *ev, unsigned n)
{
	unsigned nlog = r->m.nlog;
	int rc = r->st.be->assign(&r->st, ev, n, r->err, sizeof(r->err));
	if (rc)
		fail_msg("assign failed: %s", r->err);
	assert_int_equal(r->st.nslots, n);
	assert_int_equal(r->m.nlog, nlog);   /* assign touches no MSR */
}

/* The whole life of a measurement: every counter must count exactly while started. */
static void lifecycle(struct rig *r)
{
	const struct pmu_backend *be = r->st.be;
	assert_int_equal(be->program(&r->st), 0);
	for (unsigned k = 0; k < r->st.nslots; k++) {
		const struct pmu_slot *s = &r->st.slot[k];
		if (s->type == SLOT_GP || s->type == SLOT_FIXED) {
			assert_int_equal(msr_model_get(&r->m, s->ctr_msr), 0);
			assert_false(msr_model_counting(&r->m, s->ctr_msr));
		}
	}
	msr_model_advance(&r->m, 5);            /* before start: nothing counts */
	assert_int_equal(be->start(&r->st), 0);
	msr_model_advance(&r->m, 1000);
	assert_int_equal(be->stop(&r->st), 0);
	msr_model_advance(&r->m, 77);           /* after stop: nothing counts */
	msr_model_set(&r->m, MSR_IA32_TSC, 123456789);
	for (unsigned k = 0; k < r->st.nslots; k++) {
		const struct pmu_slot *s = &r->st.slot[k];
		uint64_t v = 0;
		assert_int_equal(be->read(&r->st, k, &v), 0);
		if (s->type == SLOT_TSC)
			assert_int_equal(v, 123456789);
		else
			assert_int_equal(v, 1000);
		assert_int_equal(v, msr_model_get(&r->m, s->ctr_msr));
	}
	assert_int_equal(be->reset(&r->st), 0);
	for (unsigned k = 0; k < r->st.nslots; k++) {
		uint64_t v = 1;
		assert_int_equal(be->read(&r->st, k, &v), 0);
		assert_int_equal(v, r->st.slot[k].type == SLOT_TSC ? 123456789 : 0);
	}
	assert_int_equal(be->disable_all(&r->st), 0);
	for (unsigned i = 0; i < r->m.ndefs; i++)
		if (r->m.defs[i].role == MSR_ROLE_GP_CTR || r->m.defs[i].role == MSR_ROLE_FIXED_CTR)
			assert_false(msr_model_counting(&r->m, r->m.defs[i].msr));
	if (r->m.faults)
		fail_msg("model fault: %s", r->m.first_fault);
}

/* ---------------------------------------------------------------- Intel architectural */

static struct pmu_caps arch_caps(unsigned version, unsigned gp, unsigned width, unsigned fixed)
{
	struct pmu_caps c = { .kind = PMU_INTEL_ARCH, .version = version, .gp_counters = gp,
			      .gp_width = width, .fixed_counters = fixed, .fixed_width = fixed ? width : 0,
			      .fixed_counter_mask = (1u << fixed) - 1 };
	return c;
}

/* instructions, cycles, ref-cycles as the parser marks them for fixed counters 0-2. */
static void arch_std_events(struct ev_encoding *ev)
{
	ev[0] = gp_event("instructions", SEL(0xc0, 0), 0xff, 1u << 0);
	ev[1] = gp_event("cycles", SEL(0x3c, 0), 0xff, 1u << 1);
	ev[2] = gp_event("ref-cycles", SEL(0x3c, 1), 0xff, 1u << 2);
	ev[3] = gp_event("LLC-misses", SEL(0x2e, 0x41), 0xff, 0);
	ev[4] = gp_event("branch-misses", SEL(0xc5, 0), 0xff, 0);
	ev[5] = tsc_event();
}

static void test_arch_v1(void **state)
{
	(void)state;
	struct pmu_caps c = arch_caps(1, 2, 40, 0);
	struct msr_model_opts o = { 0 };
	struct rig *r = rig_new(PMU_INTEL_ARCH, &c, &o);
	probe_ok(r, 1);
	assert_false(r->st.full_width_writes);
	struct ev_encoding ev[2] = { gp_event("instructions", SEL(0xc0, 0), 0x3, 1),
				     gp_event("LLC-misses", SEL(0x2e, 0x41), 0x3, 0) };
	assign_ok(r, ev, 2);
	/* v1 has no fixed counters: instructions goes to a GP counter. */
	assert_int_equal(r->st.slot[0].type, SLOT_GP);
	assert_int_equal(r->st.slot[1].type, SLOT_GP);
	assert_int_not_equal(r->st.slot[0].index, r->st.slot[1].index);
	assert_int_equal(r->st.be->program(&r->st), 0);
	/* Programming must not start counting: selects are written without EN. */
	int p = log_find(&r->m, MSR_IA32_PERFEVTSEL0 + r->st.slot[0].index, 0);
	assert_true(p >= 0);
	assert_int_equal(r->m.log[p].val, SEL(0xc0, 0) & ~EN);
	assert_int_equal(log_count(&r->m, MSR_IA32_PERF_GLOBAL_CTRL), 0);
	unsigned before_start = r->m.nlog;
	assert_int_equal(r->st.be->start(&r->st), 0);
	p = log_find(&r->m, MSR_IA32_PERFEVTSEL0 + r->st.slot[0].index, before_start);
	assert_true(p >= 0);
	assert_int_equal(r->m.log[p].val, SEL(0xc0, 0));
	assert_int_equal(r->st.be->stop(&r->st), 0);
	r->m.nlog = 0;
	r->m.faults = 0;
	lifecycle(r);
	assert_int_equal(msr_model_get(&r->m, MSR_IA32_PERFEVTSEL0), 0);
	assert_int_equal(msr_model_get(&r->m, MSR_IA32_PERFEVTSEL0 + 1), 0);
	free(r);
}

static void test_arch_v2_sequence(void **state)
{
	(void)state;
	struct pmu_caps c = arch_caps(2, 2, 40, 3);
	struct msr_model_opts o = { .pdcm = true };
	struct rig *r = rig_new(PMU_INTEL_ARCH, &c, &o);
	probe_ok(r, 0);
	assert_false(r->st.full_width_writes);   /* PERF_CAPABILITIES[13] clear */
	struct ev_encoding ev[6];
	arch_std_events(ev);
	ev[0].evtsel &= ~ARCH_PERFMON_EVENTSEL_OS;   /* instructions:u */
	assign_ok(r, ev, 6);
	for (unsigned j = 0; j < 3; j++) {
		assert_int_equal(r->st.slot[j].type, SLOT_FIXED);
		assert_int_equal(r->st.slot[j].index, j);
		assert_int_equal(r->st.slot[j].ctr_msr, MSR_IA32_FIXED_CTR0 + j);
		assert_int_equal(r->st.slot[j].rdpmc_index, j | (1u << 30));
	}
	assert_int_equal(r->st.slot[3].type, SLOT_GP);
	assert_int_equal(r->st.slot[3].ctr_msr, MSR_IA32_PMC0 + r->st.slot[3].index);
	assert_int_equal(r->st.slot[5].type, SLOT_TSC);

	msr_model_set(&r->m, MSR_IA32_PERF_GLOBAL_STATUS, 0x1);   /* a stale overflow */
	assert_int_equal(r->st.be->program(&r->st), 0);
	/* First write disables everything; fixed fields: fixed0 usr only, others os+usr. */
	assert_int_equal(r->m.log[0].msr, MSR_IA32_PERF_GLOBAL_CTRL);
	assert_int_equal(r->m.log[0].val, 0);
	assert_int_equal(msr_model_get(&r->m, MSR_IA32_FIXED_CTR_CTRL), 0x332);
	assert_int_equal(msr_model_get(&r->m, MSR_IA32_PERF_GLOBAL_STATUS), 0);
	assert_int_equal(log_count(&r->m, MSR_IA32_PERF_GLOBAL_OVF_CTRL), 1);
	assert_int_equal(r->st.be->start(&r->st), 0);
	assert_int_equal(msr_model_get(&r->m, MSR_IA32_PERF_GLOBAL_CTRL), 0x700000003ULL);
	assert_int_equal(r->st.be->stop(&r->st), 0);
	assert_int_equal(msr_model_get(&r->m, MSR_IA32_PERF_GLOBAL_CTRL), 0);
	assert_int_equal(r->m.faults, 0);
	r->m.nlog = 0;
	lifecycle(r);
	assert_int_equal(msr_model_get(&r->m, MSR_IA32_FIXED_CTR_CTRL), 0);
	free(r);
}

static void test_arch_conroe_quirk(void **state)
{
	(void)state;
	/* Conroe's leaf 0xA reports no fixed counters; detection forces 3 (fixed_count_quirk). */
	struct pmu_caps c = arch_caps(2, 2, 40, 3);
	c.fixed_count_quirk = true;
	struct msr_model_opts o = { .pdcm = true };
	struct rig *r = rig_new(PMU_INTEL_ARCH, &c, &o);
	probe_ok(r, 0);
	struct ev_encoding ev[6];
	arch_std_events(ev);
	assign_ok(r, ev, 6);
	assert_int_equal(r->st.slot[1].type, SLOT_FIXED);
	lifecycle(r);
	free(r);
}

static void test_arch_v3_full_width_anythread(void **state)
{
	(void)state;
	struct pmu_caps c = arch_caps(3, 4, 48, 3);
	struct msr_model_opts o = { .pdcm = true, .full_width = true };
	struct rig *r = rig_new(PMU_INTEL_ARCH, &c, &o);
	probe_ok(r, 0);
	assert_true(r->st.full_width_writes);
	struct ev_encoding ev[6];
	arch_std_events(ev);
	ev[1].evtsel |= ARCH_PERFMON_EVENTSEL_ANY;   /* cycles counted for both threads */
	assign_ok(r, ev, 6);
	assert_int_equal(r->st.slot[3].ctr_msr, MSR_IA32_A_PMC0 + r->st.slot[3].index);
	assert_int_equal(r->st.be->program(&r->st), 0);
	assert_int_equal(msr_model_get(&r->m, MSR_IA32_FIXED_CTR_CTRL), 0x373);
	assert_true(log_find(&r->m, MSR_IA32_A_PMC0 + r->st.slot[3].index, 0) >= 0);
	assert_int_equal(log_count(&r->m, MSR_IA32_PMC0 + r->st.slot[3].index), 0);
	r->m.nlog = 0;
	lifecycle(r);
	/* A full-width write keeps all 48 bits; a legacy PMC write sign-extends bit 31. */
	struct msr_io io = msr_model_io(&r->m);
	assert_int_equal(io.write(io.ctx, MSR_IA32_A_PMC0, 0x0000812345678000ULL), 0);
	assert_int_equal(msr_model_get(&r->m, MSR_IA32_PMC0), 0x0000812345678000ULL);
	assert_int_equal(io.write(io.ctx, MSR_IA32_PMC0, 0x80000000ULL), 0);
	assert_int_equal(msr_model_get(&r->m, MSR_IA32_PMC0), 0x0000ffff80000000ULL);
	assert_int_equal(r->m.faults, 0);
	free(r);
}

static void test_arch_v4_wrap(void **state)
{
	(void)state;
	struct pmu_caps c = arch_caps(4, 4, 48, 3);
	struct msr_model_opts o = { .pdcm = true, .full_width = true };
	struct rig *r = rig_new(PMU_INTEL_ARCH, &c, &o);
	probe_ok(r, 0);
	struct ev_encoding ev[6];
	arch_std_events(ev);
	assign_ok(r, ev, 6);
	lifecycle(r);
	/* 48-bit wrap: a counter near the top reads small after overflow. */
	assert_int_equal(r->st.be->program(&r->st), 0);
	const struct pmu_slot *s = &r->st.slot[3];
	uint64_t before = 0xfffffffffff0ULL, after = 0;
	msr_model_set(&r->m, s->ctr_msr, before);
	assert_int_equal(r->st.be->start(&r->st), 0);
	msr_model_advance(&r->m, 0x30);
	assert_int_equal(r->st.be->stop(&r->st), 0);
	assert_int_equal(r->st.be->read(&r->st, 3, &after), 0);
	assert_int_equal(after, 0x20);
	assert_int_equal(pmu_delta(before, after, s->width), 0x30);
	assert_int_equal(r->m.faults, 0);
	free(r);
}

static void test_arch_v5_sparse_fixed(void **state)
{
	(void)state;
	/* Fixed counters 0, 2 and 3 exist, 1 does not; AnyThread deprecated. */
	struct pmu_caps c = arch_caps(5, 8, 48, 4);
	c.fixed_counter_mask = 0xd;
	c.any_thread_deprecated = true;
	struct msr_model_opts o = { .pdcm = true, .full_width = true };
	struct rig *r = rig_new(PMU_INTEL_ARCH, &c, &o);
	probe_ok(r, 0);
	struct ev_encoding ev[7];
	arch_std_events(ev);
	ev[6] = gp_event("slots", SEL(0x00, 0x04), 0, 1u << 3);
	assign_ok(r, ev, 7);
	assert_int_equal(r->st.slot[0].type, SLOT_FIXED);
	assert_int_equal(r->st.slot[1].type, SLOT_GP);       /* no fixed counter 1 */
	assert_int_equal(r->st.slot[2].type, SLOT_FIXED);
	assert_int_equal(r->st.slot[2].rdpmc_index, 2u | (1u << 30));
	assert_int_equal(r->st.slot[6].type, SLOT_FIXED);
	assert_int_equal(r->st.slot[6].index, 3);
	assert_int_equal(r->st.be->program(&r->st), 0);
	assert_int_equal(msr_model_get(&r->m, MSR_IA32_FIXED_CTR_CTRL), 0x3303);
	assert_int_equal(r->st.be->start(&r->st), 0);
	uint64_t gp = 0;
	for (unsigned k = 0; k < 7; k++)
		if (r->st.slot[k].type == SLOT_GP)
			gp |= 1ULL << r->st.slot[k].index;
	assert_int_equal(msr_model_get(&r->m, MSR_IA32_PERF_GLOBAL_CTRL), gp | (0xdULL << 32));
	assert_int_equal(r->st.be->stop(&r->st), 0);
	r->m.nlog = 0;
	lifecycle(r);

	/* AnyThread is refused by name when deprecated. */
	ev[1].evtsel |= ARCH_PERFMON_EVENTSEL_ANY;
	assert_int_equal(r->st.be->assign(&r->st, ev, 7, r->err, sizeof(r->err)), -1);
	assert_non_null(strstr(r->err, "'cycles'"));
	assert_non_null(strstr(r->err, "AnyThread"));
	free(r);
}

static void test_arch_matching(void **state)
{
	(void)state;
	struct pmu_caps c = arch_caps(4, 4, 48, 3);
	struct msr_model_opts o = { .pdcm = true };
	struct rig *r = rig_new(PMU_INTEL_ARCH, &c, &o);
	probe_ok(r, 0);
	/* A greedy first fit puts 'a' on counter 0 and then cannot place 'b' (counter 0 only);
	 * a complete matching places both. Same for 'c'/'d' on {2,3}/{2}. */
	struct ev_encoding ev[4] = {
		gp_event("a", SEL(0x10, 1), 0x3, 0), gp_event("b", SEL(0x11, 1), 0x1, 0),
		gp_event("c", SEL(0x12, 1), 0xc, 0), gp_event("d", SEL(0x13, 1), 0x4, 0),
	};
	assign_ok(r, ev, 4);
	assert_int_equal(r->st.slot[0].index, 1);
	assert_int_equal(r->st.slot[1].index, 0);
	assert_int_equal(r->st.slot[2].index, 3);
	assert_int_equal(r->st.slot[3].index, 2);
	/* Two events that both want fixed counter 1: the second takes a GP counter. */
	struct ev_encoding two[2] = { gp_event("cycles", SEL(0x3c, 0), 0xf, 2),
				      gp_event("cycles:u", SEL(0x3c, 0) & ~ARCH_PERFMON_EVENTSEL_OS, 0xf, 2) };
	assign_ok(r, two, 2);
	assert_int_equal(r->st.slot[0].type, SLOT_FIXED);
	assert_int_equal(r->st.slot[1].type, SLOT_GP);
	/* An edge-triggered event cannot use a fixed counter. */
	struct ev_encoding edge = gp_event("cycles:e", SEL(0x3c, 0) | ARCH_PERFMON_EVENTSEL_EDGE, 0xf, 2);
	assign_ok(r, &edge, 1);
	assert_int_equal(r->st.slot[0].type, SLOT_GP);
	free(r);
}

static void test_arch_too_many(void **state)
{
	(void)state;
	struct pmu_caps c = arch_caps(4, 4, 48, 3);
	struct msr_model_opts o = { .pdcm = true };
	struct rig *r = rig_new(PMU_INTEL_ARCH, &c, &o);
	probe_ok(r, 0);
	struct ev_encoding ev[5];
	for (unsigned k = 0; k < 5; k++) {
		char name[16];
		snprintf(name, sizeof(name), "ev%u", k);
		ev[k] = gp_event(name, SEL(0x20 + k, 1), 0xf, 0);
	}
	assert_int_equal(r->st.be->assign(&r->st, ev, 5, r->err, sizeof(r->err)), -1);
	assert_non_null(strstr(r->err, "'ev4'"));
	assert_non_null(strstr(r->err, "does not fit"));
	assert_int_equal(r->st.nslots, 0);
	/* An event that allows no counter that exists is named as such. */
	struct ev_encoding hi = gp_event("on-pmc6", SEL(0x20, 1), 0x40, 0);
	assert_int_equal(r->st.be->assign(&r->st, &hi, 1, r->err, sizeof(r->err)), -1);
	assert_non_null(strstr(r->err, "'on-pmc6'"));
	/* INT would need a PMI handler; bits 63:32 are reserved. */
	struct ev_encoding pmi = gp_event("pmi", SEL(0xc0, 0) | ARCH_PERFMON_EVENTSEL_INT, 0xf, 0);
	assert_int_equal(r->st.be->assign(&r->st, &pmi, 1, r->err, sizeof(r->err)), -1);
	assert_non_null(strstr(r->err, "INT"));
	struct ev_encoding hi_bits = gp_event("intx", SEL(0xc0, 0) | (1ULL << 32), 0xf, 0);
	assert_int_equal(r->st.be->assign(&r->st, &hi_bits, 1, r->err, sizeof(r->err)), -1);
	assert_non_null(strstr(r->err, "63:32"));
	/* AnyThread before v3. */
	struct pmu_caps c2 = arch_caps(2, 2, 40, 3);
	struct rig *r2 = rig_new(PMU_INTEL_ARCH, &c2, &o);
	probe_ok(r2, 0);
	struct ev_encoding any = gp_event("cycles:t", SEL(0x3c, 0) | ARCH_PERFMON_EVENTSEL_ANY, 0x3, 2);
	assert_int_equal(r2->st.be->assign(&r2->st, &any, 1, r2->err, sizeof(r2->err)), -1);
	assert_non_null(strstr(r2->err, "v2"));
	assert_int_equal(r->m.nlog + r2->m.nlog, 0);
	free(r2);
	free(r);
}

/* Events with a second register, as the parser encodes them for Skylake. */
static struct ev_encoding skl_event(const char *text)
{
	const struct pmu_model *m = pmu_model_by_name("skl");
	struct pmu_caps pc;
	struct ev_encoding e;
	char err[256];
	pmu_model_default_caps(m, &pc);
	if (event_parse(m, &pc, pmu_generic_map_for_model(m), text, &e, err, sizeof(err)))
		fail_msg("%s: %s", text, err);
	return e;
}

static void test_arch_extra_regs(void **state)
{
	(void)state;
	struct pmu_caps c = arch_caps(4, 4, 48, 3);
	struct msr_model_opts o = { .pdcm = true, .offcore_rsp = 2, .pebs_frontend = true };
	struct rig *r = rig_new(PMU_INTEL_ARCH, &c, &o);
	probe_ok(r, 0);
	struct ev_encoding ev[4] = {
		skl_event("skl::OFFCORE_RESPONSE_0:DMND_DATA_RD:L3_MISS_LOCAL"),
		skl_event("skl::OFFCORE_RESPONSE_1:DMND_RFO"),
		skl_event("skl::FRONTEND_RETIRED:IDQ_4_BUBBLES:fe_thres=9"),
		skl_event("instructions"),
	};
	/* libpfm4's codes[1] for these strings (test_encode_pfm compares them all) */
	static const struct { uint32_t msr; uint64_t val; } want[3] = {
		{ MSR_OFFCORE_RSP_0, 0x3f84000001ULL }, { MSR_OFFCORE_RSP_1, 0x10002 },
		{ MSR_PEBS_FRONTEND, 0x400906 },
	};
	assign_ok(r, ev, 4);
	for (unsigned k = 0; k < 3; k++) {
		const struct pmu_slot *s = &r->st.slot[k];
		assert_int_equal(s->type, SLOT_GP);
		assert_int_equal(s->extra_msr, want[k].msr);
		assert_int_equal(s->extra_value, want[k].val);
	}
	assert_int_equal(r->st.slot[3].extra_msr, 0);
	/* each second register is written before its event's select, and before any start */
	assert_int_equal(r->st.be->program(&r->st), 0);
	for (unsigned k = 0; k < 3; k++) {
		int x = log_find(&r->m, want[k].msr, 0);
		int sel = log_find(&r->m, r->st.slot[k].ctl_msr, 0);
		assert_true(x >= 0 && sel > x);
		assert_int_equal(msr_model_get(&r->m, want[k].msr), want[k].val);
	}
	r->m.nlog = 0;
	lifecycle(r);
	/* disable_all clears them, after the selects (the last write of each) */
	for (unsigned k = 0; k < 3; k++) {
		int x = -1, sel = -1;
		for (unsigned i = 0; i < r->m.nlog; i++) {
			x = r->m.log[i].msr == want[k].msr ? (int)i : x;
			sel = r->m.log[i].msr == r->st.slot[k].ctl_msr ? (int)i : sel;
		}
		assert_true(sel >= 0 && x > sel);
		assert_int_equal(r->m.log[x].val, 0);
		assert_int_equal(msr_model_get(&r->m, want[k].msr), 0);
	}

	/* One MSR, two values: cannot be counted together; the same value shares it. */
	struct ev_encoding two[2] = { skl_event("skl::OFFCORE_RESPONSE_0:DMND_DATA_RD"),
				      skl_event("skl::OFFCORE_RESPONSE_0:DMND_RFO") };
	assert_int_equal(r->st.be->assign(&r->st, two, 2, r->err, sizeof(r->err)), -1);
	assert_non_null(strstr(r->err, "'skl::OFFCORE_RESPONSE_0:DMND_DATA_RD' and "
				       "'skl::OFFCORE_RESPONSE_0:DMND_RFO' both need OFFCORE_RSP_0"));
	assert_non_null(strstr(r->err, "0x10001, 0x10002"));
	two[1] = skl_event("skl::OFFCORE_RESPONSE_0:DMND_DATA_RD:ANY_RESPONSE");
	assign_ok(r, two, 2);
	/* _0 and _1 have a register each */
	two[1] = skl_event("skl::OFFCORE_RESPONSE_1:DMND_RFO");
	assign_ok(r, two, 2);
	free(r);

	/* A CPU without the registers (Core 2): events without one never touch them, and a
	 * generation without second registers refuses an event that needs one. */
	struct msr_model_opts none = { .pdcm = true };
	r = rig_new(PMU_INTEL_ARCH, &c, &none);
	probe_ok(r, 0);
	struct ev_encoding std[6];
	arch_std_events(std);
	assign_ok(r, std, 6);
	lifecycle(r);
	assert_int_equal(r->m.faults, 0);
	free(r);
	struct pmu_caps amd = { .kind = PMU_AMD_CORE, .gp_counters = 6, .gp_width = 48,
				.amd_perfctr_core = true };
	r = rig_new(PMU_AMD_CORE, &amd, &none);
	struct ev_encoding rsp = gp_event("rsp", SEL(0xb7, 1), 0x3f, 0);
	rsp.extra = EV_EXTRA_OFFCORE_RSP_0;
	rsp.extra_value = 0x10001;
	assert_int_equal(r->st.be->assign(&r->st, &rsp, 1, r->err, sizeof(r->err)), -1);
	assert_non_null(strstr(r->err, "needs a second register"));
	free(r);
}

/* ---------------------------------------------------------------- P6 */

static struct pmu_caps p6_caps(void)
{
	return (struct pmu_caps){ .kind = PMU_INTEL_P6, .gp_counters = 2, .gp_width = 40 };
}

static void test_p6_both(void **state)
{
	(void)state;
	struct pmu_caps c = p6_caps();
	struct msr_model_opts o = { 0 };
	struct rig *r = rig_new(PMU_INTEL_P6, &c, &o);
	probe_ok(r, 0);
	struct ev_encoding ev[3] = { gp_event("INST_RETIRED", SEL(0xc0, 0), 0x3, 0),
				     gp_event("FLOPS", SEL(0xc1, 0), 0x1, 0), tsc_event() };
	assign_ok(r, ev, 3);
	assert_int_equal(r->st.slot[1].index, 0);   /* FLOPS only on counter 0 */
	assert_int_equal(r->st.slot[0].index, 1);
	assert_int_equal(r->st.slot[0].rdpmc_index, 1);
	assert_int_equal(r->st.be->program(&r->st), 0);
	/* PERFEVTSEL0 first (EN off stops both), PERFEVTSEL1 never carries EN. */
	assert_int_equal(r->m.log[0].msr, MSR_IA32_PERFEVTSEL0);
	assert_int_equal(r->m.log[0].val, SEL(0xc1, 0) & ~EN);
	assert_int_equal(r->m.log[1].msr, MSR_IA32_PERFEVTSEL0 + 1);
	assert_int_equal(r->m.log[1].val, SEL(0xc0, 0) & ~EN);
	unsigned mark = r->m.nlog;
	assert_int_equal(r->st.be->start(&r->st), 0);
	assert_int_equal(r->m.nlog, mark + 1);
	assert_int_equal(r->m.log[mark].msr, MSR_IA32_PERFEVTSEL0);
	assert_int_equal(r->m.log[mark].val, SEL(0xc1, 0));
	assert_int_equal(r->st.be->stop(&r->st), 0);
	for (unsigned i = 0; i < r->m.nlog; i++)
		if (r->m.log[i].msr == MSR_IA32_PERFEVTSEL0 + 1)
			assert_int_equal(r->m.log[i].val & EN, 0);
	r->m.nlog = 0;
	lifecycle(r);
	free(r);
}

static void test_p6_counter1_only_and_wrap(void **state)
{
	(void)state;
	struct pmu_caps c = p6_caps();
	struct msr_model_opts o = { 0 };
	struct rig *r = rig_new(PMU_INTEL_P6, &c, &o);
	probe_ok(r, 0);
	struct ev_encoding ev = gp_event("MUL", SEL(0x12, 0), 0x2, 0);   /* counter 1 only */
	assign_ok(r, &ev, 1);
	assert_int_equal(r->st.slot[0].index, 1);
	assert_int_equal(r->st.be->program(&r->st), 0);
	/* Counter 0 is unused but its select carries EN: it holds an event counting nothing. */
	assert_int_equal(msr_model_get(&r->m, MSR_IA32_PERFEVTSEL0), P6_NOP_EVENT);
	assert_int_equal(r->st.be->start(&r->st), 0);
	assert_int_equal(msr_model_get(&r->m, MSR_IA32_PERFEVTSEL0), P6_NOP_EVENT | EN);
	assert_true(msr_model_counting(&r->m, MSR_IA32_PMC0 + 1));
	assert_false(msr_model_counting(&r->m, MSR_IA32_PMC0));
	/* 40-bit wrap. */
	uint64_t before = 0xfffffffff0ULL, after = 0;
	msr_model_set(&r->m, MSR_IA32_PMC0 + 1, before);
	msr_model_advance(&r->m, 0x25);
	assert_int_equal(r->st.be->stop(&r->st), 0);
	assert_int_equal(r->st.be->read(&r->st, 0, &after), 0);
	assert_int_equal(after, 0x15);
	assert_int_equal(pmu_delta(before, after, r->st.slot[0].width), 0x25);
	assert_int_equal(msr_model_get(&r->m, MSR_IA32_PMC0), 0);
	r->m.nlog = 0;
	lifecycle(r);
	/* A P6 counter write takes 32 bits sign-extended into 39:32. */
	struct msr_io io = msr_model_io(&r->m);
	assert_int_equal(io.write(io.ctx, MSR_IA32_PMC0, 0x80000001ULL), 0);
	assert_int_equal(msr_model_get(&r->m, MSR_IA32_PMC0), 0xff80000001ULL);
	free(r);
}

static void test_p6_too_many(void **state)
{
	(void)state;
	struct pmu_caps c = p6_caps();
	struct msr_model_opts o = { 0 };
	struct rig *r = rig_new(PMU_INTEL_P6, &c, &o);
	probe_ok(r, 0);
	struct ev_encoding ev[3] = { gp_event("A", SEL(0xc0, 0), 0x3, 0), gp_event("B", SEL(0xc1, 0), 0x1, 0),
				     gp_event("C", SEL(0x12, 0), 0x2, 0) };
	assert_int_equal(r->st.be->assign(&r->st, ev, 3, r->err, sizeof(r->err)), -1);
	assert_non_null(strstr(r->err, "'C'"));
	free(r);
}

/* ---------------------------------------------------------------- AMD */

static uint64_t amd_sel(unsigned event, unsigned umask)
{
	return AMD64_EVENTSEL_EVENT(event) | ((uint64_t)umask << 8) | USR_OS | EN;
}

static void amd_events(struct ev_encoding *ev, uint32_t all)
{
	ev[0] = gp_event("cycles", amd_sel(0x76, 0), all, 0);
	ev[1] = gp_event("instructions", amd_sel(0xc0, 0), all, 0);
	ev[2] = gp_event("branch-misses", amd_sel(0xc3, 0), all, 0);
	ev[3] = tsc_event();
}

static void test_amd_k7_k8_legacy(void **state)
{
	(void)state;
	struct pmu_caps c = { .kind = PMU_AMD_LEGACY, .gp_counters = 4, .gp_width = 48 };
	struct msr_model_opts o = { 0 };
	struct rig *r = rig_new(PMU_AMD_LEGACY, &c, &o);
	probe_ok(r, 0);
	struct ev_encoding ev[5];
	amd_events(ev, 0xf);
	ev[4] = gp_event("dc-misses", amd_sel(0x41, 0), 0xf, 0);
	assign_ok(r, ev, 5);
	for (unsigned k = 0; k < 5; k++) {
		if (k == 3)
			continue;
		const struct pmu_slot *s = &r->st.slot[k];
		assert_int_equal(s->ctl_msr, MSR_K7_EVNTSEL0 + s->index);
		assert_int_equal(s->ctr_msr, MSR_K7_PERFCTR0 + s->index);
		assert_int_equal(s->rdpmc_index, s->index);
	}
	assert_int_equal(r->st.be->program(&r->st), 0);
	/* Without global control EN is the switch: programmed off, turned on at start. */
	int p = log_find(&r->m, r->st.slot[0].ctl_msr, 0);
	assert_true(p >= 0);
	assert_int_equal(r->m.log[p].val, amd_sel(0x76, 0) & ~EN);
	assert_int_equal(r->st.be->start(&r->st), 0);
	assert_int_equal(msr_model_get(&r->m, r->st.slot[0].ctl_msr), amd_sel(0x76, 0));
	assert_int_equal(r->st.be->stop(&r->st), 0);
	r->m.nlog = 0;
	lifecycle(r);
	/* A fifth counter event does not fit, and is named. */
	struct ev_encoding six[6];
	amd_events(six, 0xf);
	six[3] = gp_event("e3", amd_sel(0x40, 0), 0xf, 0);
	six[4] = gp_event("e4", amd_sel(0x42, 0), 0xf, 0);
	six[5] = gp_event("e5", amd_sel(0x43, 0), 0xf, 0);
	assert_int_equal(r->st.be->assign(&r->st, six, 6, r->err, sizeof(r->err)), -1);
	assert_non_null(strstr(r->err, "'e4'"));
	/* On K7/K8 EventSelect[11:8] does not exist: the model faults on bit 32. */
	struct ev_encoding hi = gp_event("ls-dispatch", amd_sel(0x129, 0), 0xf, 0);
	assign_ok(r, &hi, 1);
	assert_int_equal(r->st.be->program(&r->st), -1);
	assert_int_equal(r->m.faults, 1);
	assert_non_null(strstr(r->m.first_fault, "reserved"));
	free(r);
}

static void test_amd_fam10h_legacy(void **state)
{
	(void)state;
	struct pmu_caps c = { .kind = PMU_AMD_LEGACY, .gp_counters = 4, .gp_width = 48 };
	struct msr_model_opts o = { .amd_fam10h = true };
	struct rig *r = rig_new(PMU_AMD_LEGACY, &c, &o);
	probe_ok(r, 0);
	struct ev_encoding ev = gp_event("ls-dispatch", amd_sel(0x129, 0) | AMD64_EVENTSEL_HOSTONLY, 0xf, 0);
	assign_ok(r, &ev, 1);
	lifecycle(r);
	assert_int_equal(log_find(&r->m, r->st.slot[0].ctl_msr, 0) >= 0, 1);
	assert_int_equal(r->m.log[log_find(&r->m, r->st.slot[0].ctl_msr, 0)].val & AMD64_EVENTSEL_EVENT_HI_MASK,
			 1ULL << 32);
	free(r);
}

static void test_amd_fam15h_core(void **state)
{
	(void)state;
	struct pmu_caps c = { .kind = PMU_AMD_CORE, .gp_counters = 6, .gp_width = 48,
			      .amd_perfctr_core = true };
	struct msr_model_opts o = { 0 };
	struct rig *r = rig_new(PMU_AMD_CORE, &c, &o);
	probe_ok(r, 0);
	/* Family 15h constraints: three events tied to counters 0-2, one to 3-5, one anywhere. */
	struct ev_encoding ev[6] = {
		gp_event("c0", amd_sel(0x00, 1), 0x07, 0), gp_event("c1", amd_sel(0x01, 1), 0x07, 0),
		gp_event("c2", amd_sel(0x02, 1), 0x07, 0), gp_event("any", amd_sel(0xc0, 0), 0x3f, 0),
		gp_event("hi", amd_sel(0x1d8, 0), 0x38, 0), tsc_event(),
	};
	assign_ok(r, ev, 6);
	for (unsigned k = 0; k < 5; k++) {
		const struct pmu_slot *s = &r->st.slot[k];
		assert_true(ev[k].gp_mask & (1u << s->index));
		assert_int_equal(s->ctl_msr, 0xc0010200 + 2 * s->index);
		assert_int_equal(s->ctr_msr, 0xc0010201 + 2 * s->index);
	}
	lifecycle(r);
	assert_int_equal(log_count(&r->m, MSR_K7_EVNTSEL0), 0);
	/* A fourth event restricted to counters 0-2 does not fit. */
	ev[3].gp_mask = 0x07;
	assert_int_equal(r->st.be->assign(&r->st, ev, 5, r->err, sizeof(r->err)), -1);
	assert_non_null(strstr(r->err, "'any'"));
	/* 48-bit wrap through pmu_delta. */
	assign_ok(r, ev, 1);
	assert_int_equal(r->st.be->program(&r->st), 0);
	msr_model_set(&r->m, r->st.slot[0].ctr_msr, 0xffffffffff00ULL);
	assert_int_equal(r->st.be->start(&r->st), 0);
	msr_model_advance(&r->m, 0x180);
	assert_int_equal(r->st.be->stop(&r->st), 0);
	uint64_t after = 0;
	assert_int_equal(r->st.be->read(&r->st, 0, &after), 0);
	assert_int_equal(after, 0x80);
	assert_int_equal(pmu_delta(0xffffffffff00ULL, after, 48), 0x180);
	assert_int_equal(r->m.faults, 0);
	free(r);
}

static void test_amd_zen4_perfmon_v2(void **state)
{
	(void)state;
	struct pmu_caps c = { .kind = PMU_AMD_PERFMON_V2, .version = 2, .gp_counters = 6, .gp_width = 48,
			      .amd_perfctr_core = true, .amd_perfmon_v2 = true };
	struct msr_model_opts o = { 0 };
	struct rig *r = rig_new(PMU_AMD_PERFMON_V2, &c, &o);
	probe_ok(r, 0);
	/* Power-up: PerfCntrGlobalCtl enables all counters. */
	assert_int_equal(msr_model_get(&r->m, MSR_AMD64_PERF_CNTR_GLOBAL_CTL), 0x3f);
	struct ev_encoding ev[4];
	amd_events(ev, 0x3f);
	assign_ok(r, ev, 4);
	msr_model_set(&r->m, MSR_AMD64_PERF_CNTR_GLOBAL_STATUS, 0x4);
	assert_int_equal(r->st.be->program(&r->st), 0);
	assert_int_equal(r->m.log[0].msr, MSR_AMD64_PERF_CNTR_GLOBAL_CTL);
	assert_int_equal(r->m.log[0].val, 0);
	/* EN is in every PERF_CTL; the global register gates. */
	for (unsigned k = 0; k < 3; k++)
		assert_int_equal(msr_model_get(&r->m, r->st.slot[k].ctl_msr), ev[k].evtsel);
	assert_int_equal(msr_model_get(&r->m, MSR_AMD64_PERF_CNTR_GLOBAL_STATUS), 0);
	assert_int_equal(r->st.be->start(&r->st), 0);
	uint64_t mask = 0;
	for (unsigned k = 0; k < 3; k++)
		mask |= 1ULL << r->st.slot[k].index;
	assert_int_equal(msr_model_get(&r->m, MSR_AMD64_PERF_CNTR_GLOBAL_CTL), mask);
	assert_int_equal(r->st.be->stop(&r->st), 0);
	assert_int_equal(msr_model_get(&r->m, MSR_AMD64_PERF_CNTR_GLOBAL_CTL), 0);
	r->m.nlog = 0;
	lifecycle(r);
	for (unsigned i = 0; i < 6; i++)
		assert_int_equal(msr_model_get(&r->m, MSR_F15H_PERF_CTL(i)), 0);
	free(r);
}

static void test_amd_probe_errors(void **state)
{
	(void)state;
	struct pmu_caps c = { .kind = PMU_AMD_PERFMON_V2, .gp_counters = 6, .gp_width = 48,
			      .amd_perfctr_core = true };
	struct msr_model_opts o = { 0 };
	struct rig *r = rig_new(PMU_AMD_PERFMON_V2, &c, &o);
	assert_int_equal(r->st.be->probe(&r->st, r->err, sizeof(r->err)), -1);
	assert_non_null(strstr(r->err, "PerfMonV2"));
	free(r);
}

/* ---------------------------------------------------------------- NetBurst */

static void test_netburst(void **state)
{
	(void)state;
	struct pmu_caps c = { .kind = PMU_INTEL_NETBURST, .gp_counters = 18, .gp_width = 40,
			      .netburst_ht = true };
	struct msr_model_opts o = { 0 };
	struct rig *r = rig_new(PMU_INTEL_NETBURST, &c, &o);
	assert_true(r->m.ndefs > 18 * 2);
	probe_ok(r, 0);
	struct ev_encoding ev[2];
	memset(ev, 0, sizeof(ev));
	assert_int_equal(netburst_event_parse("global_power_events:RUNNING:u", &c, &ev[0], r->err,
					      sizeof(r->err)), 0);
	snprintf(ev[0].name, sizeof(ev[0].name), "global_power_events:RUNNING:u");
	ev[1] = tsc_event();
	assign_ok(r, ev, 2);
	assert_int_equal(r->st.slot[0].type, SLOT_GP);
	assert_int_equal(r->st.be->program(&r->st), 0);
	assert_int_equal(r->st.be->start(&r->st), 0);
	/* The model does not know NetBurst gating; advance the counter by hand. */
	msr_model_set(&r->m, r->st.slot[0].ctr_msr, 4242);
	assert_int_equal(r->st.be->stop(&r->st), 0);
	uint64_t v = 0;
	assert_int_equal(r->st.be->read(&r->st, 0, &v), 0);
	assert_int_equal(v, 4242);
	assert_int_equal(r->st.be->reset(&r->st), 0);
	assert_int_equal(msr_model_get(&r->m, r->st.slot[0].ctr_msr), 0);
	assert_int_equal(r->st.be->disable_all(&r->st), 0);
	if (r->m.faults)
		fail_msg("model fault: %s", r->m.first_fault);
	free(r);
}

/* ---------------------------------------------------------------- the rest */

/* No PMI handler: an event asking for an interrupt on overflow (INT, bit 20 in the Intel
 * and AMD layouts alike) is refused by every event-select backend, before any MSR write. */
static void test_int_bit_refused(void **state)
{
	(void)state;
	struct pmu_caps caps[3] = { arch_caps(4, 8, 48, 3), p6_caps(),
				    { .kind = PMU_AMD_LEGACY, .gp_counters = 4, .gp_width = 48 } };
	for (unsigned i = 0; i < 3; i++) {
		struct msr_model_opts o = { 0 };
		struct rig *r = rig_new(caps[i].kind, &caps[i], &o);
		r->st.be->probe(&r->st, r->err, sizeof(r->err));
		unsigned nlog = r->m.nlog;
		struct ev_encoding ev = gp_event("irq", SEL(0xc0, 0) | (1ull << 20), 0x3, 0);
		assert_int_equal(r->st.be->assign(&r->st, &ev, 1, r->err, sizeof(r->err)), -1);
		assert_non_null(strstr(r->err, "'irq': INT (bit 20) is set"));
		assert_int_equal(r->m.nlog, nlog);
		ev.evtsel &= ~(1ull << 20);
		assert_int_equal(r->st.be->assign(&r->st, &ev, 1, r->err, sizeof(r->err)), 0);
		free(r);
	}
}

static void test_backend_for(void **state)
{
	(void)state;
	assert_null(pmu_backend_for(PMU_NONE));
	assert_null(pmu_backend_for(PMU_KIND_COUNT));
	for (enum pmu_kind k = PMU_INTEL_NETBURST; k < PMU_KIND_COUNT; k++) {
		const struct pmu_backend *be = pmu_backend_for(k);
		assert_non_null(be);
		assert_int_equal(be->kind, k);
		/* Every descriptor names its registers and has a generic-event map. */
		assert_non_null(be->generic);
		assert_true(be->msr_names || be->describe);
	}
}

static void test_wrong_kind_probe(void **state)
{
	(void)state;
	struct pmu_caps c = p6_caps();
	struct msr_model_opts o = { 0 };
	struct rig *r = rig_new(PMU_INTEL_P6, &c, &o);
	r->st.be = pmu_backend_for(PMU_INTEL_ARCH);
	assert_int_equal(r->st.be->probe(&r->st, r->err, sizeof(r->err)), -1);
	assert_non_null(strstr(r->err, "intel-arch"));
	struct ev_encoding nb = { .cls = EV_CLASS_NETBURST };
	snprintf(nb.name, sizeof(nb.name), "p4ev");
	r->st.be = pmu_backend_for(PMU_INTEL_P6);
	assert_int_equal(r->st.be->assign(&r->st, &nb, 1, r->err, sizeof(r->err)), -1);
	assert_non_null(strstr(r->err, "'p4ev'"));
	free(r);
}

/* Negative controls: the model catches what hardware would #GP on. */
static void test_model_catches_bugs(void **state)
{
	(void)state;
	struct pmu_caps c = p6_caps();
	struct msr_model_opts o = { 0 };
	struct rig *r = rig_new(PMU_INTEL_P6, &c, &o);
	struct msr_io io = msr_model_io(&r->m);
	/* EN in PERFEVTSEL1 is reserved on P6. */
	assert_int_equal(io.write(io.ctx, MSR_IA32_PERFEVTSEL0 + 1, SEL(0xc0, 0)), 13);
	assert_int_equal(r->m.faults, 1);
	assert_non_null(strstr(r->m.first_fault, "PERFEVTSEL1"));
	assert_non_null(strstr(r->m.first_fault, "0x400000"));
	assert_int_equal(r->m.nlog, 0);
	free(r);

	struct pmu_caps a = arch_caps(2, 2, 40, 3);
	struct msr_model_opts ao = { .pdcm = true };
	r = rig_new(PMU_INTEL_ARCH, &a, &ao);
	io = msr_model_io(&r->m);
	assert_int_equal(io.write(io.ctx, MSR_IA32_PERF_GLOBAL_STATUS, 0), 13);          /* read-only */
	assert_int_equal(io.write(io.ctx, MSR_IA32_PERF_GLOBAL_CTRL, 1ULL << 2), 13);    /* no PMC2 */
	assert_int_equal(io.write(io.ctx, MSR_IA32_PERFEVTSEL0, ARCH_PERFMON_EVENTSEL_ANY), 13); /* v2 */
	assert_int_equal(io.write(io.ctx, MSR_IA32_A_PMC0, 0), 13);                      /* no FW */
	assert_int_equal(io.write(io.ctx, MSR_IA32_FIXED_CTR_CTRL, 0x3000), 13);         /* no fixed3 */
	assert_int_equal(r->m.faults, 5);
	assert_non_null(strstr(r->m.first_fault, "read-only"));
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_backend_for),
		cmocka_unit_test(test_int_bit_refused),
		cmocka_unit_test(test_arch_v1),
		cmocka_unit_test(test_arch_v2_sequence),
		cmocka_unit_test(test_arch_conroe_quirk),
		cmocka_unit_test(test_arch_v3_full_width_anythread),
		cmocka_unit_test(test_arch_v4_wrap),
		cmocka_unit_test(test_arch_v5_sparse_fixed),
		cmocka_unit_test(test_arch_matching),
		cmocka_unit_test(test_arch_too_many),
		cmocka_unit_test(test_arch_extra_regs),
		cmocka_unit_test(test_p6_both),
		cmocka_unit_test(test_p6_counter1_only_and_wrap),
		cmocka_unit_test(test_p6_too_many),
		cmocka_unit_test(test_amd_k7_k8_legacy),
		cmocka_unit_test(test_amd_fam10h_legacy),
		cmocka_unit_test(test_amd_fam15h_core),
		cmocka_unit_test(test_amd_zen4_perfmon_v2),
		cmocka_unit_test(test_amd_probe_errors),
		cmocka_unit_test(test_netburst),
		cmocka_unit_test(test_wrong_kind_probe),
		cmocka_unit_test(test_model_catches_bugs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
