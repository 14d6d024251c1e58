/*
 * Every MSR number bareperf uses, except NetBurst's ESCR/CCCR/counter block (lib/p4-regs.h).
 * Sources: SDM Vol. 4 (MSR tables), SDM Vol. 3B ch. 20 (performance monitoring),
 * AMD APM Vol. 2 13.2 (performance counters); names as the manuals spell them.
 */
#ifndef ARCH_X86_MSR_INDEX_H
#define ARCH_X86_MSR_INDEX_H
#include <stdint.h>
#include "lib/pmu-layout.h"     /* event-select fields, counter counts and widths */

/* ---------------------------------------------------------------- architectural */
#define MSR_IA32_TSC                    0x00000010
#define MSR_IA32_APIC_BASE              0x0000001b
#define   APIC_BASE_EXTD                (1ull << 10)          /* x2APIC mode, SDM 11.12.1 */
#define   APIC_BASE_ENABLE              (1ull << 11)          /* SDM Vol. 3A 11.4.4 */
#define   APIC_BASE_ADDR_MASK           0x000ffffffffff000ull
#define MSR_IA32_FEATURE_CONTROL        0x0000003a
#define MSR_IA32_MPERF                  0x000000e7
#define MSR_IA32_APERF                  0x000000e8
#define MSR_IA32_SYSENTER_CS            0x00000174
#define MSR_IA32_SYSENTER_ESP           0x00000175
#define MSR_IA32_SYSENTER_EIP           0x00000176
#define MSR_IA32_MISC_ENABLE            0x000001a0
#define MSR_IA32_DEBUGCTL               0x000001d9
#define MSR_IA32_PAT                    0x00000277
#define MSR_IA32_DS_AREA                0x00000600
#define MSR_IA32_TSC_DEADLINE           0x000006e0
#define MSR_X2APIC_BASE                 0x00000800            /* + xAPIC offset / 16, SDM 11.12.1.2 */
#define MSR_X2APIC_ICR                  0x00000830            /* one 64-bit ICR, destination 63:32 */

#define MSR_EFER                        0xc0000080
#define   EFER_SCE                      (1ull << 0)           /* SYSCALL enable */
#define   EFER_LME                      (1ull << 8)
#define   EFER_NXE                      (1ull << 11)
#define MSR_STAR                        0xc0000081
#define MSR_LSTAR                       0xc0000082
#define MSR_CSTAR                       0xc0000083
#define MSR_SYSCALL_MASK                0xc0000084
#define MSR_FS_BASE                     0xc0000100
#define MSR_GS_BASE                     0xc0000101
#define MSR_KERNEL_GS_BASE              0xc0000102
#define MSR_TSC_AUX                     0xc0000103
/* AMD DE_CFG: bit 1 makes LFENCE dispatch-serialising (AMD, "Software techniques for
 * managing speculation on AMD processors", 2018). */
#define MSR_AMD64_DE_CFG                0xc0011029
#define   DE_CFG_LFENCE_SERIALIZE       (1ull << 1)
/* RAPL energy counters (lib/rapl.h for the fields). Intel: SDM Vol. 3B 15.10.1-15.10.5 and
 * SDM Vol. 4 MSR tables (Sandy Bridge and later); no CPUID bit. AMD: PPR for family 17h/19h,
 * MSRC001_0299-029B, present when CPUID 0x80000007 EDX[14]. Energy status: bits 31:0. */
#define MSR_RAPL_POWER_UNIT             0x00000606   /* ESU bits 12:8 */
#define MSR_PKG_ENERGY_STATUS           0x00000611
#define MSR_DRAM_ENERGY_STATUS          0x00000619
#define MSR_PP0_ENERGY_STATUS           0x00000639   /* the cores */
#define MSR_AMD_RAPL_PWR_UNIT           0xc0010299   /* ESU bits 12:8 */
#define MSR_AMD_CORE_ENERGY_STAT        0xc001029a   /* the core this thread runs on */
#define MSR_AMD_PKG_ENERGY_STAT         0xc001029b
/* A register no x86 CPU implements: for checking that rdmsr_safe reports #GP. */
#define MSR_NONEXISTENT                 0x4b564d00

/* ---------------------------------------------------------------- Intel PMU, SDM Vol. 3B 20.2 */
/* General-purpose counters (P6: PERFCTR0/1, 40 bits; a WRMSR takes bits 31:0, sign-extended). */
#define MSR_IA32_PMC0                   0x000000c1
#define MSR_IA32_PERFEVTSEL0            0x00000186
/* Full-width aliases of IA32_PMCx, present when IA32_PERF_CAPABILITIES[13] (SDM 20.2.6). */
#define MSR_IA32_A_PMC0                 0x000004c1

/* RDPMC: ECX bit 30 selects the fixed-function counters (SDM Vol. 2B RDPMC). */
#define RDPMC_FIXED                     (1u << 30)

