#include "kernel/platform.h"
#include "arch/x86/cpu.h"
#include "kernel/console.h"

#define ISA_DEBUG_EXIT_PORT 0xf4

static bool under_hypervisor;

void platform_init(bool hypervisor)
{
	under_hypervisor = hypervisor;
}

void platform_stop(enum platform_exit code)
{
	irq_disable();
	kprintf("bareperf: stopped (exit code %d)\n", code);
	/* The port exists only where QEMU was started with isa-debug-exit; on a real
	 * machine nothing is written and the CPU halts for good. */
	if (under_hypervisor)
		outl(ISA_DEBUG_EXIT_PORT, code);
	platform_halt();
}

void platform_halt(void)
{
	irq_disable();
	kprintf("bareperf: halted; the machine can be powered off\n");
	for (;;)
		halt();
}
