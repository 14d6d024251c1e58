/*
 * Where a logical processor sits: package, core and SMT thread, from its APIC ID and the
 * field widths CPUID gives. Sources, tried in this order: Intel leaf 0x1F, then 0xB
 * (SDM Vol. 3A 10.9 "Topology enumeration"); AMD 0x8000001E/0x80000008 (APM Vol. 3,
 * CPUID Fn8000_001E ThreadsPerCore, Fn8000_0008 ECX ApicIdSize/NC); older Intel leaf 1
 * EBX[23:16] with leaf 4 EAX[31:26] (cores per package). Pure: runs over a cpuid_read_fn.
 */
#ifndef LIB_TOPOLOGY_H
#define LIB_TOPOLOGY_H
#include <stdbool.h>
#include <stdint.h>
#include "lib/cpuinfo.h"

struct cpu_topology {
	unsigned smt_bits;          /* APIC ID bits below the core field */
	unsigned core_bits;         /* bits of the core field; package = id >> (smt_bits + core_bits) */
	const char *source;         /* "leaf 0x1f", "leaf 0xb", "0x8000001e", "0x80000008",
	                               "leaf 4", "leaf 1", or "none" (one thread, one core) */
};

struct cpu_position { uint32_t package, core, thread; };

/* Decode the field widths of the CPU read() describes; never fails. */
void topology_decode(cpuid_read_fn read, void *ctx, struct cpu_topology *t);
/* Split an APIC ID (x2APIC ID where the source is leaf 0xB/0x1F) by t. */
void topology_position(const struct cpu_topology *t, uint32_t apic_id, struct cpu_position *p);

#endif
