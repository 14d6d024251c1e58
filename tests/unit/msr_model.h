/*
 * Host-side model of a CPU's PMU MSRs, built from the manuals: which MSRs exist for a
 * PMU generation, which bits are reserved (a write with one set would #GP on hardware),
 * which are read-only. Backends run their program/start/stop/read sequences against it.
 */
#ifndef TESTS_MSR_MODEL_H
#define TESTS_MSR_MODEL_H
#include <stdbool.h>
#include <stdint.h>
#include "arch/x86/pmu/pmu.h"

struct msr_def {
	uint32_t msr;
	uint64_t reserved;      /* bits that must be written as 0 (#GP otherwise) */
	bool read_only;         /* any write #GPs */
	const char *name;
};

#define MSR_MODEL_MAX     160
#define MSR_MODEL_LOG_MAX 512

struct msr_model_write { uint32_t msr; uint64_t val; };

struct msr_model {
	enum pmu_kind kind;
	unsigned ndefs;
	struct msr_def defs[MSR_MODEL_MAX];
	uint64_t value[MSR_MODEL_MAX];
	unsigned nlog;                          /* accepted writes, in order */
	struct msr_model_write log[MSR_MODEL_LOG_MAX];
	unsigned faults;                        /* accesses that would have #GPed */
	char first_fault[160];                  /* description of the first one */
};

/* Build the model for a PMU generation with the given capabilities (counter counts,
 * widths, version). Counters behave as registers: a write stores the value truncated
 * to the counter width (Intel legacy PMCx writes sign-extend bit 31 unless through
 * IA32_A_PMCx), reads return it. */
void msr_model_init(struct msr_model *m, enum pmu_kind kind, const struct pmu_caps *pc);
struct msr_io msr_model_io(struct msr_model *m);
/* Value of an MSR in the model (0 if it does not exist). */
uint64_t msr_model_get(const struct msr_model *m, uint32_t msr);
/* Set a counter as the hardware would have advanced it. */
void msr_model_set(struct msr_model *m, uint32_t msr, uint64_t val);

/* Provided by the NetBurst part of the model (msr_model_netburst.c). */
unsigned msr_model_netburst_defs(struct msr_def *out, unsigned max);

#endif
