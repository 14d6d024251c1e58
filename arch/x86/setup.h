/* Bring the CPU into bareperf's own state: descriptors, paging, SYSCALL, SSE. */
#ifndef ARCH_X86_SETUP_H
#define ARCH_X86_SETUP_H
#include "lib/bootinfo.h"
#include "lib/cpuinfo.h"

/* CPUID through the instruction, for cpuinfo_decode. */
bool cpuid_hw_read(void *ctx, uint32_t leaf, uint32_t subleaf, uint32_t regs[4]);
void arch_init(const struct boot_info *bi, const struct cpu_info *ci);

#endif

/* Physical base of the local APIC, with its global enable bit set (IA32_APIC_BASE,
 * SDM Vol. 3A 11.4.4). 0 when the CPU has no APIC. */
uint64_t cpu_lapic_enable(const struct cpu_info *ci);
/* Whether this CPU's local APIC is in x2APIC mode (IA32_APIC_BASE.EXTD). */
bool cpu_lapic_x2apic(void);

/* Whether LFENCE is dispatch-serialising here, so it can order counter reads: always on
 * Intel; on AMD families 0Fh/11h always, on others when DE_CFG (MSR C001_1029) bit 1
 * is set (AMD "Software techniques for managing speculation", 2018); never without
 * SSE2, where LFENCE is #UD. Else use CPUID. */
bool cpu_lfence_serializing(const struct cpu_info *ci);
