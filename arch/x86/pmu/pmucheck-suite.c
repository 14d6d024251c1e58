/*
 * The PMU checks (pmucheck) (mode=pmucheck, docs/pmucheck.md): known answers for the
 * instructions of a counted loop, the privilege filters, counter enables, CMASK/INV,
 * edge detect, counter width and overflow status, RDPMC against RDMSR, NetBurst's T0/T1
 * qualification and cascading, and AMD's legacy register aliases. This file holds the
 * table of checks (each a row of `checks`) and what they share: verdicts, events pinned
 * to counters, measuring through the generation's backend and the pmu_state's msr_io
 * only; pmucheck-checks.c and pmucheck-vendor.c hold the checks.
 *
 * Bounds (PMUCHECK_SLACK): count(2N) - count(N) cancels the call, the ring transitions
 * and the backend's start/stop code, which are the same instructions in both runs, so a
 * counter that counts correctly gives exactly k*N. What is left is what the environment
 * cannot hold still: an SMI or a stray interrupt inside one of the two windows. The slack
 * allows 32 events plus 1/4096 of the expected count for that; a wrong filter, a missing
 * enable or a wrong width is off by the whole count, thousands of times more.
 */
#include "arch/x86/pmu/pmucheck-suite-priv.h"
#include <stdarg.h>
#include "arch/x86/msr-index.h"
#include "arch/x86/pmu/core.h"
#include "lib/format.h"
#include "lib/p4-regs.h"
#include "lib/str.h"

uint64_t pc_slack(uint64_t want)
{
	return PMUCHECK_SLACK_ABS + (want >> PMUCHECK_SLACK_SHIFT);
}

bool pc_near(uint64_t got, uint64_t want)
{
	return got + pc_slack(want) >= want && got <= want + pc_slack(want);
}

uint64_t pc_width_mask(unsigned width)
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

void pc_measured(struct pmucheck_ctx *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	appendv(c->r->measured, fmt, ap);
	va_end(ap);
}

void pc_rule(struct pmucheck_ctx *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	bp_vsnprintf(c->r->rule, sizeof(c->r->rule), fmt, ap);
	va_end(ap);
}

/* The first broken rule wins; the check goes on measuring the rest. */
void pc_fail(struct pmucheck_ctx *c, const char *fmt, ...)
{
	if (c->r->verdict == PMUCHECK_FAIL)
		return;
	c->r->verdict = PMUCHECK_FAIL;
	va_list ap;
	va_start(ap, fmt);
	bp_vsnprintf(c->r->why, sizeof(c->r->why), fmt, ap);
	va_end(ap);
}

void pc_skip(struct pmucheck_ctx *c, const char *why)
{
	c->r->verdict = PMUCHECK_SKIP;
	str_copy(c->r->rule, why, sizeof(c->r->rule));
}

enum pmu_kind pc_kind(const struct pmucheck_ctx *c)
{
	return c->st->caps.kind;
}

bool pc_need_event(struct pmucheck_ctx *c, enum pmucheck_event e, const char *name)
{
	if (c->env->have_ev[e])
		return true;
	char why[96];
	bp_snprintf(why, sizeof(why), "this PMU has no '%s' event to count", name);
	pc_skip(c, why);
	return false;
}

uint64_t pc_expected(const struct pmucheck_ctx *c, enum pmucheck_payload p)
{
	return c->env->insns_per_iter[p] * c->env->iters;
}

/* ------------------------------------------------------------ events and units */

/* ev pinned to unit u (event-select generations), counting at the rings asked. */
struct ev_encoding pc_pinned(const struct pmucheck_ctx *c, enum pmucheck_event e,
			     const struct unit *u, bool usr, bool os)
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
void pc_threshold_one(struct ev_encoding *ev, bool inv, bool edge)
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

static void add_unit(struct pmucheck_ctx *c, enum pmu_slot_type type, unsigned index,
		     const char *prefix)
{
	struct unit *u = &c->unit[c->nunits++];
	u->type = type;
	u->index = index;
	bp_snprintf(u->label, sizeof(u->label), "%s%u", prefix, index);
}

/* Every GP counter, and every fixed counter that counts instructions; brief: the first
 * of each. */
