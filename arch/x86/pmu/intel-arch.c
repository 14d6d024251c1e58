/*
 * Intel architectural performance monitoring, versions 1-5 (SDM Vol. 3B 20.2):
 * IA32_PERFEVTSELx/IA32_PMCx from v1, fixed counters and global control from v2,
 * AnyThread from v3, full-width writes through IA32_A_PMCx when PERF_CAPABILITIES[13],
 * a sparse fixed-counter bitmap from v5 (CPUID.0AH:ECX).
 */
#include "arch/x86/msr-index.h"
#include "arch/x86/pmu/core.h"
#include "lib/format.h"
#include "lib/str.h"

static unsigned arch_gp_count(const struct pmu_state *st)
{
	return st->caps.gp_counters < PMU_MAX_GP ? st->caps.gp_counters : PMU_MAX_GP;
}

static uint32_t arch_gp_all(const struct pmu_state *st)
{
	return (1u << arch_gp_count(st)) - 1;
}

/* Fixed counter i exists when CPUID.0AH:ECX[i] (v5) or EDX[4:0] > i (SDM 20.2.5); the
 * caps hold that union in fixed_counter_mask for v5, and fixed_counters is then one past
 * the highest, so a sparse set has holes. Before v5 the first fixed_counters exist. */
static uint32_t arch_fixed_all(const struct pmu_state *st)
{
	if (st->caps.version < 2)
		return 0;
	unsigned n = st->caps.fixed_counters < PMU_MAX_FIXED ? st->caps.fixed_counters : PMU_MAX_FIXED;
	uint32_t mask = st->caps.version >= 5 ? st->caps.fixed_counter_mask : (1u << n) - 1;
	return mask & ((1u << PMU_MAX_FIXED) - 1);
}

static unsigned arch_fixed_count(const struct pmu_state *st)
{
	unsigned n = 0;
	for (uint32_t m = arch_fixed_all(st); m; m &= m - 1)
		n++;
	return n;
}

static bool arch_any_thread_ok(const struct pmu_state *st)
{
	return st->caps.version >= 3 && !st->caps.any_thread_deprecated;
}

static int arch_probe(struct pmu_state *st, char *err, size_t errlen)
{
	const struct pmu_caps *c = &st->caps;
	if (c->kind != PMU_INTEL_ARCH) {
		bp_snprintf(err, errlen, "intel-arch: the detected PMU is of another kind (%d)", (int)c->kind);
		return -1;
	}
	if (c->version < 1) {
		bp_snprintf(err, errlen, "intel-arch: CPUID leaf 0xA reports perfmon version 0; "
			    "architectural performance monitoring is not available");
		return -1;
	}
	if (c->gp_counters == 0) {
		bp_snprintf(err, errlen, "intel-arch: CPUID leaf 0xA reports no general-purpose counters");
		return -1;
	}
	if (c->gp_width < 32 || c->gp_width > 64) {
		bp_snprintf(err, errlen, "intel-arch: GP counter width %u out of range 32-64", c->gp_width);
		return -1;
	}
	if (arch_fixed_all(st) && (c->fixed_width < 32 || c->fixed_width > 64)) {
		bp_snprintf(err, errlen, "intel-arch: fixed counter width %u out of range 32-64",
			    c->fixed_width);
		return -1;
	}
	/* IA32_PERF_CAPABILITIES exists only with CPUID.1:ECX[15] PDCM, which the caps do not
	 * carry: a faulting read means "no full-width writes". */
	uint64_t perf_cap = 0;
	st->full_width_writes = st->io.read(st->io.ctx, MSR_IA32_PERF_CAPABILITIES, &perf_cap) == 0 &&
				(perf_cap & PERF_CAP_FW_WRITE);
	return 0;
}

static bool arch_fixed_capable(uint64_t evtsel)
{
	/* Fixed counters filter only by ring and AnyThread: no edge, invert or threshold. */
	return !(evtsel & (ARCH_PERFMON_EVENTSEL_EDGE | ARCH_PERFMON_EVENTSEL_INV |
			   ARCH_PERFMON_EVENTSEL_CMASK_MASK | ARCH_PERFMON_EVENTSEL_PC));
}

