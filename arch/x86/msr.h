/*
 * MSR access. rdmsr/wrmsr fault on a missing MSR or a reserved bit (#GP); the _safe
 * forms go through the exception table and return the vector (0 = success).
 */
#ifndef ARCH_X86_MSR_H
#define ARCH_X86_MSR_H
#include <stdint.h>
#include "arch/x86/extable.h"

/* SDM Vol. 4 (model-specific registers): system MSRs the kernel itself programs. */
#define MSR_IA32_APIC_BASE   0x0000001b
#define MSR_EFER             0xc0000080
#define   EFER_SCE           (1ull << 0)
#define   EFER_LME           (1ull << 8)
#define   EFER_NXE           (1ull << 11)
#define MSR_STAR             0xc0000081
#define MSR_LSTAR            0xc0000082
#define MSR_CSTAR            0xc0000083
#define MSR_SYSCALL_MASK     0xc0000084
#define MSR_FS_BASE          0xc0000100
#define MSR_GS_BASE          0xc0000101
#define MSR_KERNEL_GS_BASE   0xc0000102
#define MSR_TSC_AUX          0xc0000103
#define MSR_IA32_MPERF       0x000000e7
#define MSR_IA32_APERF       0x000000e8
/* A register no x86 CPU implements: for checking that rdmsr_safe reports #GP. */
#define MSR_NONEXISTENT      0x4b564d00

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
