/* Privileged and timing instructions as inline functions. SDM Vol. 2; control registers: Vol. 3A 2.5. */
#ifndef ARCH_X86_CPU_H
#define ARCH_X86_CPU_H
#include <stdint.h>
#include "arch/x86/abi.h"      /* RFLAGS_* */

#define CR0_PE   (1ull << 0)
#define CR0_MP   (1ull << 1)
#define CR0_EM   (1ull << 2)
#define CR0_TS   (1ull << 3)
#define CR0_NE   (1ull << 5)
#define CR0_WP   (1ull << 16)
#define CR0_AM   (1ull << 18)
#define CR0_PG   (1ull << 31)

#define CR4_TSD        (1ull << 2)
#define CR4_PSE        (1ull << 4)
#define CR4_PAE        (1ull << 5)
#define CR4_PGE        (1ull << 7)
#define CR4_PCE        (1ull << 8)
#define CR4_OSFXSR     (1ull << 9)
#define CR4_OSXMMEXCPT (1ull << 10)
#define CR4_UMIP       (1ull << 11)
#define CR4_SMEP       (1ull << 20)
#define CR4_SMAP       (1ull << 21)

static inline void cpuid_count(uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	__asm__ volatile("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3])
			 : "a"(leaf), "c"(sub));
}

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

/* Control registers are one machine word: 32 bits in the i686 kernel, 64 in x86-64. */
#define DEFINE_CR(n)                                                              \
	static inline uintptr_t read_cr##n(void)                                  \
	{                                                                         \
		uintptr_t v;                                                      \
		__asm__ volatile("mov %%cr" #n ", %0" : "=r"(v));                 \
		return v;                                                         \
	}                                                                         \
	static inline void write_cr##n(uintptr_t v)                               \
	{                                                                         \
		__asm__ volatile("mov %0, %%cr" #n : : "r"(v) : "memory");        \
	}
DEFINE_CR(0)
DEFINE_CR(2)
DEFINE_CR(3)
DEFINE_CR(4)
#undef DEFINE_CR

static inline void outb(uint16_t port, uint8_t v)
{
	__asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}
static inline uint8_t inb(uint16_t port)
{
	uint8_t v;
	__asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}
static inline void outw(uint16_t port, uint16_t v)
{
	__asm__ volatile("outw %0, %1" : : "a"(v), "Nd"(port));
}
static inline void outl(uint16_t port, uint32_t v)
{
	__asm__ volatile("outl %0, %1" : : "a"(v), "Nd"(port));
}
static inline uint16_t inw(uint16_t port)
{
	uint16_t v;
	__asm__ volatile("inw %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}
static inline uint32_t inl(uint16_t port)
{
	uint32_t v;
	__asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline void cpu_relax(void) { __asm__ volatile("pause" ::: "memory"); }
static inline void irq_disable(void) { __asm__ volatile("cli" ::: "memory"); }
static inline void irq_enable(void) { __asm__ volatile("sti" ::: "memory"); }
static inline void halt(void) { __asm__ volatile("hlt" ::: "memory"); }
static inline void invlpg(uintptr_t va) { __asm__ volatile("invlpg (%0)" : : "r"(va) : "memory"); }

static inline uintptr_t read_rflags(void)
{
	uintptr_t f;
	__asm__ volatile("pushf; pop %0" : "=r"(f));
	return f;
}

#endif
