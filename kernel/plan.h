/*
 * The measurement plan: which payloads a payloads= list selects, at which CPLs each runs,
 * and how the events= list is split into counter groups. Pure: everything it needs comes
 * in through struct plan_env (configuration, PMU callbacks, where messages go), so it
 * builds and is tested on the host too.
 */
#ifndef KERNEL_PLAN_H
#define KERNEL_PLAN_H
#include <stdbool.h>
#include <stddef.h>
#include "arch/x86/pmu/pmu.h"
#include "lib/event.h"
#include "payloads/payload.h"

#define PLAN_MAX_GROUPS    8
#define PLAN_MAX_SELECTED  64
#define PLAN_MAX_CTRS      8       /* RDPMC counters the harness reads per run */
#define PLAN_MAX_MSRS      8       /* free-running MSRs the harness reads by RDMSR */

struct plan_env {
	unsigned cpls;              /* CFG_CPL0 | CFG_CPL3 as configured */
	bool single_step;           /* insn_count=step: count instructions by the trap flag */
	bool trace_msr;             /* trace=msr */
	bool pmu_functional;        /* the boot self-check saw the counters count */
	bool pmu_backend;           /* a backend exists that can program counters */
	const char *pmu_reason;     /* why not functional */
	/* Encode one event name. 0, or -1 with a message in err. */
	int (*parse)(const char *text, struct ev_encoding *ev, char *err, size_t errlen);
	/* Place n events on counters at once; on success width[i] (when width is set) is the
	 * width in bits of event i's counter. 0, or -1 with a message in err. */
	int (*assign)(const struct ev_encoding *ev, unsigned n, unsigned *width, char *err,
		      size_t errlen);
	void (*error)(const char *context, const char *msg);
	void (*note)(const char *context, const char *msg);
};

struct plan_group {
	unsigned n;
	struct ev_encoding ev[PLAN_MAX_CTRS];
	unsigned width[PLAN_MAX_CTRS];
};

struct plan {
	const struct payload *sel[PLAN_MAX_SELECTED];   /* in catalogue order */
	unsigned nsel;
	struct plan_group groups[PLAN_MAX_GROUPS];      /* at least one once events are planned */
	unsigned ngroups;
	bool step;                      /* count instructions by single-stepping */
	struct ev_encoding msr_ev[PLAN_MAX_MSRS];       /* aperf, mperf, energy-*: RDMSR at CPL 0 */
	struct pmu_slot msr_slot[PLAN_MAX_MSRS];
	unsigned nmsr;
	bool trace_only;                /* no working PMU, but program the groups for trace=msr */
	unsigned errors;                /* errors reported through env->error */
};

void plan_init(struct plan *p);

/* payloads= : a comma list of names and globs over catalogue[0..n). Globs leave out the
 * test payloads (PL_FAULT) unless the pattern starts with "fault". A pattern matching
 * nothing is an error naming the nearest payload. */
void plan_select(struct plan *p, const char *list, const struct payload *catalogue,
		 unsigned n, const struct plan_env *env);

/* events= : encode each event and place it in the first counter group it fits with,
 * opening a new group when it fits in none. TSC is always read; APERF/MPERF are read by
 * RDMSR. Without a working PMU, instructions are single-stepped when configured. */
void plan_events(struct plan *p, const char *list, const struct plan_env *env);

/* The CPLs (CFG_CPL* bits) this payload runs at under the configured cpls. */
unsigned plan_payload_cpls(const struct payload *pl, unsigned cpls);
/* Why the configured cpls leave this payload nothing to run, or NULL. */
const char *plan_cpl_skip(const struct payload *pl, unsigned cpls);

#endif
