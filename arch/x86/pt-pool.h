/*
 * The pages page tables are made of, for every paging format (4-level, PAE, two-level):
 * a fixed pool in the image, so that tables exist before any allocator does. A table
 * given back is reused first. Both word sizes use it.
 */
#ifndef ARCH_X86_PT_POOL_H
#define ARCH_X86_PT_POOL_H

/* A zeroed, page-aligned table page, or 0 when the pool is spent. */
void *pt_pool_alloc(void);
/* Give a table page back for reuse. */
void pt_pool_free(void *table);
/* Table pages in use: for the self-test that page tables do not leak. */
unsigned pt_pool_in_use(void);

#endif
