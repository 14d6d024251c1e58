/*
 * AMD PerfMonV2 (APM Vol. 2 13.2.2; CPUID 0x80000022 EAX[0], Zen 4 on): the core
 * counters of amd.c, how many of them in CPUID 0x80000022 EBX[3:0], and a global
 * control. A counter counts when both its EN and its PerfCntrGlobalCtl bit are set, so
 * the selects are written enabled once and PerfCntrGlobalCtl starts and stops them all
 * in one write. Written as docs/adding-a-pmu.md says: this file plus one table row.
 */
#include "arch/x86/msr-index.h"
#include "arch/x86/pmu/amd.h"
#include "lib/format.h"

static int v2_probe(struct pmu_state *st, char *err, size_t errlen)
{
	if (amd_probe(st, err, errlen))
		return -1;
	if (!st->caps.amd_perfmon_v2) {
		bp_snprintf(err, errlen, "%s: needs PerfMonV2 (CPUID 0x80000022 EAX[0]), which this "
			    "CPU does not report", pmu_kind_name(st->be->kind));
		return -1;
	}
	if (st->caps.gp_counters == 0) {
		bp_snprintf(err, errlen, "%s: CPUID 0x80000022 EBX[3:0] reports no counters",
			    pmu_kind_name(st->be->kind));
		return -1;
	}
	return 0;
}

static uint64_t v2_all_counters(const struct pmu_state *st)
{
	return (1ULL << pmu_gp_count(st)) - 1;
}

static uint64_t v2_used_mask(const struct pmu_state *st)
{
	uint64_t mask = 0;
	for (unsigned k = 0; k < st->nslots; k++)
		if (st->slot[k].type == SLOT_GP)
			mask |= 1ULL << st->slot[k].index;
	return mask;
}

static int v2_program(struct pmu_state *st)
{
	if (pmu_wrmsr(st, MSR_AMD64_PERF_CNTR_GLOBAL_CTL, 0) || pmu_write_gp_enables(st, true) ||
	    pmu_zero_counters(st))
		return -1;
	return pmu_wrmsr(st, MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_CLR, v2_all_counters(st));
}

static int v2_start(struct pmu_state *st)
{
	return pmu_wrmsr(st, MSR_AMD64_PERF_CNTR_GLOBAL_CTL, v2_used_mask(st));
}

static int v2_stop(struct pmu_state *st)
{
	return pmu_wrmsr(st, MSR_AMD64_PERF_CNTR_GLOBAL_CTL, 0);
}

static int v2_disable_all(struct pmu_state *st)
{
	if (pmu_wrmsr(st, MSR_AMD64_PERF_CNTR_GLOBAL_CTL, 0))
		return -1;
	return amd_disable_selects(st);
}

/* PerfCntrGlobalStatus bit i is set when PERF_CTRi overflows, cleared by writing 1 to
 * the same bit of PerfCntrGlobalStatusClr (APM Vol. 2 13.2.2); bit i is slot i's
 * counter index here. */
static int v2_overflowed(struct pmu_state *st, uint32_t *mask)
{
	uint64_t status;
	*mask = 0;
	if (pmu_rdmsr(st, MSR_AMD64_PERF_CNTR_GLOBAL_STATUS, &status))
		return -1;
	for (unsigned i = 0; i < st->nslots; i++)
		if (st->slot[i].type == SLOT_GP && (status & (1ULL << st->slot[i].index)))
			*mask |= 1u << i;
	return 0;
}

static int v2_ack(struct pmu_state *st, uint32_t mask)
{
	uint64_t bits = 0;
	for (unsigned i = 0; i < st->nslots; i++)
		if ((mask & (1u << i)) && st->slot[i].type == SLOT_GP)
			bits |= 1ULL << st->slot[i].index;
	return bits ? pmu_wrmsr(st, MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_CLR, bits) : 0;
}

static const struct ev_generic_map v2_generic[] = { { .code = AMD_ZEN4_GENERIC_CODES } };

/* PERF_CTL/PERF_CTR are named by amd-core's rows. */
static const struct pmu_msr_name v2_msr_names[] = {
	{ .first = MSR_AMD64_PERF_CNTR_GLOBAL_STATUS, .count = 1, .stride = 1,
	  .name = "PERF_CNTR_GLOBAL_STATUS", .dec = DEC_AMD_GLOBAL },
	{ .first = MSR_AMD64_PERF_CNTR_GLOBAL_CTL, .count = 1, .stride = 1,
	  .name = "PERF_CNTR_GLOBAL_CTL", .dec = DEC_AMD_GLOBAL },
	{ .first = MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_CLR, .count = 1, .stride = 1,
	  .name = "PERF_CNTR_GLOBAL_STATUS_CLR", .dec = DEC_AMD_GLOBAL },
};

const struct pmu_backend pmu_backend_amd_perfmon_v2 = {
	.kind = PMU_AMD_PERFMON_V2,
	.ctl_base = MSR_F15H_PERF_CTL0, .ctl_stride = 2,
	.ctr_base = MSR_F15H_PERF_CTR0, .ctr_stride = 2,
	.max_gp = PMU_MAX_GP,
	.width = AMD64_COUNTER_WIDTH,
	.evtsel_reserved = AMD64_EVENTSEL_RESERVED,
	.generic = v2_generic,
	.msr_names = v2_msr_names,
	.n_msr_names = ARRAY_SIZE(v2_msr_names),
	.probe = v2_probe,
	.candidates = pmu_gp_candidates,
	.assign = pmu_assign_shared,
	.program = v2_program,
	.start = v2_start,
	.stop = v2_stop,
	.read = pmu_read_slot,
	.reset = pmu_zero_counters,
	.disable_all = v2_disable_all,
	.enable_pmi = pmu_enable_pmi_evtsel,
	.overflowed = v2_overflowed,
	.ack = v2_ack,
};