static int arch_check_evtsel(const struct pmu_state *st, const struct ev_encoding *e,
			     char *err, size_t errlen)
{
	if (e->evtsel & ARCH_PERFMON_EVENTSEL_RESERVED_HI) {
		bp_snprintf(err, errlen, "event '%s': event-select bits 63:32 (0x%llx) are reserved "
			    "on Intel", e->name, (unsigned long long)(e->evtsel >> 32));
		return -1;
	}
	if ((e->evtsel & ARCH_PERFMON_EVENTSEL_ANY) && !arch_any_thread_ok(st)) {
		bp_snprintf(err, errlen, "event '%s': AnyThread (bit 21) needs perfmon v3+ without "
			    "the deprecation flag (this PMU: v%u%s)", e->name, st->caps.version,
			    st->caps.any_thread_deprecated ? ", AnyThread deprecated" : "");
		return -1;
	}
	return 0;
}

static int arch_assign(struct pmu_state *st, const struct ev_encoding *ev, unsigned n,
		       char *err, size_t errlen)
{
	uint32_t cand[PMU_MAX_SLOTS] = { 0 };
	int counter[PMU_MAX_SLOTS] = { 0 };
	uint32_t gp_all = arch_gp_all(st), fixed_all = arch_fixed_all(st);

	st->nslots = 0;
	if (n > PMU_MAX_SLOTS) {
		bp_snprintf(err, errlen, "%u events given, at most %u", n, PMU_MAX_SLOTS);
		return -1;
	}
	for (unsigned k = 0; k < n; k++) {
		const struct ev_encoding *e = &ev[k];
		cand[k] = 0;
		if (pmu_check_class("intel-arch", e, err, errlen))
			return -1;
		if (e->cls != EV_CLASS_GP)
			continue;
		if (arch_check_evtsel(st, e, err, errlen))
			return -1;
		cand[k] = e->gp_mask & gp_all;
		if (arch_fixed_capable(e->evtsel))
			cand[k] |= (e->fixed_mask & fixed_all) << PMU_CAND_FIXED_SHIFT;
		if (!cand[k]) {
			bp_snprintf(err, errlen, "event '%s' cannot be counted here: it allows GP "
				    "counters 0x%x and fixed counters 0x%x, the PMU has GP 0x%x and "
				    "fixed 0x%x", e->name, e->gp_mask, e->fixed_mask, gp_all, fixed_all);
			return -1;
		}
	}
	int bad = pmu_match_counters(cand, n, counter);
	if (bad >= 0) {
		bp_snprintf(err, errlen, "event '%s' does not fit: no free counter among its "
			    "candidates (GP 0x%x, fixed 0x%x); %u events for %u GP and %u fixed counters",
			    ev[bad].name, cand[bad] & 0xffff, cand[bad] >> PMU_CAND_FIXED_SHIFT, n,
			    arch_gp_count(st), arch_fixed_count(st));
		return -1;
	}
	for (unsigned k = 0; k < n; k++) {
		struct pmu_slot *s = &st->slot[k];
		const struct ev_encoding *e = &ev[k];
		if (pmu_slot_free_running(s, e))
			continue;
		memset(s, 0, sizeof(*s));
		if (counter[k] >= PMU_CAND_FIXED_SHIFT) {
			unsigned j = (unsigned)counter[k] - PMU_CAND_FIXED_SHIFT;
			uint64_t field = 0;
			if (e->evtsel & ARCH_PERFMON_EVENTSEL_OS)
				field |= FIXED_CTR_CTRL_OS;
			if (e->evtsel & ARCH_PERFMON_EVENTSEL_USR)
				field |= FIXED_CTR_CTRL_USR;
			if (e->evtsel & ARCH_PERFMON_EVENTSEL_ANY)
				field |= FIXED_CTR_CTRL_ANY;
			s->type = SLOT_FIXED;
			s->index = j;
			s->ctr_msr = MSR_IA32_FIXED_CTR0 + j;
			s->ctl_value = field;   /* this counter's FIXED_CTR_CTRL field, unshifted */
			s->rdpmc_index = j | (1u << 30);
			s->width = st->caps.fixed_width;
		} else {
			unsigned i = (unsigned)counter[k];
			s->type = SLOT_GP;
			s->index = i;
			s->ctr_msr = (st->full_width_writes ? MSR_IA32_A_PMC0 : MSR_IA32_PMC0) + i;
			s->ctl_msr = MSR_IA32_PERFEVTSEL0 + i;
			s->ctl_value = e->evtsel | ARCH_PERFMON_EVENTSEL_ENABLE;
			s->rdpmc_index = i;
			s->width = st->caps.gp_width;
		}
	}
	st->nslots = n;
	return 0;
}

