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

/* How a write lands in a counter (width > 0): WRITE_PLAIN keeps the low width bits,
 * WRITE_SEXT32 takes bits 31:0 and sign-extends bit 31 up to the width (IA32_PMCx, P6). */
enum msr_write_mode { MSR_WRITE_PLAIN = 0, MSR_WRITE_SEXT32 };
/* What a register is, so msr_model_advance knows which counters count. */
enum msr_role { MSR_ROLE_NONE = 0, MSR_ROLE_EVTSEL, MSR_ROLE_GP_CTR, MSR_ROLE_FIXED_CTR };

struct msr_def {
	uint32_t msr;
	uint64_t reserved;      /* bits that must be written as 0 (#GP otherwise) */
	bool read_only;         /* any write #GPs */
	const char *name;
	/* Optional (zero = plain register): */
	uint8_t width;          /* counter width; writes and msr_model_set keep these bits */
	uint8_t write_mode;     /* enum msr_write_mode */
	uint8_t role;           /* enum msr_role */
	uint8_t index;          /* counter number for role */
	uint32_t alias_of;      /* shares its value with this MSR (IA32_A_PMCx -> IA32_PMCx) */
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
 * IA32_A_PMCx), reads return it. Every model also has IA32_TSC; intel-arch, amd-core
 * and amd-perfmon-v2 have IA32_APERF/MPERF. Defaults for what caps do not say:
 * intel-arch has IA32_PERF_CAPABILITIES from v2 on (PDCM) without full-width writes;
 * amd-legacy is K7/K8 (event-select bits 63:32 reserved). */
void msr_model_init(struct msr_model *m, enum pmu_kind kind, const struct pmu_caps *pc);

/* What CPUID facts outside struct pmu_caps the model needs. */
struct msr_model_opts {
	bool pdcm;              /* intel-arch: CPUID.1:ECX[15], IA32_PERF_CAPABILITIES exists */
	bool full_width;        /* intel-arch: PERF_CAPABILITIES[13], IA32_A_PMCx exist */
	bool amd_fam10h;        /* amd-legacy: family 10h, EventSelect[11:8] (35:32) and
	                           Host/GuestOnly (41:40) valid; clear = K7/K8 */
	unsigned offcore_rsp;   /* intel-arch: MSR_OFFCORE_RSP_0.. that exist (Nehalem 1,
	                           Westmere on 2) */
	bool pebs_frontend;     /* intel-arch: MSR_PEBS_FRONTEND exists (Skylake on) */
};
void msr_model_init_opts(struct msr_model *m, enum pmu_kind kind, const struct pmu_caps *pc,
			 const struct msr_model_opts *opts);

/* Whether the counter at msr counts now, by the generation's enable rules: its select
 * has EN and USR or OS (P6: EN of PERFEVTSEL0), fixed field has OS or USR, and on
 * Intel v2+/PerfMonV2 its global-control bit is set. Always false for NetBurst. */
bool msr_model_counting(const struct msr_model *m, uint32_t msr);
/* Advance every counting counter by n events, wrapping at its width, as hardware would;
 * a wrap sets the counter's bit in the global overflow status (Intel v2+, PerfMonV2). */
void msr_model_advance(struct msr_model *m, uint64_t n);
/* Index in defs[] of msr, or -1. */
int msr_model_find(const struct msr_model *m, uint32_t msr);
struct msr_io msr_model_io(struct msr_model *m);
/* Value of an MSR in the model (0 if it does not exist). */
uint64_t msr_model_get(const struct msr_model *m, uint32_t msr);
/* Set a counter as the hardware would have advanced it. */
void msr_model_set(struct msr_model *m, uint32_t msr, uint64_t val);

/* Provided by the NetBurst part of the model (msr_model_netburst.c). */
unsigned msr_model_netburst_defs(struct msr_def *out, unsigned max);

#endif
