/*
 * NetBurst PMU backend: its descriptor, and programming, starting, stopping and reading
 * the CCCRs, ESCRs and counters that netburst-alloc.c assigned. The event tables and
 * parsers are lib/p4-events.h's, trace=msr decoding is netburst-trace.c.
 * SDM Vol. 3B 18.18.6 (setting up a counter), 18.19 (HT).
 */
#include "arch/x86/pmu/core.h"
#include "arch/x86/pmu/netburst.h"
#include "lib/p4-events.h"
#include "lib/p4-regs.h"
#include "lib/format.h"

/* Every access goes through st->io; a fault's vector is returned and kept. */
static int wr(struct pmu_state *st, uint32_t msr, uint64_t val)
{
	int vec = st->io.write(st->io.ctx, msr, val);
	if (vec)
		st->last_fault = (uint64_t)vec;
	return vec;
}

static int nb_probe(struct pmu_state *st, char *err, size_t errlen)
{
	if (st->caps.kind != PMU_INTEL_NETBURST)
		return fmt_error(err, errlen, "the NetBurst backend needs a family 15 Intel PMU, this is %s",
			    pmu_kind_name(st->caps.kind));
	if (st->logical_cpu > 1)
		return fmt_error(err, errlen, "logical processor %u: NetBurst has at most 2",
			    st->logical_cpu);
	return 0;
}

/* 18.18.6.1: ESCR first, then the CCCR (counting still off), then the counter. */
static int nb_program(struct pmu_state *st)
{
	int vec;
	for (unsigned i = 0; i < st->nslots; i++) {
		const struct pmu_slot *s = &st->slot[i];
		if (s->type != SLOT_GP)
			continue;
		if ((vec = wr(st, s->extra_msr, s->extra_value)) ||
		    (vec = wr(st, s->ctl_msr, s->ctl_value & ~(uint64_t)P4_CCCR_ENABLE)) ||
		    (vec = wr(st, s->ctr_msr, s->start)))
			return vec;
	}
	return 0;
}

static int set_enable(struct pmu_state *st, bool on)
{
	int vec;
	for (unsigned i = 0; i < st->nslots; i++) {
		const struct pmu_slot *s = &st->slot[i];
		if (s->type != SLOT_GP)
			continue;
		uint64_t v = on ? s->ctl_value | P4_CCCR_ENABLE : s->ctl_value & ~(uint64_t)P4_CCCR_ENABLE;
		if ((vec = wr(st, s->ctl_msr, v)))
			return vec;
	}
	return 0;
}

static int nb_start(struct pmu_state *st) { return set_enable(st, true); }
static int nb_stop(struct pmu_state *st) { return set_enable(st, false); }

static int nb_read(struct pmu_state *st, unsigned i, uint64_t *val)
{
	int vec;
	if (i >= st->nslots)
		return -1;
	vec = st->io.read(st->io.ctx, st->slot[i].ctr_msr, val);
	if (vec) {
		st->last_fault = (uint64_t)vec;
		return vec;
	}
	if (st->slot[i].type == SLOT_GP)
		*val &= P4_COUNTER_MASK;
	return 0;
}

static int nb_reset(struct pmu_state *st)
{
	int vec;
	for (unsigned i = 0; i < st->nslots; i++) {
		struct pmu_slot *s = &st->slot[i];
		if (s->type != SLOT_GP)
			continue;
		if ((vec = wr(st, s->ctr_msr, s->start)))
			return vec;
		s->banked = s->overflows = 0;
	}
	return 0;
}

/* Every CCCR to "disabled, any thread" (11b is required without HT), every ESCR to 0.
 * IQ_ESCR0/1 are skipped: they exist only on models 0-2, pmu_caps does not carry the
 * model, and no event in the table uses them. */
static int nb_disable_all(struct pmu_state *st)
{
	int vec;
	for (unsigned c = 0; c < P4_NUM_COUNTERS; c++)
		if ((vec = wr(st, P4_CCCR_MSR(c), P4_CCCR_ACTIVE_THREAD(P4_CCCR_THREAD_ANY))))
			return vec;
	for (unsigned s = 0; s < P4_ESCR_COUNT; s++)
		if (!p4_escr_table[s].early_models_only && (vec = wr(st, p4_escr_table[s].msr, 0)))
			return vec;
	return 0;
}

