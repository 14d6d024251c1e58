/* QEMU firmware configuration device (QEMU docs/specs/fw_cfg.rst): how scripts/qemu-run
 * hands the kernel a config string (-fw_cfg name=opt/bareperf/config,string=...). */
#ifndef DRIVERS_QEMU_FWCFG_H
#define DRIVERS_QEMU_FWCFG_H
#include <stdbool.h>
#include <stddef.h>

bool fwcfg_present(void);
/* Copy the named file (NUL-terminated, truncated to max-1). Returns its full length, or -1. */
long fwcfg_read_file(const char *name, char *buf, size_t max);

#endif
