#include "kernel/mem.h"
#include "arch/x86/paging.h"
#include <stdbool.h>
#include "lib/format.h"
#include "lib/str.h"

#define MEM_RANGES_MAX 64
#define LOW_MEMORY     (1ull << 20)        /* leave real-mode memory alone */

static struct { uint64_t base, end, next; } ranges[MEM_RANGES_MAX];
static unsigned nranges;
static uint64_t user_next = USER_DATA_BASE;
/* Allocator cursors when the first user block was taken; user_reset rewinds to them.
 * Kernel allocations must not happen while user blocks are live. */
static uint64_t snapshot[MEM_RANGES_MAX];
static bool have_snapshot;

void mem_init(const struct boot_info *bi)
{
	for (uint32_t i = 0; i < bi->mmap_count && nranges < MEM_RANGES_MAX; i++) {
		const struct bi_mem_range *r = &bi->mmap[i];
		uint64_t b = r->base, e = r->base + r->pages * BI_PAGE_SIZE;
		if (r->type != BI_MEM_USABLE)
			continue;
		if (b < LOW_MEMORY)
			b = LOW_MEMORY;
		if (e > paging.identity_limit)
			e = paging.identity_limit;
		if (e <= b + PAGE_SIZE)
			continue;
		ranges[nranges].base = b;
		ranges[nranges].end = e;
		ranges[nranges].next = b;
		nranges++;
	}
}

uint64_t mem_alloc_phys(uint64_t size, uint64_t align)
{
	size = (size + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);
	if (align < PAGE_SIZE)
		align = PAGE_SIZE;
	for (unsigned i = 0; i < nranges; i++) {
		uint64_t p = (ranges[i].next + align - 1) & ~(align - 1);
		if (p + size <= ranges[i].end && p + size > p) {
			ranges[i].next = p + size;
			memset((void *)(uintptr_t)p, 0, size);     /* identity-mapped */
			return p;
		}
	}
	return 0;
}

uint64_t mem_free_bytes(void)
{
	uint64_t total = 0;
	for (unsigned i = 0; i < nranges; i++)
		total += ranges[i].end - ranges[i].next;
	return total;
}

static uint64_t code_phys, code_len;

static void take_snapshot(void)
{
	if (!have_snapshot) {
		for (unsigned i = 0; i < nranges; i++)
			snapshot[i] = ranges[i].next;
		have_snapshot = true;
	}
}

void *user_code_alloc(uint64_t size)
{
	size = (size + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);
	/* A guard page's room is left in each alias's window (the layouts have nothing mapped
	 * just below either), so the code lies between unmapped pages at both aliases. */
	if (code_len || size > BENCH_CODE_MAX - GUARD_SIZE)
		return 0;
	take_snapshot();
	code_phys = mem_alloc_phys(size, PAGE_SIZE);
	if (!code_phys)
		return 0;
	code_len = size;
	return (void *)(uintptr_t)code_phys;        /* identity-mapped, writable, NX */
}

int user_code_seal(void)
{
	if (!code_len)
		return -1;
	if (paging_map(USER_BENCH_CODE, code_phys, code_len, MAP_EXEC | MAP_USER) ||
	    paging_map(KERNEL_BENCH_CODE, code_phys, code_len, MAP_EXEC))
		return -1;
	return 0;
}

static bool user_region_full;

uintptr_t user_alloc(uint64_t size, uint64_t align)
{
	take_snapshot();
	if (align < PAGE_SIZE)
		align = PAGE_SIZE;
	/* At least an unmapped guard page below every block, so between any two: code that
	 * runs past either end of its buffer faults instead of writing its neighbour. */
	uint64_t va = (user_next + GUARD_SIZE + align - 1) & ~(align - 1);
	size = (size + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);
	user_region_full = va + size > USER_DATA_BASE + USER_DATA_MAX || va + size < va;
	if (user_region_full)
		return 0;
	uint64_t pa = mem_alloc_phys(size, align);
	if (!pa || paging_map(va, pa, size, MAP_WRITE | MAP_USER))
		return 0;
	user_next = va + size;
	return (uintptr_t)va;
}

bool user_alloc_past_region(void)
{
	return user_region_full;
}

void user_region_limit(char *buf, size_t len)
{
	bp_snprintf(buf, len, "does not fit the %s user region (%llu MiB of address space for "
		    "buffers, docs/config.md)", sizeof(void *) == 4 ? "i686 kernel's" : "kernel's",
		    (unsigned long long)(USER_DATA_MAX >> 20));
}

void user_reset(void)
{
	paging_unmap(USER_DATA_BASE, user_next - USER_DATA_BASE);
	user_next = USER_DATA_BASE;
	user_region_full = false;
	if (code_len) {
		paging_unmap(USER_BENCH_CODE, code_len);
		paging_unmap(KERNEL_BENCH_CODE, code_len);
		code_len = 0;
	}
	if (have_snapshot) {
		for (unsigned i = 0; i < nranges; i++)
			ranges[i].next = snapshot[i];
		have_snapshot = false;
	}
}

bool mem_read_phys(void *ctx, uint64_t phys, void *buf, uint32_t len)
{
	(void)ctx;
	if (phys < PAGE_SIZE || phys + len < phys || phys + len > paging.identity_limit)
		return false;
	memcpy(buf, (const void *)(uintptr_t)phys, len);
	return true;
}
