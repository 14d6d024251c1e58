/*
 * What the generations' descriptor files share, private to arch/x86/pmu/: the counter
 * matcher, the one
 * assignment routine of the event-select generations, and checked MSR access.
 * kernel/ and everything outside arch/x86/pmu/ use pmu.h only.
 */
#ifndef ARCH_X86_PMU_CORE_H
#define ARCH_X86_PMU_CORE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "arch/x86/pmu/pmu.h"
#include "lib/util.h"

/* Bipartite matching of rows (events) onto columns (counters, or NetBurst's ESCRs) by
 * Kuhn's augmenting paths, so any set that can be placed is placed. Row r takes a free
 * column of adj[r] when there is one, the first in order[]; only when none is free are
 * earlier rows moved along an augmenting path (columns tried in the same order). A row
 * with adj[r] == 0 needs no column. */
#define PMU_MATCH_MAX   64              /* rows, and columns (bits of adj) */
struct pmu_match {
	unsigned nrows;
	const uint64_t *adj;            /* adj[r]: the columns row r may take */
	const uint8_t *order;           /* columns in order of preference, norder of them;
	                                   NULL: 0, 1, ... 63 */
	unsigned norder;
	int *col;                       /* out: col[r], row r's column or -1 */
	/* out, on failure: the Hall violator, rows that together can take only the columns
	 * in hall_cols, which are fewer than they are */
	uint64_t hall_rows, hall_cols;
};
/* -1 when every row with columns got one; else the first row that found none, with the
 * rows and columns its search visited in hall_rows/hall_cols. */
int pmu_match(struct pmu_match *m);

/* The assignment of every event-select generation: checks each event's class, asks the
 * descriptor's candidates() where it may go, matches, and fills GP slots from the
 * descriptor's MSR bases and strides (then its fill_slot, if any). */
int pmu_assign_shared(struct pmu_state *st, const struct ev_encoding *ev, unsigned n,
		      char *err, size_t errlen);
/* GP counters usable here: CPUID's count (or the generation's when CPUID gives none),
 * at most the descriptor's max_gp. */
unsigned pmu_gp_count(const struct pmu_state *st);
/* candidates() for generations without fixed counters: the select's reserved bits
 * (descriptor evtsel_reserved) checked, the event's gp_mask within the GP counters. */
uint32_t pmu_gp_candidates(const struct pmu_state *st, const struct ev_encoding *e,
			   char *err, size_t errlen);

/* Reject classes an event-select backend cannot count; 0 or -1 with err. */
int pmu_check_class(const char *pmu_name, const struct ev_encoding *e,
		    char *err, size_t errlen);

/* Checked access through st->io: on a fault remember the vector in st->last_fault. */
int pmu_wrmsr(struct pmu_state *st, uint32_t msr, uint64_t val);
int pmu_rdmsr(struct pmu_state *st, uint32_t msr, uint64_t *val);

/* Write each GP slot's select with EN (bit 22 in the Intel, P6 and AMD layouts alike) set
 * or clear: the only on/off switch where there is no global control. 0 or -1. */
int pmu_write_gp_enables(struct pmu_state *st, bool enable);
/* Zero the counter of every GP and fixed slot (an armed one: its preset, and its banked
 * count). 0 or -1. */
int pmu_zero_counters(struct pmu_state *st);

/* Writes to IA32_PMCx and P6 PERFCTRx sign-extend bit 31 (SDM Vol. 3B 20.2.6, 21.6.x):
 * a preset 2^width - period needs bit 31 set, so the period is at most 2^31. */
#define PMU_SEXT32_MAX_PERIOD (1ull << 31)

/* enable_pmi for event-select generations: INT (bit 20) in a GP select, PMI in a fixed
 * counter's FIXED_CTR_CTRL field (SDM Figure 20-8). */
void pmu_enable_pmi_evtsel(const struct pmu_state *st, struct pmu_slot *s);
/* overflowed for generations without an overflow status (P6, Intel v1, AMD before
 * PerfMonV2): an armed counter whose top bit is clear has passed its negative preset. */
int pmu_overflowed_sign(struct pmu_state *st, uint32_t *mask);

/* Read slot i: RDMSR of its counter MSR; -1 for an out-of-range slot. */
int pmu_read_slot(struct pmu_state *st, unsigned i, uint64_t *val);

#endif
