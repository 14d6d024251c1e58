/*
 * The pmucheck checks every PMU generation runs (docs/pmucheck.md): instructions on
 * every counter, privilege filters, enables, CMASK/INV, edge detect, width and overflow
 * flag, RDPMC against RDMSR. Bounds: pmucheck-suite.c.
 */
#include "arch/x86/pmu/pmucheck-suite-priv.h"
#include "arch/x86/msr-index.h"
#include "arch/x86/pmu/core.h"
#include "lib/p4-regs.h"

void pc_check_instructions(struct pmucheck_ctx *c)
{
	uint64_t want = pc_expected(c, PMUCHECK_LOOP), lo[2] = { ~0ull, ~0ull }, hi[2] = { 0, 0 };
	pc_rule(c, "count(2N)-count(N) = %u*N = %llu +- %llu (N=%llu) on every counter at CPL 0 "
	     "and 3; all counters within that of each other", c->env->insns_per_iter[PMUCHECK_LOOP],
	     (unsigned long long)want, (unsigned long long)pc_slack(want),
	     (unsigned long long)c->env->iters);
	if (!pc_need_event(c, PMUCHECK_EV_INSTRUCTIONS, "instructions"))
		return;
	for (unsigned i = 0; i < c->nunits; i++) {
		for (unsigned k = 0; k < 2; k++) {
			unsigned cpl = k ? 3 : 0;
			struct ev_encoding ev = pc_pinned(c, PMUCHECK_EV_INSTRUCTIONS, &c->unit[i], true, true);
			uint64_t d;
			if (!pc_measure_one(c, &ev, PMUCHECK_LOOP, cpl, &d))
				return;
			pc_measured(c, "%s%s.cpl%u=%llu", i || k ? " " : "", c->unit[i].label, cpl,
				 (unsigned long long)d);
			if (!pc_near(d, want))
				pc_fail(c, "%s at CPL %u counted %llu, expected %llu", c->unit[i].label, cpl,
				     (unsigned long long)d, (unsigned long long)want);
			lo[k] = d < lo[k] ? d : lo[k];
			hi[k] = d > hi[k] ? d : hi[k];
		}
	}
	for (unsigned k = 0; k < 2; k++)
		if (hi[k] - lo[k] > pc_slack(want))
			pc_fail(c, "counters disagree at CPL %u: %llu to %llu", k ? 3 : 0,
			     (unsigned long long)lo[k], (unsigned long long)hi[k]);
}

void pc_check_privilege(struct pmucheck_ctx *c)
{
	uint64_t want = pc_expected(c, PMUCHECK_LOOP);
	pc_rule(c, "a USR-only counter gives %llu +- %llu for the loop at CPL 3 and <= %llu at "
	     "CPL 0; an OS-only counter the reverse", (unsigned long long)want,
	     (unsigned long long)pc_slack(want), (unsigned long long)pc_slack(0));
	if (!pc_need_event(c, PMUCHECK_EV_INSTRUCTIONS, "instructions"))
		return;
	for (unsigned i = 0; i < c->nunits; i++) {
		for (unsigned k = 0; k < 4; k++) {
			bool usr = k & 1;
			unsigned cpl = k & 2 ? 3 : 0;
			struct ev_encoding ev = pc_pinned(c, PMUCHECK_EV_INSTRUCTIONS, &c->unit[i], usr, !usr);
			uint64_t d, w = (cpl == 3) == usr ? want : 0;
			if (!pc_measure_one(c, &ev, PMUCHECK_LOOP, cpl, &d))
				return;
			pc_measured(c, "%s%s.%s@cpl%u=%llu", i || k ? " " : "", c->unit[i].label,
				 usr ? "usr" : "os", cpl, (unsigned long long)d);
			if (!pc_near(d, w))
				pc_fail(c, "%s %s-only at CPL %u counted %llu, expected %llu", c->unit[i].label,
				     usr ? "USR" : "OS", cpl, (unsigned long long)d, (unsigned long long)w);
		}
	}
}

/* Read-modify-write: clear bits of an MSR. */
static int clear_bits(struct pmucheck_ctx *c, uint32_t msr, uint64_t bits)
{
	uint64_t v;
	if (pmu_rdmsr(c->st, msr, &v))
		return -1;
	return pmu_wrmsr(c->st, msr, v & ~bits);
}

/* after_start: turn slot 0's own enable off, the way its generation gates one counter:
 * NetBurst CCCR enable (18.18.3), Intel fixed field's OS/USR (Figure 20-8), P6 EN of
 * PERFEVTSEL0, which gates both counters, and everyone else's EN (bit 22). */
