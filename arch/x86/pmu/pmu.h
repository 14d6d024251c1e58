/*
 * One interface for every PMU generation. A backend allocates counters for encoded
 * events (no hardware touched), then programs, starts, stops and reads them through
 * the msr_io it was given: the kernel passes real RDMSR/WRMSR with fault fixup (and
 * the trace=msr printer), the host tests pass an MSR model built from the manuals.
 * A backend never prints.
 */
#ifndef ARCH_X86_PMU_PMU_H
#define ARCH_X86_PMU_PMU_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "lib/cpuinfo.h"
#include "lib/event.h"

/* MSR access: return 0, or the exception vector that fired (13 = #GP). */
struct msr_io {
	int (*read)(void *ctx, uint32_t msr, uint64_t *val);
	int (*write)(void *ctx, uint32_t msr, uint64_t val);
	void *ctx;
};

enum pmu_slot_type { SLOT_GP, SLOT_FIXED, SLOT_NETBURST, SLOT_TSC, SLOT_APERF, SLOT_MPERF };

/* Where one event landed. */
struct pmu_slot {
	enum pmu_slot_type type;
	unsigned index;             /* GP/fixed counter number; NetBurst counter 0-17 */
	uint32_t ctr_msr;           /* counter MSR (read/reset) */
	uint32_t ctl_msr;           /* event select / CCCR; 0 for fixed, TSC, APERF/MPERF */
	uint32_t escr_msr;          /* NetBurst only */
	uint64_t ctl_value;         /* value written to ctl_msr (CCCR: with ESCR select) */
	uint64_t escr_value;        /* NetBurst only: with T0/T1 bits for the chosen LP */
	uint32_t rdpmc_index;       /* ECX for RDPMC (fixed: bit 30 set); ~0u when none */
	unsigned width;             /* counter width in bits */
};

#define PMU_MAX_GP      8
#define PMU_MAX_FIXED   4
#define PMU_MAX_SLOTS   EV_MAX_EVENTS

struct pmu_state {
	const struct pmu_backend *be;
	struct pmu_caps caps;
	struct msr_io io;
	unsigned logical_cpu;       /* NetBurst: 0 = T0, 1 = T1, for the ESCR privilege bits */
	bool full_width_writes;     /* Intel IA32_PERF_CAPABILITIES[13] */
	unsigned nslots;
	struct pmu_slot slot[PMU_MAX_SLOTS];
	uint64_t last_fault;        /* vector of the last failed access, for diagnostics */
};

struct pmu_backend {
	const char *name;           /* "intel-arch", ... same names as pmu_kind_name() */
	enum pmu_kind kind;
	/* Check capabilities, read anything needed once (PERF_CAPABILITIES). 0 or -1. */
	int (*probe)(struct pmu_state *st, char *err, size_t errlen);
	/* Allocate counters for n events; fills st->slot[], st->nslots. No MSR writes.
	 * -1 with err naming the conflicting events when they cannot all be placed. */
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
};

/* The backend for a kind, or NULL for PMU_NONE. */
const struct pmu_backend *pmu_backend_for(enum pmu_kind kind);
/* Difference of two raw reads of a counter of the given width, wrap handled. */
static inline uint64_t pmu_delta(uint64_t before, uint64_t after, unsigned width)
{
	uint64_t mask = width >= 64 ? ~0ull : ((1ull << width) - 1);
	return (after - before) & mask;
}

/* Name and decoded fields of a PMU MSR write, for trace=msr:
 * "IQ_CCCR0 0x360 <- 0x0003d000 enable esel=6 active=any". Pure table lookup. */
int pmu_msr_describe(uint32_t msr, uint64_t val, char *buf, size_t len);

#endif
