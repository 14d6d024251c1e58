/*
 * lava=on: each result, check and self-test case as a LAVA test-case signal line
 * (lib/lava.h), between LAVA_START_LINE and LAVA_END_LINE, for a LAVA monitor (docs/lava.md).
 * Beside what format= prints, never instead; with lava=off each of these does nothing.
 */
#ifndef KERNEL_LAVA_REPORT_H
#define KERNEL_LAVA_REPORT_H
#include <stdbool.h>
#include <stdint.h>
#include "arch/x86/pmu/pmucheck-suite.h"
#include "kernel/engine.h"

/* Ids one run can give: 3/4 of the table's slots (8 bytes each). A default run has 260
 * results; the slot count is a power of two. */
#define LAVA_REPORT_ID_SLOTS 8192

void lava_report_start(void);
void lava_report_result(const struct result *r);
void lava_report_check(const struct pmucheck_result *r);
/* A mode=c2c result of test (c2c_latency, false_sharing, shared_bw) between CPUs a and
 * b: its summing-up figure, x1000, in units. */
void lava_report_c2c(const char *test, unsigned a, unsigned b, int64_t milli, const char *units);
/* A self-test case (kernel/check.c): verdict pass, fail or skip. */
void lava_report_selftest(const char *name, bool ok, bool skipped);
/* The case that says whether the run had errors (code: its exit status), then the end
 * line. Returns code, or PLATFORM_EXIT_FAIL when cases went without a line. */
int lava_report_end(int code);

#endif