static int gate_slot0(struct pmucheck_ctx *c)
{
	const struct pmu_slot *s = &c->st->slot[0];
	if (pc_kind(c) == PMU_INTEL_NETBURST)
		return clear_bits(c, s->ctl_msr, P4_CCCR_ENABLE);
	if (s->type == SLOT_FIXED)
		return clear_bits(c, MSR_IA32_FIXED_CTR_CTRL,
				  FIXED_CTR_CTRL_FIELD(s->index, FIXED_CTR_CTRL_FIELD_MASK));
	if (pc_kind(c) == PMU_INTEL_P6)
		return clear_bits(c, c->st->be->ctl_base, P6_EVNTSEL_ENABLE);
	return clear_bits(c, s->ctl_msr, ARCH_PERFMON_EVENTSEL_ENABLE);
}

/* after_start: global control off (Intel v2+ IA32_PERF_GLOBAL_CTRL, SDM 20.2.2; AMD
 * PerfMonV2 PerfCntrGlobalCtl, APM Vol. 2 13.2.2). */
static int gate_global(struct pmucheck_ctx *c)
{
	uint32_t msr = pc_kind(c) == PMU_AMD_PERFMON_V2 ? MSR_AMD64_PERF_CNTR_GLOBAL_CTL
						     : MSR_IA32_PERF_GLOBAL_CTRL;
	return pmu_wrmsr(c->st, msr, 0);
}

/* Each unit enabled (the loop's full count), then with gate() run right after start
 * (nothing from the N iterations). */
static void gated_units(struct pmucheck_ctx *c, int (*gate)(struct pmucheck_ctx *c),
			const char *what)
{
	uint64_t want = pc_expected(c, PMUCHECK_LOOP);
	for (unsigned i = 0; i < c->nunits; i++) {
		struct ev_encoding ev = pc_pinned(c, PMUCHECK_EV_INSTRUCTIONS, &c->unit[i], true, true);
		uint64_t on, off;
		if (!pc_measure_one(c, &ev, PMUCHECK_LOOP, 0, &on))
			return;
		c->after_start = gate;
		bool ok = pc_measure_one(c, &ev, PMUCHECK_LOOP, 0, &off);
		c->after_start = 0;
		if (!ok)
			return;
		pc_measured(c, "%s%s.on=%llu %s.off=%llu", i ? " " : "", c->unit[i].label,
			 (unsigned long long)on, c->unit[i].label, (unsigned long long)off);
		if (!pc_near(on, want))
			pc_fail(c, "%s enabled counted %llu, expected %llu", c->unit[i].label,
			     (unsigned long long)on, (unsigned long long)want);
		if (off > pc_slack(0))
			pc_fail(c, "%s counted %llu with %s off", c->unit[i].label, (unsigned long long)off, what);
	}
}

void pc_check_enable(struct pmucheck_ctx *c)
{
	uint64_t want = pc_expected(c, PMUCHECK_LOOP);
	pc_rule(c, "enabled: %llu +- %llu; with the counter's own enable cleared after start "
	     "(%s): <= %llu", (unsigned long long)want, (unsigned long long)pc_slack(want),
	     pc_kind(c) == PMU_INTEL_NETBURST ? "CCCR enable" :
	     pc_kind(c) == PMU_INTEL_P6 ? "EN of PERFEVTSEL0, which gates both counters" :
	     "EN, or the fixed counter's OS/USR field", (unsigned long long)pc_slack(0));
	if (pc_need_event(c, PMUCHECK_EV_INSTRUCTIONS, "instructions"))
		gated_units(c, gate_slot0, "its enable");
}

void pc_check_global_enable(struct pmucheck_ctx *c)
{
	uint64_t want = pc_expected(c, PMUCHECK_LOOP);
	if (!pc_has_global_control(c))
		return pc_skip(c, "no global control on this generation (Intel v2+ and AMD PerfMonV2 "
			    "have one; P6's EN0 is checked by 'enable')");
	pc_rule(c, "with the global control set: %llu +- %llu; cleared after start: <= %llu",
	     (unsigned long long)want, (unsigned long long)pc_slack(want),
	     (unsigned long long)pc_slack(0));
	if (pc_need_event(c, PMUCHECK_EV_INSTRUCTIONS, "instructions"))
		gated_units(c, gate_global, "the global control");
}

