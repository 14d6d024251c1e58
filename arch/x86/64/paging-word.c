/* The x86-64 half of arch/x86/paging.c: 4-level tables (SDM Vol. 3A 4.5) for the layout
 * of arch/x86/64/layout.h, the kernel image linked at KERNEL_VBASE wherever it was loaded. */
#include "arch/x86/paging-word.h"
#include "arch/x86/cpu.h"
#include "arch/x86/msr.h"
#include "arch/x86/stacks.h"
#include "arch/x86/pt-pool.h"
#include "lib/str.h"

static uint64_t *pml4;
static uint64_t kernel_phys;

uint64_t kernel_virt_to_phys(uint64_t va)
{
	return va - KERNEL_VBASE + kernel_phys;
}

/* Tables live in the kernel image; below CR3's switch they are reached through it. */
uint64_t *paging_table_virt(uint64_t entry)
{
	return (uint64_t *)((entry & PTE_ADDR) - kernel_phys + KERNEL_VBASE);
}

/* Entry for va at `level` (1 = PT ... 4 = PML4), creating tables on the way. */
uint64_t *paging_walk(uint64_t va, int level, bool user)
{
	uint64_t *t = pml4;
	for (int l = 4; l > level; l--) {
		uint64_t *e = &t[(va >> (12 + 9 * (l - 1))) & 511];
		if (!(*e & PTE_P)) {
			uint64_t *n = pt_pool_alloc();
			if (!n)
				return 0;
			*e = kernel_virt_to_phys((uint64_t)n) | PTE_P | PTE_W;
		} else if (*e & PTE_PS) {
			return 0;     /* a large page covers va: unmap it before mapping inside it */
		}
		if (user)
			*e |= PTE_U;
		t = paging_table_virt(*e);
	}
	return &t[(va >> (12 + 9 * (level - 1))) & 511];
}

int paging_map(uint64_t va, uint64_t pa, uint64_t len, unsigned flags)
{
	return paging_map_range(va, pa, va + len, flags);
}

/* Entry that maps va (PTE, or a 2 MiB PDE), without creating tables; 0 if unmapped. */
uint64_t *paging_lookup(uint64_t va, int *level)
{
	uint64_t *t = pml4;
	for (int l = 4; l >= 1; l--) {
		uint64_t *e = &t[(va >> (12 + 9 * (l - 1))) & 511];
		if (!(*e & PTE_P))
			return 0;
		if (l == 1 || (l == 2 && (*e & PTE_PS))) {
			*level = l;
			return e;
		}
		t = paging_table_virt(*e);
	}
	return 0;
}

int paging_unmap_page(uint64_t va)
{
	return paging_unmap_page_wide(va);
}

void paging_unmap(uint64_t va, uint64_t len)
{
	paging_unmap_range(va, va + len);
}

void paging_init(const struct boot_info *bi, const struct cpu_info *ci)
{
	kernel_phys = bi->kernel_phys;
	paging.nx = ci->nx;
	pml4 = pt_pool_alloc();

	/* Identity 0..4 GiB for boot-info, ACPI, MMIO; 4 KiB pages in the first 2 MiB so
	 * that page 0 stays unmapped and a NULL dereference faults. */
	paging.identity_limit = IDENTITY_LIMIT;
	paging_map(PAGE_SIZE, PAGE_SIZE, LARGE_PAGE_SIZE - PAGE_SIZE, MAP_WRITE);
	paging_map(LARGE_PAGE_SIZE, LARGE_PAGE_SIZE, IDENTITY_LIMIT - LARGE_PAGE_SIZE, MAP_WRITE);

	/* The kernel image, 4 KiB pages. The first 2 MiB-aligned block check in
	 * paging_map would use large pages; force small ones by mapping page by page. */
	for (char *p = __kernel_start; p < __kernel_end; p += PAGE_SIZE) {
		uint64_t *e = paging_walk((uint64_t)p, 1, false);
		*e = kernel_virt_to_phys((uint64_t)p) | paging_leaf_flags(paging_image_flags(p));
	}
	for (unsigned s = 0; s < STACK_BOOT_GUARDS; s++)
		*paging_walk(stack_guard_boot(s), 1, false) = 0;

	/* Payload code, the same physical pages, user-accessible and executable. */
	for (char *p = __payload_start; p < __payload_end; p += PAGE_SIZE)
		*paging_walk(payload_user_alias((uint64_t)p), 1, true) =
			kernel_virt_to_phys((uint64_t)p) | paging_leaf_flags(MAP_EXEC | MAP_USER);

	if (paging.nx)
		wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_NXE);
	write_cr0(read_cr0() | CR0_WP);
	write_cr3(kernel_virt_to_phys((uint64_t)pml4));
	paging_enable_protections(ci);
}

/* Below IDENTITY_LIMIT, page 0 aside: the identity map paging_init builds. */
bool paging_identity_reaches(uint64_t pa, uint64_t len)
{
	return pa >= PAGE_SIZE && pa + len >= pa && pa + len <= IDENTITY_LIMIT;
}
