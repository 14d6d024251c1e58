/* Kernel stacks, each with an unmapped guard page below it (paging.c unmaps them). */
#ifndef ARCH_X86_STACKS_H
#define ARCH_X86_STACKS_H
#include <stdbool.h>
#include <stdint.h>
#include "arch/x86/abi.h"      /* KERNEL_STACK_SIZE, IST_STACK_SIZE, GUARD_SIZE */

/* Every CPU has one of each below STACK_COUNT. STACK_RUN, the stack a payload runs on at
 * CPL 0, exists once: one CPU at a time runs payloads (arch/x86/run.c). */
enum stack_id { STACK_KERNEL, STACK_TRAP, STACK_DF, STACK_NMI, STACK_MC, STACK_DB, STACK_COUNT,
		STACK_RUN = STACK_COUNT };

/* The boot CPU's stacks (and STACK_RUN). */
uintptr_t stack_top(enum stack_id id);
uintptr_t stack_guard(enum stack_id id);    /* virtual address of the guard page */
const char *stack_name(enum stack_id id);
/* Which stack's guard page holds va, or -1 (any CPU's, or the run stack's). */
int stack_guard_hit(uintptr_t va);

/*
 * Every logical processor has the same set (kernel/smp.c starts the others): CPU 0 is the
 * boot CPU, whose stacks are the ones above, in the image; CPUs 1 .. STACK_CPUS - 1 get
 * theirs when SMP starts, for the CPUs the machine has, in one block each of
 * stack_cpu_bytes() that stack_cpu_give takes (page-aligned, identity-mapped): a kernel
 * stack of KERNEL_STACK_SIZE and the others of IST_STACK_SIZE, each above its own guard
 * page, which stack_cpu_give unmaps. So the image does not grow with STACK_CPUS.
 */
#define STACK_CPUS 64
unsigned long stack_cpu_bytes(void);
/* 0, or -1 where cpu already has its stacks, is out of range, or a guard page could not be
 * unmapped (no page-table page left to split a large page). */
int stack_cpu_give(unsigned cpu, uintptr_t block);
bool stack_cpu_given(unsigned cpu);
/* 0 for a CPU without stacks. */
uintptr_t stack_top_cpu(unsigned cpu, enum stack_id id);
uintptr_t stack_guard_cpu(unsigned cpu, enum stack_id id);
/* The CPU whose stacks hold va, or -1; the run stack is its owner's. */
int stack_cpu_of(uintptr_t va);
/* The boot CPU's guard pages and the run stack's, for paging_init to leave unmapped:
 * i < STACK_BOOT_GUARDS. */
#define STACK_BOOT_GUARDS (STACK_COUNT + 1)
uintptr_t stack_guard_boot(unsigned i);

/* The run stack (PAYLOAD_STACK_SIZE above its guard page): its top, and the CPU about to
 * run a payload on it, whose it is until the next claim. */
uintptr_t stack_run_top(void);
void stack_run_claim(unsigned cpu);

#endif
