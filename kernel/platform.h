/* Ending a run: QEMU's isa-debug-exit (status = code*2+1) when fw_cfg shows QEMU, else halt. */
#ifndef KERNEL_PLATFORM_H
#define KERNEL_PLATFORM_H
#include <stdbool.h>

enum platform_exit {
	PLATFORM_EXIT_OK = 0,       /* QEMU exit status 1 */
	PLATFORM_EXIT_FAIL = 1,     /* a check failed: status 3 */
	PLATFORM_EXIT_FATAL = 2,    /* kernel fault or bad boot: status 5 */
};

/* Probe for QEMU (its fw_cfg device); call before anything asks platform_is_qemu. */
void platform_init(void);
bool platform_is_qemu(void);
__attribute__((noreturn)) void platform_stop(enum platform_exit code);
/* Stop without leaving QEMU (config exit=no): halt with interrupts off. */
__attribute__((noreturn)) void platform_halt(void);

#endif
