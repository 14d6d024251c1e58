/*
 * The PMU conformance checks (mode=pmucheck, docs/pmucheck.md): known answers for the
 * instructions of a counted loop, the privilege filters, counter enables, CMASK/INV,
 * edge detect, counter width and overflow status, RDPMC against RDMSR, NetBurst's T0/T1
 * qualification and cascading, and AMD's legacy register aliases. Each check is a row of `checks`;
 * measuring goes through the generation's backend and the pmu_state's msr_io only.
 *
 * Bounds (PMUCHECK_SLACK): count(2N) - count(N) cancels the call, the ring transitions
 * and the backend's start/stop code, which are the same instructions in both runs, so a
 * counter that counts correctly gives exactly k*N. What is left is what the environment
 * cannot hold still: an SMI or a stray interrupt inside one of the two windows. The slack
 * allows 32 events plus 1/4096 of the expected count for that; a wrong filter, a missing
 * enable or a wrong width is off by the whole count, thousands of times more.
 */
#include "arch/x86/pmu/conformance.h"
#include <stdarg.h>
#include "arch/x86/msr-index.h"
#include "arch/x86/pmu/core.h"
#include "lib/format.h"
#include "lib/netburst.h"
#include "lib/p4-regs.h"
#include "lib/str.h"

#define PMUCHECK_SLACK_ABS   32ull
#define PMUCHECK_SLACK_SHIFT 12          /* 1/4096 of the expected count */
/* The wrap test presets a counter this far below its top; the loop passes it. */
#define PMUCHECK_WRAP_BELOW  1000ull
/* The RDPMC test presets this far below the top, so that every high bit reads 1. */
#define PMUCHECK_RDPMC_BELOW 0x05a5a5a5ull
#define PMUCHECK_MAX_UNITS   (PMU_MAX_GP + PMU_MAX_FIXED)

/* A counter the checks can pin an event to. NetBurst has one pseudo-unit: its
 * allocator picks the counter. */
struct unit {
	enum pmu_slot_type type;
	unsigned index;
	char label[8];          /* "gp0", "fixed1", "nb" */
};

struct pc {
	struct pmu_state *st;
	const struct pmucheck_env *env;
	struct pmucheck_result *r;
	bool brief;
	unsigned nunits;
	struct unit unit[PMUCHECK_MAX_UNITS];
	/* Optional steps of one_run, set by a check around its measure() calls. */
	int (*after_program)(struct pc *c);
	int (*after_start)(struct pc *c);
	uint64_t preset;        /* after_program presets slot 0's counter to this */
	uint64_t preset_read;   /* and reads it back into this */
	int ovf;                /* with a preset: slot 0's overflow flag before the stop
	                           (NetBurst's stop rewrites the CCCR, OVF included) */
};

static uint64_t slack(uint64_t want)
{
	return PMUCHECK_SLACK_ABS + (want >> PMUCHECK_SLACK_SHIFT);
}

static bool near(uint64_t got, uint64_t want)
{
	return got + slack(want) >= want && got <= want + slack(want);
}

static uint64_t width_mask(unsigned width)
{
	return width >= 64 ? ~0ull : (1ull << width) - 1;
}

static void appendv(char *buf, const char *fmt, va_list ap)
{
	size_t used = strlen(buf);
	if (used + 1 >= PMUCHECK_TEXT_MAX)
		return;
	int n = bp_vsnprintf(buf + used, PMUCHECK_TEXT_MAX - used, fmt, ap);
	if (n >= 0 && used + (size_t)n >= PMUCHECK_TEXT_MAX)
		memcpy(buf + PMUCHECK_TEXT_MAX - 4, "...", 4);
}

