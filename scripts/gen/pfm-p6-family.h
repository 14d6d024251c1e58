/*
 * libpfm4's i386-only core PMUs: its amd64 build leaves them out, so bareperf's tables
 * for them come from libpfm4:i386 (scripts/gen/gen-pfm-tables.c --p6-dump) and are
 * checked against it (scripts/gen/pfm-p6-reference.c), both run under qemu-i386.
 * Core Duo/Solo has architectural perfmon version 1 (SDM Vol. 3B 20.2.1); the others
 * have the P6 family's own PMU ("Performance Monitoring for P6 Family Processors",
 * SDM Vol. 3B).
 */
#ifndef SCRIPTS_GEN_PFM_P6_FAMILY_H
#define SCRIPTS_GEN_PFM_P6_FAMILY_H
#include "lib/cpuinfo.h"

static const struct { const char *name; enum pmu_kind kind; } p6_family[] = {
	{ "ppro", PMU_INTEL_P6 }, { "pii", PMU_INTEL_P6 }, { "p6", PMU_INTEL_P6 },
	{ "pm", PMU_INTEL_P6 }, { "coreduo", PMU_INTEL_ARCH },
};

#endif
