/*
 * The kernel's own 4-level page tables (SDM Vol. 3A 4.5). Layout:
 *   0 .. 4 GiB               identity, supervisor, NX, 2 MiB pages (page 0 unmapped)
 *   USER_BASE ..             the user region (PML4 slot 1): payload code alias, user
 *                            stack, user data; everything user-accessible lives here
 *   KERNEL_VBASE ..          the kernel image, 4 KiB pages with per-section rights
 */
#ifndef ARCH_X86_PAGING_H
#define ARCH_X86_PAGING_H
#include <stdbool.h>
#include <stdint.h>
#include "lib/bootinfo.h"
#include "lib/cpuinfo.h"
#include "arch/x86/abi.h"
#include "arch/x86/uaccess.h"     /* user_access_begin/end, for paging's users */

#define USER_BASE         0x0000008000000000ull
#define USER_CODE_BASE    USER_BASE                       /* alias of .payload */
#define USER_STACK_TOP    (USER_BASE + 0x40000000ull)     /* 1 GiB in */
#define USER_STACK_SIZE   (64 * 1024ull)
#define USER_DATA_BASE    (USER_BASE + 0x80000000ull)     /* 2 GiB in */
#define USER_DATA_MAX     (8ull << 30)
/* A user benchmark's generated code (payloads/userbench.h): the same physical pages,
 * read-only and executable, user-accessible here and supervisor-only at KERNEL_BENCH_CODE
 * (SMEP forbids CPL 0 to run user pages). Both 4 KiB aligned, so alignment is the same. */
#define USER_BENCH_CODE   (USER_BASE + 0x20000000ull)     /* 512 MiB in */
#define KERNEL_BENCH_CODE 0xffffffff40000000ull           /* 1 GiB below KERNEL_VBASE */
#define BENCH_CODE_MAX    (16ull << 20)

#define MAP_WRITE  0x1u
#define MAP_EXEC   0x2u
#define MAP_USER   0x4u

struct paging_state {
	bool nx, smep, smap, umip;
	uint64_t identity_limit;
};
extern struct paging_state paging;

/* Build the tables, enable NX/WP/SMEP/SMAP/UMIP as available, load CR3. */
void paging_init(const struct boot_info *bi, const struct cpu_info *ci);
/* Map [va, va+len) to [pa, ...). Uses 2 MiB pages where both are aligned. 0 or -1. */
int paging_map(uint64_t va, uint64_t pa, uint64_t len, unsigned flags);
/* Remove the mappings of [va, va+len): 4 KiB or whole 2 MiB pages. */
void paging_unmap(uint64_t va, uint64_t len);
/* Page-table pages in use (for the self-test of table reuse). */
unsigned paging_tables_in_use(void);
/* Physical address of a kernel-image virtual address. */
uint64_t kernel_virt_to_phys(uint64_t va);
/* User-region address of a payload-section address, or 0 if not in .payload. */
uint64_t payload_user_alias(uint64_t kva);

#endif