/* Overflow: the CCCR's OVF_PMI_T0/T1 bit asks for a PMI to the logical processor that
 * counts; the CCCR's OVF flag (bit 31) is set on overflow and stays until software
 * writes it 0 (SDM Vol. 3B 18.18.6.6, Figure 18-46). */
static void nb_enable_pmi(const struct pmu_state *st, struct pmu_slot *s)
{
	if (s->type == SLOT_GP)
		s->ctl_value |= st->logical_cpu ? P4_CCCR_OVF_PMI_T1 : P4_CCCR_OVF_PMI_T0;
}

static int nb_overflowed(struct pmu_state *st, uint32_t *mask)
{
	*mask = 0;
	for (unsigned i = 0; i < st->nslots; i++) {
		uint64_t cccr;
		int vec;
		if (st->slot[i].type != SLOT_GP)
			continue;
		if ((vec = st->io.read(st->io.ctx, st->slot[i].ctl_msr, &cccr))) {
			st->last_fault = (uint64_t)vec;
			return -1;
		}
		if (cccr & P4_CCCR_OVF)
			*mask |= 1u << i;
	}
	return 0;
}

static int nb_ack(struct pmu_state *st, uint32_t mask)
{
	for (unsigned i = 0; i < st->nslots; i++) {
		uint64_t cccr;
		int vec;
		if (!(mask & (1u << i)) || st->slot[i].type != SLOT_GP)
			continue;
		if ((vec = st->io.read(st->io.ctx, st->slot[i].ctl_msr, &cccr))) {
			st->last_fault = (uint64_t)vec;
			return -1;
		}
		if (wr(st, st->slot[i].ctl_msr, cccr & ~(uint64_t)P4_CCCR_OVF))
			return -1;
	}
	return 0;
}

/* Linux p4_general_events in libpfm4's names: mispred_branch_retired's bit 0 (the SDM's
 * NBOGUS) is libpfm4's BOGUS. instructions and branches count the non-bogus retired
 * instructions and all four retired-branch kinds, where Linux takes untagged bogus
 * ones too and retired_branch_type. */
static const struct ev_generic_map nb_generic[] = { { .pfm = {
	[EV_GEN_CYCLES] = "global_power_events:RUNNING",
	[EV_GEN_INSTRUCTIONS] = "instr_retired:NBOGUSNTAG:NBOGUSTAG",
	[EV_GEN_BRANCHES] = "branch_retired:MMNP:MMNM:MMTP:MMTM",
	[EV_GEN_BRANCH_MISSES] = "mispred_branch_retired:BOGUS",
	[EV_GEN_CACHE_REFS] = "bsq_cache_reference:RD_2ndL_HITS:RD_2ndL_HITE:RD_2ndL_HITM:"
			      "RD_3rdL_HITS:RD_3rdL_HITE:RD_3rdL_HITM",
	[EV_GEN_CACHE_MISSES] = "bsq_cache_reference:RD_2ndL_MISS:RD_3rdL_MISS:WR_2ndL_MISS",
} } };

const struct pmu_backend pmu_backend_netburst = {
	.max_gp = P4_NUM_COUNTERS,
	.width = P4_COUNTER_WIDTH,
	.kind = PMU_INTEL_NETBURST,
	.probe = nb_probe,
	.assign = netburst_assign,
	.program = nb_program,
	.start = nb_start,
	.stop = nb_stop,
	.read = nb_read,
	.reset = nb_reset,
	.disable_all = nb_disable_all,
	.enable_pmi = nb_enable_pmi,
	.overflowed = nb_overflowed,
	.ack = nb_ack,
	.describe = netburst_msr_describe,
	.trace_last = true,
	.generic = nb_generic,
};

size_t netburst_append(char *buf, size_t len, size_t off, const char *fmt, ...)
{
	va_list ap;
	if (off >= len)
		return off;
	va_start(ap, fmt);
	off += (size_t)bp_vsnprintf(buf + off, len - off, fmt, ap);
	va_end(ap);
	return off;
}
