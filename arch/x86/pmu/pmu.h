/*
 * One interface for every PMU generation, and the only PMU header kernel/ includes.
 *
 * A generation is a descriptor, struct pmu_backend: what is data (MSR bases and strides,
 * counter counts and widths, reserved select bits, the perf generic-event map, the MSRs
 * trace=msr names) plus a few hooks (probe, which counters an event may use, program,
 * start, stop). One shared routine assigns counters for every event-select generation;
 * NetBurst brings its own ESCR/CCCR allocator. docs/adding-a-pmu.md is the recipe.
 *
 * A backend allocates counters for encoded events (no hardware touched), then programs,
 * starts, stops and reads them through the msr_io it was given: the kernel passes real
 * RDMSR/WRMSR with fault fixup (and the trace=msr printer), the host tests pass an MSR
 * model built from the manuals. A backend never prints.
 */
#ifndef ARCH_X86_PMU_PMU_H
#define ARCH_X86_PMU_PMU_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "arch/x86/msr-io.h"
#include "lib/cpuinfo.h"
#include "lib/event.h"

enum pmu_slot_type {
	SLOT_GP,        /* a counter with its own control register(s): event select, or CCCR+ESCR */
	SLOT_FIXED,     /* Intel fixed-function counter */
	SLOT_TSC, SLOT_APERF, SLOT_MPERF,   /* free-running, read by RDMSR, never written */
	SLOT_ENERGY,    /* a RAPL energy status MSR: free-running, 32 bits */
};

/* Where one event landed. */
struct pmu_slot {
	enum pmu_slot_type type;
	unsigned index;             /* GP/fixed counter number; NetBurst counter 0-17 */
	uint32_t ctr_msr;           /* counter MSR (read/reset) */
	uint32_t ctl_msr;           /* event select / CCCR; 0 for fixed, TSC, APERF/MPERF */
	uint64_t ctl_value;         /* value written to ctl_msr with the counter enabled */
	uint32_t extra_msr;         /* the event's second register (NetBurst: its ESCR); 0 = none */
	uint64_t extra_value;       /* written to extra_msr before ctl_msr */
	uint32_t rdpmc_index;       /* ECX for RDPMC (fixed: bit 30 set); ~0u when none */
	unsigned width;             /* counter width in bits */
	/* Overflow handling (pmu_arm_overflow); all 0 for a counter that is not armed. */
	uint64_t period;            /* events from the preset to the overflow */
	uint64_t start;             /* what the counter is preset to: 2^width - period */
	uint64_t banked;            /* events of the periods completed (pmu_overflow_bank) */
	uint64_t overflows;         /* overflows handled */
};

#define PMU_MAX_GP      8
#define PMU_MAX_FIXED   4
#define PMU_MAX_SLOTS   EV_MAX_EVENTS

struct pmu_state {
	const struct pmu_backend *be;
	struct pmu_caps caps;
	struct msr_io io;
	unsigned logical_cpu;       /* SMT thread running the payloads (NetBurst T0/T1: 0 or 1) */
	bool full_width_writes;     /* Intel IA32_PERF_CAPABILITIES[13] */
	unsigned nslots;
	struct pmu_slot slot[PMU_MAX_SLOTS];
	uint32_t extra_dirty;       /* bit i: the descriptor's extra_msrs[i] was written since
	                               the last disable_all, which clears it */
	uint64_t last_fault;        /* vector of the last failed access, for diagnostics */
	/* Set by the kernel only once its PMI handler is installed (kernel/sample.c): without
	 * it no interrupt bit is ever set (pmu_arm_overflow refuses). */
	bool pmi_handler_installed;
};

/* Candidate sets of the shared assignment: GP counter i is bit i, fixed counter j is
 * bit PMU_CAND_FIXED_SHIFT + j. Fixed candidates are tried first. */
#define PMU_CAND_FIXED_SHIFT 16
#define PMU_CAND_GP(i)       (1u << (i))
#define PMU_CAND_FIXED(j)    (1u << (PMU_CAND_FIXED_SHIFT + (j)))
#define PMU_CAND_GP_MASK     ((1u << PMU_CAND_FIXED_SHIFT) - 1)

