/* x2APIC registers as MSRs: MSR_X2APIC_BASE + xAPIC offset / 16, 32-bit except the ICR,
 * which is one 64-bit MSR with the destination in bits 63:32. SDM Vol. 3A 11.12.1.2,
 * 11.12.9; the ICR write is not serializing, so stores meant to be seen by the target
 * are fenced first (11.12.3). */
#ifndef ARCH_X86_X2APIC_H
#define ARCH_X86_X2APIC_H
#include <stdint.h>
#include "arch/x86/msr.h"

static inline uint32_t x2apic_read(uint32_t xapic_off)
{
	return (uint32_t)rdmsr(MSR_X2APIC_BASE + (xapic_off >> 4));
}

static inline void x2apic_write(uint32_t xapic_off, uint32_t v)
{
	wrmsr(MSR_X2APIC_BASE + (xapic_off >> 4), v);
}

static inline void x2apic_write_icr(uint32_t dest, uint32_t lo)
{
	__asm__ volatile("mfence" ::: "memory");
	wrmsr(MSR_X2APIC_ICR, ((uint64_t)dest << 32) | lo);
}

#endif
