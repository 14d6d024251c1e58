/* Physical memory for page tables' users, payload buffers and user stacks: a bump
 * allocator over the usable ranges of the boot memory map, below 4 GiB (identity-mapped). */
#ifndef KERNEL_MEM_H
#define KERNEL_MEM_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "lib/bootinfo.h"

void mem_init(const struct boot_info *bi);
/* Zeroed, aligned physical block; 0 when none is left. */
uint64_t mem_alloc_phys(uint64_t size, uint64_t align);
uint64_t mem_free_bytes(void);
/* Copy len bytes at physical address phys (identity-mapped, not page 0) into buf; false
 * where they are not mapped. An acpi_read_fn (lib/acpi.h): ctx is unused. */
bool mem_read_phys(void *ctx, uint64_t phys, void *buf, uint32_t len);
/* A user-region block (user RW, NX), physically contiguous, above an unmapped guard
 * page; returns its user VA or 0. Blocks are placed upwards in the order asked for. */
uintptr_t user_alloc(uint64_t size, uint64_t align);
/* Whether the last user_alloc failed for want of user-region address space (RAM aside;
 * the i686 kernel's region holds 736 MiB), and the words that say so ("does not fit ..."). */
bool user_alloc_past_region(void);
void user_region_limit(char *buf, size_t len);
/* Pages for generated code, zeroed and writable (through the identity map) for the
 * caller to fill; NULL when none are left. user_code_seal then maps them read-only and
 * executable at USER_BENCH_CODE and KERNEL_BENCH_CODE (0, or -1). One block at a time,
 * released with the rest by user_reset. */
void *user_code_alloc(uint64_t size);
int user_code_seal(void);
/* Release every user_alloc and user_code_alloc block (the region is reused per benchmark). */
void user_reset(void);

#endif
