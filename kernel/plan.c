/* The measurement plan (kernel/plan.h): selection, CPLs, counter groups. No globals. */
#include "kernel/plan.h"
#include <stdarg.h>
#include "arch/x86/pmu/pmu.h"
#include "lib/config.h"
#include "lib/format.h"
#include "lib/str.h"

static void plan_error(struct plan *p, const struct plan_env *env, const char *context,
		       const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void plan_error(struct plan *p, const struct plan_env *env, const char *context,
		       const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	bp_vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	env->error(context, msg);
	p->errors++;
}

void plan_init(struct plan *p)
{
	memset(p, 0, sizeof(*p));
}

static bool selected(const struct plan *p, const struct payload *pl)
{
	for (unsigned i = 0; i < p->nsel; i++)
		if (p->sel[i] == pl)
			return true;
	return false;
}

struct catalogue_names { const struct payload *catalogue; unsigned n; };

static const char *payload_name_at(const void *ctx, size_t i)
{
	const struct catalogue_names *c = ctx;
	return i < c->n ? c->catalogue[i].name : NULL;
}

void plan_select(struct plan *p, const char *list, const struct payload *catalogue,
		 unsigned n, const struct plan_env *env)
{
	char pat[64];
	const char *s = list;
	while (*s) {
		size_t len = 0;
		while (s[len] && s[len] != ',')
			len++;
		if (len == 0 || len >= sizeof(pat)) {
			plan_error(p, env, "config", "payloads: bad item near '%s'", s);
		} else {
			memcpy(pat, s, len);
			pat[len] = 0;
			bool tests = strncmp(pat, "fault", 5) == 0, any = false;
			for (unsigned i = 0; i < n; i++) {
				const struct payload *pl = &catalogue[i];
				if (!str_glob_match(pat, pl->name))
					continue;
				if ((pl->flags & PL_FAULT) && !tests)
					continue;
				any = true;
				if (!selected(p, pl) && p->nsel < PLAN_MAX_SELECTED)
					p->sel[p->nsel++] = pl;
			}
			/* suggest a payload within 3 edits, and closer than the pattern is long */
			const struct catalogue_names names = { catalogue, n };
			const char *near = any ? NULL : str_nearest(pat, payload_name_at, &names, 3,
								    STR_NEAREST_BELOW_WORD_LEN);
			if (!any && near)
				plan_error(p, env, "config", "payloads: '%s' matches no payload "
					   "(did you mean '%s'?)", pat, near);
			else if (!any)
				plan_error(p, env, "config", "payloads: '%s' matches no payload", pat);
		}
		s += len;
		if (*s == ',')
			s++;
	}
	/* Keep catalogue order whatever order the patterns came in. */
	unsigned k = 0;
	const struct payload *sorted[PLAN_MAX_SELECTED];
	for (unsigned i = 0; i < n && k < PLAN_MAX_SELECTED; i++)
		if (selected(p, &catalogue[i]))
			sorted[k++] = &catalogue[i];
	memcpy(p->sel, sorted, k * sizeof(sorted[0]));
	p->nsel = k;
}

static bool group_add(struct plan_group *g, const struct ev_encoding *ev,
		      const struct plan_env *env)
{
	char err[160];
	unsigned width[PLAN_MAX_CTRS];
	if (g->n == PLAN_MAX_CTRS)
		return false;
	g->ev[g->n] = *ev;
	if (env->assign(g->ev, g->n + 1, width, err, sizeof(err)))
		return false;
	g->n++;
	for (unsigned i = 0; i < g->n; i++)
		g->width[i] = width[i];
	return true;
}

/* APERF/MPERF and the RAPL energy counters count without programming and are read with
 * RDMSR, which only ring 0 may execute: they are measured in the CPL 0 runs, alongside
 * the first counter group. */
static void plan_free_running(struct plan *p, const struct ev_encoding *ev,
			      const struct plan_env *env)
{
	struct pmu_slot slot;
	if (!pmu_slot_free_running(&slot, ev))
		return;
	for (unsigned i = 0; i < p->nmsr; i++)
		if (p->msr_slot[i].ctr_msr == slot.ctr_msr)
			return;                    /* named twice */
	if (p->nmsr == PLAN_MAX_MSRS) {
		plan_error(p, env, "event", "event '%s': more than %u counters read by RDMSR",
			   ev->name, PLAN_MAX_MSRS);
		return;
	}
	p->msr_slot[p->nmsr] = slot;
	p->msr_ev[p->nmsr++] = *ev;
	char msg[200];
	if (!(env->cpls & CFG_CPL0)) {
		bp_snprintf(msg, sizeof(msg), "event '%s' not measured: it is read with RDMSR, which "
			    "only CPL 0 may execute, and cpl= leaves CPL 0 out", ev->name);
		env->note("event", msg);
	} else if (env->cpls & CFG_CPL3) {
		bp_snprintf(msg, sizeof(msg), "event '%s' is measured in the CPL 0 runs only: it is "
			    "read with RDMSR, which CPL 3 may not execute", ev->name);
		env->note("event", msg);
	}
}

/* More events than counters: split into groups, each run separately. */
void plan_events(struct plan *p, const char *list, const struct plan_env *env)
{
	static char names[EV_MAX_EVENTS][EV_NAME_MAX];
	char err[192];
	int n = event_split_list(list, names, EV_MAX_EVENTS, err, sizeof(err));
	if (n < 0) {
		plan_error(p, env, "event", "events: %s", err);
		n = 0;
	}
	p->step = false;
	p->trace_only = !env->pmu_functional && env->pmu_backend && env->trace_msr;
	for (int i = 0; i < n; i++) {
		struct ev_encoding ev;
		if (env->parse(names[i], &ev, err, sizeof(err))) {
			plan_error(p, env, "event", "%s", err);
			continue;
		}
		if (ev.cls == EV_CLASS_TSC)
			continue;                  /* the harness always reads the TSC */
		if (ev.cls == EV_CLASS_APERF || ev.cls == EV_CLASS_MPERF || ev.cls == EV_CLASS_ENERGY) {
			plan_free_running(p, &ev, env);
			continue;
		}
		if (!env->pmu_functional) {
			char msg[512];
			bool step = !strcmp(names[i], "instructions") && env->single_step;
			p->step |= step;
			if (!step) {
				bp_snprintf(msg, sizeof(msg), "event '%s' not measured: no working PMU "
					    "(%s); the TSC%s measured instead%s", names[i], env->pmu_reason,
					    env->single_step ? " and single-stepped instructions are"
							     : " is",
					    p->trace_only ? " (its counter is still programmed, for "
							    "trace=msr)" : "");
				env->note("event", msg);
			}
			if (!p->trace_only)
				continue;
		}
		bool placed = false;
		for (unsigned g = 0; g < p->ngroups && !placed; g++)
			placed = group_add(&p->groups[g], &ev, env);
		if (!placed && p->ngroups < PLAN_MAX_GROUPS) {
			struct plan_group *g = &p->groups[p->ngroups];
			g->n = 0;
			placed = group_add(g, &ev, env);
			if (placed)
				p->ngroups++;
			else if (env->assign(&ev, 1, 0, err, sizeof(err)))
				plan_error(p, env, "event", "event '%s' cannot be placed on any "
					   "counter: %s", names[i], err);
		} else if (!placed) {
			plan_error(p, env, "event", "event '%s': more than %u counter groups",
				   names[i], PLAN_MAX_GROUPS);
		}
	}
	if (p->ngroups == 0)
		p->ngroups = 1;            /* one TSC-only pass */
}

unsigned plan_payload_cpls(const struct payload *pl, unsigned cpls)
{
	unsigned can = (pl->flags & PL_CPL0 ? CFG_CPL0 : 0) | (pl->flags & PL_CPL3 ? CFG_CPL3 : 0);
	return can & cpls;
}

const char *plan_cpl_skip(const struct payload *pl, unsigned cpls)
{
	if (plan_payload_cpls(pl, cpls))
		return 0;
	return pl->flags & PL_CPL0 ? "runs only at CPL 0, and cpl= leaves CPL 0 out"
				   : "runs only at CPL 3, and cpl= leaves CPL 3 out";
}
