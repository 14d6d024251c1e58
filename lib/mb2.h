/*
 * Multiboot2 boot information -> struct boot_info: the BIOS path's loader logic, pure so
 * that the host tests can feed it hand-built tag lists. Multiboot2 specification 1.0
 * (GRUB 2), section 3.6 "Boot information format".
 */
#ifndef LIB_MB2_H
#define LIB_MB2_H
#include <stddef.h>
#include <stdint.h>
#include "lib/bootinfo-build.h"

/* Tag types (3.6.2 ff.). A tag is u32 type, u32 size (header included), 8-byte aligned. */
#define MB2_TAG_END          0
#define MB2_TAG_CMDLINE      1
#define MB2_TAG_MODULE       3
#define MB2_TAG_MMAP         6
#define MB2_TAG_FRAMEBUFFER  8
#define MB2_TAG_ACPI_OLD     14      /* a copy of the ACPI 1.0 RSDP */
#define MB2_TAG_ACPI_NEW     15      /* a copy of the ACPI 2.0+ RSDP */
#define MB2_TAG_ALIGN        8

/* Memory map entry types (3.6.8). */
#define MB2_MEM_AVAILABLE    1
#define MB2_MEM_ACPI_RECLAIM 3
#define MB2_MEM_NVS          4
#define MB2_MEM_BADRAM       5

#define MB2_FB_TYPE_INDEXED  0       /* framebuffer types (3.6.12) */
#define MB2_FB_TYPE_RGB      1
#define MB2_FB_TYPE_EGA_TEXT 2
#define MB2_INFO_MAX         (1u << 20)  /* larger is taken for garbage, not information */
/*
 * Fills *bi (zeroed first) from the tag list: memory map (the kernel image, the
 * information itself and every module typed BI_MEM_LOADER), command line, bareperf.cfg
 * (the module whose string is BIB_CONFIG_MODULE), RSDP, framebuffer. Returns 0, or -1
 * with the reason in err when the list is malformed or has no memory map.
 */
int mb2_fill_boot_info(const struct boot_source *src, struct boot_info *bi, char *err, size_t errlen);

#endif
