/*
 * The i686 kernel's page tables: PAE paging (SDM Vol. 3A 4.4): a 4-entry PDPT, page
 * directories of 2 MiB pages or page tables of 4 KiB pages, 64-bit entries with NX (bit
 * 63) where the CPU has it. The layout is arch/x86/32/layout.h. CPUs without PAE (the
 * Pentium M "Banias") get classic two-level paging (arch/x86/32/paging-2level.c), chosen
 * here at boot by CPUID.1:EDX[6].
 */
#include "arch/x86/paging.h"
#include "arch/x86/32/paging-2level.h"
#include "arch/x86/cpu.h"
#include "arch/x86/desc.h"
#include "arch/x86/msr.h"
#include "arch/x86/stacks.h"
#include "arch/x86/pt-pool.h"
#include "lib/str.h"

#define PDPTE_P          PTE_P      /* PDPTEs have no R/W, U/S or NX: those bits are reserved */

struct paging_state paging;
bool uaccess_smap;

static uint64_t pdpt[4] __attribute__((aligned(32)));
static bool two_level;      /* no PAE: every paging_* call goes to paging-2level.c */

extern char __kernel_start[], __text_end[], __payload_start[], __payload_end[];
extern char __rodata_end[], __kernel_end[];

/* The image is linked where it is loaded: virtual and physical addresses agree. */
uint64_t kernel_virt_to_phys(uint64_t va)
{
	return va;
}

static uint64_t *table_virt(uint64_t entry)
{
	return (uint64_t *)(uintptr_t)(entry & PTE_ADDR);
}

/* Entry for va at `level` (1 = PT, 2 = PD), creating tables on the way. The page
 * directories exist from paging_init on, one per PDPT entry. */
static uint64_t *walk(uint32_t va, int level, bool user)
{
	uint64_t *pd = table_virt(pdpt[va >> 30]);
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
	return &table_virt(*pde)[(va >> 12) & 511];
}

static uint64_t leaf_flags(unsigned flags)
{
	uint64_t f = PTE_P;
	if (flags & MAP_WRITE)
		f |= PTE_W;
	if (flags & MAP_USER)
		f |= PTE_U;
	if (!(flags & MAP_EXEC) && paging.nx)
		f |= PTE_NX;
	return f;
}

int paging_map(uint64_t va, uint64_t pa, uint64_t len, unsigned flags)
{
	if (two_level)
		return paging_2level_map(va, pa, len, flags);
	uint64_t end = va + len;
	if (end > (1ull << 32) || end < va)
		return -1;
	while (va < end) {
		bool large = !(va & (LARGE_PAGE_SIZE - 1)) && !(pa & (LARGE_PAGE_SIZE - 1)) &&
			     end - va >= LARGE_PAGE_SIZE;
		uint64_t *e = walk((uint32_t)va, large ? 2 : 1, flags & MAP_USER);
		if (!e)
			return -1;
		/* A 2 MiB page replacing a page table: the table is free again once CR3 is
		 * reloaded (SDM Vol. 3A 4.10.4.1). */
		bool replaced = large && (*e & PTE_P) && !(*e & PTE_PS);
		uint64_t *old = replaced ? table_virt(*e) : 0;
		*e = pa | leaf_flags(flags) | (large ? PTE_PS : 0);
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

/* Entry that maps va (PTE, or a 2 MiB PDE), without creating tables; 0 if unmapped. */
static uint64_t *lookup(uint32_t va, int *level)
{
	uint64_t *pde = &table_virt(pdpt[va >> 30])[(va >> 21) & 511];
	if (!(*pde & PTE_P))
		return 0;
	if (*pde & PTE_PS) {
		*level = 2;
		return pde;
	}
	uint64_t *pte = &table_virt(*pde)[(va >> 12) & 511];
	*level = 1;
	return (*pte & PTE_P) ? pte : 0;
}

void paging_unmap(uint64_t va, uint64_t len)
{
	if (two_level) {
		paging_2level_unmap(va, len);
		return;
	}
	uint64_t end = va + len;
	while (va < end && va < (1ull << 32)) {
		int level = 1;
		uint64_t *e = lookup((uint32_t)va, &level);
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

static unsigned image_flags(const char *p)
{
	return p < __payload_end ? MAP_EXEC : p < __rodata_end ? 0 : MAP_WRITE;
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
		*walk(a, 1, false) = a | leaf_flags(in_image ? image_flags(p) : MAP_WRITE);
	}
	if (img_lo > LARGE_PAGE_SIZE)
		paging_map(LARGE_PAGE_SIZE, LARGE_PAGE_SIZE, img_lo - LARGE_PAGE_SIZE, MAP_WRITE);
	paging_map(img_hi, img_hi, IDENTITY_LIMIT - img_hi, MAP_WRITE);
	paging_map(MMIO_WINDOW_BASE, MMIO_WINDOW_BASE, (1ull << 32) - MMIO_WINDOW_BASE, MAP_WRITE);
	for (unsigned s = 0; s < STACK_GUARDS; s++)
		*walk(stack_guard_nth(s), 1, false) = 0;

	/* Payload code, the same physical pages, user-accessible and executable. */
	for (char *p = __payload_start; p < __payload_end; p += PAGE_SIZE)
		*walk(payload_user_alias((uintptr_t)p), 1, true) =
			(uintptr_t)p | leaf_flags(MAP_EXEC | MAP_USER);

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

unsigned paging_tables_in_use(void)
{
	return pt_pool_in_use();
}
