/*
 * The pmucheck checks of one vendor's PMUs (docs/pmucheck.md): NetBurst's T0/T1
 * qualification and cascading, AMD's legacy register aliases.
 */
#include "arch/x86/pmu/pmucheck-suite-priv.h"
#include "arch/x86/msr-index.h"
#include "arch/x86/pmu/core.h"
#include "lib/p4-events.h"
#include "lib/p4-regs.h"

/* ESCR T0/T1 bits (SDM Vol. 3B 18.19.4, Table 18-29): an ESCR that qualifies only the
 * other logical processor counts nothing while that one is idle. */
void pc_check_nb_thread(struct pmucheck_ctx *c)
{
	if (pc_kind(c) != PMU_INTEL_NETBURST || !c->st->caps.netburst_ht)
		return pc_skip(c, pc_kind(c) == PMU_INTEL_NETBURST
				       ? "this NetBurst has no Hyper-Threading: only T0 bits exist"
				       : "NetBurst only");
	pc_rule(c, "instructions with only the idle logical processor's T_OS/T_USR bits: <= %llu "
	     "at CPL 0 and 3", (unsigned long long)pc_slack(0));
	if (!pc_need_event(c, PMUCHECK_EV_INSTRUCTIONS, "instructions"))
		return;
	unsigned own = c->st->logical_cpu;
	for (unsigned cpl = 0; cpl <= 3; cpl += 3) {
		struct ev_encoding ev = pc_pinned(c, PMUCHECK_EV_INSTRUCTIONS, 0, true, true);
		uint64_t d;
		c->st->logical_cpu = own ^ 1;
		bool ok = pc_measure_one(c, &ev, PMUCHECK_LOOP, cpl, &d);
		c->st->logical_cpu = own;
		if (!ok)
			return;
		pc_measured(c, "%sT%u.cpl%u=%llu", cpl ? " " : "", own ^ 1, cpl, (unsigned long long)d);
		if (d > pc_slack(0))
			pc_fail(c, "the other thread's bits counted %llu at CPL %u", (unsigned long long)d, cpl);
	}
}

/* ---- NetBurst cascading (SDM Vol. 3B 18.18.2, 18.18.6.6): "the first counter in one
 * pair can start the first counter in the second pair and vice versa", and the same for
 * the second counters; IQ_COUNTER4/5 (16, 17) start nobody. A counter whose CCCR has
 * cascade set and enable clear starts counting when its alternate overflows. */

struct nb_pair {
	uint32_t escr_msr[2];   /* [0] feeds the counter that overflows, [1] the cascaded one */
	unsigned ctr[2];
	uint32_t escr, cccr;    /* values for this logical processor, enable clear */
};

/* instructions on the first counters of its two ESCRs, when those are alternates. */
static bool nb_cascade_pair(struct pmucheck_ctx *c, struct nb_pair *p)
{
	const struct ev_netburst *nb = &c->env->ev[PMUCHECK_EV_INSTRUCTIONS].nb;
	const struct nb_event *e = &nb_event_table[nb->event];
	if (e->nescrs < 2)
		return false;
	for (unsigned k = 0; k < 2; k++) {
		const struct p4_escr_info *x = &p4_escr_table[e->escr[k]];
		p->escr_msr[k] = x->msr;
		p->ctr[k] = x->counter[0];
	}
	p->escr = netburst_escr_for_thread(nb->escr, true, true, c->st->logical_cpu, false,
					   c->st->caps.netburst_ht);
	p->cccr = nb->cccr & ~(uint32_t)P4_CCCR_ENABLE;
	return p->ctr[1] == (p->ctr[0] ^ 2) && p->ctr[0] < 16;
}

/* Counter 0 of the pair preset `below` under its top and enabled, counter 1 waiting on
 * it (cascade set, enable clear), one run of the loop; val[] the two counts after. */
static int nb_cascade_run(struct pmucheck_ctx *c, const struct nb_pair *p, uint64_t below,
			  uint64_t val[2])
{
	struct pmu_state *st = c->st;
	uint64_t top = pc_width_mask(P4_COUNTER_WIDTH);
	if (st->be->disable_all(st) ||
	    pmu_wrmsr(st, p->escr_msr[0], p->escr) || pmu_wrmsr(st, p->escr_msr[1], p->escr) ||
	    pmu_wrmsr(st, P4_CCCR_MSR(p->ctr[0]), p->cccr) ||
	    pmu_wrmsr(st, P4_CCCR_MSR(p->ctr[1]), p->cccr | P4_CCCR_CASCADE) ||
	    pmu_wrmsr(st, P4_COUNTER_MSR(p->ctr[0]), (top + 1 - below) & top) ||
	    pmu_wrmsr(st, P4_COUNTER_MSR(p->ctr[1]), 0) ||
	    pmu_wrmsr(st, P4_CCCR_MSR(p->ctr[0]), p->cccr | P4_CCCR_ENABLE))
		return pc_fault_text(c, "programming the cascade");
	int vec = c->env->run(c->env->ctx, PMUCHECK_LOOP, 0, c->env->iters);
	if (pmu_wrmsr(st, P4_CCCR_MSR(p->ctr[0]), p->cccr) ||
	    pmu_wrmsr(st, P4_CCCR_MSR(p->ctr[1]), p->cccr) ||
	    pmu_rdmsr(st, P4_COUNTER_MSR(p->ctr[0]), &val[0]) ||
	    pmu_rdmsr(st, P4_COUNTER_MSR(p->ctr[1]), &val[1]))
		return pc_fault_text(c, "stopping the cascade");
	if (vec) {
		pc_fail(c, "the payload ended with vector %d", vec);
		return -1;
	}
	return 0;
}

