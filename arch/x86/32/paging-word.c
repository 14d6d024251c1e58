/*
 * The i686 half of arch/x86/paging.c: PAE paging (SDM Vol. 3A 4.4): a 4-entry PDPT, page
 * directories of 2 MiB pages or page tables of 4 KiB pages, 64-bit entries with NX (bit
 * 63) where the CPU has it. The layout is arch/x86/32/layout.h. CPUs without PAE (the
 * Pentium M "Banias") get classic two-level paging (arch/x86/32/paging-2level.c), chosen
 * here at boot by CPUID.1:EDX[6].
 */
#include "arch/x86/paging-word.h"
#include "arch/x86/32/paging-2level.h"
#include "arch/x86/cpu.h"
#include "arch/x86/desc.h"
#include "arch/x86/msr.h"
#include "arch/x86/stacks.h"
#include "arch/x86/pt-pool.h"
#include "lib/str.h"

#define PDPTE_P          PTE_P      /* PDPTEs have no R/W, U/S or NX: those bits are reserved */

static uint64_t pdpt[4] __attribute__((aligned(32)));
static bool two_level;      /* no PAE: every paging_* call goes to paging-2level.c */

/* The image is linked where it is loaded: virtual and physical addresses agree. */
uint64_t kernel_virt_to_phys(uint64_t va)
{
	return va;
}

uint64_t *paging_table_virt(uint64_t entry)
{
	return (uint64_t *)(uintptr_t)(entry & PTE_ADDR);
}

/* Entry for va at `level` (1 = PT, 2 = PD), creating tables on the way. The page
 * directories exist from paging_init on, one per PDPT entry. */
uint64_t *paging_walk(uint64_t va64, int level, bool user)
{
	uint32_t va = (uint32_t)va64;
	uint64_t *pd = paging_table_virt(pdpt[va >> 30]);
	uint64_t *pde = &pd[(va >> 21) & 511];
	if (user)
		*pde |= PTE_U;
	if (level == 2)
		return pde;
	if (!(*pde & PTE_P)) {
		uint64_t *n = pt_pool_alloc();
		if (!n)
			return 0;
		*pde = (uintptr_t)n | PTE_P | PTE_W | (user ? PTE_U : 0);
	} else if (*pde & PTE_PS) {
		return 0;     /* a large page covers va: unmap it before mapping inside it */
	}
	return &paging_table_virt(*pde)[(va >> 12) & 511];
}

int paging_map(uint64_t va, uint64_t pa, uint64_t len, unsigned flags)
{
	if (two_level)
		return paging_2level_map(va, pa, len, flags);
	uint64_t end = va + len;
	if (end > (1ull << 32) || end < va)
		return -1;
	return paging_map_range(va, pa, end, flags);
}

/* Entry that maps va (PTE, or a 2 MiB PDE), without creating tables; 0 if unmapped. */
uint64_t *paging_lookup(uint64_t va64, int *level)
{
	uint32_t va = (uint32_t)va64;
	uint64_t *pde = &paging_table_virt(pdpt[va >> 30])[(va >> 21) & 511];
	if (!(*pde & PTE_P))
		return 0;
	if (*pde & PTE_PS) {
		*level = 2;
		return pde;
	}
	uint64_t *pte = &paging_table_virt(*pde)[(va >> 12) & 511];
	*level = 1;
	return (*pte & PTE_P) ? pte : 0;
}

void paging_unmap(uint64_t va, uint64_t len)
{
	if (two_level) {
		paging_2level_unmap(va, len);
		return;
	}
	/* Nothing is mapped at or above 4 GiB. */
	uint64_t end = va + len;
	paging_unmap_range(va, end < (1ull << 32) ? end : (1ull << 32));
}

int paging_unmap_page(uint64_t va)
{
	return two_level ? paging_2level_unmap_page(va) : paging_unmap_page_wide(va);
}

static void pae_init(void)
{
	for (int i = 0; i < 4; i++)
		pdpt[i] = (uintptr_t)pt_pool_alloc() | PDPTE_P;

	/* Identity below the user region, 4 KiB pages in the 2 MiB blocks that hold page 0
	 * (left unmapped: a NULL dereference faults) or the image (per-section rights). */
	uint32_t img_lo = (uintptr_t)__kernel_start & ~(uint32_t)(LARGE_PAGE_SIZE - 1);
	uint32_t img_hi = ((uintptr_t)__kernel_end + LARGE_PAGE_SIZE - 1) &
			  ~(uint32_t)(LARGE_PAGE_SIZE - 1);
	paging_map(PAGE_SIZE, PAGE_SIZE, LARGE_PAGE_SIZE - PAGE_SIZE, MAP_WRITE);
	for (uint32_t a = img_lo < LARGE_PAGE_SIZE ? LARGE_PAGE_SIZE : img_lo; a < img_hi;
	     a += PAGE_SIZE) {
		const char *p = (const char *)(uintptr_t)a;
		bool in_image = p >= __kernel_start && p < __kernel_end;
		unsigned fl = in_image ? paging_image_flags(p) : MAP_WRITE;
		*paging_walk(a, 1, false) = a | paging_leaf_flags(fl);
	}
	if (img_lo > LARGE_PAGE_SIZE)
		paging_map(LARGE_PAGE_SIZE, LARGE_PAGE_SIZE, img_lo - LARGE_PAGE_SIZE, MAP_WRITE);
	paging_map(img_hi, img_hi, IDENTITY_LIMIT - img_hi, MAP_WRITE);
	paging_map(MMIO_WINDOW_BASE, MMIO_WINDOW_BASE, MMIO_WINDOW_END - MMIO_WINDOW_BASE, MAP_WRITE);
	for (unsigned s = 0; s < STACK_BOOT_GUARDS; s++)
		*paging_walk(stack_guard_boot(s), 1, false) = 0;

	/* Payload code, the same physical pages, user-accessible and executable. */
	for (char *p = __payload_start; p < __payload_end; p += PAGE_SIZE)
		*paging_walk(payload_user_alias((uintptr_t)p), 1, true) =
			(uintptr_t)p | paging_leaf_flags(MAP_EXEC | MAP_USER);

	if (paging.nx)
		wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_NXE);
	write_cr4(read_cr4() | CR4_PAE);
	write_cr3((uintptr_t)pdpt);
	write_cr0(read_cr0() | CR0_PG | CR0_WP);
}

void paging_init(const struct boot_info *bi, const struct cpu_info *ci)
{
	(void)bi;
	paging.identity_limit = IDENTITY_LIMIT;
	two_level = !ci->pae;
	paging.two_level = two_level;
	paging.nx = ci->nx && !two_level;     /* NX is bit 63 of a PAE entry */
	if (two_level)
		paging_2level_init();
	else
		pae_init();
	paging_enable_protections(ci);
	desc_set_df_task_cr3(read_cr3());
}

/* Below IDENTITY_LIMIT (page 0 aside) or inside the MMIO window up to 4 GiB: both layouts,
 * PAE and two-level, map these so. */
bool paging_identity_reaches(uint64_t pa, uint64_t len)
{
	uint64_t end = pa + len;
	if (end < pa || pa < PAGE_SIZE)
		return false;
	return end <= IDENTITY_LIMIT || (pa >= MMIO_WINDOW_BASE && end <= (1ull << 32));
}