static void measured(struct pc *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void measured(struct pc *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	appendv(c->r->measured, fmt, ap);
	va_end(ap);
}

static void rule(struct pc *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void rule(struct pc *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	bp_vsnprintf(c->r->rule, sizeof(c->r->rule), fmt, ap);
	va_end(ap);
}

/* The first broken rule wins; the check goes on measuring the rest. */
static void fail(struct pc *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(struct pc *c, const char *fmt, ...)
{
	if (c->r->verdict == PMUCHECK_FAIL)
		return;
	c->r->verdict = PMUCHECK_FAIL;
	va_list ap;
	va_start(ap, fmt);
	bp_vsnprintf(c->r->why, sizeof(c->r->why), fmt, ap);
	va_end(ap);
}

static void skip(struct pc *c, const char *why)
{
	c->r->verdict = PMUCHECK_SKIP;
	str_copy(c->r->rule, why, sizeof(c->r->rule));
}

static enum pmu_kind kind(const struct pc *c)
{
	return c->st->caps.kind;
}

static bool need_event(struct pc *c, enum pmucheck_event e, const char *name)
{
	if (c->env->have_ev[e])
		return true;
	char why[96];
	bp_snprintf(why, sizeof(why), "this PMU has no '%s' event to count", name);
	skip(c, why);
	return false;
}

static uint64_t expected(const struct pc *c, enum pmucheck_payload p)
{
	return c->env->insns_per_iter[p] * c->env->iters;
}

/* ------------------------------------------------------------ events and units */

/* ev pinned to unit u (event-select generations), counting at the rings asked. */
static struct ev_encoding pinned(const struct pc *c, enum pmucheck_event e, const struct unit *u,
				 bool usr, bool os)
{
	struct ev_encoding ev = c->env->ev[e];
	if (ev.cls == EV_CLASS_NETBURST) {
		ev.nb.usr = usr;
		ev.nb.os = os;
		return ev;
	}
	if (u && u->type == SLOT_GP) {
		ev.gp_mask = 1u << u->index;
		ev.fixed_mask = 0;
	} else if (u && u->type == SLOT_FIXED) {
		ev.gp_mask = 0;
		ev.fixed_mask = 1u << u->index;
	}
	ev.evtsel &= ~(ARCH_PERFMON_EVENTSEL_USR | ARCH_PERFMON_EVENTSEL_OS);
	ev.evtsel |= (usr ? ARCH_PERFMON_EVENTSEL_USR : 0) | (os ? ARCH_PERFMON_EVENTSEL_OS : 0);
	return ev;
}

/* Counter mask 1 (cycles with at least one event), inverted or with edge detect.
 * NetBurst: CCCR compare with threshold 0 ("more than 0"), complement ("0 or fewer"),
 * edge (SDM Vol. 3B 18.18.3 Figure 18-46); the others: CMASK, INV, E of the event
 * select (SDM Figure 20-6, APM Vol. 2 Figure 13-7: the same bits). */
static void threshold_one(struct ev_encoding *ev, bool inv, bool edge)
{
	if (ev->cls == EV_CLASS_NETBURST) {
		ev->nb.cccr |= P4_CCCR_COMPARE | P4_CCCR_THRESHOLD(0) |
			       (inv ? P4_CCCR_COMPLEMENT : 0) | (edge ? P4_CCCR_EDGE : 0);
		return;
	}
	ev->gp_mask = ev->gp_mask ? ev->gp_mask : ~0u;
	ev->fixed_mask = 0;
	ev->evtsel |= ARCH_PERFMON_EVENTSEL_CMASK(1) | (inv ? ARCH_PERFMON_EVENTSEL_INV : 0) |
		      (edge ? ARCH_PERFMON_EVENTSEL_EDGE : 0);
}

static void add_unit(struct pc *c, enum pmu_slot_type type, unsigned index, const char *prefix)
{
	struct unit *u = &c->unit[c->nunits++];
	u->type = type;
	u->index = index;
	bp_snprintf(u->label, sizeof(u->label), "%s%u", prefix, index);
}

/* Every GP counter, and every fixed counter that counts instructions; brief: the first
 * of each. */
static void collect_units(struct pc *c)
{
	c->nunits = 0;
	if (kind(c) == PMU_INTEL_NETBURST) {
		c->unit[c->nunits++] = (struct unit){ .type = SLOT_GP, .label = "nb" };
		return;
	}
	unsigned gp = pmu_gp_count(c->st);
	for (unsigned i = 0; i < gp && i < PMU_MAX_GP && !(c->brief && i); i++)
		add_unit(c, SLOT_GP, i, "gp");
	uint32_t fixed = c->st->be->fixed_ctr_base && c->st->caps.version >= 2
				 ? c->st->caps.fixed_counter_mask : 0;
	if (c->env->have_ev[PMUCHECK_EV_INSTRUCTIONS])
		fixed &= c->env->ev[PMUCHECK_EV_INSTRUCTIONS].fixed_mask;
	for (unsigned j = 0; j < PMU_MAX_FIXED; j++) {
		if (fixed & (1u << j)) {
			add_unit(c, SLOT_FIXED, j, "fixed");
			if (c->brief)
				break;
		}
	}
}

/* ------------------------------------------------------------ measuring */

static int fault_text(struct pc *c, const char *what)
{
	unsigned v = (unsigned)c->st->last_fault;
	fail(c, "%s faulted (vector %u%s)", what, v, v == 13 ? ", #GP" : "");
	return -1;
}

static int overflow_flag(struct pc *c);

/* One run of p: program, preset, start, run, stop, read every slot into val[]. */
static int one_run(struct pc *c, enum pmucheck_payload p, unsigned cpl, uint64_t n, uint64_t *val)
{
	const struct pmu_backend *be = c->st->be;
	if (be->program(c->st))
		return fault_text(c, "programming the counters");
	if (c->after_program && c->after_program(c))
		return fault_text(c, "presetting a counter");
	if (be->start(c->st))
		return fault_text(c, "starting the counters");
	if (c->after_start && c->after_start(c))
		return fault_text(c, "changing an enable");
	int vec = c->env->run(c->env->ctx, p, cpl, n);
	if (c->after_program)
		c->ovf = overflow_flag(c);
	if (be->stop(c->st))
		return fault_text(c, "stopping the counters");
	if (vec) {
		fail(c, "the payload at CPL %u ended with %s %d", cpl, vec < 0 ? "a watchdog stop" : "vector", vec);
		return -1;
	}
	for (unsigned k = 0; k < c->st->nslots; k++)
		if (be->read(c->st, k, &val[k]))
			return fault_text(c, "reading a counter");
	return 0;
}

static int place(struct pc *c, const struct ev_encoding *ev, unsigned nev)
{
	char err[160];
	if (c->st->be->assign(c->st, ev, nev, err, sizeof(err)) == 0)
		return 0;
	fail(c, "cannot place the events: %s", err);
	return -1;
}

/* delta[k]: what N iterations of p add to event k, by count(2N) - count(N). */
static int measure(struct pc *c, const struct ev_encoding *ev, unsigned nev,
		   enum pmucheck_payload p, unsigned cpl, uint64_t *delta)
{
	uint64_t a[PMU_MAX_SLOTS], b[PMU_MAX_SLOTS];
	if (place(c, ev, nev))
		return -1;
	int bad = one_run(c, p, cpl, c->env->iters, a) ||
		  one_run(c, p, cpl, 2 * c->env->iters, b);
	for (unsigned k = 0; !bad && k < nev; k++)
		delta[k] = pmu_delta(a[k], b[k], c->st->slot[k].width);
	c->st->be->disable_all(c->st);
	return bad ? -1 : 0;
}

/* One event on one unit at one CPL; false when it could not be measured. */
static bool measure_one(struct pc *c, const struct ev_encoding *ev, enum pmucheck_payload p,
			unsigned cpl, uint64_t *delta)
{
	return measure(c, ev, 1, p, cpl, delta) == 0;
}

/* ------------------------------------------------------------ the checks */

static void check_instructions(struct pc *c)
{
	uint64_t want = expected(c, PMUCHECK_LOOP), lo[2] = { ~0ull, ~0ull }, hi[2] = { 0, 0 };
	rule(c, "count(2N)-count(N) = %u*N = %llu +- %llu (N=%llu) on every counter at CPL 0 "
	     "and 3; all counters within that of each other", c->env->insns_per_iter[PMUCHECK_LOOP],
	     (unsigned long long)want, (unsigned long long)slack(want),
	     (unsigned long long)c->env->iters);
	if (!need_event(c, PMUCHECK_EV_INSTRUCTIONS, "instructions"))
		return;
	for (unsigned i = 0; i < c->nunits; i++) {
		for (unsigned k = 0; k < 2; k++) {
			unsigned cpl = k ? 3 : 0;
			struct ev_encoding ev = pinned(c, PMUCHECK_EV_INSTRUCTIONS, &c->unit[i], true, true);
			uint64_t d;
			if (!measure_one(c, &ev, PMUCHECK_LOOP, cpl, &d))
				return;
			measured(c, "%s%s.cpl%u=%llu", i || k ? " " : "", c->unit[i].label, cpl,
				 (unsigned long long)d);
			if (!near(d, want))
				fail(c, "%s at CPL %u counted %llu, expected %llu", c->unit[i].label, cpl,
				     (unsigned long long)d, (unsigned long long)want);
			lo[k] = d < lo[k] ? d : lo[k];
			hi[k] = d > hi[k] ? d : hi[k];
		}
	}
	for (unsigned k = 0; k < 2; k++)
		if (hi[k] - lo[k] > slack(want))
			fail(c, "counters disagree at CPL %u: %llu to %llu", k ? 3 : 0,
			     (unsigned long long)lo[k], (unsigned long long)hi[k]);
}

static void check_privilege(struct pc *c)
{
	uint64_t want = expected(c, PMUCHECK_LOOP);
	rule(c, "a USR-only counter gives %llu +- %llu for the loop at CPL 3 and <= %llu at "
	     "CPL 0; an OS-only counter the reverse", (unsigned long long)want,
	     (unsigned long long)slack(want), (unsigned long long)slack(0));
	if (!need_event(c, PMUCHECK_EV_INSTRUCTIONS, "instructions"))
		return;
	for (unsigned i = 0; i < c->nunits; i++) {
		for (unsigned k = 0; k < 4; k++) {
			bool usr = k & 1;
			unsigned cpl = k & 2 ? 3 : 0;
			struct ev_encoding ev = pinned(c, PMUCHECK_EV_INSTRUCTIONS, &c->unit[i], usr, !usr);
			uint64_t d, w = (cpl == 3) == usr ? want : 0;
			if (!measure_one(c, &ev, PMUCHECK_LOOP, cpl, &d))
				return;
			measured(c, "%s%s.%s@cpl%u=%llu", i || k ? " " : "", c->unit[i].label,
				 usr ? "usr" : "os", cpl, (unsigned long long)d);
			if (!near(d, w))
				fail(c, "%s %s-only at CPL %u counted %llu, expected %llu", c->unit[i].label,
				     usr ? "USR" : "OS", cpl, (unsigned long long)d, (unsigned long long)w);
		}
	}
}

/* Read-modify-write: clear bits of an MSR. */
static int clear_bits(struct pc *c, uint32_t msr, uint64_t bits)
{
	uint64_t v;
	if (pmu_rdmsr(c->st, msr, &v))
		return -1;
	return pmu_wrmsr(c->st, msr, v & ~bits);
}

/* after_start: turn slot 0's own enable off, the way its generation gates one counter:
 * NetBurst CCCR enable (18.18.3), Intel fixed field's OS/USR (Figure 20-8), P6 EN of
 * PERFEVTSEL0, which gates both counters, and everyone else's EN (bit 22). */
static int gate_slot0(struct pc *c)
{
	const struct pmu_slot *s = &c->st->slot[0];
	if (kind(c) == PMU_INTEL_NETBURST)
		return clear_bits(c, s->ctl_msr, P4_CCCR_ENABLE);
	if (s->type == SLOT_FIXED)
		return clear_bits(c, MSR_IA32_FIXED_CTR_CTRL, FIXED_CTR_CTRL_FIELD(s->index, FIXED_CTR_CTRL_FIELD_MASK));
	if (kind(c) == PMU_INTEL_P6)
		return clear_bits(c, c->st->be->ctl_base, P6_EVNTSEL_ENABLE);
	return clear_bits(c, s->ctl_msr, ARCH_PERFMON_EVENTSEL_ENABLE);
}

/* after_start: global control off (Intel v2+ IA32_PERF_GLOBAL_CTRL, SDM 20.2.2; AMD
 * PerfMonV2 PerfCntrGlobalCtl, APM Vol. 2 13.2.2). */
static int gate_global(struct pc *c)
{
	uint32_t msr = kind(c) == PMU_AMD_PERFMON_V2 ? MSR_AMD64_PERF_CNTR_GLOBAL_CTL
						     : MSR_IA32_PERF_GLOBAL_CTRL;
	return pmu_wrmsr(c->st, msr, 0);
}

static bool has_global_control(const struct pc *c)
{
	return (kind(c) == PMU_INTEL_ARCH && c->st->caps.version >= 2) || kind(c) == PMU_AMD_PERFMON_V2;
}

/* Each unit enabled (the loop's full count), then with gate() run right after start
 * (nothing from the N iterations). */
static void gated_units(struct pc *c, int (*gate)(struct pc *c), const char *what)
{
	uint64_t want = expected(c, PMUCHECK_LOOP);
	for (unsigned i = 0; i < c->nunits; i++) {
		struct ev_encoding ev = pinned(c, PMUCHECK_EV_INSTRUCTIONS, &c->unit[i], true, true);
		uint64_t on, off;
		if (!measure_one(c, &ev, PMUCHECK_LOOP, 0, &on))
			return;
		c->after_start = gate;
		bool ok = measure_one(c, &ev, PMUCHECK_LOOP, 0, &off);
		c->after_start = 0;
		if (!ok)
			return;
		measured(c, "%s%s.on=%llu %s.off=%llu", i ? " " : "", c->unit[i].label,
			 (unsigned long long)on, c->unit[i].label, (unsigned long long)off);
		if (!near(on, want))
			fail(c, "%s enabled counted %llu, expected %llu", c->unit[i].label,
			     (unsigned long long)on, (unsigned long long)want);
		if (off > slack(0))
			fail(c, "%s counted %llu with %s off", c->unit[i].label, (unsigned long long)off, what);
	}
}

static void check_enable(struct pc *c)
{
	uint64_t want = expected(c, PMUCHECK_LOOP);
	rule(c, "enabled: %llu +- %llu; with the counter's own enable cleared after start "
	     "(%s): <= %llu", (unsigned long long)want, (unsigned long long)slack(want),
	     kind(c) == PMU_INTEL_NETBURST ? "CCCR enable" :
	     kind(c) == PMU_INTEL_P6 ? "EN of PERFEVTSEL0, which gates both counters" :
	     "EN, or the fixed counter's OS/USR field", (unsigned long long)slack(0));
	if (need_event(c, PMUCHECK_EV_INSTRUCTIONS, "instructions"))
		gated_units(c, gate_slot0, "its enable");
}

static void check_global_enable(struct pc *c)
{
	uint64_t want = expected(c, PMUCHECK_LOOP);
	if (!has_global_control(c))
		return skip(c, "no global control on this generation (Intel v2+ and AMD PerfMonV2 "
			    "have one; P6's EN0 is checked by 'enable')");
	rule(c, "with the global control set: %llu +- %llu; cleared after start: <= %llu",
	     (unsigned long long)want, (unsigned long long)slack(want), (unsigned long long)slack(0));
	if (need_event(c, PMUCHECK_EV_INSTRUCTIONS, "instructions"))
		gated_units(c, gate_global, "the global control");
}

/* Cycles with >= 1 instruction retired plus cycles with < 1 (inverted) is every cycle.
 * In one run the three counters see the same cycles, so the sum is exact but for the
 * few cycles between enabling one counter and the next (generations without a global
 * enable write one select at a time): 64 + 1/256 of the cycles. A PMU with too few
 * counters counts cycles in a second run of the same loop: 1/32 then. */
static void check_cmask_inv(struct pc *c)
{
	rule(c, "cycles(cmask=1) + cycles(cmask=1,inv) = cycles, +- 64 + cycles/256 in one run "
	     "(+- 64 + cycles/32 when cycles need a second run)");
	if (!need_event(c, PMUCHECK_EV_INSTRUCTIONS, "instructions") ||
	    !need_event(c, PMUCHECK_EV_CYCLES, "cycles"))
		return;
	struct ev_encoding ev[3] = { pinned(c, PMUCHECK_EV_INSTRUCTIONS, 0, true, true),
				     pinned(c, PMUCHECK_EV_INSTRUCTIONS, 0, true, true),
				     pinned(c, PMUCHECK_EV_CYCLES, 0, true, true) };
	threshold_one(&ev[0], false, false);
	threshold_one(&ev[1], true, false);
	uint64_t d[3];
	char err[160];
	bool one_run = c->st->be->assign(c->st, ev, 3, err, sizeof(err)) == 0;
	if (one_run ? measure(c, ev, 3, PMUCHECK_LOOP, 0, d)
		    : measure(c, ev, 2, PMUCHECK_LOOP, 0, d) || measure(c, &ev[2], 1, PMUCHECK_LOOP, 0, &d[2]))
		return;
	uint64_t sum = d[0] + d[1], tol = 64 + (one_run ? d[2] / 256 : d[2] / 32);
	measured(c, "ge1=%llu lt1=%llu sum=%llu cycles=%llu (%s)", (unsigned long long)d[0],
		 (unsigned long long)d[1], (unsigned long long)sum, (unsigned long long)d[2],
		 one_run ? "one run" : "cycles in a second run");
	if (d[2] == 0 || sum + tol < d[2] || sum > d[2] + tol)
		fail(c, "%llu + %llu = %llu cycles, the cycles counter says %llu",
		     (unsigned long long)d[0], (unsigned long long)d[1], (unsigned long long)sum,
		     (unsigned long long)d[2]);
	if (d[0] == 0 || d[1] == 0)
		fail(c, "one side of the complement counted nothing (ge1=%llu lt1=%llu)",
		     (unsigned long long)d[0], (unsigned long long)d[1]);
}

/* Edge detect, two known answers. The spaced payload retires its one branch per
 * iteration tens of cycles after the last, so "branches retired >= 1" rises once per
 * iteration: N edges. "cycles >= 1" holds in every unhalted cycle, so it rises once
 * when counting starts, in both runs: no edges in the difference, where a counter
 * that ignores E counts every cycle. */
static void check_edge(struct pc *c)
{
	uint64_t want = c->env->branches_per_iter[PMUCHECK_SPACED] * c->env->iters;
	rule(c, "edges of branches >= 1 over a loop whose branches retire far apart: %llu +- %llu "
	     "(the same count without E); edges of cycles >= 1 over the loop: <= %llu",
	     (unsigned long long)want, (unsigned long long)slack(want), (unsigned long long)slack(0));
	if (!need_event(c, PMUCHECK_EV_BRANCHES, "branches") ||
	    !need_event(c, PMUCHECK_EV_CYCLES, "cycles"))
		return;
	struct ev_encoding ev[3] = { pinned(c, PMUCHECK_EV_BRANCHES, 0, true, true),
				     pinned(c, PMUCHECK_EV_BRANCHES, 0, true, true),
				     pinned(c, PMUCHECK_EV_CYCLES, 0, true, true) };
	threshold_one(&ev[0], false, true);
	threshold_one(&ev[2], false, true);
	uint64_t d[3];
	if (measure(c, &ev[0], 1, PMUCHECK_SPACED, 0, &d[0]) ||
	    measure(c, &ev[1], 1, PMUCHECK_SPACED, 0, &d[1]) ||
	    measure(c, &ev[2], 1, PMUCHECK_LOOP, 0, &d[2]))
		return;
	measured(c, "branch_edges=%llu branches=%llu cycle_edges=%llu", (unsigned long long)d[0],
		 (unsigned long long)d[1], (unsigned long long)d[2]);
	if (!near(d[0], want))
		fail(c, "counted %llu edges of branches, expected %llu", (unsigned long long)d[0],
		     (unsigned long long)want);
	if (!near(d[1], want))
		fail(c, "counted %llu branches without edge detect, expected %llu",
		     (unsigned long long)d[1], (unsigned long long)want);
	if (d[2] > slack(0))
		fail(c, "counted %llu edges of cycles >= 1, expected none", (unsigned long long)d[2]);
}

/* after_program: write c->preset to slot 0's counter the way the hardware takes it:
 * Intel IA32_PMCx and P6 counters take bits 31:0 and sign-extend bit 31 (SDM 20.2.6,
 * so presets are 32-bit negative numbers), IA32_A_PMCx and everything else the full
 * width. */
static int preset_slot0(struct pc *c)
{
	const struct pmu_slot *s = &c->st->slot[0];
	bool sext32 = s->type == SLOT_GP && (kind(c) == PMU_INTEL_P6 ||
					     (kind(c) == PMU_INTEL_ARCH && !c->st->full_width_writes));
	uint32_t msr = s->ctr_msr;
	if (s->type == SLOT_GP && kind(c) == PMU_INTEL_ARCH && !sext32)
		msr = c->st->be->ctr_base_full_width + s->index;
	uint64_t v = sext32 ? c->preset & 0xffffffffull : c->preset & width_mask(s->width);
	return pmu_wrmsr(c->st, msr, v) || pmu_rdmsr(c->st, s->ctr_msr, &c->preset_read);
}

/* Whether slot 0's overflow flag is set: Intel v2+ IA32_PERF_GLOBAL_STATUS (GP i bit i,
 * fixed j bit 32 + j, SDM 20.2.2), PerfMonV2 PerfCntrGlobalStatus, NetBurst CCCR OVF
 * (bit 31, Figure 18-46). -1: no such flag on this generation. */
static int overflow_flag(struct pc *c)
{
	const struct pmu_slot *s = &c->st->slot[0];
	uint64_t v;
	if (kind(c) == PMU_INTEL_NETBURST)
		return pmu_rdmsr(c->st, s->ctl_msr, &v) ? 0 : (v & P4_CCCR_OVF) != 0;
	if (!has_global_control(c))
		return -1;
	uint32_t msr = kind(c) == PMU_AMD_PERFMON_V2 ? MSR_AMD64_PERF_CNTR_GLOBAL_STATUS
						     : MSR_IA32_PERF_GLOBAL_STATUS;
	unsigned bit = s->index + (s->type == SLOT_FIXED ? GLOBAL_CTRL_FIXED_SHIFT : 0);
	return pmu_rdmsr(c->st, msr, &v) ? 0 : (v >> bit) & 1;
}

/* One run of the loop with slot 0 preset `below` under its top; raw[0] the count of the
 * same run from 0 (so the overhead is in both), raw[1] the preset run's reading,
 * *ovf the overflow flag after it. */
static int preset_run(struct pc *c, const struct ev_encoding *ev, uint64_t below,
		      uint64_t raw[2], int *ovf)
{
	if (place(c, ev, 1))
		return -1;
	int bad = one_run(c, PMUCHECK_LOOP, 0, c->env->iters, &raw[0]);
	c->preset = (0 - below) & width_mask(c->st->slot[0].width);
	c->after_program = preset_slot0;
	bad = bad || one_run(c, PMUCHECK_LOOP, 0, c->env->iters, &raw[1]);
	c->after_program = 0;
	*ovf = bad ? 0 : c->ovf;
	return bad ? -1 : 0;
}

static void wrap_unit(struct pc *c, const struct unit *u)
{
	struct ev_encoding ev = pinned(c, PMUCHECK_EV_INSTRUCTIONS, u, true, true);
	uint64_t raw[2];
	int ovf;
	int bad = preset_run(c, &ev, PMUCHECK_WRAP_BELOW, raw, &ovf);
	unsigned width = c->st->slot[0].width;
	c->st->be->disable_all(c->st);
	if (bad)
		return;
	uint64_t want = (raw[0] - PMUCHECK_WRAP_BELOW) & width_mask(width);
	measured(c, "%s%s.width=%u.preset=0x%llx.count=%llu.after_wrap=%llu.ovf=%s",
		 u != c->unit ? " " : "", u->label, width, (unsigned long long)c->preset_read,
		 (unsigned long long)raw[0], (unsigned long long)raw[1],
		 ovf < 0 ? "n/a" : ovf ? "set" : "clear");
	if (c->preset_read != c->preset)
		fail(c, "%s preset to 2^%u - %llu reads back 0x%llx, not 0x%llx: the counter is "
		     "not %u bits wide", u->label, width, PMUCHECK_WRAP_BELOW,
		     (unsigned long long)c->preset_read, (unsigned long long)c->preset, width);
	if (pmu_delta(want, raw[1], 64) > slack(0) && pmu_delta(raw[1], want, 64) > slack(0))
		fail(c, "%s preset %llu below 2^%u read %llu after the loop, expected %llu "
		     "(wrapped at 2^%u)", u->label, PMUCHECK_WRAP_BELOW, width,
		     (unsigned long long)raw[1], (unsigned long long)want, width);
	if (ovf == 0)
		fail(c, "%s wrapped but its overflow flag is clear", u->label);
}

/* Clear the overflow flags the wraps left: write the set counter bits back to
 * IA32_PERF_GLOBAL_OVF_CTRL (Intel v2+) or PerfCntrGlobalStatusClr (PerfMonV2). NetBurst's
 * CCCR OVF goes with disable_all. */
static void clear_overflow(struct pc *c)
{
	uint64_t status, counters = ((uint64_t)c->st->caps.fixed_counter_mask << GLOBAL_CTRL_FIXED_SHIFT) |
				    ((1ull << pmu_gp_count(c->st)) - 1);
	if (!has_global_control(c))
		return;
	bool amd = kind(c) == PMU_AMD_PERFMON_V2;
	if (amd)
		counters &= (1ull << pmu_gp_count(c->st)) - 1;
	if (pmu_rdmsr(c->st, amd ? MSR_AMD64_PERF_CNTR_GLOBAL_STATUS : MSR_IA32_PERF_GLOBAL_STATUS, &status) == 0 &&
	    (status & counters))
		pmu_wrmsr(c->st, amd ? MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_CLR : MSR_IA32_PERF_GLOBAL_OVF_CTRL,
			  status & counters);
}

static void check_width(struct pc *c)
{
	rule(c, "a counter preset %llu below 2^width reads back 2^width - %llu, then count - %llu (+- %llu) after a loop "
	     "of count > %llu events, and its overflow flag (Intel global status, PerfMonV2 "
	     "global status, NetBurst CCCR OVF) is set", PMUCHECK_WRAP_BELOW, PMUCHECK_WRAP_BELOW, PMUCHECK_WRAP_BELOW,
	     (unsigned long long)slack(0), PMUCHECK_WRAP_BELOW);
	if (!need_event(c, PMUCHECK_EV_INSTRUCTIONS, "instructions"))
		return;
	if (expected(c, PMUCHECK_LOOP) <= 2 * PMUCHECK_WRAP_BELOW)
		return skip(c, "the loop is too short to pass the top of the counter");
	for (unsigned i = 0; i < c->nunits; i++)
		wrap_unit(c, &c->unit[i]);
	clear_overflow(c);
}

static void rdpmc_unit(struct pc *c, const struct unit *u)
{
	struct ev_encoding ev = pinned(c, PMUCHECK_EV_INSTRUCTIONS, u, true, true);
	uint64_t raw[2], pmc = 0;
	int ovf;
	int bad = preset_run(c, &ev, PMUCHECK_RDPMC_BELOW, raw, &ovf);
	const struct pmu_slot s = c->st->slot[0];
	int vec = bad ? 0 : c->env->rdpmc(c->env->ctx, s.rdpmc_index, &pmc);
	c->st->be->disable_all(c->st);
	if (bad)
		return;
	uint64_t mask = width_mask(s.width);
	measured(c, "%s%s.rdmsr=0x%llx.rdpmc=0x%llx", u != c->unit ? " " : "", u->label,
		 (unsigned long long)raw[1], (unsigned long long)pmc);
	if (vec)
		fail(c, "RDPMC 0x%x for %s raised vector %d", (unsigned)s.rdpmc_index, u->label, vec);
	else if ((pmc & mask) != (raw[1] & mask))
		fail(c, "%s: RDPMC read 0x%llx, RDMSR 0x%llx", u->label, (unsigned long long)pmc,
		     (unsigned long long)raw[1]);
}

static void check_rdpmc(struct pc *c)
{
	rule(c, "with the counter stopped near its top (high bits set), RDPMC and RDMSR give "
	     "the same value in the counter's width");
	if (!need_event(c, PMUCHECK_EV_INSTRUCTIONS, "instructions"))
		return;
	for (unsigned i = 0; i < c->nunits; i++)
		rdpmc_unit(c, &c->unit[i]);
	clear_overflow(c);
}

/* ESCR T0/T1 bits (SDM Vol. 3B 18.19.4, Table 18-29): an ESCR that qualifies only the
 * other logical processor counts nothing while that one is idle. */
static void check_nb_thread(struct pc *c)
{
	if (kind(c) != PMU_INTEL_NETBURST || !c->st->caps.netburst_ht)
		return skip(c, kind(c) == PMU_INTEL_NETBURST
				       ? "this NetBurst has no Hyper-Threading: only T0 bits exist"
				       : "NetBurst only");
	rule(c, "instructions with only the idle logical processor's T_OS/T_USR bits: <= %llu "
	     "at CPL 0 and 3", (unsigned long long)slack(0));
	if (!need_event(c, PMUCHECK_EV_INSTRUCTIONS, "instructions"))
		return;
	unsigned own = c->st->logical_cpu;
	for (unsigned cpl = 0; cpl <= 3; cpl += 3) {
		struct ev_encoding ev = pinned(c, PMUCHECK_EV_INSTRUCTIONS, 0, true, true);
		uint64_t d;
		c->st->logical_cpu = own ^ 1;
		bool ok = measure_one(c, &ev, PMUCHECK_LOOP, cpl, &d);
		c->st->logical_cpu = own;
		if (!ok)
			return;
		measured(c, "%sT%u.cpl%u=%llu", cpl ? " " : "", own ^ 1, cpl, (unsigned long long)d);
		if (d > slack(0))
			fail(c, "the other thread's bits counted %llu at CPL %u", (unsigned long long)d, cpl);
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
static bool nb_cascade_pair(struct pc *c, struct nb_pair *p)
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
static int nb_cascade_run(struct pc *c, const struct nb_pair *p, uint64_t below, uint64_t val[2])
{
	struct pmu_state *st = c->st;
	uint64_t top = width_mask(P4_COUNTER_WIDTH);
	if (st->be->disable_all(st) ||
	    pmu_wrmsr(st, p->escr_msr[0], p->escr) || pmu_wrmsr(st, p->escr_msr[1], p->escr) ||
	    pmu_wrmsr(st, P4_CCCR_MSR(p->ctr[0]), p->cccr) ||
	    pmu_wrmsr(st, P4_CCCR_MSR(p->ctr[1]), p->cccr | P4_CCCR_CASCADE) ||
	    pmu_wrmsr(st, P4_COUNTER_MSR(p->ctr[0]), (top + 1 - below) & top) ||
	    pmu_wrmsr(st, P4_COUNTER_MSR(p->ctr[1]), 0) ||
	    pmu_wrmsr(st, P4_CCCR_MSR(p->ctr[0]), p->cccr | P4_CCCR_ENABLE))
		return fault_text(c, "programming the cascade");
	int vec = c->env->run(c->env->ctx, PMUCHECK_LOOP, 0, c->env->iters);
	if (pmu_wrmsr(st, P4_CCCR_MSR(p->ctr[0]), p->cccr) || pmu_wrmsr(st, P4_CCCR_MSR(p->ctr[1]), p->cccr) ||
	    pmu_rdmsr(st, P4_COUNTER_MSR(p->ctr[0]), &val[0]) ||
	    pmu_rdmsr(st, P4_COUNTER_MSR(p->ctr[1]), &val[1]))
		return fault_text(c, "stopping the cascade");
	if (vec) {
		fail(c, "the payload ended with vector %d", vec);
		return -1;
	}
	return 0;
}

static void check_nb_cascade(struct pc *c)
{
	struct nb_pair p;
	if (kind(c) != PMU_INTEL_NETBURST)
		return skip(c, "NetBurst only");
	if (!need_event(c, PMUCHECK_EV_INSTRUCTIONS, "instructions"))
		return;
	if (!nb_cascade_pair(c, &p))
		return skip(c, "instructions cannot be counted on two alternate counters");
	rule(c, "counter %u preset 2^40 - %llu counts the loop and wraps to count - %llu; counter "
	     "%u, cascaded from it, then counts the same count - %llu (+- %llu); without the wrap "
	     "it counts nothing", p.ctr[0], PMUCHECK_WRAP_BELOW, PMUCHECK_WRAP_BELOW, p.ctr[1],
	     PMUCHECK_WRAP_BELOW, (unsigned long long)slack(0));
	uint64_t plain[2], wrap[2];
	/* Preset 0: no overflow, so the cascaded counter must stay at 0. */
	if (nb_cascade_run(c, &p, width_mask(P4_COUNTER_WIDTH) + 1, plain) ||
	    nb_cascade_run(c, &p, PMUCHECK_WRAP_BELOW, wrap))
		return;
	c->st->be->disable_all(c->st);
	uint64_t want = plain[0] - PMUCHECK_WRAP_BELOW;
	measured(c, "no_wrap: ctr%u=%llu ctr%u=%llu wrap: ctr%u=%llu ctr%u=%llu", p.ctr[0],
		 (unsigned long long)plain[0], p.ctr[1], (unsigned long long)plain[1], p.ctr[0],
		 (unsigned long long)wrap[0], p.ctr[1], (unsigned long long)wrap[1]);
	if (plain[1] != 0)
		fail(c, "counter %u counted %llu before its alternate overflowed", p.ctr[1],
		     (unsigned long long)plain[1]);
	if (plain[0] <= PMUCHECK_WRAP_BELOW || !near(wrap[0], want) || !near(wrap[1], want))
		fail(c, "after the wrap counter %u reads %llu and counter %u %llu, expected %llu each",
		     p.ctr[0], (unsigned long long)wrap[0], p.ctr[1], (unsigned long long)wrap[1],
		     (unsigned long long)want);
}

/* One alias pair: write through `wr`, read through `rd`, expect what was written. */
static void alias_pair(struct pc *c, uint32_t wr, uint32_t rd, uint64_t val)
{
	uint64_t got = 0;
	if (pmu_wrmsr(c->st, wr, val) || pmu_rdmsr(c->st, rd, &got)) {
		fault_text(c, "an alias access");
		return;
	}
	measured(c, "%s0x%x->0x%x:0x%llx", c->r->measured[0] ? " " : "", wr, rd, (unsigned long long)got);
	if (got != val)
		fail(c, "wrote 0x%llx to 0x%x, read 0x%llx from 0x%x", (unsigned long long)val, wr,
		     (unsigned long long)got, rd);
}

/* APM Vol. 2 13.2.1: PerfEvtSel0-3/PerfCtr0-3 (0xC0010000-7) are the first four
 * PERF_CTL/PERF_CTR (0xC0010200+) under their old numbers. */
static void check_amd_alias(struct pc *c)
{
	if (kind(c) != PMU_AMD_CORE && kind(c) != PMU_AMD_PERFMON_V2)
		return skip(c, "AMD core counters only (K7 to family 10h have only the legacy registers)");
	rule(c, "for counters 0-3, a value written to PERF_CTL/PERF_CTR reads back from "
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

/* ------------------------------------------------------------ the table */

struct pmucheck_def {
	const char *name;
	void (*fn)(struct pc *c);
	bool brief;                     /* also in the brief run after the boot self-check */
};

static const struct pmucheck_def checks[] = {
	{ "instructions", check_instructions, true },
	{ "privilege", check_privilege, true },
	{ "enable", check_enable, true },
	{ "global-enable", check_global_enable, false },
	{ "cmask-inv", check_cmask_inv, false },
	{ "edge", check_edge, false },
	{ "width-overflow", check_width, false },
	{ "rdpmc-rdmsr", check_rdpmc, false },
	{ "netburst-thread", check_nb_thread, false },
	{ "netburst-cascade", check_nb_cascade, false },
	{ "amd-legacy-alias", check_amd_alias, false },
};

static bool in_scope(const struct pmucheck_def *d, enum pmucheck_scope scope)
{
	return scope == PMUCHECK_FULL || d->brief;
}

unsigned pmucheck_count(enum pmucheck_scope scope)
{
	unsigned n = 0;
	for (unsigned i = 0; i < ARRAY_SIZE(checks); i++)
		n += in_scope(&checks[i], scope);
	return n;
}

const char *pmucheck_name(enum pmucheck_scope scope, unsigned i)
{
	for (unsigned k = 0; k < ARRAY_SIZE(checks); k++)
		if (in_scope(&checks[k], scope) && i-- == 0)
			return checks[k].name;
	return 0;
}

void pmucheck_run(struct pmu_state *st, const struct pmucheck_env *env,
		  enum pmucheck_scope scope, const char *skip_reason,
		  struct pmucheck_summary *sum)
{
	static struct pc c;
	static struct pmucheck_result r;
	c = (struct pc){ .st = st, .env = env, .r = &r, .brief = scope == PMUCHECK_BRIEF };
	*sum = (struct pmucheck_summary){ 0 };
	if (!skip_reason)
		collect_units(&c);
	for (unsigned i = 0; i < ARRAY_SIZE(checks); i++) {
		if (!in_scope(&checks[i], scope))
			continue;
		r = (struct pmucheck_result){ .name = checks[i].name, .verdict = PMUCHECK_PASS };
		if (skip_reason)
			skip(&c, skip_reason);
		else
			checks[i].fn(&c);
		if (!skip_reason)
			st->be->disable_all(st);
		sum->passed += r.verdict == PMUCHECK_PASS;
		sum->failed += r.verdict == PMUCHECK_FAIL;
		sum->skipped += r.verdict == PMUCHECK_SKIP;
		env->result(env->ctx, &r);
	}
}
