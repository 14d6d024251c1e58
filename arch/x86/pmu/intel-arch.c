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

static uint32_t arch_gp_all(const struct pmu_state *st)
{
	return (1u << pmu_gp_count(st)) - 1;
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

static uint32_t arch_candidates(const struct pmu_state *st, const struct ev_encoding *e,
				char *err, size_t errlen)
{
	uint32_t gp_all = arch_gp_all(st), fixed_all = arch_fixed_all(st);
	if (arch_check_evtsel(st, e, err, errlen))
		return 0;
	uint32_t cand = e->gp_mask & gp_all;
	if (arch_fixed_capable(e->evtsel))
		cand |= (e->fixed_mask & fixed_all) << PMU_CAND_FIXED_SHIFT;
	if (!cand)
		bp_snprintf(err, errlen, "event '%s' cannot be counted here: it allows GP "
			    "counters 0x%x and fixed counters 0x%x, the PMU has GP 0x%x and "
			    "fixed 0x%x", e->name, e->gp_mask, e->fixed_mask, gp_all, fixed_all);
	return cand;
}

/* A fixed counter's slot: its FIXED_CTR_CTRL field (unshifted) carries the ring filters. */
static void arch_fill_slot(const struct pmu_state *st, const struct ev_encoding *e,
			   unsigned cand_bit, struct pmu_slot *s)
{
	if (cand_bit < PMU_CAND_FIXED_SHIFT)
		return;
	unsigned j = cand_bit - PMU_CAND_FIXED_SHIFT;
	uint64_t field = 0;
	if (e->evtsel & ARCH_PERFMON_EVENTSEL_OS)
		field |= FIXED_CTR_CTRL_OS;
	if (e->evtsel & ARCH_PERFMON_EVENTSEL_USR)
		field |= FIXED_CTR_CTRL_USR;
	if (e->evtsel & ARCH_PERFMON_EVENTSEL_ANY)
		field |= FIXED_CTR_CTRL_ANY;
	memset(s, 0, sizeof(*s));
	s->type = SLOT_FIXED;
	s->index = j;
	s->ctr_msr = st->be->fixed_ctr_base + j;
	s->ctl_value = field;
	s->rdpmc_index = j | RDPMC_FIXED;
	s->width = st->caps.fixed_width;
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

/* Second registers by enum ev_extra_reg (msr-index.h cites them). */
static const uint32_t arch_extra_msrs[EV_EXTRA_COUNT] = {
	[EV_EXTRA_OFFCORE_RSP_0] = MSR_OFFCORE_RSP_0,
	[EV_EXTRA_OFFCORE_RSP_1] = MSR_OFFCORE_RSP_1,
	[EV_EXTRA_FRONTEND] = MSR_PEBS_FRONTEND,
};

/* The second registers of the GP slots, written before any select is: an event counts
 * what its register says from the moment it is enabled. */
static int arch_write_extras(struct pmu_state *st)
{
	for (unsigned k = 0; k < st->nslots; k++) {
		const struct pmu_slot *s = &st->slot[k];
		if (s->type != SLOT_GP || !s->extra_msr)
			continue;
		if (pmu_wrmsr(st, s->extra_msr, s->extra_value))
			return -1;
		for (unsigned x = 0; x < EV_EXTRA_COUNT; x++)
			if (arch_extra_msrs[x] == s->extra_msr)
				st->extra_dirty |= 1u << x;
	}
	return 0;
}

/* Zero the second registers written since the last time, and only those: a CPU
 * without them (Core 2 has no MSR_OFFCORE_RSP_0) raises #GP on the write. */
static int arch_clear_extras(struct pmu_state *st)
{
	for (unsigned x = 0; x < EV_EXTRA_COUNT; x++) {
		if (!(st->extra_dirty >> x & 1))
			continue;
		if (pmu_wrmsr(st, arch_extra_msrs[x], 0))
			return -1;
		st->extra_dirty &= ~(1u << x);
	}
	return 0;
}

static int arch_program(struct pmu_state *st)
{
	bool v2 = st->caps.version >= 2;
	if (v2 && pmu_wrmsr(st, MSR_IA32_PERF_GLOBAL_CTRL, 0))
		return -1;
	if (arch_write_extras(st))
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
	for (unsigned i = 0; i < pmu_gp_count(st); i++)
		if (pmu_wrmsr(st, MSR_IA32_PERFEVTSEL0 + i, 0))
			return -1;
	if (arch_fixed_all(st) && pmu_wrmsr(st, MSR_IA32_FIXED_CTR_CTRL, 0))
		return -1;
	return arch_clear_extras(st);
}

/* v2+: IA32_PERF_GLOBAL_STATUS has bit i for PMCi and bit 32 + j for FIXED_CTRj, set
 * on overflow until written to IA32_PERF_GLOBAL_OVF_CTRL (SDM 20.2.2). The status bits
 * of the slots in mask, or the slots of status bits. */
static uint64_t arch_status_bit(const struct pmu_slot *s)
{
	return s->type == SLOT_GP ? GLOBAL_CTRL_PMC(s->index) :
	       s->type == SLOT_FIXED ? GLOBAL_CTRL_FIXED(s->index) : 0;
}

static int arch_overflowed(struct pmu_state *st, uint32_t *mask)
{
	uint64_t status;
	if (st->caps.version < 2)
		return pmu_overflowed_sign(st, mask);   /* v1: no status register */
	*mask = 0;
	if (pmu_rdmsr(st, MSR_IA32_PERF_GLOBAL_STATUS, &status))
		return -1;
	for (unsigned i = 0; i < st->nslots; i++)
		if (status & arch_status_bit(&st->slot[i]))
			*mask |= 1u << i;
	return 0;
}

static int arch_ack(struct pmu_state *st, uint32_t mask)
{
	uint64_t bits = 0;
	if (st->caps.version < 2)
		return 0;       /* v1: the preset clears the top bit, no status to clear */
	for (unsigned i = 0; i < st->nslots; i++)
		if (mask & (1u << i))
			bits |= arch_status_bit(&st->slot[i]);
	return bits ? pmu_wrmsr(st, MSR_IA32_PERF_GLOBAL_OVF_CTRL, bits) : 0;
}

/* Linux perf's map; SDM Vol. 3B Table 20-1 for the architectural events and the
 * CPUID.0AH:EBX bit that says each is unavailable. */
static const struct ev_generic_map arch_generic[] = { {
	.code = {
		[EV_GEN_CYCLES] = 0x003c, [EV_GEN_INSTRUCTIONS] = 0x00c0, [EV_GEN_REF_CYCLES] = 0x0300,
		[EV_GEN_BRANCHES] = 0x00c4, [EV_GEN_BRANCH_MISSES] = 0x00c5,
		[EV_GEN_CACHE_REFS] = 0x4f2e, [EV_GEN_CACHE_MISSES] = 0x412e,
	},
	.cpuid_0a = true,
	.cpuid_0a_bit = {
		[EV_GEN_CYCLES] = 0, [EV_GEN_INSTRUCTIONS] = 1, [EV_GEN_REF_CYCLES] = -1,
		[EV_GEN_BRANCHES] = 5, [EV_GEN_BRANCH_MISSES] = 6, [EV_GEN_CACHE_REFS] = 3,
		[EV_GEN_CACHE_MISSES] = 4,
	},
} };

static const struct pmu_msr_name arch_msr_names[] = {
	{ .first = MSR_IA32_PMC0, .count = PMU_MAX_GP, .stride = 1, .name = "PMC", .dec = DEC_NONE },
	{ .first = MSR_IA32_PERFEVTSEL0, .count = PMU_MAX_GP, .stride = 1, .name = "PERFEVTSEL",
	  .dec = DEC_INTEL_EVTSEL },
	{ .first = MSR_IA32_A_PMC0, .count = PMU_MAX_GP, .stride = 1, .name = "A_PMC", .dec = DEC_NONE },
	{ .first = MSR_IA32_FIXED_CTR0, .count = PMU_MAX_FIXED, .stride = 1, .name = "FIXED_CTR",
	  .dec = DEC_NONE },
	{ .first = MSR_IA32_PERF_CAPABILITIES, .count = 1, .stride = 1, .name = "PERF_CAPABILITIES",
	  .dec = DEC_PERF_CAP },
	{ .first = MSR_IA32_FIXED_CTR_CTRL, .count = 1, .stride = 1, .name = "FIXED_CTR_CTRL",
	  .dec = DEC_FIXED_CTRL },
	{ .first = MSR_IA32_PERF_GLOBAL_STATUS, .count = 1, .stride = 1, .name = "PERF_GLOBAL_STATUS",
	  .dec = DEC_INTEL_GLOBAL },
	{ .first = MSR_IA32_PERF_GLOBAL_CTRL, .count = 1, .stride = 1, .name = "PERF_GLOBAL_CTRL",
	  .dec = DEC_INTEL_GLOBAL },
	{ .first = MSR_IA32_PERF_GLOBAL_OVF_CTRL, .count = 1, .stride = 1, .name = "PERF_GLOBAL_OVF_CTRL",
	  .dec = DEC_INTEL_GLOBAL },
	{ .first = MSR_IA32_PERF_GLOBAL_STATUS_SET, .count = 1, .stride = 1,
	  .name = "PERF_GLOBAL_STATUS_SET", .dec = DEC_INTEL_GLOBAL },
	{ .first = MSR_IA32_PERF_GLOBAL_INUSE, .count = 1, .stride = 1, .name = "PERF_GLOBAL_INUSE",
	  .dec = DEC_NONE },
	{ .first = MSR_OFFCORE_RSP_0, .count = 2, .stride = 1, .name = "OFFCORE_RSP_", .dec = DEC_NONE },
	{ .first = MSR_PEBS_FRONTEND, .count = 1, .stride = 1, .name = "PEBS_FRONTEND", .dec = DEC_NONE },
};

const struct pmu_backend pmu_backend_intel_arch = {
	.kind = PMU_INTEL_ARCH,
	.ctl_base = MSR_IA32_PERFEVTSEL0, .ctl_stride = 1,
	.ctr_base = MSR_IA32_PMC0, .ctr_stride = 1,
	.ctr_base_full_width = MSR_IA32_A_PMC0,
	.fixed_ctr_base = MSR_IA32_FIXED_CTR0,
	.max_gp = PMU_MAX_GP,
	.width = 0,                     /* CPUID.0AH always gives the widths */
	.evtsel_reserved = ARCH_PERFMON_EVENTSEL_RESERVED_HI,
	.extra_msrs = arch_extra_msrs,
	.generic = arch_generic,
	.msr_names = arch_msr_names,
	.n_msr_names = ARRAY_SIZE(arch_msr_names),
	.probe = arch_probe,
	.candidates = arch_candidates,
	.fill_slot = arch_fill_slot,
	.assign = pmu_assign_shared,
	.program = arch_program,
	.start = arch_start,
	.stop = arch_stop,
	.read = pmu_read_slot,
	.reset = pmu_zero_counters,
	.disable_all = arch_disable_all,
	.enable_pmi = pmu_enable_pmi_evtsel,
	.overflowed = arch_overflowed,
	.ack = arch_ack,
	.ctr_write_sext32 = true,
};
