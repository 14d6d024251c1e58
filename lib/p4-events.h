/*
 * The NetBurst (Pentium 4 / Xeon, family 15) event language: the ESCR/counter tables,
 * the event table with libpfm4's names (p4-event-table.c), and the parsers of
 * "netburst::event:umask:mod" and "p4/escr=,cccr=/" (p4-event-parse.c). Pure data and
 * text, no MSR access; the backend in arch/x86/pmu/ programs what these produce.
 * SDM Vol. 3B 18.18 (Pentium 4 performance monitoring), 18.19 (HT), Tables 18-xx
 * (ESCR/CCCR/counter MSR addresses, event bindings). Field macros live in p4-regs.h.
 */
#ifndef LIB_P4_EVENTS_H
#define LIB_P4_EVENTS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "lib/cpuinfo.h"
#include "lib/event.h"

/* Parse the part after "netburst::" (libpfm4 event name, umasks, modifiers u k cmpl
 * e thr=N t=0|1, also in "=value" forms), e.g. "global_power_events:RUNNING:cmpl:thr=8:u".
 * Fills out->cls = EV_CLASS_NETBURST and the nb_* fields. 0 or -1 with err.
 * u, k, cmpl, e, thr encode as libpfm4 does; t (ours, not libpfm4's) sets
 * nb_both_threads: count the event for both logical processors. */
int netburst_event_parse(const char *text, const struct pmu_caps *pc,
			 struct ev_encoding *out, char *err, size_t errlen);

/* Raw form "p4/escr=0x...,cccr=0x.../" (body given without "p4/" and the final '/').
 * Validates reserved bits and that the ESCR event select exists. */
int netburst_event_parse_raw(const char *body, const struct pmu_caps *pc,
			     struct ev_encoding *out, char *err, size_t errlen);

/* Name of NetBurst event-table entry i ("global_power_events"), NULL past the end. */
const char *netburst_event_name(unsigned i);

/* ---- Tables (p4-event-table.c), shared by the parser, the backend and the tests. */

/* The 45 ESCRs, in MSR order. */
enum p4_escr {
	P4_ESCR_BSU0, P4_ESCR_BSU1, P4_ESCR_FSB0, P4_ESCR_FSB1, P4_ESCR_FIRM0, P4_ESCR_FIRM1,
	P4_ESCR_FLAME0, P4_ESCR_FLAME1, P4_ESCR_DAC0, P4_ESCR_DAC1, P4_ESCR_MOB0, P4_ESCR_MOB1,
	P4_ESCR_PMH0, P4_ESCR_PMH1, P4_ESCR_SAAT0, P4_ESCR_SAAT1, P4_ESCR_U2L0, P4_ESCR_U2L1,
	P4_ESCR_BPU0, P4_ESCR_BPU1, P4_ESCR_IS0, P4_ESCR_IS1, P4_ESCR_ITLB0, P4_ESCR_ITLB1,
	P4_ESCR_CRU0, P4_ESCR_CRU1, P4_ESCR_IQ0, P4_ESCR_IQ1, P4_ESCR_RAT0, P4_ESCR_RAT1,
	P4_ESCR_SSU0, P4_ESCR_MS0, P4_ESCR_MS1, P4_ESCR_TBPU0, P4_ESCR_TBPU1, P4_ESCR_TC0,
	P4_ESCR_TC1, P4_ESCR_IX0, P4_ESCR_IX1, P4_ESCR_ALF0, P4_ESCR_ALF1, P4_ESCR_CRU2,
	P4_ESCR_CRU3, P4_ESCR_CRU4, P4_ESCR_CRU5,
	P4_ESCR_COUNT
};

enum p4_group { P4_GROUP_BPU, P4_GROUP_MS, P4_GROUP_FLAME, P4_GROUP_IQ, P4_GROUP_COUNT };

struct p4_escr_info {
	const char *name;           /* "FSB_ESCR0" (the SDM's MSR_FSB_ESCR0 without MSR_) */
	uint32_t msr;
	enum p4_group group;
	uint8_t ncounters;          /* 2, or 3 in the IQ group */
	uint8_t counter[3];         /* counter numbers 0-17 this ESCR can feed */
	uint8_t escr_select;        /* the CCCR ESCR-select value (bits 15:13) that names this
	                               ESCR on each of those counters (Table 18-26) */
	bool early_models_only;     /* IQ_ESCR0/1: family 15 models 0-2 only */
};
extern const struct p4_escr_info p4_escr_table[P4_ESCR_COUNT];

struct p4_group_info {
	const char *name;           /* "BPU" */
	uint8_t first, count;       /* counters first .. first+count-1 */
};
extern const struct p4_group_info p4_group_table[P4_GROUP_COUNT];

/* Counter n's name: "BPU_COUNTER0" .. "IQ_COUNTER5"; CCCRs share the numbering. */
extern const char *const p4_counter_name[18];
extern const char *const p4_cccr_name[18];

#define NB_MAX_UMASKS   16
#define NB_TAG_BIT0     16          /* umask bits 16-19 are ESCR tag-value bits 0-3 */

struct nb_umask {
	const char *name;           /* libpfm4's name ("RUNNING") */
	uint8_t bit;                /* 0-15: event-mask bit; 16-19: tag value bit (bit-16) */
	bool dfl;                   /* the default when no umask is given */
};

struct nb_event {
	const char *name;           /* libpfm4's name */
	uint8_t event_select;       /* ESCR bits 30:25 */
	uint8_t escr_select;        /* CCCR bits 15:13 */
	uint8_t nescrs;             /* 1 or 2 */
	uint8_t escr[2];            /* enum p4_escr */
	uint16_t virtual_mask;      /* umask bits not written to the ESCR (replay_event) */
	bool prescott_only;         /* models 3, 4, 6 (libpfm4 netburst_p) */
	uint8_t numasks;
	struct nb_umask umask[NB_MAX_UMASKS];
};
extern const struct nb_event nb_event_table[];
extern const unsigned nb_event_count;

/* Index of the ESCR at msr, or -1. */
int p4_escr_by_msr(uint32_t msr);

/* Which logical processor of its core (0: T0, 1: T1) the CPU with initial APIC ID apic_id
 * is: the SMT field of the ID, as wide as threads_per_core needs (SDM Vol. 3A 10.9.1).
 * Only that field: on a dual-core part the core bit above it is no thread. */
unsigned netburst_thread_of(uint32_t apic_id, unsigned threads_per_core);

/* The ESCR value for logical processor lp (0 or 1), or for both when both is set:
 * escr's thread bits replaced by the OS/USR bits of the chosen thread(s). On a part
 * without HT only the T0 bits exist (T1 bits are reserved there). */
uint32_t netburst_escr_for_thread(uint32_t escr, bool usr, bool os, unsigned lp, bool both,
				  bool ht);

#endif
