/* Paging for both word sizes: mapping and unmapping over 64-bit entries (x86-64's 4-level
 * tables and i686's PAE tables share their format), leaf rights, the user alias of
 * .payload, and the protections in CR4. SDM Vol. 3A 4.4, 4.5 (the tables), 4.6 (access
 * rights: U/S, R/W, NX, SMEP, SMAP). The halves (building the tables, walking them) are
 * arch/x86/64/paging-word.c and arch/x86/32/paging-word.c. */
#include <stddef.h>
#include "arch/x86/paging-word.h"
#include "arch/x86/cpu.h"
#include "arch/x86/pt-pool.h"

struct paging_state paging;
bool uaccess_smap;

uint64_t paging_leaf_flags(unsigned flags)
{
	uint64_t f = PTE_P;
	if (flags & MAP_WRITE)
		f |= PTE_W;
	if (flags & MAP_USER)
		f |= PTE_U;
	if (flags & MAP_UNCACHED)
		f |= PTE_PCD | PTE_PWT;
	if (!(flags & MAP_EXEC) && paging.nx)
		f |= PTE_NX;
	return f;
}

unsigned paging_image_flags(const char *p)
{
	return p < __payload_end ? MAP_EXEC : p < __rodata_end ? 0 : MAP_WRITE;
}

int paging_map_range(uint64_t va, uint64_t pa, uint64_t end, unsigned flags)
{
	while (va < end) {
		bool large = !(va & (LARGE_PAGE_SIZE - 1)) && !(pa & (LARGE_PAGE_SIZE - 1)) &&
			     end - va >= LARGE_PAGE_SIZE;
		uint64_t *e = paging_walk(va, large ? 2 : 1, flags & MAP_USER);
		if (!e)
			return -1;
		/* A 2 MiB page replacing a page table: the table is free again. Reloading
		 * CR3 drops any cached pointer to it (SDM Vol. 3A 4.10.4.1). */
		bool replaced = large && (*e & PTE_P) && !(*e & PTE_PS);
		uint64_t *old = replaced ? paging_table_virt(*e) : 0;
		*e = pa | paging_leaf_flags(flags) | (large ? PTE_PS : 0);
		invlpg((uintptr_t)va);
		if (replaced) {
			write_cr3(read_cr3());
			pt_pool_free(old);
		}
		va += large ? LARGE_PAGE_SIZE : PAGE_SIZE;
		pa += large ? LARGE_PAGE_SIZE : PAGE_SIZE;
	}
	return 0;
}

void paging_unmap_range(uint64_t va, uint64_t end)
{
	while (va < end) {
		int level = 1;
		uint64_t *e = paging_lookup(va, &level);
		uint64_t step = level == 2 ? LARGE_PAGE_SIZE : PAGE_SIZE;
		if (e)
			*e = 0;
		invlpg((uintptr_t)va);
		va = (va & ~(step - 1)) + step;
	}
}

uint64_t payload_user_alias(uint64_t kva)
{
	if (kva < (uintptr_t)__payload_start || kva >= (uintptr_t)__payload_end)
		return 0;
	return USER_CODE_BASE + (kva - (uintptr_t)__payload_start);
}

void paging_enable_protections(const struct cpu_info *ci)
{
	uintptr_t cr4 = read_cr4();
	paging.smep = ci->smep;
	paging.smap = ci->smap;
	paging.umip = ci->umip;
	if (paging.smep)
		cr4 |= CR4_SMEP;
	if (paging.smap)
		cr4 |= CR4_SMAP;
	if (paging.umip)
		cr4 |= CR4_UMIP;
	write_cr4(cr4);
	uaccess_smap = paging.smap;
}

unsigned paging_tables_in_use(void)
{
	return pt_pool_in_use();
}

/* Split the 2 MiB page that entry e maps into 512 4 KiB pages of the same rights; the
 * entry of va's 4 KiB page, or 0 when no table page is left. A 4 KiB entry's bit 7 is
 * PAT, a large one's is PS: the flags keep neither (the kernel sets no PAT bit). */
static uint64_t *split_large_page(uint64_t *e, uint64_t va)
{
	uint64_t *pt = pt_pool_alloc();
	if (!pt)
		return 0;
	uint64_t base = *e & PTE_ADDR & ~(LARGE_PAGE_SIZE - 1);
	uint64_t flags = *e & ~(PTE_ADDR | PTE_PS);
	for (unsigned i = 0; i < 512; i++)
		pt[i] = (base + i * PAGE_SIZE) | flags;
	*e = kernel_virt_to_phys((uintptr_t)pt) | PTE_P | PTE_W | (flags & PTE_U);
	write_cr3(read_cr3());
	return &pt[(va >> 12) & 511];
}

int paging_unmap_page_wide(uint64_t va)
{
	int level = 1;
	uint64_t *e = paging_lookup(va, &level);
	if (!e)
		return 0;       /* not mapped */
	if (level == 2 && !(e = split_large_page(e, va)))
		return -1;
	*e = 0;
	invlpg((uintptr_t)va);
	return 0;
}

/* The identity map's pages of [pa, pa+len) made uncached (PCD, PWT: UC under the
 * power-on PAT, SDM Vol. 3A 11.12.3), whatever the MTRRs say of the range. */
static int identity_uncached(uint64_t pa, uint64_t len)
{
	for (uint64_t va = pa & ~(PAGE_SIZE - 1); va < pa + len; va += PAGE_SIZE) {
		int level = 1;
		uint64_t *e = paging_lookup(va, &level);
		if (e && level == 2)
			e = split_large_page(e, va);
		if (!e)
			return -1;
		*e |= PTE_PCD | PTE_PWT;
		invlpg((uintptr_t)va);
	}
	return 0;
}

/* The MMIO window's next free page: registers the identity map does not reach get pages
 * here, uncached, as many as the driver asked for and no more. */
static uint64_t mmio_next = KERNEL_MMIO_BASE;

static volatile void *window_map(uint64_t pa, uint64_t len)
{
	uint64_t off = pa & (PAGE_SIZE - 1);
	uint64_t size = (len + off + PAGE_SIZE - 1) & ~(uint64_t)(PAGE_SIZE - 1);

	if (size > KERNEL_MMIO_BASE + KERNEL_MMIO_MAX - mmio_next)
		return NULL;
	if (paging_map(mmio_next, pa - off, size, MAP_WRITE | MAP_UNCACHED))
		return NULL;        /* above 4 GiB without PAE, or no table page left */
	volatile void *va = (volatile void *)(uintptr_t)(mmio_next + off);
	mmio_next += size;
	return va;
}

volatile void *paging_map_mmio(uint64_t pa, uint64_t len)
{
	if (len == 0 || pa + len < pa)
		return NULL;
	/* Two-level entries are 32 bits wide, not the format identity_uncached walks: there
	 * the registers get their own uncached pages in the window too. */
	if (!paging_identity_reaches(pa, len) || paging.two_level)
		return window_map(pa, len);
	if (identity_uncached(pa, len) != 0)
		return NULL;
	return (volatile void *)(uintptr_t)pa;
}

bool paging_uncached(uint64_t va)
{
	int level = 1;
	if (paging.two_level)
		return false;
	uint64_t *e = paging_lookup(va, &level);
	return e && (*e & (PTE_PCD | PTE_PWT)) == (PTE_PCD | PTE_PWT);
}
