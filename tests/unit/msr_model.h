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
	unsigned broken;                        /* MSR_BREAK_* faults built in on purpose */
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

/*
 * The counting model: msr_model_run() advances every enabled counter by what a piece of
 * simulated work does, by the rules of the generation, so that code which programs
 * counters and checks their answers (arch/x86/pmu/pmucheck-suite.c) can be tested.
 *
 * Work runs at one CPL on one logical processor and is described per quantity: how
 * many events, in how many cycles at least one occurred, and how many times "at least
 * one" switched on (rising edges). A counter counts its event's quantity when:
 *  - event selects (Intel arch, P6, AMD): EN (P6: EN of PERFEVTSEL0), global control
 *    (Intel v2+, PerfMonV2), USR for CPL 3 / OS for CPL 0; CMASK >= 1 counts the
 *    cycles with at least one event (the model knows no other threshold), INV their
 *    complement, E with CMASK the rising edges. Fixed counter 0 counts instructions,
 *    1 and 2 cycles, by the OS/USR bits of their FIXED_CTR_CTRL field.
 *  - NetBurst: CCCR enable, the ESCR the CCCR selects (found through lib/p4-events.h's
 *    event table), the ESCR's T0_OS/T0_USR or T1_OS/T1_USR bits for the logical
 *    processor running the work; CCCR compare with threshold 0 counts cycles with
 *    more than 0 events, with complement those with 0, with edge the rising edges.
 *    A counter whose CCCR has cascade set and enable clear starts when its alternate
 *    (counter number XOR 2: the first counters of a group's two pairs start each
 *    other, and the second ones, SDM Vol. 3B 18.18.2) overflows: it gets the events
 *    after the overflow, and its CCCR enable is set from then on.
 * Events: Intel 0xC0 instructions, 0x3C cycles, 0xC4 branches; P6 0xC0, 0x79, 0xC4;
 * AMD 0xC0, 0x76, 0xC2; NetBurst instr_retired, global_power_events, branch_retired.
 * Counters wrap at their width; a wrap sets the global overflow status (Intel v2+,
 * PerfMonV2) or the CCCR OVF bit (NetBurst).
 */
enum msr_model_quantity { MSR_Q_CYCLES, MSR_Q_INSTRUCTIONS, MSR_Q_BRANCHES, MSR_Q_COUNT };
struct msr_model_work {
	unsigned cpl;                   /* 0 or 3 */
	unsigned thread;                /* NetBurst: logical processor running it (0 or 1) */
	uint64_t count[MSR_Q_COUNT];    /* events (cycles: count = active = cycles) */
	uint64_t active[MSR_Q_COUNT];   /* cycles with at least one event */
	uint64_t edges[MSR_Q_COUNT];    /* rising edges of "at least one event" */
};
void msr_model_run(struct msr_model *m, const struct msr_model_work *w);
/* RDPMC of index (Intel: bit 30 selects fixed counters; AMD, P6, NetBurst: the counter
 * number): 0 with the counter's value, or 13 when no such counter. */
int msr_model_rdpmc(struct msr_model *m, uint32_t index, uint64_t *val);

/* Deliberately broken hardware, to show that a check can fail. */
enum {
	MSR_BREAK_ENABLE = 1u << 0,     /* counters count whatever EN, CCCR enable, global say */
	MSR_BREAK_WIDTH = 1u << 1,      /* counters are 8 bits wider than the generation says */
	MSR_BREAK_RING = 1u << 2,       /* USR and OS (T0/T1 OS and USR) swapped */
	MSR_BREAK_CMASK = 1u << 3,      /* CMASK/INV (CCCR compare/complement) ignored */
	MSR_BREAK_EDGE = 1u << 4,       /* edge detect ignored */
	MSR_BREAK_THREAD = 1u << 5,     /* NetBurst T0 and T1 bits swapped */
	MSR_BREAK_OVF = 1u << 6,        /* a wrap sets no overflow flag */
	MSR_BREAK_ALIAS = 1u << 7,      /* AMD legacy 0xC0010000-7 are registers of their own */
	MSR_BREAK_RDPMC = 1u << 8,      /* RDPMC returns the value with bit 0 flipped */
	MSR_BREAK_CASCADE = 1u << 9,    /* NetBurst: an overflow starts no cascaded counter */
};
/* Apply MSR_BREAK_* flags to a model just built by msr_model_init*. */
void msr_model_break(struct msr_model *m, unsigned flags);

/* Provided by the NetBurst part of the model (msr_model_netburst.c). */
unsigned msr_model_netburst_defs(struct msr_def *out, unsigned max);
/* The same for a part with (ht) or without Hyper-Threading, with IQ_ESCR0/1 or not. */
unsigned msr_model_netburst_defs_for(struct msr_def *out, unsigned max, bool ht, bool iq_escrs);
/* NetBurst counter c's increment for work w (0 when its CCCR or ESCR say nothing);
 * as_enabled: as if its CCCR enable were set (a cascaded counter just started). */
uint64_t msr_model_netburst_increment(const struct msr_model *m, unsigned c,
				      const struct msr_model_work *w, bool as_enabled);

#endif
