/* What the kernel knows after start-up: filled once in kernel_main, read everywhere. */
#ifndef KERNEL_KERNEL_H
#define KERNEL_KERNEL_H
#include "lib/bootinfo.h"
#include "lib/config.h"
#include "lib/cpuinfo.h"

#define KERNEL_CONFIG_ERRORS_KEPT 32
#define KERNEL_CONFIG_ERROR_LEN   320

struct kernel_state {
	const struct boot_info *bi;
	struct cpu_info cpu;
	struct pmu_caps pmu;
	struct bp_config cfg;
	unsigned config_errors;     /* configuration mistakes: each one fails the run */
	/* The first ones' messages, kept for the @error records: the configuration is read
	 * before the report exists (report_config_errors). */
	char config_error_msg[KERNEL_CONFIG_ERRORS_KEPT][KERNEL_CONFIG_ERROR_LEN];
	bool lapic;                 /* local APIC usable, its timer calibrated */
	bool watchdog;              /* APIC timer or PIT: runs can be stopped */
	const char *config_sources; /* the configuration sources applied, in order (main.c) */
};
extern struct kernel_state kernel;
extern const char kernel_version[];     /* BAREPERF_VERSION as this build has it */

/* Modes. Each returns the exit code for platform_stop. */
int selftest_run(void);
int engine_main(void);
int engine_list(void);          /* mode=list: the payload catalogue */

#endif
