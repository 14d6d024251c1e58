/*
 * What the AMD generations share (APM Vol. 2 13.2): the probe, the event-select checks
 * and the generic-event maps of amd.c, which amd-perfmon-v2.c builds on.
 */
#ifndef ARCH_X86_PMU_AMD_H
#define ARCH_X86_PMU_AMD_H
#include "arch/x86/pmu/core.h"

int amd_probe(struct pmu_state *st, char *err, size_t errlen);
/* EN off (or on) in every used PerfEvtSel, and zeroed counters. */
int amd_program_local(struct pmu_state *st);
/* Every PerfEvtSel of the generation to 0. */
int amd_disable_selects(struct pmu_state *st);

/* Linux perf's amd_zen4_perfmon_event_map, for Zen 4 whichever backend drives it. */
#define AMD_ZEN4_GENERIC_CODES {                                                        \
	[EV_GEN_CYCLES] = 0x0076, [EV_GEN_INSTRUCTIONS] = 0x00c0,                        \
	[EV_GEN_REF_CYCLES] = 0x100000120ull, [EV_GEN_BRANCHES] = 0x00c2,                \
	[EV_GEN_BRANCH_MISSES] = 0x00c3, [EV_GEN_CACHE_REFS] = 0xff60,                   \
	[EV_GEN_CACHE_MISSES] = 0x0964,                                                  \
}

#endif
