/*
 * MSR access. rdmsr/wrmsr fault on a missing MSR or a reserved bit (#GP); the _safe
 * forms go through the exception table and return the vector (0 = success).
 */
#ifndef ARCH_X86_MSR_H
#define ARCH_X86_MSR_H
#include <stdint.h>
#include "arch/x86/extable.h"
#include "arch/x86/msr-index.h"

static inline uint64_t rdmsr(uint32_t msr)
{
	uint32_t lo, hi;
	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((uint64_t)hi << 32) | lo;
}

static inline void wrmsr(uint32_t msr, uint64_t v)
{
	__asm__ volatile("wrmsr" : : "c"(msr), "a"((uint32_t)v), "d"((uint32_t)(v >> 32)) : "memory");
}

static inline int rdmsr_safe(uint32_t msr, uint64_t *val)
{
	uint32_t lo = 0, hi = 0;
	extable_arm();
	__asm__ volatile(EXTABLE_TRY("rdmsr") : "=a"(lo), "=d"(hi) : "c"(msr) : "memory");
	*val = ((uint64_t)hi << 32) | lo;
	return extable_result();
}

static inline int wrmsr_safe(uint32_t msr, uint64_t v)
{
	extable_arm();
	__asm__ volatile(EXTABLE_TRY("wrmsr")
			 : : "c"(msr), "a"((uint32_t)v), "d"((uint32_t)(v >> 32)) : "memory");
	return extable_result();
}

static inline int rdpmc_safe(uint32_t idx, uint64_t *val)
{
	uint32_t lo = 0, hi = 0;
	extable_arm();
	__asm__ volatile(EXTABLE_TRY("rdpmc") : "=a"(lo), "=d"(hi) : "c"(idx) : "memory");
	*val = ((uint64_t)hi << 32) | lo;
	return extable_result();
}

#endif