/* GLOBAL_CTRL bits of the counters in use. */
static uint64_t arch_used_mask(const struct pmu_state *st)
{
	uint64_t mask = 0;
	for (unsigned k = 0; k < st->nslots; k++) {
		const struct pmu_slot *s = &st->slot[k];
		if (s->type == SLOT_GP)
			mask |= GLOBAL_CTRL_PMC(s->index);
		else if (s->type == SLOT_FIXED)
			mask |= GLOBAL_CTRL_FIXED(s->index);
	}
	return mask;
}

static int arch_program(struct pmu_state *st)
{
	bool v2 = st->caps.version >= 2;
	if (v2 && pmu_wrmsr(st, MSR_IA32_PERF_GLOBAL_CTRL, 0))
		return -1;
	if (!v2)
		return pmu_write_gp_enables(st, false) || pmu_zero_counters(st) ? -1 : 0;

	uint64_t fixed_ctrl = 0;
	for (unsigned k = 0; k < st->nslots; k++) {
		const struct pmu_slot *s = &st->slot[k];
		if (s->type == SLOT_GP && pmu_wrmsr(st, s->ctl_msr, s->ctl_value))
			return -1;
		if (s->type == SLOT_FIXED)
			fixed_ctrl |= FIXED_CTR_CTRL_FIELD(s->index, s->ctl_value);
	}
	uint32_t fixed_all = arch_fixed_all(st);
	if (fixed_all && pmu_wrmsr(st, MSR_IA32_FIXED_CTR_CTRL, fixed_ctrl))
		return -1;
	if (pmu_zero_counters(st))
		return -1;
	uint64_t ovf = arch_gp_all(st) | ((uint64_t)fixed_all << GLOBAL_CTRL_FIXED_SHIFT);
	return pmu_wrmsr(st, MSR_IA32_PERF_GLOBAL_OVF_CTRL, ovf);
}

static int arch_start(struct pmu_state *st)
{
	if (st->caps.version < 2)
		return pmu_write_gp_enables(st, true);
	return pmu_wrmsr(st, MSR_IA32_PERF_GLOBAL_CTRL, arch_used_mask(st));
}

static int arch_stop(struct pmu_state *st)
{
	if (st->caps.version < 2)
		return pmu_write_gp_enables(st, false);
	return pmu_wrmsr(st, MSR_IA32_PERF_GLOBAL_CTRL, 0);
}

static int arch_disable_all(struct pmu_state *st)
{
	bool v2 = st->caps.version >= 2;
	if (v2 && pmu_wrmsr(st, MSR_IA32_PERF_GLOBAL_CTRL, 0))
		return -1;
	for (unsigned i = 0; i < arch_gp_count(st); i++)
		if (pmu_wrmsr(st, MSR_IA32_PERFEVTSEL0 + i, 0))
			return -1;
	if (arch_fixed_all(st) && pmu_wrmsr(st, MSR_IA32_FIXED_CTR_CTRL, 0))
		return -1;
	return 0;
}

const struct pmu_backend pmu_backend_intel_arch = {
	.name = "intel-arch",
	.kind = PMU_INTEL_ARCH,
	.probe = arch_probe,
	.assign = arch_assign,
	.program = arch_program,
	.start = arch_start,
	.stop = arch_stop,
	.read = pmu_read_slot,
	.reset = pmu_zero_counters,
	.disable_all = arch_disable_all,
};
