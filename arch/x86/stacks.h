/* Kernel stacks, each with an unmapped guard page below it (paging.c unmaps them). */
#ifndef ARCH_X86_STACKS_H
#define ARCH_X86_STACKS_H
#include <stdint.h>
#include "arch/x86/abi.h"      /* KERNEL_STACK_SIZE, IST_STACK_SIZE, GUARD_SIZE */

enum stack_id { STACK_KERNEL, STACK_TRAP, STACK_DF, STACK_NMI, STACK_MC, STACK_DB, STACK_COUNT };

uintptr_t stack_top(enum stack_id id);
uintptr_t stack_guard(enum stack_id id);    /* virtual address of the guard page */
const char *stack_name(enum stack_id id);
/* Which stack's guard page holds va, or -1. */
int stack_guard_hit(uintptr_t va);

#endif
