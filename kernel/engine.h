/* Measurement results, as the engine produces them and the report prints them. */
#ifndef KERNEL_ENGINE_H
#define KERNEL_ENGINE_H
#include <stdbool.h>
#include <stdint.h>
#include "arch/x86/run.h"
#include "kernel/harness-out.h"     /* enum result_source */
#include "lib/event.h"
#include "lib/stats.h"
#include "payloads/payload.h"

struct result {
	const struct payload *pl;
	uint64_t size;              /* buffer bytes for PL_SIZES payloads, else 0 */
	unsigned cpl;
	char event[EV_NAME_MAX];
	unsigned group;             /* counter group the event was measured in */
	enum result_source source;
	unsigned reps;
	uint64_t iters;             /* n: each sample is count(2n) - count(n) */
	struct stats st;
	int64_t per_iter_milli;     /* median / n, x1000 */
	bool energy;                /* a RAPL energy counter: counts of 1/2^energy_esu J */
	unsigned energy_esu;
	/* Where it ran (kernel/placement.h), reported only when more than one CPU is up:
	 * the CPU, the partner CPU (-1: none) and what the partner did. */
	bool placed;
	unsigned cpu;
	int partner;
	const char *partner_load;
};

/* The result among rs[0..n) for this CPL, event and source, or NULL. */
const struct result *result_find(const struct result *rs, unsigned n, unsigned cpl, const char *event,
				 enum result_source src);

struct fault_result {
	const struct payload *pl;
	uint64_t size;
	unsigned cpl;
	struct run_result run;      /* RUN_FAULT or RUN_TIMEOUT */
	uint64_t fn_addr;           /* the payload's address as the faulting CPL saw it */
	uint32_t budget_ms;
	bool expected;              /* a fault payload doing what it is for */
	char where[64];             /* user benchmarks: "NAME+0x3" (kernel/userbench-run.h) */
	uint32_t copy;              /* and which copy of the unrolled code, 1-based; 0: none */
};

/* Report (kernel/report.c): formatting only, no hardware. */
void report_meta(void);
void report_result(const struct result *r);
void report_fault(const struct fault_result *f);
void report_skip(const struct payload *pl, const char *why);
void report_error(const char *context, const char *msg);
/* The configuration errors met before the report existed, as @error records. */
void report_config_errors(void);
/* Something the user should know that is not a mistake (an event this CPU cannot count). */
void report_note(const char *context, const char *msg);
/* The perf-stat-like block for one payload and size, CPL 0 and CPL 3 side by side. */
void report_block(const struct payload *pl, uint64_t size, const struct result *rs, unsigned n);
void report_done(unsigned results, unsigned faults, unsigned timeouts, unsigned errors);
/* One catalogue entry (mode=list): an @payload record and a line for people. */
void report_payload(const struct payload *pl);

#endif
