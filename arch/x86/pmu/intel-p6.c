/*
 * Intel P6 family (Pentium Pro, II, III, Pentium M) PMU: two 40-bit counters,
 * PERFEVTSEL0/1 at 0x186/0x187 and PERFCTR0/1 at 0xc1/0xc2 (SDM Vol. 3B 21.6.x,
 * "Performance Monitoring for P6 Family Processors"). EN (bit 22) exists only in
 * PERFEVTSEL0 and starts and stops both counters; in PERFEVTSEL1 it is reserved.
 */
#include "arch/x86/msr-index.h"
#include "arch/x86/pmu/core.h"
#include "lib/format.h"
#include "lib/str.h"

static int p6_probe(struct pmu_state *st, char *err, size_t errlen)
{
	if (st->caps.kind != PMU_INTEL_P6) {
		bp_snprintf(err, errlen, "intel-p6: the detected PMU is of another kind (%d)",
			    (int)st->caps.kind);
		return -1;
	}
	/* Two counters of 40 bits on every P6; CPUID has no leaf that says so. */
	st->full_width_writes = false;
	return 0;
}

/* Counter 0's select is written with EN at start; counter 1's never has it (reserved). */
static void p6_fill_slot(const struct pmu_state *st, const struct ev_encoding *e,
			 unsigned cand_bit, struct pmu_slot *s)
{
	(void)st;
	if (cand_bit != 0)
		s->ctl_value = e->evtsel & ~P6_EVNTSEL_ENABLE;
}

static const struct pmu_slot *p6_slot_on(const struct pmu_state *st, unsigned counter)
{
	for (unsigned k = 0; k < st->nslots; k++)
		if (st->slot[k].type == SLOT_GP && st->slot[k].index == counter)
			return &st->slot[k];
	return NULL;
}

/* PERFEVTSEL0 with EN on or off. When counter 0 is unused it still carries the global
 * enable for counter 1, so it holds an event that counts nothing (Linux p6 does the same). */
static uint64_t p6_evtsel0(const struct pmu_state *st, bool enable)
{
	const struct pmu_slot *s0 = p6_slot_on(st, 0);
	uint64_t v = s0 ? s0->ctl_value : P6_NOP_EVENT;
	return enable ? v | P6_EVNTSEL_ENABLE : v & ~P6_EVNTSEL_ENABLE;
}

static int p6_program(struct pmu_state *st)
{
	/* EN clear in PERFEVTSEL0 first: that stops both counters. */
	if (pmu_wrmsr(st, MSR_IA32_PERFEVTSEL0, p6_evtsel0(st, false)))
		return -1;
	const struct pmu_slot *s1 = p6_slot_on(st, 1);
	if (pmu_wrmsr(st, MSR_IA32_PERFEVTSEL0 + 1, s1 ? s1->ctl_value : P6_NOP_EVENT))
		return -1;
	return pmu_zero_counters(st);
}

static int p6_start(struct pmu_state *st)
{
	return pmu_wrmsr(st, MSR_IA32_PERFEVTSEL0, p6_evtsel0(st, true));
}

static int p6_stop(struct pmu_state *st)
{
	return pmu_wrmsr(st, MSR_IA32_PERFEVTSEL0, p6_evtsel0(st, false));
}

static int p6_disable_all(struct pmu_state *st)
{
	if (pmu_wrmsr(st, MSR_IA32_PERFEVTSEL0, 0))
		return -1;
	return pmu_wrmsr(st, MSR_IA32_PERFEVTSEL0 + 1, 0);
}

/* Linux perf's p6_perfmon_event_map. */
static const struct ev_generic_map p6_generic[] = { {
	.code = {
		[EV_GEN_CYCLES] = 0x0079, [EV_GEN_INSTRUCTIONS] = 0x00c0, [EV_GEN_BRANCHES] = 0x00c4,
		[EV_GEN_BRANCH_MISSES] = 0x00c5, [EV_GEN_CACHE_REFS] = 0x0f2e,
		[EV_GEN_CACHE_MISSES] = 0x012e,
	},
} };

static const struct pmu_msr_name p6_msr_names[] = {
	{ .first = MSR_IA32_PMC0, .count = P6_COUNTERS, .stride = 1, .name = "PMC", .dec = DEC_NONE },
	{ .first = MSR_IA32_PERFEVTSEL0, .count = P6_COUNTERS, .stride = 1, .name = "PERFEVTSEL",
	  .dec = DEC_INTEL_EVTSEL },
};

const struct pmu_backend pmu_backend_intel_p6 = {
	.kind = PMU_INTEL_P6,
	.ctl_base = MSR_IA32_PERFEVTSEL0, .ctl_stride = 1,
	.ctr_base = MSR_IA32_PMC0, .ctr_stride = 1,
	.max_gp = P6_COUNTERS,
	.width = P6_COUNTER_WIDTH,
	.evtsel_reserved = P6_EVNTSEL0_RESERVED,
	.generic = p6_generic,
	.msr_names = p6_msr_names,
	.n_msr_names = ARRAY_SIZE(p6_msr_names),
	.probe = p6_probe,
	.candidates = pmu_gp_candidates,
	.fill_slot = p6_fill_slot,
	.assign = pmu_assign_shared,
	.program = p6_program,
	.start = p6_start,
	.stop = p6_stop,
	.read = pmu_read_slot,
	.reset = pmu_zero_counters,
	.disable_all = p6_disable_all,
	.enable_pmi = pmu_enable_pmi_evtsel,
	.overflowed = pmu_overflowed_sign,      /* no status register */
	.ctr_write_sext32 = true,
};
