/* Between arch/x86/paging.c and its word-size halves (arch/x86/64/paging-word.c:
 * 4-level tables; arch/x86/32/paging-word.c: PAE tables, or two-level ones in
 * paging-2level.c). Both 4-level and PAE tables have 64-bit entries of the same format (SDM Vol. 3A 4.4, 4.5),
 * so the shared file maps and unmaps over either, through the half's walk and lookup.
 * Only the paging files include this. */
#ifndef ARCH_X86_PAGING_WORD_H
#define ARCH_X86_PAGING_WORD_H
#include "arch/x86/paging.h"

/* The image's sections (arch/x86/64/linker.ld, arch/x86/32/linker.ld). */
extern char __kernel_start[], __text_end[], __payload_start[], __payload_end[];
extern char __rodata_end[], __kernel_end[];

/* In each half: the entry for va at `level` (1 = PT, 2 = PD), creating tables on the way;
 * 0 when a large page covers va or no table page is left. */
uint64_t *paging_walk(uint64_t va, int level, bool user);
/* The entry that maps va (a PTE or a 2 MiB PDE) and its level, without creating tables;
 * 0 if unmapped. */
uint64_t *paging_lookup(uint64_t va, int *level);
/* The table an entry points to, as the kernel reaches it. */
uint64_t *paging_table_virt(uint64_t entry);

/* Shared: the leaf entry bits for MAP_* flags (NX where paging.nx). */
uint64_t paging_leaf_flags(unsigned flags);
/* The MAP_* rights of the image's page at p: .text and .payload executable, .rodata
 * read-only, the rest writable. */
unsigned paging_image_flags(const char *p);
/* Map [va, end) to pa.. with 2 MiB pages where both are aligned; 0 or -1. */
int paging_map_range(uint64_t va, uint64_t pa, uint64_t end, unsigned flags);
/* Remove the mappings of [va, end): 4 KiB or whole 2 MiB pages. */
void paging_unmap_range(uint64_t va, uint64_t end);
/* paging_unmap_page over 64-bit entries (4-level and PAE tables). */
int paging_unmap_page_wide(uint64_t va);
/* SMEP, SMAP and UMIP where the CPU has them (paging.smep...), once the tables are live. */
void paging_enable_protections(const struct cpu_info *ci);

#endif
