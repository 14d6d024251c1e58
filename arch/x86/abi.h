/*
 * Constants shared by C, the assembly files, the linker scripts and the loader, each
 * written once. Only "#define NAME value" lines: the Makefile turns them into
 * build/gen/abi.inc (%define, C integer suffixes dropped) for nasm, and the linker
 * scripts are run through cpp with this file. No includes, types or function-like macros here.
 */
#ifndef ARCH_X86_ABI_H
#define ARCH_X86_ABI_H

/* Kernel link address: the top 2 GiB (-mcmodel=kernel). No suffix: ld reads it too. */
#define KERNEL_VBASE        0xffffffff80000000

/* The BIOS path (GRUB, Multiboot2) loads the ELF segments at their physical addresses:
 * the image linked at KERNEL_VBASE lies at KERNEL_BIOS_PHYS (2 MiB aligned, as the entry
 * contract wants kernel_phys). The UEFI loader places the image itself and ignores them. */
#define KERNEL_BIOS_PHYS    0x200000

/* Multiboot2 spec 1.0: header magic and architecture (3.1.1), the header tags used (3.1.2,
 * 3.1.6, 3.1.10), the magic the loader leaves in EAX (3.2). */
#define MB2_HEADER_MAGIC    0xe85250d6
#define MB2_ARCH_I386       0
#define MB2_HTAG_END        0
#define MB2_HTAG_ENTRY      3
#define MB2_HTAG_FRAMEBUFFER 5      /* 3.1.10: width, height, depth wanted (0: any) */
#define MB2_HTAG_OPTIONAL   1       /* flags: the loader may ignore the tag */
#define MB2_LOADER_MAGIC    0x36d76289

/* CPUID.80000001H:EDX[29]: long mode (SDM Vol. 2A, CPUID). */
#define CPUID_EXT_FEATURES  0x80000001
#define CPUID_EXT_EDX_LM    (1 << 29)
#define CPUID_1_ECX_HYPERVISOR (1 << 31)

/* 4-level paging: SDM Vol. 3A 4.5, Tables 4-15 to 4-20. */
#define PAGE_SHIFT          12          /* linker.ld aligns sections to 1 << PAGE_SHIFT */
#define PAGE_SIZE           (1ull << PAGE_SHIFT)
#define LARGE_PAGE_SIZE     (2ull << 20)
#define PTE_P               (1ull << 0)
#define PTE_W               (1ull << 1)
#define PTE_U               (1ull << 2)
#define PTE_PWT             (1ull << 3)
#define PTE_PCD             (1ull << 4)
#define PTE_PS              (1ull << 7)
#define PTE_NX              (1ull << 63)
#define PTE_ADDR            0x000ffffffffff000ull

/* GDT selectors. SYSCALL/SYSRET (STAR, SDM Vol. 3A 5.8.8) fix the order: user data at
 * STAR[63:48]+8, user code64 at STAR[63:48]+16. */
#define SEL_KCODE           0x08
#define SEL_KDATA           0x10
#define SEL_UCODE32         0x18        /* STAR[63:48] base; no 32-bit code runs */
#define SEL_UDATA           0x20
#define SEL_UCODE           0x28
#define SEL_TSS             0x30
#define RPL3                3

/* RFLAGS: SDM Vol. 1 3.4.3. */
#define RFLAGS_RESERVED1    (1ull << 1)
#define RFLAGS_TF           (1ull << 8)
#define RFLAGS_IF           (1ull << 9)
#define RFLAGS_AC           (1ull << 18)
#define RFLAGS_ID           (1ull << 21)    /* toggles where CPUID exists */

/* System calls from CPL 3: number in RAX (arch/x86/64/entry.asm, syscall_entry). */
#define SYS_NULL            1           /* return at once: the round-trip benchmark */

/* INT n with DPL 3: the INT n/IRETQ round-trip benchmark. */
#define VEC_INT_ROUNDTRIP   0x80
/* INT n with DPL 3: end the CPL 3 run, RDI its result. How every CPL 3 run leaves ring 3
 * (user-entry.asm): it needs no SYSCALL, which some CPUs lack. Only user_entry's own INT
 * does so; a payload's is its fault (user_exit_entry in arch/x86/64/entry.asm and
 * arch/x86/32/entry.asm). */
#define VEC_USER_EXIT       0x81
/* The error code a trap stub pushes for INT n at CPL 0 aimed at a vector whose exception
 * pushes one (#DF, #GP, #PF, ...): the CPU pushes none for INT n, so the stub finds the
 * interrupted CS where the IP should be and completes the frame with this value, which no
 * exception's error code (at most 32 bits, SDM Vol. 3A 6.13) reaches in 64-bit mode, nor
 * (all ones) in 32-bit mode. arch/x86/trap-stubs.inc. */
#define TRAP_ERROR_SOFT_INT (-1)
/* A vector with no handler, raised by INT n in the self-test: it must end the run. */
#define VEC_SELFTEST_STRAY  0x99

/* Kernel stacks, each above an unmapped guard page (arch/x86/stacks.c). */
#define KERNEL_STACK_SIZE   (64 * 1024)
#define IST_STACK_SIZE      (16 * 1024)
#define GUARD_SIZE          PAGE_SIZE
/* The stack a payload runs on, at CPL 0 (arch/x86/stacks.c) as at CPL 3 (the user stack),
 * above an unmapped guard page; the harness, the benchmark wrapper and the interrupts
 * taken at CPL 0 use at most PAYLOAD_STACK_KEEP of it, the rest is the payload's
 * (docs/bench.md). */
#define PAYLOAD_STACK_SIZE  (128 * 1024)
#define PAYLOAD_STACK_KEEP  (8 * 1024)

/* The application processors' start-up page below 1 MiB (kernel/smp.c copies
 * arch/x86/64/trampoline.asm, or arch/x86/32/trampoline.asm, there): what the boot CPU
 * writes at these offsets for the processor it starts, and the trampoline's own GDT
 * selectors (flat 32-bit code, data, 64-bit code). */
#define TRAMP_CR3           0xf00       /* page tables to load (below 4 GiB) */
#define TRAMP_CR4           0xf08       /* CR4 for paging: PAE, or PSE for two-level */
#define TRAMP_EFER          0xf10       /* EFER low half (LME, NXE); 0: leave EFER alone */
#define TRAMP_ENTRY         0xf18       /* kernel address to jump to (smp_ap_entry) */
#define TRAMP_STACK         0xf20       /* the processor's kernel stack top */
#define TRAMP_CPU           0xf28       /* its bareperf CPU number */
#define TRAMP_GDTR          0xf30       /* written in real mode: limit, 32-bit base */
#define TRAMP_FAR           0xf38       /* written on the way: far pointer, offset + selector */
#define TRAMP_SEL_CODE32    0x08
#define TRAMP_SEL_DATA      0x10
#define TRAMP_SEL_CODE64    0x18

/* struct harness (kernel/engine.c), read by payloads/harness.asm: byte offsets. */
#define HARNESS_FN          0
#define HARNESS_ARG         8
#define HARNESS_N           16
#define HARNESS_REPS        24
#define HARNESS_NCTR        32
#define HARNESS_OUT         40
#define HARNESS_IDX         48          /* u32 idx[8]: RDPMC indices */
#define HARNESS_NMSR        80          /* MSRs read by RDMSR (CPL 0 only: APERF, MPERF, RAPL) */
#define HARNESS_MSR         88          /* u32 msr[8] */
#define HARNESS_START       120         /* u64 start[17] */
#define HARNESS_SIZE        256

#endif