static void collect_units(struct pmucheck_ctx *c)
{
	c->nunits = 0;
	if (pc_kind(c) == PMU_INTEL_NETBURST) {
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

int pc_fault_text(struct pmucheck_ctx *c, const char *what)
{
	unsigned v = (unsigned)c->st->last_fault;
	pc_fail(c, "%s faulted (vector %u%s)", what, v, v == 13 ? ", #GP" : "");
	return -1;
}

/* One run of p: program, preset, start, run, stop, read every slot into val[]. */
int pc_one_run(struct pmucheck_ctx *c, enum pmucheck_payload p, unsigned cpl, uint64_t n,
	       uint64_t *val)
{
	const struct pmu_backend *be = c->st->be;
	if (be->program(c->st))
		return pc_fault_text(c, "programming the counters");
	if (c->after_program && c->after_program(c))
		return pc_fault_text(c, "presetting a counter");
	if (be->start(c->st))
		return pc_fault_text(c, "starting the counters");
	if (c->after_start && c->after_start(c))
		return pc_fault_text(c, "changing an enable");
	int vec = c->env->run(c->env->ctx, p, cpl, n);
	if (c->after_program)
		c->ovf = pc_overflow_flag(c);
	if (be->stop(c->st))
		return pc_fault_text(c, "stopping the counters");
	if (vec) {
		if (vec < 0)
			pc_fail(c, "the watchdog stopped the payload at CPL %u", cpl);
		else
			pc_fail(c, "the payload at CPL %u raised vector %d", cpl, vec);
		return -1;
	}
	for (unsigned k = 0; k < c->st->nslots; k++)
		if (be->read(c->st, k, &val[k]))
			return pc_fault_text(c, "reading a counter");
	return 0;
}

int pc_place(struct pmucheck_ctx *c, const struct ev_encoding *ev, unsigned nev)
{
	char err[160];
	if (c->st->be->assign(c->st, ev, nev, err, sizeof(err)) == 0)
		return 0;
	pc_fail(c, "cannot place the events: %s", err);
	return -1;
}

/* delta[k]: what N iterations of p add to event k, by count(2N) - count(N). */
int pc_measure(struct pmucheck_ctx *c, const struct ev_encoding *ev, unsigned nev,
		   enum pmucheck_payload p, unsigned cpl, uint64_t *delta)
{
	uint64_t a[PMU_MAX_SLOTS], b[PMU_MAX_SLOTS];
	if (pc_place(c, ev, nev))
		return -1;
	int bad = pc_one_run(c, p, cpl, c->env->iters, a) ||
		  pc_one_run(c, p, cpl, 2 * c->env->iters, b);
	for (unsigned k = 0; !bad && k < nev; k++)
		delta[k] = pmu_delta(a[k], b[k], c->st->slot[k].width);
	c->st->be->disable_all(c->st);
	return bad ? -1 : 0;
}

/* One event on one unit at one CPL; false when it could not be measured. */
bool pc_measure_one(struct pmucheck_ctx *c, const struct ev_encoding *ev, enum pmucheck_payload p,
			unsigned cpl, uint64_t *delta)
{
	return pc_measure(c, ev, 1, p, cpl, delta) == 0;
}

bool pc_has_global_control(const struct pmucheck_ctx *c)
{
	return (pc_kind(c) == PMU_INTEL_ARCH && c->st->caps.version >= 2) ||
	       pc_kind(c) == PMU_AMD_PERFMON_V2;
}

/* Whether slot 0's overflow flag is set: Intel v2+ IA32_PERF_GLOBAL_STATUS (GP i bit i,
 * fixed j bit 32 + j, SDM 20.2.2), PerfMonV2 PerfCntrGlobalStatus, NetBurst CCCR OVF
 * (bit 31, Figure 18-46). -1: no such flag on this generation. */
int pc_overflow_flag(struct pmucheck_ctx *c)
{
	const struct pmu_slot *s = &c->st->slot[0];
	uint64_t v;
	if (pc_kind(c) == PMU_INTEL_NETBURST)
		return pmu_rdmsr(c->st, s->ctl_msr, &v) ? 0 : (v & P4_CCCR_OVF) != 0;
	if (!pc_has_global_control(c))
		return -1;
	uint32_t msr = pc_kind(c) == PMU_AMD_PERFMON_V2 ? MSR_AMD64_PERF_CNTR_GLOBAL_STATUS
						     : MSR_IA32_PERF_GLOBAL_STATUS;
	unsigned bit = s->index + (s->type == SLOT_FIXED ? GLOBAL_CTRL_FIXED_SHIFT : 0);
	return pmu_rdmsr(c->st, msr, &v) ? 0 : (v >> bit) & 1;
}

/* ------------------------------------------------------------ the table */

struct pmucheck_def {
	const char *name;
	void (*fn)(struct pmucheck_ctx *c);
	bool brief;                     /* also in the brief run after the boot self-check */
};

static const struct pmucheck_def checks[] = {
	{ "instructions", pc_check_instructions, true },
	{ "privilege", pc_check_privilege, true },
	{ "enable", pc_check_enable, true },
	{ "global-enable", pc_check_global_enable, false },
	{ "cmask-inv", pc_check_cmask_inv, false },
	{ "edge", pc_check_edge, false },
	{ "width-overflow", pc_check_width, false },
	{ "rdpmc-rdmsr", pc_check_rdpmc, false },
	{ "netburst-thread", pc_check_nb_thread, false },
	{ "netburst-cascade", pc_check_nb_cascade, false },
	{ "amd-legacy-alias", pc_check_amd_alias, false },
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
	static struct pmucheck_ctx c;
	static struct pmucheck_result r;
	c = (struct pmucheck_ctx){ .st = st, .env = env, .r = &r, .brief = scope == PMUCHECK_BRIEF };
	*sum = (struct pmucheck_summary){ 0 };
	if (!skip_reason)
		collect_units(&c);
	for (unsigned i = 0; i < ARRAY_SIZE(checks); i++) {
		if (!in_scope(&checks[i], scope))
			continue;
		r = (struct pmucheck_result){ .name = checks[i].name, .verdict = PMUCHECK_PASS };
		if (skip_reason)
			pc_skip(&c, skip_reason);
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
