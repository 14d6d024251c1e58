/*
 * What the NetBurst backend's files share, private to arch/x86/pmu/: the allocator
 * (netburst-alloc.c), trace=msr decoding (netburst-trace.c) and the backend descriptor
 * that uses both (netburst.c, pmu_backend_netburst, declared in core.h). The event
 * tables and parsers are the event language's: lib/p4-events.h.
 */
#ifndef ARCH_X86_PMU_NETBURST_H
#define ARCH_X86_PMU_NETBURST_H
#include <stddef.h>
#include <stdint.h>
#include "arch/x86/pmu/pmu.h"

/* The descriptor's assign hook: one (ESCR, counter) pair per NetBurst event, TSC slots
 * for EV_CLASS_TSC. -1 with err naming the group and the ESCRs or counters that are
 * short when the events cannot all be placed. */
int netburst_assign(struct pmu_state *st, const struct ev_encoding *ev, unsigned n,
		    char *err, size_t errlen);

/* trace=msr decoding of an ESCR/CCCR/counter write; -1 when msr is not a NetBurst MSR. */
int netburst_msr_describe(uint32_t msr, uint64_t val, char *buf, size_t len);

/* Format at buf + off within len bytes; returns the new offset (which stops growing
 * once the buffer is full). For messages built in pieces. */
size_t netburst_append(char *buf, size_t len, size_t off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
