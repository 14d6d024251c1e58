/*
 * Classic two-level paging (SDM Vol. 3A 4.3) for i686 CPUs without PAE (the Pentium M
 * "Banias" hides it): one page directory of 1024 32-bit entries, page tables of 4 KiB
 * pages, and 4 MiB pages (CR4.PSE, PDE bit 7) where aligned. The layout and the rights
 * are the PAE path's (arch/x86/32/paging-word.c, layout.h) except NX, which needs PAE's
 * 64-bit entries. PSE is required: without it 3 GiB of identity would need 3 MiB of
 * page tables, and every CPU bareperf runs on (P6 and later) has it.
 */
#include "arch/x86/32/paging-2level.h"
#include "arch/x86/paging-word.h"
#include "arch/x86/cpu.h"
#include "arch/x86/stacks.h"
#include "arch/x86/pt-pool.h"
#include "lib/str.h"

#define PSE_PAGE_SIZE     (4u << 20)
#define PDE32_ADDR        0xfffff000u

static uint32_t pgdir[1024] __attribute__((aligned(PAGE_SIZE)));

static uint32_t *table_virt(uint32_t entry)
{
	return (uint32_t *)(uintptr_t)(entry & PDE32_ADDR);
}

/* Entry for va at `level` (1 = PTE, 2 = PDE), creating a page table on the way. */
static uint32_t *walk(uint32_t va, int level, bool user)
{
	uint32_t *pde = &pgdir[va >> 22];
	if (user)
		*pde |= PTE_U;
	if (level == 2)
		return pde;
	if (!(*pde & PTE_P)) {
		uint32_t *n = pt_pool_alloc();
		if (!n)
			return 0;
		*pde = (uintptr_t)n | PTE_P | PTE_W | (user ? PTE_U : 0);
	} else if (*pde & PTE_PS) {
		return 0;     /* a 4 MiB page covers va: unmap it before mapping inside it */
	}
	return &table_virt(*pde)[(va >> 12) & 1023];
}

static uint32_t leaf_flags(unsigned flags)
{
	uint32_t f = PTE_P;
	if (flags & MAP_WRITE)
		f |= PTE_W;
	if (flags & MAP_USER)
		f |= PTE_U;
	if (flags & MAP_UNCACHED)
		f |= PTE_PCD | PTE_PWT;     /* bits 4 and 3 here too (SDM Vol. 3A Table 4-6) */
	return f;    /* no NX bit in 32-bit entries: MAP_EXEC is implied */
}

int paging_2level_map(uint64_t va, uint64_t pa, uint64_t len, unsigned flags)
{
	uint64_t end = va + len;
	if (end > (1ull << 32) || end < va || pa + len > (1ull << 32))
		return -1;
	while (va < end) {
		bool large = !(va & (PSE_PAGE_SIZE - 1)) && !(pa & (PSE_PAGE_SIZE - 1)) &&
			     end - va >= PSE_PAGE_SIZE;
		uint32_t *e = walk((uint32_t)va, large ? 2 : 1, flags & MAP_USER);
		if (!e)
			return -1;
		/* A 4 MiB page replacing a page table: the table is free again once CR3 is
		 * reloaded (SDM Vol. 3A 4.10.4.1). */
		bool replaced = large && (*e & PTE_P) && !(*e & PTE_PS);
		uint32_t *old = replaced ? table_virt(*e) : 0;
		*e = (uint32_t)pa | leaf_flags(flags) | (large ? PTE_PS : 0);
		invlpg((uintptr_t)va);
		if (replaced) {
			write_cr3(read_cr3());
			pt_pool_free(old);
		}
		va += large ? PSE_PAGE_SIZE : PAGE_SIZE;
		pa += large ? PSE_PAGE_SIZE : PAGE_SIZE;
	}
	return 0;
}

/* Entry that maps va (PTE, or a 4 MiB PDE), without creating tables; 0 if unmapped. */
static uint32_t *lookup(uint32_t va, int *level)
{
	uint32_t *pde = &pgdir[va >> 22];
	if (!(*pde & PTE_P))
		return 0;
	if (*pde & PTE_PS) {
		*level = 2;
		return pde;
	}
	uint32_t *pte = &table_virt(*pde)[(va >> 12) & 1023];
	*level = 1;
	return (*pte & PTE_P) ? pte : 0;
}

