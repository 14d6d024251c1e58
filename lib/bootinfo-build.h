/*
 * Building struct boot_info from what a loader on the BIOS side hands over (Multiboot2:
 * lib/mb2.c; PVH: lib/pvh.c): the parts both protocols share. Memory ranges are gathered
 * (the loader's map, then what is in use: the kernel image, the information, the modules)
 * and flattened into the sorted map the kernel reads; modules are told apart by name.
 * Pure, so that the host tests can feed hand-built information.
 */
#ifndef LIB_BOOTINFO_BUILD_H
#define LIB_BOOTINFO_BUILD_H
#include <stddef.h>
#include <stdint.h>
#include "lib/bootinfo.h"

#define BIB_RANGES_MAX      (BI_MMAP_MAX + 64)
#define BIB_MODULES_MAX     60
#define BIB_CONFIG_MODULE   "bareperf.cfg"        /* the module that holds the configuration */
#define BIB_IDENTITY_MODULE "bareperf.identity"   /* /bareperf/results/IDENTITY */
/* What GRUB booted from, when it is not a disk: "network" or "cd" (enum bi_medium). */
#define BIB_MEDIUM_MODULE   "bareperf.medium"
/* A note from the boot path for the user (as the UEFI loader's), its text the module's. */
#define BIB_NOTE_MODULE     "bareperf.note"

/* What the entry code knows of the hand-over. */
struct boot_source {
	uint64_t info_phys;         /* the information's physical address (EBX at entry) */
	uintptr_t phys_to_virt;     /* added to a physical address to read it; 0 when identity-mapped */
	uint64_t kernel_phys;       /* the image as the loader placed it, .bss included */
	uint64_t kernel_size;
	uint32_t firmware;          /* BI_FIRMWARE_*, recorded in boot_info */
};

struct bib_range {
	uint64_t base, end;
	uint32_t type;
};

struct bi_builder {
	const struct boot_source *src;
	struct boot_info *bi;
	char *err;
	size_t errlen;
	struct bib_range ranges[BIB_RANGES_MAX];
	unsigned nranges;
	uint64_t bounds[2 * BIB_RANGES_MAX];
	uint32_t modules;
};

/* Zeroes *bi and fills its header from src; the builder (about 22 KiB: keep it static,
 * the boot stack is small) starts empty. */
void bib_begin(struct bi_builder *b, const struct boot_source *src, struct boot_info *bi,
	       char *err, size_t errlen);
/* A pointer through which physical address phys can be read. */
const void *bib_phys(const struct bi_builder *b, uint64_t phys);
/* Adds a loader warning for the user, "; "-separated. */
void bib_note(struct boot_info *bi, const char *msg);
/* Adds [base, base + len) of type (enum bi_mem_type): free RAM shrinks to whole pages,
 * anything else grows to cover them. 0, or -1 with the reason when it wraps or the
 * ranges run out. */
int bib_add_range(struct bi_builder *b, uint64_t base, uint64_t len, uint32_t type);
/* A module [start, end) named name: the configuration (BIB_CONFIG_MODULE), the image's
 * identity (BIB_IDENTITY_MODULE), the boot medium (BIB_MEDIUM_MODULE), a note
 * (BIB_NOTE_MODULE), or one the kernel ignores with a note. Its memory is
 * marked in use. 0, or -1 with the reason. */
int bib_module(struct bi_builder *b, const char *name, uint64_t start, uint64_t end);
/* The loader's command line, len characters at str; one too long is refused whole. */
void bib_cmdline(struct bi_builder *b, const char *str, size_t len);
/* Marks the kernel image in use and flattens the ranges into bi's sorted map, each piece
 * taking the strongest type covering it. 0, or -1 with the reason. */
int bib_finish(struct bi_builder *b);

#endif
