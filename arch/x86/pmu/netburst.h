/*
 * Intel NetBurst (Pentium 4 / Xeon, family 15) PMU: 18 counters, 18 CCCRs, 45 ESCRs.
 * SDM Vol. 3B 18.18 (Pentium 4 performance monitoring), 18.19 (HT), Tables 18-xx
 * (ESCR/CCCR/counter MSR addresses, event bindings). Field macros live in p4-regs.h.
 */
#ifndef ARCH_X86_PMU_NETBURST_H
#define ARCH_X86_PMU_NETBURST_H
#include <stddef.h>
#include <stdint.h>
#include "lib/cpuinfo.h"
#include "lib/event.h"

/* Parse the part after "netburst::" (libpfm4 event name, umasks, modifiers u k cmpl
 * e thr=N t=0|1, also in "=value" forms), e.g. "global_power_events:RUNNING:cmpl:thr=8:u".
 * Fills out->cls = EV_CLASS_NETBURST and the nb_* fields. 0 or -1 with err. */
int netburst_event_parse(const char *text, const struct pmu_caps *pc,
			 struct ev_encoding *out, char *err, size_t errlen);

/* Raw form "p4/escr=0x...,cccr=0x.../" (body given without "p4/" and the final '/').
 * Validates reserved bits and that the ESCR event select exists. */
int netburst_event_parse_raw(const char *body, const struct pmu_caps *pc,
			     struct ev_encoding *out, char *err, size_t errlen);

/* Name of NetBurst event-table entry i ("global_power_events"), NULL past the end. */
const char *netburst_event_name(unsigned i);

/* trace=msr decoding of an ESCR/CCCR/counter write; -1 when msr is not a NetBurst MSR. */
int netburst_msr_describe(uint32_t msr, uint64_t val, char *buf, size_t len);

#endif
