/*
 * The kernel's own page tables. x86-64 (arch/x86/64/paging-word.c): 4-level paging (SDM
 * Vol. 3A 4.5); i686 (arch/x86/32/paging-word.c): PAE paging (4.4); what both share is in
 * arch/x86/paging.c. x86-64 layout:
 *   0 .. 4 GiB               identity, supervisor, NX, 2 MiB pages (page 0 unmapped)
 *   USER_BASE ..             the user region (PML4 slot 1): payload code alias, user
 *                            stack, user data; everything user-accessible lives here
 *   KERNEL_VBASE ..          the kernel image, 4 KiB pages with per-section rights
 * The i686 layout is in arch/x86/32/layout.h.
 */
#ifndef ARCH_X86_PAGING_H
#define ARCH_X86_PAGING_H
#include <stdbool.h>
#include <stdint.h>
#include "lib/bootinfo.h"
#include "lib/cpuinfo.h"
#include "arch/x86/abi.h"
#include "arch/x86/uaccess.h"     /* user_access_begin/end, for paging's users */

/* USER_*, IDENTITY_LIMIT: one layout per word size (the i686 one is inside 4 GiB). */
#ifdef __x86_64__
#include "arch/x86/64/layout.h"
#else
#include "arch/x86/32/layout.h"
#endif

#define MAP_WRITE  0x1u
#define MAP_EXEC   0x2u
#define MAP_USER   0x4u
#define MAP_UNCACHED 0x8u   /* PCD and PWT: UC under the power-on PAT (SDM Vol. 3A 11.12.3), for MMIO */

struct paging_state {
	bool nx, smep, smap, umip;
	bool two_level;             /* i686 without PAE: 32-bit entries, which have no NX bit */
	uint64_t identity_limit;
};
extern struct paging_state paging;

/* Build the tables, enable NX/WP/SMEP/SMAP/UMIP as available, load CR3. */
void paging_init(const struct boot_info *bi, const struct cpu_info *ci);
/* Map [va, va+len) to [pa, ...). Uses 2 MiB pages where both are aligned. 0 or -1. */
int paging_map(uint64_t va, uint64_t pa, uint64_t len, unsigned flags);
/* Remove the mappings of [va, va+len): 4 KiB or whole 2 MiB pages. */
void paging_unmap(uint64_t va, uint64_t len);
/* Unmap the one 4 KiB page at va (a guard page), splitting a large page around it. 0, or
 * -1 when no page-table page is left for the split. */
int paging_unmap_page(uint64_t va);
/* Page-table pages in use (for the self-test of table reuse). */
unsigned paging_tables_in_use(void);
/* Whether [pa, pa+len) is mapped identity, writable, for the kernel (MMIO such as a
 * framebuffer is reached so). */
bool paging_identity_reaches(uint64_t pa, uint64_t len);
/* Where the kernel reaches the device registers at [pa, pa+len), uncached (a cached read
 * of a register would be stale): the identity map's pages there made so (a large page
 * split around them), or, where the identity map does not reach (any physical address,
 * above 4 GiB too but for i686 without PAE), new pages in the kernel's MMIO window
 * (KERNEL_MMIO_BASE). Only [pa, pa+len) rounded to pages is mapped. NULL where the kernel
 * cannot: the one service every driver maps its registers with. */
volatile void *paging_map_mmio(uint64_t pa, uint64_t len);
/* Whether va's page is mapped uncached (PCD and PWT); false where unmapped. */
bool paging_uncached(uint64_t va);
/* Physical address of a kernel-image virtual address. */
uint64_t kernel_virt_to_phys(uint64_t va);
/* User-region address of a payload-section address, or 0 if not in .payload. */
uint64_t payload_user_alias(uint64_t kva);

#endif
