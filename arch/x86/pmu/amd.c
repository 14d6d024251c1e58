/*
 * AMD performance counters (APM Vol. 2 13.2): the legacy four PerfEvtSel/PerfCtr pairs
 * (K7 to family 10h) and the core counters PERF_CTL/PERF_CTR at 0xc0010200 + 2n (family
 * 15h on, CPUID 0x80000001 ECX[23]). Counters are 48 bits; EN in each select is the only
 * switch. The descriptors differ only in data; PerfMonV2 adds global control on top
 * (amd-perfmon-v2.c).
 */
#include "arch/x86/msr-index.h"
#include "arch/x86/pmu/amd.h"
#include "lib/format.h"
#include "lib/str.h"

int amd_probe(struct pmu_state *st, char *err, size_t errlen)
{
	const struct pmu_backend *be = st->be;
	if (st->caps.kind != be->kind) {
		bp_snprintf(err, errlen, "%s: the detected PMU is of another kind (%d)", pmu_kind_name(be->kind),
			    (int)st->caps.kind);
		return -1;
	}
	if (be->kind != PMU_AMD_LEGACY && !st->caps.amd_perfctr_core) {
		bp_snprintf(err, errlen, "%s: needs the core counters (CPUID 0x80000001 ECX[23] "
			    "PerfCtrExtCore), which this CPU does not report", pmu_kind_name(be->kind));
		return -1;
	}
	if (st->caps.gp_width && (st->caps.gp_width < 32 || st->caps.gp_width > 64)) {
		bp_snprintf(err, errlen, "%s: counter width %u out of range 32-64", pmu_kind_name(be->kind),
			    st->caps.gp_width);
		return -1;
	}
	st->full_width_writes = true;   /* AMD counters take all 48 bits on a write */
	return 0;
}

int amd_program_local(struct pmu_state *st)
{
	return pmu_write_gp_enables(st, false) || pmu_zero_counters(st) ? -1 : 0;
}

static int amd_start(struct pmu_state *st)
{
	return pmu_write_gp_enables(st, true);
}

static int amd_stop(struct pmu_state *st)
{
	return pmu_write_gp_enables(st, false);
}

int amd_disable_selects(struct pmu_state *st)
{
	for (unsigned i = 0; i < pmu_gp_count(st); i++)
		if (pmu_wrmsr(st, st->be->ctl_base + st->be->ctl_stride * i, 0))
			return -1;
	return 0;
}

/* Linux perf's maps: Zen 1-3 (amd_zen1/2/3) and K7 to family 16h. */
#define AMD_ZEN_GENERIC_CODES {                                                         \
	[EV_GEN_CYCLES] = 0x0076, [EV_GEN_INSTRUCTIONS] = 0x00c0, [EV_GEN_BRANCHES] = 0x00c2, \
	[EV_GEN_BRANCH_MISSES] = 0x00c3, [EV_GEN_CACHE_REFS] = 0xff60,                  \
	[EV_GEN_CACHE_MISSES] = 0x0964,                                                 \
}
static const struct ev_generic_map amd_generic[] = {
	{ .model_prefix = "amd64_fam19h_zen4", .code = AMD_ZEN4_GENERIC_CODES },
	{ .model_prefix = "amd64_fam17h", .code = AMD_ZEN_GENERIC_CODES },
	{ .model_prefix = "amd64_fam19h", .code = AMD_ZEN_GENERIC_CODES },
	{ .model_prefix = NULL, .code = {
		[EV_GEN_CYCLES] = 0x0076, [EV_GEN_INSTRUCTIONS] = 0x00c0, [EV_GEN_BRANCHES] = 0x00c2,
		[EV_GEN_BRANCH_MISSES] = 0x00c3, [EV_GEN_CACHE_REFS] = 0x0080,
		[EV_GEN_CACHE_MISSES] = 0x0081,
	} },
};

static const struct pmu_msr_name amd_legacy_msr_names[] = {
	{ .first = MSR_K7_EVNTSEL0, .count = AMD_LEGACY_COUNTERS, .stride = 1, .name = "K7_EVNTSEL",
	  .dec = DEC_AMD_EVTSEL },
	{ .first = MSR_K7_PERFCTR0, .count = AMD_LEGACY_COUNTERS, .stride = 1, .name = "K7_PERFCTR",
	  .dec = DEC_NONE },
};

static const struct pmu_msr_name amd_core_msr_names[] = {
	{ .first = MSR_F15H_PERF_CTL0, .count = PMU_MAX_GP, .stride = 2, .name = "PERF_CTL",
	  .dec = DEC_AMD_EVTSEL },
	{ .first = MSR_F15H_PERF_CTR0, .count = PMU_MAX_GP, .stride = 2, .name = "PERF_CTR",
	  .dec = DEC_NONE },
};

#define AMD_HOOKS                                \
	.probe = amd_probe,                      \
	.candidates = pmu_gp_candidates,         \
	.assign = pmu_assign_shared,             \
	.program = amd_program_local,            \
	.start = amd_start,                      \
	.stop = amd_stop,                        \
	.read = pmu_read_slot,                   \
	.reset = pmu_zero_counters,              \
	.disable_all = amd_disable_selects,      \
	.enable_pmi = pmu_enable_pmi_evtsel,     \
	.overflowed = pmu_overflowed_sign        /* no status before PerfMonV2 */

const struct pmu_backend pmu_backend_amd_legacy = {
	.kind = PMU_AMD_LEGACY,
	.ctl_base = MSR_K7_EVNTSEL0, .ctl_stride = 1,
	.ctr_base = MSR_K7_PERFCTR0, .ctr_stride = 1,
	.max_gp = AMD_LEGACY_COUNTERS,
	.width = AMD64_COUNTER_WIDTH,
	.evtsel_reserved = AMD64_EVENTSEL_RESERVED,
	.generic = amd_generic,
	.msr_names = amd_legacy_msr_names,
	.n_msr_names = ARRAY_SIZE(amd_legacy_msr_names),
	AMD_HOOKS,
};

const struct pmu_backend pmu_backend_amd_core = {
	.kind = PMU_AMD_CORE,
	.ctl_base = MSR_F15H_PERF_CTL0, .ctl_stride = 2,
	.ctr_base = MSR_F15H_PERF_CTR0, .ctr_stride = 2,
	.max_gp = AMD_CORE_COUNTERS,
	.width = AMD64_COUNTER_WIDTH,
	.evtsel_reserved = AMD64_EVENTSEL_RESERVED,
	.generic = amd_generic,
	.msr_names = amd_core_msr_names,
	.n_msr_names = ARRAY_SIZE(amd_core_msr_names),
	AMD_HOOKS,
};
