/*
 * AMD performance counters (APM Vol. 2 13.2): the legacy four PerfEvtSel/PerfCtr pairs
 * (K7 to family 10h), the core counters PERF_CTL/PERF_CTR at 0xc0010200 + 2n (family
 * 15h on, CPUID 0x80000001 ECX[23]) and PerfMonV2's global control (CPUID 0x80000022).
 * Counters are 48 bits. One set of operations serves three backends; which MSRs they use
 * follows st->be->kind, so the caller sets st->be before probe (as it does to call it).
 */
#include "arch/x86/msr-index.h"
#include "arch/x86/pmu/core.h"
#include "lib/format.h"
#include "lib/str.h"

static enum pmu_kind amd_kind(const struct pmu_state *st)
{
	return st->be ? st->be->kind : PMU_NONE;
}

static bool amd_has_global(const struct pmu_state *st)
{
	return amd_kind(st) == PMU_AMD_PERFMON_V2;
}

static unsigned amd_max_counters(enum pmu_kind kind)
{
	return kind == PMU_AMD_LEGACY ? AMD_LEGACY_COUNTERS :
	       kind == PMU_AMD_CORE ? AMD_CORE_COUNTERS : PMU_MAX_GP;
}

static unsigned amd_count(const struct pmu_state *st)
{
	unsigned max = amd_max_counters(amd_kind(st));
	unsigned n = st->caps.gp_counters ? st->caps.gp_counters : max;
	return n < max ? n : max;
}

static uint32_t amd_ctl_msr(const struct pmu_state *st, unsigned i)
{
	return amd_kind(st) == PMU_AMD_LEGACY ? MSR_K7_EVNTSEL0 + i : MSR_F15H_PERF_CTL(i);
}

static uint32_t amd_ctr_msr(const struct pmu_state *st, unsigned i)
{
	return amd_kind(st) == PMU_AMD_LEGACY ? MSR_K7_PERFCTR0 + i : MSR_F15H_PERF_CTR(i);
}

static int amd_probe(struct pmu_state *st, char *err, size_t errlen)
{
	enum pmu_kind kind = amd_kind(st);
	if (kind != PMU_AMD_LEGACY && kind != PMU_AMD_CORE && kind != PMU_AMD_PERFMON_V2) {
		bp_snprintf(err, errlen, "amd: pmu_state.be must be one of the AMD backends before probe");
		return -1;
	}
	if (st->caps.kind != kind) {
		bp_snprintf(err, errlen, "%s: the detected PMU is of another kind (%d)", st->be->name,
			    (int)st->caps.kind);
		return -1;
	}
	if (kind != PMU_AMD_LEGACY && !st->caps.amd_perfctr_core) {
		bp_snprintf(err, errlen, "%s: needs the core counters (CPUID 0x80000001 ECX[23] "
			    "PerfCtrExtCore), which this CPU does not report", st->be->name);
		return -1;
	}
	if (kind == PMU_AMD_PERFMON_V2 && !st->caps.amd_perfmon_v2) {
		bp_snprintf(err, errlen, "%s: needs PerfMonV2 (CPUID 0x80000022 EAX[0]), which this "
			    "CPU does not report", st->be->name);
		return -1;
	}
	if (kind == PMU_AMD_PERFMON_V2 && st->caps.gp_counters == 0) {
		bp_snprintf(err, errlen, "%s: CPUID 0x80000022 EBX[3:0] reports no counters",
			    st->be->name);
		return -1;
	}
	if (st->caps.gp_width && (st->caps.gp_width < 32 || st->caps.gp_width > 64)) {
		bp_snprintf(err, errlen, "%s: counter width %u out of range 32-64", st->be->name,
			    st->caps.gp_width);
		return -1;
	}
	st->full_width_writes = true;   /* AMD counters take all 48 bits on a write */
	return 0;
}

