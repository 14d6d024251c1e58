#include "arch/x86/stacks.h"

struct guarded_stack {
	uint8_t guard[GUARD_SIZE];
	uint8_t stack[KERNEL_STACK_SIZE];
} __attribute__((aligned(PAGE_SIZE)));

struct guarded_ist {
	uint8_t guard[GUARD_SIZE];
	uint8_t stack[IST_STACK_SIZE];
} __attribute__((aligned(PAGE_SIZE)));

/* kernel_stack is also named by entry.asm, which switches to it first thing. */
struct guarded_stack kernel_stack;
static struct guarded_stack trap_stack;
static struct guarded_ist ist_stacks[4];

static const char *const names[STACK_COUNT] = {
	[STACK_KERNEL] = "kernel", [STACK_TRAP] = "trap", [STACK_DF] = "#DF",
	[STACK_NMI] = "NMI", [STACK_MC] = "#MC", [STACK_DB] = "#DB",
};

uintptr_t stack_guard(enum stack_id id)
{
	switch (id) {
	case STACK_KERNEL: return (uintptr_t)kernel_stack.guard;
	case STACK_TRAP: return (uintptr_t)trap_stack.guard;
	default: return (uintptr_t)ist_stacks[id - STACK_DF].guard;
	}
}

uintptr_t stack_top(enum stack_id id)
{
	switch (id) {
	case STACK_KERNEL: return (uintptr_t)kernel_stack.stack + KERNEL_STACK_SIZE;
	case STACK_TRAP: return (uintptr_t)trap_stack.stack + KERNEL_STACK_SIZE;
	default: return (uintptr_t)ist_stacks[id - STACK_DF].stack + IST_STACK_SIZE;
	}
}

const char *stack_name(enum stack_id id)
{
	return id < STACK_COUNT ? names[id] : "?";
}

int stack_guard_hit(uintptr_t va)
{
	for (int i = 0; i < STACK_COUNT; i++)
		if (va >= stack_guard(i) && va < stack_guard(i) + GUARD_SIZE)
			return i;
	return -1;
}
