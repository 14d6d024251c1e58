/* The x86-64 kernel's virtual layout (arch/x86/64/paging-word.c builds it). */
#ifndef ARCH_X86_64_LAYOUT_H
#define ARCH_X86_64_LAYOUT_H

#define IDENTITY_LIMIT    (4ull << 30)                    /* 0 .. 4 GiB identity */
#define USER_BASE         0x0000008000000000ull           /* PML4 slot 1 */
#define USER_CODE_BASE    USER_BASE                       /* alias of .payload */
#define USER_STACK_TOP    (USER_BASE + 0x40000000ull)     /* 1 GiB in */
#define USER_STACK_SIZE   PAYLOAD_STACK_SIZE
#define USER_DATA_BASE    (USER_BASE + 0x80000000ull)     /* 2 GiB in */
#define USER_DATA_MAX     (8ull << 30)
/* A user benchmark's generated code (payloads/userbench.h): the same physical pages,
 * read-only and executable, user-accessible here and supervisor-only at KERNEL_BENCH_CODE
 * (SMEP forbids CPL 0 to run user pages). Both 4 KiB aligned, so alignment is the same. */
#define USER_BENCH_CODE   (USER_BASE + 0x20000000ull)     /* 512 MiB in */
#define KERNEL_BENCH_CODE 0xffffffff40000000ull           /* 1 GiB below KERNEL_VBASE */
#define BENCH_CODE_MAX    (16ull << 20)
/* MMIO above the identity map (a 64-bit BAR the firmware put high: OVMF places xHCI's
 * there), mapped uncached by paging_map_mmio: PML4 slot 510. */
#define KERNEL_MMIO_BASE  0xffffff0000000000ull
#define KERNEL_MMIO_MAX   (1ull << 30)

#endif
