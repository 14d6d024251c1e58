/* SDM Vol. 3A 4.5 (4-level paging), 4.6 (access rights: U/S, R/W, NX, SMEP, SMAP). */
#include "arch/x86/paging.h"
#include "arch/x86/cpu.h"
#include "arch/x86/msr.h"
#include "arch/x86/stacks.h"
#include "arch/x86/pt-pool.h"
#include "lib/str.h"

struct paging_state paging;
bool uaccess_smap;

static uint64_t *pml4;
static uint64_t kernel_phys;

extern char __kernel_start[], __text_end[], __payload_start[], __payload_end[];
extern char __rodata_end[], __kernel_end[];

uint64_t kernel_virt_to_phys(uint64_t va)
{
	return va - KERNEL_VBASE + kernel_phys;
}

/* Tables live in the kernel image; below CR3's switch they are reached through it. */
static uint64_t *table_virt(uint64_t entry)
{
	return (uint64_t *)((entry & PTE_ADDR) - kernel_phys + KERNEL_VBASE);
}

/* Entry for va at `level` (1 = PT ... 4 = PML4), creating tables on the way. */
static uint64_t *walk(uint64_t va, int level, bool user)
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
		t = table_virt(*e);
	}
	return &t[(va >> (12 + 9 * (level - 1))) & 511];
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
	uint64_t end = va + len;
	while (va < end) {
		bool large = !(va & (LARGE_PAGE_SIZE - 1)) && !(pa & (LARGE_PAGE_SIZE - 1)) &&
			     end - va >= LARGE_PAGE_SIZE;
		uint64_t *e = walk(va, large ? 2 : 1, flags & MAP_USER);
		if (!e)
			return -1;
		/* A 2 MiB page replacing a page table: the table is free again. Reloading
		 * CR3 drops any cached pointer to it (SDM Vol. 3A 4.10.4.1). */
		bool replaced = large && (*e & PTE_P) && !(*e & PTE_PS);
		uint64_t *old = replaced ? table_virt(*e) : 0;
		*e = pa | leaf_flags(flags) | (large ? PTE_PS : 0);
		invlpg(va);
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
static uint64_t *lookup(uint64_t va, int *level)
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
		t = table_virt(*e);
	}
	return 0;
}

void paging_unmap(uint64_t va, uint64_t len)
{
	uint64_t end = va + len;
	while (va < end) {
		int level = 1;
		uint64_t *e = lookup(va, &level);
		uint64_t step = level == 2 ? LARGE_PAGE_SIZE : PAGE_SIZE;
		if (e)
			*e = 0;
		invlpg(va);
		va = (va & ~(step - 1)) + step;
	}
}

uint64_t payload_user_alias(uint64_t kva)
{
	if (kva < (uint64_t)__payload_start || kva >= (uint64_t)__payload_end)
		return 0;
	return USER_CODE_BASE + (kva - (uint64_t)__payload_start);
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
		unsigned fl = p < __payload_end ? MAP_EXEC : p < __rodata_end ? 0 : MAP_WRITE;
		uint64_t *e = walk((uint64_t)p, 1, false);
		*e = kernel_virt_to_phys((uint64_t)p) | leaf_flags(fl);
	}
	for (unsigned s = 0; s < STACK_GUARDS; s++)
		*walk(stack_guard_nth(s), 1, false) = 0;

	/* Payload code, the same physical pages, user-accessible and executable. */
	for (char *p = __payload_start; p < __payload_end; p += PAGE_SIZE)
		*walk(payload_user_alias((uint64_t)p), 1, true) =
			kernel_virt_to_phys((uint64_t)p) | leaf_flags(MAP_EXEC | MAP_USER);

	if (paging.nx)
		wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_NXE);
	write_cr0(read_cr0() | CR0_WP);
	write_cr3(kernel_virt_to_phys((uint64_t)pml4));

	uint64_t cr4 = read_cr4();
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

bool paging_identity_reaches(uint64_t pa, uint64_t len)
{
	return pa >= PAGE_SIZE && pa + len >= pa && pa + len <= IDENTITY_LIMIT;
}

unsigned paging_tables_in_use(void)
{
	return pt_pool_in_use();
}