void paging_2level_unmap(uint64_t va, uint64_t len)
{
	uint64_t end = va + len;
	while (va < end && va < (1ull << 32)) {
		int level = 1;
		uint32_t *e = lookup((uint32_t)va, &level);
		uint64_t step = level == 2 ? PSE_PAGE_SIZE : PAGE_SIZE;
		if (e)
			*e = 0;
		invlpg((uintptr_t)va);
		va = (va & ~(step - 1)) + step;
	}
}

/* Split a 4 MiB page into a page table of 4 KiB pages of the same rights (a 4 KiB entry's
 * bit 7 is PAT, a 4 MiB one's PS: neither is kept), then unmap va's page. */
int paging_2level_unmap_page(uint64_t va64)
{
	uint32_t va = (uint32_t)va64;
	uint32_t *pde = &pgdir[va >> 22];
	if (!(*pde & PTE_P))
		return 0;
	if (*pde & PTE_PS) {
		uint32_t *pt = pt_pool_alloc();
		if (!pt)
			return -1;
		uint32_t base = *pde & ~(PSE_PAGE_SIZE - 1), flags = *pde & 0xfffu & ~(uint32_t)PTE_PS;
		for (unsigned i = 0; i < 1024; i++)
			pt[i] = (base + i * PAGE_SIZE) | flags;
		*pde = (uintptr_t)pt | PTE_P | PTE_W | (flags & PTE_U);
		write_cr3(read_cr3());
	}
	table_virt(*pde)[(va >> 12) & 1023] = 0;
	invlpg(va);
	return 0;
}

/* The PAE path's layout: identity below the user region with page 0 unmapped and the
 * image in 4 KiB pages with per-section rights, stack guards unmapped, the payload alias
 * in the user region, the MMIO window. Turns paging on with CR4.PSE and CR0.WP. */
void paging_2level_init(void)
{
	uint32_t img_lo = (uintptr_t)__kernel_start & ~(PSE_PAGE_SIZE - 1);
	uint32_t img_hi = ((uintptr_t)__kernel_end + PSE_PAGE_SIZE - 1) & ~(PSE_PAGE_SIZE - 1);
	/* The image may share the first 4 MiB with page 0: then one page table holds both. */
	if (img_lo)
		paging_2level_map(PAGE_SIZE, PAGE_SIZE, PSE_PAGE_SIZE - PAGE_SIZE, MAP_WRITE);
	for (uint32_t a = img_lo ? img_lo : PAGE_SIZE; a < img_hi; a += PAGE_SIZE) {
		const char *p = (const char *)(uintptr_t)a;
		bool in_image = p >= __kernel_start && p < __kernel_end;
		*walk(a, 1, false) = a | leaf_flags(in_image ? paging_image_flags(p) : MAP_WRITE);
	}
	if (img_lo > PSE_PAGE_SIZE)
		paging_2level_map(PSE_PAGE_SIZE, PSE_PAGE_SIZE, img_lo - PSE_PAGE_SIZE, MAP_WRITE);
	paging_2level_map(img_hi, img_hi, IDENTITY_LIMIT - img_hi, MAP_WRITE);
	paging_2level_map(MMIO_WINDOW_BASE, MMIO_WINDOW_BASE, MMIO_WINDOW_END - MMIO_WINDOW_BASE,
			  MAP_WRITE);
	for (unsigned s = 0; s < STACK_BOOT_GUARDS; s++)
		*walk(stack_guard_boot(s), 1, false) = 0;

	for (char *p = __payload_start; p < __payload_end; p += PAGE_SIZE)
		*walk(payload_user_alias((uintptr_t)p), 1, true) =
			(uintptr_t)p | leaf_flags(MAP_EXEC | MAP_USER);

	write_cr4((read_cr4() | CR4_PSE) & ~CR4_PAE);
	write_cr3((uintptr_t)pgdir);
	write_cr0(read_cr0() | CR0_PG | CR0_WP);
}

