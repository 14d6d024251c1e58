#include "kernel/platform.h"
#include "arch/x86/cpu.h"
#include "drivers/qemu-fwcfg.h"
#include "kernel/console.h"

static bool qemu;

void platform_init(void)
{
	/* QEMU is known by its fw_cfg device, which answers at fixed I/O ports whatever CPUID
	 * says (-cpu ...,hypervisor=off hides the hypervisor bit); a real machine has none. */
	qemu = fwcfg_present();
}

bool platform_is_qemu(void)
{
	return qemu;
}

void platform_stop(enum platform_exit code)
{
	irq_disable();
	kprintf("bareperf: stopped (exit code %d)\n", code);
	/* isa-debug-exit carries no signature to probe; scripts/qemu-run always adds it. A
	 * QEMU started without it drops the write and halts below, as a real machine does,
	 * where nothing is written at all. */
	if (qemu)
		outl(QEMU_DEBUG_EXIT_PORT, QEMU_DEBUG_EXIT_BASE + code);
	platform_halt();
}

void platform_halt(void)
{
	irq_disable();
	kprintf("bareperf: halted; the machine can be powered off\n");
	for (;;)
		halt();
}
