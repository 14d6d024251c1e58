/* The x86-64 kernel's virtual layout (arch/x86/paging.c builds it). */
#ifndef ARCH_X86_64_LAYOUT_H
#define ARCH_X86_64_LAYOUT_H

#define IDENTITY_LIMIT    (4ull << 30)                    /* 0 .. 4 GiB identity */
#define USER_BASE         0x0000008000000000ull           /* PML4 slot 1 */
#define USER_CODE_BASE    USER_BASE                       /* alias of .payload */
#define USER_STACK_TOP    (USER_BASE + 0x40000000ull)     /* 1 GiB in */
#define USER_STACK_SIZE   (64 * 1024ull)
#define USER_DATA_BASE    (USER_BASE + 0x80000000ull)     /* 2 GiB in */
#define USER_DATA_MAX     (8ull << 30)

#endif