/* Cycles with >= 1 instruction retired plus cycles with < 1 (inverted) is every cycle.
 * In one run the three counters see the same cycles, so the sum is exact but for the
 * few cycles between enabling one counter and the next (generations without a global
 * enable write one select at a time): 64 + 1/256 of the cycles. A PMU with too few
 * counters counts cycles in a second run of the same loop: 1/32 then. Over the spaced
 * payload, whose IMUL chain leaves most cycles without a retirement: "dec; jnz" runs an
 * iteration a cycle on current cores, retiring in every cycle, so there the inverted
 * side is 0 plus noise (which count(2N) - count(N) can turn negative). */
void pc_check_cmask_inv(struct pmucheck_ctx *c)
{
	pc_rule(c, "over imul_chain: cycles(cmask=1) + cycles(cmask=1,inv) = cycles, +- 64 + "
	     "cycles/256 in one run (+- 64 + cycles/32 when cycles need a second run)");
	if (!pc_need_event(c, PMUCHECK_EV_INSTRUCTIONS, "instructions") ||
	    !pc_need_event(c, PMUCHECK_EV_CYCLES, "cycles"))
		return;
	struct ev_encoding ev[3] = { pc_pinned(c, PMUCHECK_EV_INSTRUCTIONS, 0, true, true),
				     pc_pinned(c, PMUCHECK_EV_INSTRUCTIONS, 0, true, true),
				     pc_pinned(c, PMUCHECK_EV_CYCLES, 0, true, true) };
	pc_threshold_one(&ev[0], false, false);
	pc_threshold_one(&ev[1], true, false);
	uint64_t d[3];
	char err[160];
	bool one_run = c->st->be->assign(c->st, ev, 3, err, sizeof(err)) == 0;
	if (one_run ? pc_measure(c, ev, 3, PMUCHECK_SPACED, 0, d)
		    : pc_measure(c, ev, 2, PMUCHECK_SPACED, 0, d) ||
		      pc_measure(c, &ev[2], 1, PMUCHECK_SPACED, 0, &d[2]))
		return;
	uint64_t sum = d[0] + d[1], tol = 64 + (one_run ? d[2] / 256 : d[2] / 32);
	pc_measured(c, "ge1=%llu lt1=%llu sum=%llu cycles=%llu (%s)", (unsigned long long)d[0],
		 (unsigned long long)d[1], (unsigned long long)sum, (unsigned long long)d[2],
		 one_run ? "one run" : "cycles in a second run");
	if (d[2] == 0 || sum + tol < d[2] || sum > d[2] + tol)
		pc_fail(c, "%llu + %llu = %llu cycles, the cycles counter says %llu",
		     (unsigned long long)d[0], (unsigned long long)d[1], (unsigned long long)sum,
		     (unsigned long long)d[2]);
	if (d[0] == 0 || d[1] == 0)
		pc_fail(c, "one side of the complement counted nothing (ge1=%llu lt1=%llu)",
		     (unsigned long long)d[0], (unsigned long long)d[1]);
}

/* Edge detect, two known answers. The spaced payload retires its one branch per
 * iteration tens of cycles after the last, so "branches retired >= 1" rises once per
 * iteration: N edges. "cycles >= 1" holds in every unhalted cycle, so it rises once
 * when counting starts, in both runs: no edges in the difference, where a counter
 * that ignores E counts every cycle. */
void pc_check_edge(struct pmucheck_ctx *c)
{
	uint64_t want = c->env->branches_per_iter[PMUCHECK_SPACED] * c->env->iters;
	pc_rule(c, "edges of branches >= 1 over a loop whose branches retire far apart: %llu +- %llu "
	     "(the same count without E); edges of cycles >= 1 over the loop: <= %llu",
	     (unsigned long long)want, (unsigned long long)pc_slack(want),
	     (unsigned long long)pc_slack(0));
	if (!pc_need_event(c, PMUCHECK_EV_BRANCHES, "branches") ||
	    !pc_need_event(c, PMUCHECK_EV_CYCLES, "cycles"))
		return;
	struct ev_encoding ev[3] = { pc_pinned(c, PMUCHECK_EV_BRANCHES, 0, true, true),
				     pc_pinned(c, PMUCHECK_EV_BRANCHES, 0, true, true),
				     pc_pinned(c, PMUCHECK_EV_CYCLES, 0, true, true) };
	pc_threshold_one(&ev[0], false, true);
	pc_threshold_one(&ev[2], false, true);
	uint64_t d[3];
	if (pc_measure(c, &ev[0], 1, PMUCHECK_SPACED, 0, &d[0]) ||
	    pc_measure(c, &ev[1], 1, PMUCHECK_SPACED, 0, &d[1]) ||
	    pc_measure(c, &ev[2], 1, PMUCHECK_LOOP, 0, &d[2]))
		return;
	pc_measured(c, "branch_edges=%llu branches=%llu cycle_edges=%llu", (unsigned long long)d[0],
		 (unsigned long long)d[1], (unsigned long long)d[2]);
	if (!pc_near(d[0], want))
		pc_fail(c, "counted %llu edges of branches, expected %llu", (unsigned long long)d[0],
		     (unsigned long long)want);
	if (!pc_near(d[1], want))
		pc_fail(c, "counted %llu branches without edge detect, expected %llu",
		     (unsigned long long)d[1], (unsigned long long)want);
	if (d[2] > pc_slack(0))
		pc_fail(c, "counted %llu edges of cycles >= 1, expected none", (unsigned long long)d[2]);
}

