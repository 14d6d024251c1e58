/* The kernel's use of the PMU: which model and backend, whether the counters really
 * count (self-check at boot), the trace=msr printer. Probed once, read everywhere. */
#ifndef KERNEL_KPMU_H
#define KERNEL_KPMU_H
#include <stdbool.h>
#include "arch/x86/pmu/pmu.h"
#include "lib/event.h"

struct kpmu {
	const struct pmu_model *model;
	const struct pmu_backend *be;
	struct pmu_caps caps;           /* detected, or the forced model's defaults */
	struct pmu_caps parse_caps;     /* what events are checked against: caps, or the
	                                   model's defaults when CPUID shows no PMU at all */
	struct pmu_state st;
	bool forced;                    /* pmu=NAME in the config */
	bool functional;
	char reason[192];               /* why not functional */
	bool serialize_lfence;          /* else CPUID */
	bool nb_both;                   /* NetBurst: count both logical processors */
};
extern struct kpmu kpmu;

/* Choose model and backend, run the self-check, print the pmu.* lines. */
void kpmu_init(void);
int kpmu_parse(const char *text, struct ev_encoding *ev, char *err, size_t errlen);
/* Place n events on counters (no MSR access). 0 or -1 with err. */
int kpmu_assign(const struct ev_encoding *ev, unsigned n, char *err, size_t errlen);
int kpmu_start(void);                /* program + start what kpmu_assign placed */
int kpmu_stop(void);
void kpmu_release(void);            /* disable every counter */
/* The plan moved to CPU cpu (initial APIC ID initial_apic_id): NetBurst's T0/T1 choice
 * follows it (netburst.thread=auto), and the pmu.netburst_thread line says so again. */
void kpmu_follow_cpu(uint8_t initial_apic_id, unsigned cpu);
/* Every counter of the CPU running this off, by the detected generation's backend, not
 * traced: an application processor at bring-up, before kpmu_init has run. */
void kpmu_disable_this_cpu(void);

#endif
