#include "arch/x86/stacks.h"

struct guarded_stack {
	uint8_t guard[GUARD_SIZE];
	uint8_t stack[KERNEL_STACK_SIZE];
} __attribute__((aligned(PAGE_SIZE)));

struct guarded_ist {
	uint8_t guard[GUARD_SIZE];
	uint8_t stack[IST_STACK_SIZE];
} __attribute__((aligned(PAGE_SIZE)));

struct guarded_run {
	uint8_t guard[GUARD_SIZE];
	uint8_t stack[PAYLOAD_STACK_SIZE];
} __attribute__((aligned(PAGE_SIZE)));

/* kernel_stack is also named by entry.asm, which switches to it first thing. */
struct guarded_stack kernel_stack;
static struct guarded_stack trap_stack;
static struct guarded_ist ist_stacks[4];
static struct guarded_run run_stack;
static int run_stack_owner = -1;

/* The application processors' stacks: the trap stack (TSS RSP0/ESP0) is an IST-sized one
 * there, since only a CPL 3 run's traps and the park loop's IPIs land on it. */
struct ap_stacks {
	struct guarded_stack kernel;
	struct guarded_ist other[STACK_COUNT - 1];
};
static struct ap_stacks ap_stacks[STACK_CPUS - 1];

static const char *const names[STACK_COUNT + 1] = {
	[STACK_KERNEL] = "kernel", [STACK_TRAP] = "trap", [STACK_DF] = "#DF",
	[STACK_NMI] = "NMI", [STACK_MC] = "#MC", [STACK_DB] = "#DB",
	[STACK_RUN] = "payload (CPL 0)",
};

uintptr_t stack_guard(enum stack_id id)
{
	switch (id) {
	case STACK_KERNEL: return (uintptr_t)kernel_stack.guard;
	case STACK_TRAP: return (uintptr_t)trap_stack.guard;
	case STACK_RUN: return (uintptr_t)run_stack.guard;
	default: return (uintptr_t)ist_stacks[id - STACK_DF].guard;
	}
}

uintptr_t stack_top(enum stack_id id)
{
	switch (id) {
	case STACK_KERNEL: return (uintptr_t)kernel_stack.stack + KERNEL_STACK_SIZE;
	case STACK_TRAP: return (uintptr_t)trap_stack.stack + KERNEL_STACK_SIZE;
	case STACK_RUN: return stack_run_top();
	default: return (uintptr_t)ist_stacks[id - STACK_DF].stack + IST_STACK_SIZE;
	}
}

const char *stack_name(enum stack_id id)
{
	return id <= STACK_RUN ? names[id] : "?";
}

uintptr_t stack_guard_cpu(unsigned cpu, enum stack_id id)
{
	if (cpu == 0)
		return stack_guard(id);
	struct ap_stacks *s = &ap_stacks[cpu - 1];
	return id == STACK_KERNEL ? (uintptr_t)s->kernel.guard : (uintptr_t)s->other[id - 1].guard;
}

uintptr_t stack_top_cpu(unsigned cpu, enum stack_id id)
{
	if (cpu == 0)
		return stack_top(id);
	return stack_guard_cpu(cpu, id) + GUARD_SIZE +
	       (id == STACK_KERNEL ? KERNEL_STACK_SIZE : IST_STACK_SIZE);
}

/* Guards 0 .. STACK_CPUS x STACK_COUNT - 1 are the CPUs' (CPU i / STACK_COUNT); the last
 * one is the run stack's. */
#define CPU_GUARDS (STACK_CPUS * STACK_COUNT)

uintptr_t stack_guard_nth(unsigned i)
{
	if (i == CPU_GUARDS)
		return stack_guard(STACK_RUN);
	return stack_guard_cpu(i / STACK_COUNT, (enum stack_id)(i % STACK_COUNT));
}

int stack_guard_hit(uintptr_t va)
{
	for (unsigned i = 0; i < STACK_GUARDS; i++)
		if (va >= stack_guard_nth(i) && va < stack_guard_nth(i) + GUARD_SIZE)
			return i == CPU_GUARDS ? STACK_RUN : (int)(i % STACK_COUNT);
	return -1;
}

int stack_cpu_of(uintptr_t va)
{
	if (va >= (uintptr_t)run_stack.stack && va < stack_run_top())
		return run_stack_owner;
	for (unsigned i = 0; i < CPU_GUARDS; i++) {
		enum stack_id id = (enum stack_id)(i % STACK_COUNT);
		unsigned cpu = i / STACK_COUNT;
		if (va >= stack_guard_nth(i) + GUARD_SIZE && va < stack_top_cpu(cpu, id))
			return (int)cpu;
	}
	return -1;
}

uintptr_t stack_run_top(void)
{
	return (uintptr_t)run_stack.stack + PAYLOAD_STACK_SIZE;
}

void stack_run_claim(unsigned cpu)
{
	run_stack_owner = (int)cpu;
}