void pc_check_nb_cascade(struct pmucheck_ctx *c)
{
	struct nb_pair p;
	if (pc_kind(c) != PMU_INTEL_NETBURST)
		return pc_skip(c, "NetBurst only");
	if (!pc_need_event(c, PMUCHECK_EV_INSTRUCTIONS, "instructions"))
		return;
	if (!nb_cascade_pair(c, &p))
		return pc_skip(c, "instructions cannot be counted on two alternate counters");
	pc_rule(c, "counter %u preset 2^40 - %llu counts the loop and wraps to count - %llu; counter "
	     "%u, cascaded from it, then counts the same count - %llu (+- %llu); without the wrap "
	     "it counts nothing", p.ctr[0], PMUCHECK_WRAP_BELOW, PMUCHECK_WRAP_BELOW, p.ctr[1],
	     PMUCHECK_WRAP_BELOW, (unsigned long long)pc_slack(0));
	uint64_t plain[2], wrap[2];
	/* Preset 0: no overflow, so the cascaded counter must stay at 0. */
	if (nb_cascade_run(c, &p, pc_width_mask(P4_COUNTER_WIDTH) + 1, plain) ||
	    nb_cascade_run(c, &p, PMUCHECK_WRAP_BELOW, wrap))
		return;
	c->st->be->disable_all(c->st);
	uint64_t want = plain[0] - PMUCHECK_WRAP_BELOW;
	pc_measured(c, "no_wrap: ctr%u=%llu ctr%u=%llu wrap: ctr%u=%llu ctr%u=%llu", p.ctr[0],
		 (unsigned long long)plain[0], p.ctr[1], (unsigned long long)plain[1], p.ctr[0],
		 (unsigned long long)wrap[0], p.ctr[1], (unsigned long long)wrap[1]);
	if (plain[1] != 0)
		pc_fail(c, "counter %u counted %llu before its alternate overflowed", p.ctr[1],
		     (unsigned long long)plain[1]);
	if (plain[0] <= PMUCHECK_WRAP_BELOW || !pc_near(wrap[0], want) || !pc_near(wrap[1], want))
		pc_fail(c, "after the wrap counter %u reads %llu and counter %u %llu, expected %llu each",
		     p.ctr[0], (unsigned long long)wrap[0], p.ctr[1], (unsigned long long)wrap[1],
		     (unsigned long long)want);
}

/* One alias pair: write through `wr`, read through `rd`, expect what was written. */
static void alias_pair(struct pmucheck_ctx *c, uint32_t wr, uint32_t rd, uint64_t val)
{
	uint64_t got = 0;
	if (pmu_wrmsr(c->st, wr, val) || pmu_rdmsr(c->st, rd, &got)) {
		pc_fault_text(c, "an alias access");
		return;
	}
	pc_measured(c, "%s0x%x->0x%x:0x%llx", c->r->measured[0] ? " " : "", wr, rd,
		    (unsigned long long)got);
	if (got != val)
		pc_fail(c, "wrote 0x%llx to 0x%x, read 0x%llx from 0x%x", (unsigned long long)val, wr,
		     (unsigned long long)got, rd);
}

/* APM Vol. 2 13.2.1: PerfEvtSel0-3/PerfCtr0-3 (0xC0010000-7) are the first four
 * PERF_CTL/PERF_CTR (0xC0010200+) under their old numbers. */
void pc_check_amd_alias(struct pmucheck_ctx *c)
{
	if (pc_kind(c) != PMU_AMD_CORE && pc_kind(c) != PMU_AMD_PERFMON_V2)
		return pc_skip(c, "AMD core counters only (K7 to family 10h have only the legacy registers)");
	pc_rule(c, "for counters 0-3, a value written to PERF_CTL/PERF_CTR reads back from "
	     "PerfEvtSel/PerfCtr (0xC0010000-7) and the reverse");
	uint64_t sel = AMD64_EVENTSEL_USR | AMD64_EVENTSEL_OS;
	if (c->env->have_ev[PMUCHECK_EV_INSTRUCTIONS])
		sel |= c->env->ev[PMUCHECK_EV_INSTRUCTIONS].evtsel & ~AMD64_EVENTSEL_ENABLE;
	for (uint32_t i = 0; i < AMD_LEGACY_COUNTERS; i++) {
		alias_pair(c, MSR_F15H_PERF_CTR(i), MSR_K7_PERFCTR0 + i, 0xa5a5a5a50000ull | i);
		alias_pair(c, MSR_K7_PERFCTR0 + i, MSR_F15H_PERF_CTR(i), 0x5a5a5a5a0000ull | i);
		alias_pair(c, MSR_F15H_PERF_CTL(i), MSR_K7_EVNTSEL0 + i, sel);
		alias_pair(c, MSR_K7_EVNTSEL0 + i, MSR_F15H_PERF_CTL(i), 0);
		pmu_wrmsr(c->st, MSR_F15H_PERF_CTR(i), 0);
	}
}
