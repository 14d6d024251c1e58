/* Kernel access to user pages while SMAP is on: STAC/CLAC (SDM Vol. 3A 4.6.1). */
#ifndef ARCH_X86_UACCESS_H
#define ARCH_X86_UACCESS_H
#include <stdbool.h>

/* Set by paging_init when it turns CR4.SMAP on; STAC/CLAC are #UD without SMAP. */
extern bool uaccess_smap;

static inline void user_access_begin(void)
{
	if (uaccess_smap)
		__asm__ volatile("stac" ::: "memory");
}
static inline void user_access_end(void)
{
	if (uaccess_smap)
		__asm__ volatile("clac" ::: "memory");
}

#endif