/* after_program: write c->preset to slot 0's counter the way the hardware takes it:
 * Intel IA32_PMCx and P6 counters take bits 31:0 and sign-extend bit 31 (SDM 20.2.6,
 * so presets are 32-bit negative numbers), IA32_A_PMCx and everything else the full
 * width. */
static int preset_slot0(struct pmucheck_ctx *c)
{
	const struct pmu_slot *s = &c->st->slot[0];
	bool sext32 = s->type == SLOT_GP && (pc_kind(c) == PMU_INTEL_P6 ||
					     (pc_kind(c) == PMU_INTEL_ARCH && !c->st->full_width_writes));
	uint32_t msr = s->ctr_msr;
	if (s->type == SLOT_GP && pc_kind(c) == PMU_INTEL_ARCH && !sext32)
		msr = c->st->be->ctr_base_full_width + s->index;
	uint64_t v = sext32 ? c->preset & 0xffffffffull : c->preset & pc_width_mask(s->width);
	return pmu_wrmsr(c->st, msr, v) || pmu_rdmsr(c->st, s->ctr_msr, &c->preset_read);
}

/* One run of the loop with slot 0 preset `below` under its top; raw[0] the count of the
 * same run from 0 (so the overhead is in both), raw[1] the preset run's reading,
 * *ovf the overflow flag after it. */
static int preset_run(struct pmucheck_ctx *c, const struct ev_encoding *ev, uint64_t below,
		      uint64_t raw[2], int *ovf)
{
	if (pc_place(c, ev, 1))
		return -1;
	int bad = pc_one_run(c, PMUCHECK_LOOP, 0, c->env->iters, &raw[0]);
	c->preset = (0 - below) & pc_width_mask(c->st->slot[0].width);
	c->after_program = preset_slot0;
	bad = bad || pc_one_run(c, PMUCHECK_LOOP, 0, c->env->iters, &raw[1]);
	c->after_program = 0;
	*ovf = bad ? 0 : c->ovf;
	return bad ? -1 : 0;
}

static void wrap_unit(struct pmucheck_ctx *c, const struct unit *u)
{
	struct ev_encoding ev = pc_pinned(c, PMUCHECK_EV_INSTRUCTIONS, u, true, true);
	uint64_t raw[2];
	int ovf;
	int bad = preset_run(c, &ev, PMUCHECK_WRAP_BELOW, raw, &ovf);
	unsigned width = c->st->slot[0].width;
	c->st->be->disable_all(c->st);
	if (bad)
		return;
	uint64_t want = (raw[0] - PMUCHECK_WRAP_BELOW) & pc_width_mask(width);
	pc_measured(c, "%s%s.width=%u.preset=0x%llx.count=%llu.after_wrap=%llu.ovf=%s",
		 u != c->unit ? " " : "", u->label, width, (unsigned long long)c->preset_read,
		 (unsigned long long)raw[0], (unsigned long long)raw[1],
		 ovf < 0 ? "n/a" : ovf ? "set" : "clear");
	if (c->preset_read != c->preset)
		pc_fail(c, "%s preset to 2^%u - %llu reads back 0x%llx, not 0x%llx: the counter is "
		     "not %u bits wide", u->label, width, PMUCHECK_WRAP_BELOW,
		     (unsigned long long)c->preset_read, (unsigned long long)c->preset, width);
	if (pmu_delta(want, raw[1], 64) > pc_slack(0) && pmu_delta(raw[1], want, 64) > pc_slack(0))
		pc_fail(c, "%s preset %llu below 2^%u read %llu after the loop, expected %llu "
		     "(wrapped at 2^%u)", u->label, PMUCHECK_WRAP_BELOW, width,
		     (unsigned long long)raw[1], (unsigned long long)want, width);
	if (ovf == 0)
		pc_fail(c, "%s wrapped but its overflow flag is clear", u->label);
}

