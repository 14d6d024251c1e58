#include "kernel/platform.h"
#include "arch/x86/cpu.h"
#include "drivers/i8042.h"
#include "drivers/qemu-fwcfg.h"
#include "drivers/screen.h"
#include "kernel/console.h"
#include "kernel/screen-ui.h"
#include "lib/format.h"

static bool qemu, screen_hold;     /* screen_hold: drivers/screen.h SCREEN_HOLD_FWCFG */

void platform_init(void)
{
	/* QEMU is known by its fw_cfg device, which answers at fixed I/O ports whatever CPUID
	 * says (-cpu ...,hypervisor=off hides the hypervisor bit); a real machine has none. */
	qemu = fwcfg_present();
	char flag[4];
	screen_hold = qemu && fwcfg_read_file(SCREEN_HOLD_FWCFG, flag, sizeof(flag)) > 0;
}

bool platform_is_qemu(void)
{
	return qemu;
}

void platform_stop(enum platform_exit code)
{
	char how[48];
	irq_disable();
	bp_snprintf(how, sizeof(how), "bareperf: stopped (exit code %d)", code);
	screen_final(how);
	if (screen_hold)
		i8042_drain();          /* before the line that tells qemu-run to take the picture */
	kprintf("%s\n", how);
	if (screen_hold)
		i8042_wait_byte(SCREEN_HOLD_POLLS);
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
	screen_final("bareperf: halted; the machine can be powered off");
	for (;;)
		halt();
}
