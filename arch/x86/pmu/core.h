/*
 * Helpers the event-select backends (intel-arch, intel-p6, amd) share: counter matching,
 * free-running counters (TSC, APERF, MPERF), checked MSR access, trace decoding by kind.
 */
#ifndef ARCH_X86_PMU_CORE_H
#define ARCH_X86_PMU_CORE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "arch/x86/pmu/pmu.h"

extern const struct pmu_backend pmu_backend_intel_arch;
extern const struct pmu_backend pmu_backend_intel_p6;
extern const struct pmu_backend pmu_backend_amd_legacy;
extern const struct pmu_backend pmu_backend_amd_core;
extern const struct pmu_backend pmu_backend_amd_perfmon_v2;

/* Candidate sets for pmu_match_counters: GP counter i is bit i, fixed counter j is
 * bit PMU_CAND_FIXED_SHIFT + j. Fixed candidates are tried first. */
#define PMU_CAND_FIXED_SHIFT 16
#define PMU_CAND_GP(i)       (1u << (i))
#define PMU_CAND_FIXED(j)    (1u << (PMU_CAND_FIXED_SHIFT + (j)))

/* Bipartite matching of n events onto counters (augmenting paths), so any set that
 * can be placed is placed. counter[k] gets the candidate bit number for event k, or
 * -1 for events with cand[k] == 0 and no counter needed. Returns -1 when every event
 * with candidates was placed, else the index of the first event that found none. */
int pmu_match_counters(const uint32_t *cand, unsigned n, int *counter);

/* Fill a slot for EV_CLASS_TSC/APERF/MPERF (read by RDMSR, never written).
 * Returns false for any other class. */
bool pmu_slot_free_running(struct pmu_slot *s, const struct ev_encoding *e);

/* Reject classes an event-select backend cannot count; 0 or -1 with err. */
int pmu_check_class(const char *pmu_name, const struct ev_encoding *e,
		    char *err, size_t errlen);

/* Checked access through st->io: on a fault remember the vector in st->last_fault. */
int pmu_wrmsr(struct pmu_state *st, uint32_t msr, uint64_t val);
int pmu_rdmsr(struct pmu_state *st, uint32_t msr, uint64_t *val);

/* Write each GP slot's select with EN (bit 22 in the Intel, P6 and AMD layouts alike) set
 * or clear: the only on/off switch where there is no global control. 0 or -1. */
int pmu_write_gp_enables(struct pmu_state *st, bool enable);
/* Zero the counter of every GP and fixed slot. 0 or -1. */
int pmu_zero_counters(struct pmu_state *st);

/* Read slot i: RDMSR of its counter MSR; -1 for an out-of-range slot. */
int pmu_read_slot(struct pmu_state *st, unsigned i, uint64_t *val);

/* Like pmu_msr_describe, but resolves the MSRs NetBurst shares with the architectural
 * PMU (0x300-0x311 counters vs IA32_FIXED_CTRx) by the PMU kind being traced. */
int pmu_msr_describe_kind(enum pmu_kind kind, uint32_t msr, uint64_t val, char *buf, size_t len);

#endif
