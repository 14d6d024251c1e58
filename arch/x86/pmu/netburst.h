/*
 * What the NetBurst backend's files share, private to arch/x86/pmu/. The event tables
 * and parsers are the event language's (lib/netburst.h); the backend descriptor is
 * declared in core.h.
 */
#ifndef ARCH_X86_PMU_NETBURST_H
#define ARCH_X86_PMU_NETBURST_H
#include <stddef.h>
#include <stdint.h>

/* trace=msr decoding of an ESCR/CCCR/counter write; -1 when msr is not a NetBurst MSR. */
int netburst_msr_describe(uint32_t msr, uint64_t val, char *buf, size_t len);

#endif
