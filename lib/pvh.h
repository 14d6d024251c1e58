/*
 * PVH start information -> struct boot_info: the hand-over of Xen's direct boot ABI,
 * which QEMU's -kernel uses for an ELF that carries a XEN_ELFNOTE_PHYS32_ENTRY note
 * (xen/include/public/arch-x86/hvm/start_info.h; docs/misc/pvh.pandoc). The entry runs
 * in 32-bit protected mode, paging off, EBX = the start information.
 */
#ifndef LIB_PVH_H
#define LIB_PVH_H
#include <stddef.h>
#include <stdint.h>
#include "lib/bootinfo-build.h"

/* xen/include/public/elfnote.h: the note that names the 32-bit entry (arch/x86/pvh-note.inc). */
#define XEN_ELFNOTE_PHYS32_ENTRY 18
/* hvm_start_info.magic ("xEn3", 0x80 on the E); the entry stubs also leave it in EAX, where
 * the Multiboot2 path has MB2_LOADER_MAGIC, to say which hand-over EBX holds. */
#define PVH_START_MAGIC     0x336ec578u
#define PVH_VERSION_MEMMAP  1               /* version 1 adds the memory map */
#define PVH_CMDLINE_MAX     (1u << 16)      /* longer is taken for garbage */

/* Memory map entry types (XEN_HVM_MEMMAP_TYPE_*, the E820 numbering plus two). */
#define PVH_MEM_RAM         1
#define PVH_MEM_RESERVED    2
#define PVH_MEM_ACPI        3
#define PVH_MEM_NVS         4
#define PVH_MEM_UNUSABLE    5
#define PVH_MEM_DISABLED    6
#define PVH_MEM_PMEM        7

struct pvh_start_info {
	uint32_t magic;
	uint32_t version;
	uint32_t flags;
	uint32_t nr_modules;
	uint64_t modlist_paddr;     /* struct pvh_module[nr_modules] */
	uint64_t cmdline_paddr;     /* NUL-terminated, 0 when none */
	uint64_t rsdp_paddr;        /* ACPI RSDP, 0 when none */
	uint64_t memmap_paddr;      /* version 1: struct pvh_memmap_entry[memmap_entries] */
	uint32_t memmap_entries;
	uint32_t reserved;
};
_Static_assert(sizeof(struct pvh_start_info) == 56, "hvm_start_info layout");

struct pvh_module {
	uint64_t paddr;
	uint64_t size;
	uint64_t cmdline_paddr;     /* the module's name (NUL-terminated), 0 when none */
	uint64_t reserved;
};
_Static_assert(sizeof(struct pvh_module) == 32, "hvm_modlist_entry layout");

struct pvh_memmap_entry {
	uint64_t addr;
	uint64_t size;
	uint32_t type;
	uint32_t reserved;
};
_Static_assert(sizeof(struct pvh_memmap_entry) == 24, "hvm_memmap_table_entry layout");

/*
 * Fills *bi (zeroed first) from the start information at src->info_phys: memory map (the
 * kernel image, the information and every module typed BI_MEM_LOADER), command line,
 * modules by their names (lib/bootinfo-build.h); a module without a name, as QEMU's
 * -initrd passes it, is the configuration when it is the first. RSDP as given. Returns
 * 0, or -1 with the reason in err when the information is malformed, older than version
 * 1 (no memory map) or has no memory map.
 */
int pvh_fill_boot_info(const struct boot_source *src, struct boot_info *bi, char *err, size_t errlen);

#endif