/* Clear the overflow flags the wraps left: write the set counter bits back to
 * IA32_PERF_GLOBAL_OVF_CTRL (Intel v2+) or PerfCntrGlobalStatusClr (PerfMonV2). NetBurst's
 * CCCR OVF goes with disable_all. */
static void clear_overflow(struct pmucheck_ctx *c)
{
	uint64_t status, counters = ((uint64_t)c->st->caps.fixed_counter_mask << GLOBAL_CTRL_FIXED_SHIFT) |
				    ((1ull << pmu_gp_count(c->st)) - 1);
	if (!pc_has_global_control(c))
		return;
	bool amd = pc_kind(c) == PMU_AMD_PERFMON_V2;
	if (amd)
		counters &= (1ull << pmu_gp_count(c->st)) - 1;
	uint32_t status_msr = amd ? MSR_AMD64_PERF_CNTR_GLOBAL_STATUS : MSR_IA32_PERF_GLOBAL_STATUS;
	uint32_t clear_msr = amd ? MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_CLR : MSR_IA32_PERF_GLOBAL_OVF_CTRL;
	if (pmu_rdmsr(c->st, status_msr, &status) == 0 && (status & counters))
		pmu_wrmsr(c->st, clear_msr, status & counters);
}

void pc_check_width(struct pmucheck_ctx *c)
{
	pc_rule(c, "a counter preset %llu below 2^width reads back 2^width - %llu, then count - "
	     "%llu (+- %llu) after a loop "
	     "of count > %llu events, and its overflow flag (Intel global status, PerfMonV2 "
	     "global status, NetBurst CCCR OVF) is set", PMUCHECK_WRAP_BELOW, PMUCHECK_WRAP_BELOW,
	     PMUCHECK_WRAP_BELOW,
	     (unsigned long long)pc_slack(0), PMUCHECK_WRAP_BELOW);
	if (!pc_need_event(c, PMUCHECK_EV_INSTRUCTIONS, "instructions"))
		return;
	if (pc_expected(c, PMUCHECK_LOOP) <= 2 * PMUCHECK_WRAP_BELOW)
		return pc_skip(c, "the loop is too short to pass the top of the counter");
	for (unsigned i = 0; i < c->nunits; i++)
		wrap_unit(c, &c->unit[i]);
	clear_overflow(c);
}

static void rdpmc_unit(struct pmucheck_ctx *c, const struct unit *u)
{
	struct ev_encoding ev = pc_pinned(c, PMUCHECK_EV_INSTRUCTIONS, u, true, true);
	uint64_t raw[2], pmc = 0;
	int ovf;
	int bad = preset_run(c, &ev, PMUCHECK_RDPMC_BELOW, raw, &ovf);
	const struct pmu_slot s = c->st->slot[0];
	int vec = bad ? 0 : c->env->rdpmc(c->env->ctx, s.rdpmc_index, &pmc);
	c->st->be->disable_all(c->st);
	if (bad)
		return;
	uint64_t mask = pc_width_mask(s.width);
	pc_measured(c, "%s%s.rdmsr=0x%llx.rdpmc=0x%llx", u != c->unit ? " " : "", u->label,
		 (unsigned long long)raw[1], (unsigned long long)pmc);
	if (vec)
		pc_fail(c, "RDPMC 0x%x for %s raised vector %d", (unsigned)s.rdpmc_index, u->label, vec);
	else if ((pmc & mask) != (raw[1] & mask))
		pc_fail(c, "%s: RDPMC read 0x%llx, RDMSR 0x%llx", u->label, (unsigned long long)pmc,
		     (unsigned long long)raw[1]);
}

void pc_check_rdpmc(struct pmucheck_ctx *c)
{
	pc_rule(c, "with the counter stopped near its top (high bits set), RDPMC and RDMSR give "
	     "the same value in the counter's width");
	if (!pc_need_event(c, PMUCHECK_EV_INSTRUCTIONS, "instructions"))
		return;
	for (unsigned i = 0; i < c->nunits; i++)
		rdpmc_unit(c, &c->unit[i]);
	clear_overflow(c);
}
