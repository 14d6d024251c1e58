/* Ending a run: QEMU's isa-debug-exit (QEMU_DEBUG_EXIT_BASE + code, lib/pc-io.h) when fw_cfg
 * shows QEMU, else halt. */
#ifndef KERNEL_PLATFORM_H
#define KERNEL_PLATFORM_H
#include <stdbool.h>
#include "lib/pc-io.h"

enum platform_exit {
	PLATFORM_EXIT_OK = EXIT_CODE_OK,
	PLATFORM_EXIT_FAIL = EXIT_CODE_FAIL,
	PLATFORM_EXIT_FATAL = EXIT_CODE_FATAL,
};

/* Probe for QEMU (its fw_cfg device); call before anything asks platform_is_qemu. */
void platform_init(void);
bool platform_is_qemu(void);
__attribute__((noreturn)) void platform_stop(enum platform_exit code);
/* Stop without leaving QEMU (config exit=no): halt with interrupts off. */
__attribute__((noreturn)) void platform_halt(void);

#endif
