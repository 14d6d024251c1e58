/*
 * What the pmucheck checks share, private to arch/x86/pmu/pmucheck-*.c: the check
 * context, the counters ("units") they pin events to, the verdict helpers and the
 * measuring primitives. pmucheck-suite.c holds these and the table, pmucheck-checks.c
 * the checks every generation runs, pmucheck-vendor.c NetBurst's and AMD's own.
 */
#ifndef ARCH_X86_PMU_CONFORMANCE_PRIV_H
#define ARCH_X86_PMU_CONFORMANCE_PRIV_H
#include <stdbool.h>
#include <stdint.h>
#include "arch/x86/pmu/pmucheck-suite.h"

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

struct pmucheck_ctx {
	struct pmu_state *st;
	const struct pmucheck_env *env;
	struct pmucheck_result *r;
	bool brief;
	unsigned nunits;
	struct unit unit[PMUCHECK_MAX_UNITS];
	/* Optional steps of pc_one_run, set by a check around its pc_measure() calls. */
	int (*after_program)(struct pmucheck_ctx *c);
	int (*after_start)(struct pmucheck_ctx *c);
	uint64_t preset;        /* after_program presets slot 0's counter to this */
	uint64_t preset_read;   /* and reads it back into this */
	int ovf;                /* with a preset: slot 0's overflow flag before the stop
	                           (NetBurst's stop rewrites the CCCR, OVF included) */
};

/* ---- verdicts: the first pc_fail wins; text is appended to the result's fields */
void pc_measured(struct pmucheck_ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void pc_rule(struct pmucheck_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void pc_fail(struct pmucheck_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void pc_skip(struct pmucheck_ctx *c, const char *why);
/* Fails with "what faulted (vector N)" from st->last_fault; returns -1. */
int pc_fault_text(struct pmucheck_ctx *c, const char *what);
/* SKIPs (false) when the environment has no encoding of event e. */
bool pc_need_event(struct pmucheck_ctx *c, enum pmucheck_event e, const char *name);

/* ---- numbers */
uint64_t pc_slack(uint64_t want);                     /* the allowed error, see pmucheck-suite.c */
bool pc_near(uint64_t got, uint64_t want);            /* |got - want| <= pc_slack(want) */
uint64_t pc_width_mask(unsigned width);
/* The instructions N iterations of p retire. */
uint64_t pc_expected(const struct pmucheck_ctx *c, enum pmucheck_payload p);
enum pmu_kind pc_kind(const struct pmucheck_ctx *c);
bool pc_has_global_control(const struct pmucheck_ctx *c);       /* Intel v2+, AMD PerfMonV2 */
/* Slot 0's overflow flag: 1 set, 0 clear, -1 the generation has none. */
int pc_overflow_flag(struct pmucheck_ctx *c);

/* ---- events */
/* Event e pinned to unit u (NULL: anywhere), counting at the rings asked. */
struct ev_encoding pc_pinned(const struct pmucheck_ctx *c, enum pmucheck_event e,
			     const struct unit *u, bool usr, bool os);
/* Counter mask 1, inverted or with edge detect (NetBurst: CCCR compare, threshold 0). */
void pc_threshold_one(struct ev_encoding *ev, bool inv, bool edge);

/* ---- measuring: 0, or -1 after pc_fail */
int pc_place(struct pmucheck_ctx *c, const struct ev_encoding *ev, unsigned nev);
/* One run of p with what pc_place assigned: program, preset, start, run, stop, read. */
int pc_one_run(struct pmucheck_ctx *c, enum pmucheck_payload p, unsigned cpl, uint64_t n,
	       uint64_t *val);
/* delta[k]: what N iterations of p add to event k, count(2N) - count(N). */
int pc_measure(struct pmucheck_ctx *c, const struct ev_encoding *ev, unsigned nev,
	       enum pmucheck_payload p, unsigned cpl, uint64_t *delta);
bool pc_measure_one(struct pmucheck_ctx *c, const struct ev_encoding *ev, enum pmucheck_payload p,
		    unsigned cpl, uint64_t *delta);

/* ---- the checks, rows of the table in pmucheck-suite.c */
void pc_check_instructions(struct pmucheck_ctx *c);
void pc_check_privilege(struct pmucheck_ctx *c);
void pc_check_enable(struct pmucheck_ctx *c);
void pc_check_global_enable(struct pmucheck_ctx *c);
void pc_check_cmask_inv(struct pmucheck_ctx *c);
void pc_check_edge(struct pmucheck_ctx *c);
void pc_check_width(struct pmucheck_ctx *c);
void pc_check_rdpmc(struct pmucheck_ctx *c);
void pc_check_nb_thread(struct pmucheck_ctx *c);
void pc_check_nb_cascade(struct pmucheck_ctx *c);
void pc_check_amd_alias(struct pmucheck_ctx *c);

#endif
