#include "arch/x86/pt-pool.h"
#include "arch/x86/abi.h"
#include "lib/str.h"

/* Enough for the kernel's own mappings, the user regions and every payload buffer the
 * engine maps at once (paging.c maps large regions with 2 or 4 MiB pages). */
#define PT_POOL_PAGES 128

static unsigned char pool[PT_POOL_PAGES][PAGE_SIZE] __attribute__((aligned(PAGE_SIZE)));
static unsigned pool_used;
static void *pool_free[PT_POOL_PAGES];
static unsigned nfree;

void *pt_pool_alloc(void)
{
	void *t;
	if (nfree)
		t = pool_free[--nfree];
	else if (pool_used < PT_POOL_PAGES)
		t = pool[pool_used++];
	else
		return 0;
	memset(t, 0, PAGE_SIZE);
	return t;
}

void pt_pool_free(void *table)
{
	if (nfree < PT_POOL_PAGES)
		pool_free[nfree++] = table;
}

unsigned pt_pool_in_use(void)
{
	return pool_used - nfree;
}
