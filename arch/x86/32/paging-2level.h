/* Classic two-level paging for i686 CPUs without PAE (arch/x86/32/paging-2level.c):
 * arch/x86/32/paging-word.c's paging_* calls come here when the CPU lacks PAE. */
#ifndef ARCH_X86_32_PAGING_2LEVEL_H
#define ARCH_X86_32_PAGING_2LEVEL_H
#include "arch/x86/paging.h"

void paging_2level_init(void);
int paging_2level_map(uint64_t va, uint64_t pa, uint64_t len, unsigned flags);
void paging_2level_unmap(uint64_t va, uint64_t len);
int paging_2level_unmap_page(uint64_t va);

#endif