static int amd_assign(struct pmu_state *st, const struct ev_encoding *ev, unsigned n,
		      char *err, size_t errlen)
{
	uint32_t cand[PMU_MAX_SLOTS] = { 0 };
	int counter[PMU_MAX_SLOTS] = { 0 };
	const char *name = st->be ? st->be->name : "amd";
	uint32_t all = (1u << amd_count(st)) - 1;

	st->nslots = 0;
	if (n > PMU_MAX_SLOTS) {
		bp_snprintf(err, errlen, "%u events given, at most %u", n, PMU_MAX_SLOTS);
		return -1;
	}
	for (unsigned k = 0; k < n; k++) {
		const struct ev_encoding *e = &ev[k];
		cand[k] = 0;
		if (pmu_check_class(name, e, err, errlen))
			return -1;
		if (e->cls != EV_CLASS_GP)
			continue;
		if (e->evtsel & AMD64_EVENTSEL_RESERVED) {
			bp_snprintf(err, errlen, "event '%s': event-select bits 0x%llx are reserved "
				    "(bit 21, 39:36, 63:42)", e->name,
				    (unsigned long long)(e->evtsel & AMD64_EVENTSEL_RESERVED));
			return -1;
		}
		/* Family 15h ties some events to certain counters: gp_mask says which. */
		cand[k] = e->gp_mask & all;
		if (!cand[k]) {
			bp_snprintf(err, errlen, "event '%s' cannot be counted here: it allows counters "
				    "0x%x, %s has 0x%x", e->name, e->gp_mask, name, all);
			return -1;
		}
	}
	int bad = pmu_match_counters(cand, n, counter);
	if (bad >= 0) {
		bp_snprintf(err, errlen, "event '%s' does not fit: no free counter among its "
			    "candidates (0x%x); %u events for %u counters", ev[bad].name, cand[bad],
			    n, amd_count(st));
		return -1;
	}
	for (unsigned k = 0; k < n; k++) {
		struct pmu_slot *s = &st->slot[k];
		if (pmu_slot_free_running(s, &ev[k]))
			continue;
		unsigned i = (unsigned)counter[k];
		memset(s, 0, sizeof(*s));
		s->type = SLOT_GP;
		s->index = i;
		s->ctr_msr = amd_ctr_msr(st, i);
		s->ctl_msr = amd_ctl_msr(st, i);
		s->ctl_value = ev[k].evtsel | AMD64_EVENTSEL_ENABLE;
		s->rdpmc_index = i;
		s->width = st->caps.gp_width ? st->caps.gp_width : AMD64_COUNTER_WIDTH;
	}
	st->nslots = n;
	return 0;
}

static uint64_t amd_used_mask(const struct pmu_state *st)
{
	uint64_t mask = 0;
	for (unsigned k = 0; k < st->nslots; k++)
		if (st->slot[k].type == SLOT_GP)
			mask |= 1ULL << st->slot[k].index;
	return mask;
}

static int amd_program(struct pmu_state *st)
{
	if (!amd_has_global(st))
		return pmu_write_gp_enables(st, false) || pmu_zero_counters(st) ? -1 : 0;
	/* PerfMonV2: a counter counts when its EN and its PerfCntrGlobalCtl bit are both set. */
	if (pmu_wrmsr(st, MSR_AMD64_PERF_CNTR_GLOBAL_CTL, 0) || pmu_write_gp_enables(st, true) ||
	    pmu_zero_counters(st))
		return -1;
	return pmu_wrmsr(st, MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_CLR, (1ULL << amd_count(st)) - 1);
}

static int amd_start(struct pmu_state *st)
{
	if (!amd_has_global(st))
		return pmu_write_gp_enables(st, true);
	return pmu_wrmsr(st, MSR_AMD64_PERF_CNTR_GLOBAL_CTL, amd_used_mask(st));
}

static int amd_stop(struct pmu_state *st)
{
	if (!amd_has_global(st))
		return pmu_write_gp_enables(st, false);
	return pmu_wrmsr(st, MSR_AMD64_PERF_CNTR_GLOBAL_CTL, 0);
}

static int amd_disable_all(struct pmu_state *st)
{
	if (amd_has_global(st) && pmu_wrmsr(st, MSR_AMD64_PERF_CNTR_GLOBAL_CTL, 0))
		return -1;
	for (unsigned i = 0; i < amd_count(st); i++)
		if (pmu_wrmsr(st, amd_ctl_msr(st, i), 0))
			return -1;
	return 0;
}

#define AMD_OPS                          \
	.probe = amd_probe,              \
	.assign = amd_assign,            \
	.program = amd_program,          \
	.start = amd_start,              \
	.stop = amd_stop,                \
	.read = pmu_read_slot,           \
	.reset = pmu_zero_counters,      \
	.disable_all = amd_disable_all

const struct pmu_backend pmu_backend_amd_legacy = {
	.name = "amd-legacy", .kind = PMU_AMD_LEGACY, AMD_OPS,
};
const struct pmu_backend pmu_backend_amd_core = {
	.name = "amd-core", .kind = PMU_AMD_CORE, AMD_OPS,
};
const struct pmu_backend pmu_backend_amd_perfmon_v2 = {
	.name = "amd-perfmon-v2", .kind = PMU_AMD_PERFMON_V2, AMD_OPS,
};
