/* What the kernel knows after start-up: filled once in kernel_main, read everywhere. */
#ifndef KERNEL_KERNEL_H
#define KERNEL_KERNEL_H
#include "lib/bootinfo.h"
#include "lib/config.h"
#include "lib/cpuinfo.h"

struct kernel_state {
	const struct boot_info *bi;
	struct cpu_info cpu;
	struct pmu_caps pmu;
	struct bp_config cfg;
	unsigned config_errors;
	bool lapic;                 /* local APIC usable, its timer calibrated */
	bool watchdog;              /* APIC timer or PIT: runs can be stopped */
};
extern struct kernel_state kernel;

/* Modes. Each returns the exit code for platform_stop. */
int selftest_run(void);
int engine_main(void);
int engine_list(void);          /* mode=list: the payload catalogue */

#endif