/* Fixed-function counters (SDM 20.2.2, Figure 20-8): 4 bits per counter in FIXED_CTR_CTRL. */
#define MSR_IA32_FIXED_CTR0             0x00000309   /* INST_RETIRED.ANY */
#define MSR_IA32_FIXED_CTR1             0x0000030a   /* CPU_CLK_UNHALTED.CORE */
#define MSR_IA32_FIXED_CTR2             0x0000030b   /* CPU_CLK_UNHALTED.REF_TSC */
#define MSR_IA32_FIXED_CTR3             0x0000030c   /* TOPDOWN.SLOTS */
#define MSR_IA32_PERF_CAPABILITIES      0x00000345   /* only when CPUID.1:ECX[15] PDCM */
#define PERF_CAP_FW_WRITE               (1ULL << 13) /* IA32_A_PMCx full-width writes */
#define MSR_IA32_FIXED_CTR_CTRL         0x0000038d
#define FIXED_CTR_CTRL_OS               0x1ULL       /* count at CPL 0 */
#define FIXED_CTR_CTRL_USR              0x2ULL       /* count at CPL > 0 */
#define FIXED_CTR_CTRL_ANY              0x4ULL       /* AnyThread, v3+ */
#define FIXED_CTR_CTRL_PMI              0x8ULL
#define FIXED_CTR_CTRL_BITS             4
#define FIXED_CTR_CTRL_FIELD_MASK       0xfULL
#define FIXED_CTR_CTRL_FIELD(i, v)      (((uint64_t)(v) & FIXED_CTR_CTRL_FIELD_MASK) << ((i) * FIXED_CTR_CTRL_BITS))
#define FIXED_CTR_CTRL_GET(ctrl, i)     (((ctrl) >> ((i) * FIXED_CTR_CTRL_BITS)) & FIXED_CTR_CTRL_FIELD_MASK)

/* Global control, v2+ (SDM 20.2.2, Figures 20-9..20-12). */
#define MSR_IA32_PERF_GLOBAL_STATUS     0x0000038e   /* read-only */
#define MSR_IA32_PERF_GLOBAL_CTRL       0x0000038f
#define MSR_IA32_PERF_GLOBAL_OVF_CTRL   0x00000390   /* v4 name: IA32_PERF_GLOBAL_STATUS_RESET */
#define MSR_IA32_PERF_GLOBAL_STATUS_SET 0x00000391   /* v4+ */
#define MSR_IA32_PERF_GLOBAL_INUSE      0x00000392   /* v4+, read-only */
#define GLOBAL_CTRL_PMC(i)              (1ULL << (i))
#define GLOBAL_CTRL_FIXED_SHIFT         32
#define GLOBAL_CTRL_FIXED(i)            (1ULL << (GLOBAL_CTRL_FIXED_SHIFT + (i)))
#define GLOBAL_STATUS_TRACE_TOPA_PMI    (1ULL << 55) /* v4+ */
#define GLOBAL_STATUS_LBR_FRZ           (1ULL << 58) /* v4+ */
#define GLOBAL_STATUS_CTR_FRZ           (1ULL << 59) /* v4+ */
#define GLOBAL_STATUS_ASCI              (1ULL << 60) /* v4+ */
#define GLOBAL_STATUS_OVF_UNCORE        (1ULL << 61) /* v3+ */
#define GLOBAL_STATUS_OVF_BUF           (1ULL << 62) /* DS buffer */
#define GLOBAL_STATUS_COND_CHGD         (1ULL << 63)

/* Second registers of model-specific events (SDM Vol. 4 ch. 2, the MSR tables of each
 * microarchitecture). MSR_OFFCORE_RSP_0 (1A6H) comes with Nehalem, MSR_OFFCORE_RSP_1
 * (1A7H) with Westmere; their request-type/supplier/snoop layout is model-specific (SDM
 * Vol. 3B ch. 20, "Off-core Response Performance Monitoring"), bits 63:38 are reserved
 * from Sandy Bridge on. MSR_PEBS_LD_LAT (3F6H, Nehalem on) holds the load-latency
 * threshold, used only with PEBS. MSR_PEBS_FRONTEND (3F7H, Skylake on) qualifies
 * FRONTEND_RETIRED: event 7:0, IDQ bubble length 19:8, width 22:20, 63:23 reserved
 * (lib/pmu-layout.h has the fields). */
#define MSR_OFFCORE_RSP_0               0x000001a6
#define MSR_OFFCORE_RSP_1               0x000001a7
#define OFFCORE_RSP_RESERVED            0xffffffc000000000ULL   /* bits 63:38 */
#define MSR_PEBS_LD_LAT                 0x000003f6
#define MSR_PEBS_FRONTEND               0x000003f7
#define PEBS_FRONTEND_RESERVED          0xffffffffff800000ULL   /* bits 63:23 */

/* ---------------------------------------------------------------- AMD PMU, APM Vol. 2 13.2 */
/* Legacy PerfEvtSel0-3 / PerfCtr0-3 (K7 onwards; aliases of the first four core counters). */
#define MSR_K7_EVNTSEL0                 0xc0010000
#define MSR_K7_PERFCTR0                 0xc0010004
/* Core counters, CPUID 0x80000001 ECX[23] PerfCtrExtCore: PERF_CTLn = base + 2n, PERF_CTRn = +1. */
#define MSR_F15H_PERF_CTL0              0xc0010200
#define MSR_F15H_PERF_CTR0              0xc0010201
#define MSR_F15H_PERF_CTL(i)            (MSR_F15H_PERF_CTL0 + 2 * (i))
#define MSR_F15H_PERF_CTR(i)            (MSR_F15H_PERF_CTR0 + 2 * (i))
/* PerfMonV2, CPUID 0x80000022 EAX[0] (APM 13.2.2). */
#define MSR_AMD64_PERF_CNTR_GLOBAL_STATUS     0xc0000300   /* read-only */
#define MSR_AMD64_PERF_CNTR_GLOBAL_CTL        0xc0000301
#define MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_CLR 0xc0000302
#define AMD64_GLOBAL_STATUS_LBRS_FROZEN       (1ULL << 58)
#define AMD64_GLOBAL_STATUS_PMC_FROZEN        (1ULL << 59)
#define MSR_AMD64_HWCR                  0xc0010015

#endif
