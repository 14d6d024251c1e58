#include "arch/x86/stacks.h"
#include "arch/x86/paging.h"

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

/* The application processors' stacks, one block each, given at SMP start (stack_cpu_give)
 * for the CPUs the machine has: the trap stack (TSS RSP0/ESP0) is an IST-sized one there,
 * since only a CPL 3 run's traps and the park loop's IPIs land on it. */
struct ap_stacks {
	struct guarded_stack kernel;
	struct guarded_ist other[STACK_COUNT - 1];
};
static struct ap_stacks *ap_stacks[STACK_CPUS - 1];

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

unsigned long stack_cpu_bytes(void)
{
	return sizeof(struct ap_stacks);
}

bool stack_cpu_given(unsigned cpu)
{
	return cpu == 0 || (cpu < STACK_CPUS && ap_stacks[cpu - 1]);
}

int stack_cpu_give(unsigned cpu, uintptr_t block)
{
	struct ap_stacks *s = (struct ap_stacks *)block;

	if (cpu == 0 || cpu >= STACK_CPUS || ap_stacks[cpu - 1] || (block & (PAGE_SIZE - 1)))
		return -1;
	if (paging_unmap_page((uintptr_t)s->kernel.guard))
		return -1;
	for (unsigned i = 0; i < STACK_COUNT - 1; i++)
		if (paging_unmap_page((uintptr_t)s->other[i].guard))
			return -1;
	ap_stacks[cpu - 1] = s;
	return 0;
}

uintptr_t stack_guard_cpu(unsigned cpu, enum stack_id id)
{
	if (cpu == 0)
		return stack_guard(id);
	if (!stack_cpu_given(cpu))
		return 0;
	struct ap_stacks *s = ap_stacks[cpu - 1];
	return id == STACK_KERNEL ? (uintptr_t)s->kernel.guard : (uintptr_t)s->other[id - 1].guard;
}

uintptr_t stack_top_cpu(unsigned cpu, enum stack_id id)
{
	if (cpu == 0)
		return stack_top(id);
	if (!stack_cpu_given(cpu))
		return 0;
	return stack_guard_cpu(cpu, id) + GUARD_SIZE +
	       (id == STACK_KERNEL ? KERNEL_STACK_SIZE : IST_STACK_SIZE);
}

/* The boot CPU's guards are 0 .. STACK_COUNT - 1, the run stack's is STACK_COUNT: the
 * ones paging_init unmaps. */
uintptr_t stack_guard_boot(unsigned i)
{
	return i == STACK_COUNT ? stack_guard(STACK_RUN) : stack_guard((enum stack_id)i);
}

int stack_guard_hit(uintptr_t va)
{
	if (va >= stack_guard(STACK_RUN) && va < stack_guard(STACK_RUN) + GUARD_SIZE)
		return STACK_RUN;
	for (unsigned cpu = 0; cpu < STACK_CPUS; cpu++) {
		if (!stack_cpu_given(cpu))
			continue;
		for (unsigned id = 0; id < STACK_COUNT; id++) {
			uintptr_t g = stack_guard_cpu(cpu, (enum stack_id)id);
			if (va >= g && va < g + GUARD_SIZE)
				return (int)id;
		}
	}
	return -1;
}

int stack_cpu_of(uintptr_t va)
{
	if (va >= (uintptr_t)run_stack.stack && va < stack_run_top())
		return run_stack_owner;
	for (unsigned cpu = 0; cpu < STACK_CPUS; cpu++) {
		if (!stack_cpu_given(cpu))
			continue;
		for (unsigned id = 0; id < STACK_COUNT; id++)
			if (va >= stack_guard_cpu(cpu, (enum stack_id)id) + GUARD_SIZE &&
			    va < stack_top_cpu(cpu, (enum stack_id)id))
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