/* One register (or a run of them) trace=msr can name, and how to decode its value. */
enum pmu_msr_decoder { DEC_NONE, DEC_INTEL_EVTSEL, DEC_FIXED_CTRL, DEC_INTEL_GLOBAL, DEC_PERF_CAP,
		       DEC_AMD_EVTSEL, DEC_AMD_GLOBAL };
struct pmu_msr_name {
	uint32_t first;
	uint8_t count, stride;      /* count MSRs first, first + stride, ...; name gets the index */
	const char *name;
	enum pmu_msr_decoder dec;
};

struct pmu_backend {
	enum pmu_kind kind;             /* its name is pmu_kind_name(kind) */

	/* ---- data (event-select generations; NetBurst describes its block in its tables) */
	uint32_t ctl_base, ctr_base;    /* event select and counter MSR of counter 0 */
	uint8_t ctl_stride, ctr_stride; /* MSR distance from one counter's register to the next */
	uint32_t ctr_base_full_width;   /* full-width counter aliases (Intel IA32_A_PMCx); 0 = none */
	uint32_t fixed_ctr_base;        /* fixed counter 0 (Intel); 0 = none */
	unsigned max_gp;                /* GP counters the generation can have */
	unsigned width;                 /* counter width when CPUID gives none */
	uint64_t evtsel_reserved;       /* event-select bits that must be 0 */
	/* The MSR of each second register (enum ev_extra_reg) of events such as offcore
	 * response; NULL, or 0 in a row: the generation has none. */
	const uint32_t *extra_msrs;
	/* perf generic names: rows tried in order, the first whose model_prefix matches the
	 * libpfm4 model (NULL matches any) wins; ends with an all-zero row. */
	const struct ev_generic_map *generic;
	/* trace=msr: the registers this generation writes, n_msr_names of them. */
	const struct pmu_msr_name *msr_names;
	unsigned n_msr_names;
	bool trace_last;                /* its MSR numbers mean other things elsewhere (NetBurst
	                                   0x300-0x311): named only when it is the PMU traced
	                                   or no other generation knows the number */

	/* ---- hooks */
	/* Check capabilities, read anything needed once (PERF_CAPABILITIES). 0 or -1. */
	int (*probe)(struct pmu_state *st, char *err, size_t errlen);
	/* Event-select generations: the counters event e may use (PMU_CAND_* bits), after
	 * checking its select bits; 0 with err when it can use none or is invalid. */
	uint32_t (*candidates)(const struct pmu_state *st, const struct ev_encoding *e,
			       char *err, size_t errlen);
	/* Event-select generations, optional: adjust slot s that the shared assignment
	 * filled for a GP counter (or, with a fixed candidate, fill it). */
	void (*fill_slot)(const struct pmu_state *st, const struct ev_encoding *e, unsigned cand_bit,
			  struct pmu_slot *s);
	/* Allocate counters for n events; fills st->slot[], st->nslots. No MSR writes.
	 * -1 with err naming the conflicting events when they cannot all be placed.
	 * pmu_assign_shared for every event-select generation. */
	int (*assign)(struct pmu_state *st, const struct ev_encoding *ev, unsigned n,
		      char *err, size_t errlen);
	/* Write event selects with counting disabled, zero the counters. */
	int (*program)(struct pmu_state *st);
	int (*start)(struct pmu_state *st);
	int (*stop)(struct pmu_state *st);
	/* Read slot i's counter, 64-bit (caller handles wrap by width). */
	int (*read)(struct pmu_state *st, unsigned i, uint64_t *val);
	int (*reset)(struct pmu_state *st);
	/* Disable every counter of this generation, whatever was assigned. */
	int (*disable_all)(struct pmu_state *st);
	/* Counter overflow (docs/adding-a-pmu.md, "Overflow"). Slot masks have bit i for
	 * st->slot[i]. Set the slot's interrupt-on-overflow bit in its control value (GP
	 * select INT, fixed PMI, NetBurst CCCR OVF_PMI_Tn), before program. */
	void (*enable_pmi)(const struct pmu_state *st, struct pmu_slot *s);
	/* Which armed slots overflowed: the generation's status register, or (none) the
	 * counter's top bit clear after a negative preset. 0 or -1. */
	int (*overflowed)(struct pmu_state *st, uint32_t *mask);
	/* Clear the overflow status of the slots in mask; NULL where the generation has no
	 * status to clear (the counter's preset, pmu_overflow_bank, clears its top bit). */
	int (*ack)(struct pmu_state *st, uint32_t mask);
	/* Counter writes take bits 31:0 sign-extended (IA32_PMCx, P6 PERFCTRx), so a preset
	 * can be at most 2^31 below the wrap; full-width aliases lift that (SDM 20.2.6). */
	bool ctr_write_sext32;
	/* trace=msr decoding of registers msr_names cannot describe; -1 when not its MSR. */
	int (*describe)(uint32_t msr, uint64_t val, char *buf, size_t len);
};

