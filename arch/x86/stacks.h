/* Kernel stacks, each with an unmapped guard page below it (paging.c unmaps them). */
#ifndef ARCH_X86_STACKS_H
#define ARCH_X86_STACKS_H
#include <stdint.h>

enum stack_id { STACK_KERNEL, STACK_TRAP, STACK_DF, STACK_NMI, STACK_MC, STACK_DB, STACK_COUNT };

#define KERNEL_STACK_SIZE (64 * 1024)
#define IST_STACK_SIZE    (16 * 1024)
#define GUARD_SIZE        4096

uint64_t stack_top(enum stack_id id);
uint64_t stack_guard(enum stack_id id);     /* virtual address of the guard page */
const char *stack_name(enum stack_id id);
/* Which stack's guard page holds va, or -1. */
int stack_guard_hit(uint64_t va);

#endif
