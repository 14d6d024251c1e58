/*
 * The i686 kernel's virtual layout (arch/x86/32/paging-word.c builds it), inside 4 GiB:
 *   0 .. 3 GiB           identity, supervisor (RAM the kernel allocates from, boot
 *                        information, ACPI); the image at KERNEL_BIOS_PHYS, linked there
 *   3 GiB .. 3.6875 GiB  the user region: payload code alias, user benchmark code (a
 *                        user and a supervisor-only alias), user stack, user data
^ *   3.6875 .. 3.75 GiB   mapped registers: device registers the identity map does not
 *                        reach (a BAR in 3..3.75 GiB, or above 4 GiB with PAE), mapped
 *                        uncached by paging_map_mmio
 *   3.75 GiB .. 4 GiB    identity, supervisor: the MMIO window (local APIC, I/O APIC),
 *                        but for its top 4 MiB
 * RAM above 3 GiB is not used.
 */
#ifndef ARCH_X86_32_LAYOUT_H
#define ARCH_X86_32_LAYOUT_H

#define IDENTITY_LIMIT    0xc0000000ull
#define MMIO_WINDOW_BASE  0xf0000000ull
/* The top 4 MiB (firmware ROM, nothing the kernel uses) stay unmapped, so that a stack
 * pointer that wrapped below 0 (ESP = 0, then a push) faults instead of writing there. */
#define MMIO_WINDOW_END   0xffc00000ull
#define USER_BASE         0xc0000000ull
#define USER_CODE_BASE    USER_BASE                       /* alias of .payload */
#define USER_STACK_TOP    (USER_BASE + 0x01000000ull)     /* 16 MiB in */
#define USER_STACK_SIZE   PAYLOAD_STACK_SIZE
#define USER_DATA_BASE    (USER_BASE + 0x02000000ull)     /* 32 MiB in */
#define USER_DATA_MAX     (KERNEL_MMIO_BASE - USER_DATA_BASE)
/* 64 MiB: a controller's registers take 4 KiB to 64 KiB; a framebuffer is not mapped here. */
#define KERNEL_MMIO_BASE  0xec000000ull
#define KERNEL_MMIO_MAX   (MMIO_WINDOW_BASE - KERNEL_MMIO_BASE)
/* A user benchmark's generated code (payloads/userbench.h): user-accessible at
 * USER_BENCH_CODE, supervisor-only (for SMEP) at KERNEL_BENCH_CODE, both below the stack. */
#define BENCH_CODE_MAX    (4ull << 20)
#define USER_BENCH_CODE   (USER_BASE + 0x00400000ull)     /* 4 MiB in */
#define KERNEL_BENCH_CODE (USER_BENCH_CODE + BENCH_CODE_MAX) /* 8 MiB in */

#endif