/* The backend for a kind, or NULL for PMU_NONE. */
const struct pmu_backend *pmu_backend_for(enum pmu_kind kind);

/* The generic-event map of backend be for libpfm4 model m (NULL when be has none). */
const struct ev_generic_map *pmu_generic_map(const struct pmu_backend *be,
					     const struct pmu_model *m);

/* The same for the generation of m's own kind (pmu_backend_for(m->kind)). */
const struct ev_generic_map *pmu_generic_map_for_model(const struct pmu_model *m);

/* Difference of two raw reads of a counter of the given width, wrap handled. */
static inline uint64_t pmu_delta(uint64_t before, uint64_t after, unsigned width)
{
	uint64_t mask = width >= 64 ? ~0ull : ((1ull << width) - 1);
	return (after - before) & mask;
}

/*
 * Counter overflow, for every generation through the hooks above.
 *
 * pmu_arm_overflow(st, i, period): after assign, before program: slot i interrupts on
 * overflow and is preset to 2^width - period by program and reset, so it overflows every
 * period events. Period 0 asks for the largest the counter takes (pmu_max_period):
 * counting wider than the hardware. Refused (-1 with err) unless the kernel set
 * st->pmi_handler_installed, for free-running slots, or for a period out of range.
 *
 * In the PMI handler: be->overflowed(st, &mask), then pmu_overflow_bank(st, mask) (bank
 * each slot's count, preset it again), then be->ack (when not NULL). pmu_read_wide gives
 * the 64-bit count since program: banked periods plus the counter's distance from its
 * preset, right also when the counter wrapped and the PMI has not been handled yet.
 */
uint64_t pmu_max_period(const struct pmu_state *st, unsigned i);
int pmu_arm_overflow(struct pmu_state *st, unsigned i, uint64_t period, char *err, size_t errlen);
int pmu_overflow_bank(struct pmu_state *st, uint32_t mask);
int pmu_read_wide(struct pmu_state *st, unsigned i, uint64_t *val);

/* Fill a slot for EV_CLASS_TSC/APERF/MPERF/ENERGY (read by RDMSR, never written).
 * Returns false for any other class. */
bool pmu_slot_free_running(struct pmu_slot *s, const struct ev_encoding *e);

/* RAPL (arch/x86/pmu/rapl-probe.c): read the power-unit MSR and each domain's energy status
 * MSR once, through io (faults caught), and record in rc what exists and its units.
 * rc->vendor comes from CPUID (cpuinfo_decode); nothing is read when it is NONE. */
void rapl_probe(const struct msr_io *io, struct rapl_caps *rc);
/* The energy status MSR of domain d (0 when the vendor has none). */
uint32_t rapl_status_msr(enum rapl_domain d, bool amd);

/* Name and decoded fields of a PMU MSR write, for trace=msr:
 * "IQ_CCCR0 0x360 <- 0x0003d000 enable esel=6 active=any". Pure table lookup. The
 * registers of the given kind's generation win where generations share MSR numbers
 * (NetBurst's counters 0x300-0x311 are IA32_FIXED_CTRx elsewhere); PMU_NONE prefers the
 * architectural meaning. */
int pmu_msr_describe_kind(enum pmu_kind kind, uint32_t msr, uint64_t val, char *buf, size_t len);
int pmu_msr_describe(uint32_t msr, uint64_t val, char *buf, size_t len);

#endif
