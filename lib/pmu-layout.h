/*
 * Facts from the manuals that detection (lib/cpuinfo.c), the event language (lib/event.c)
 * and the PMU backends (arch/x86/pmu/) all need: the event-select register layout and
 * the counter counts and widths that no CPUID leaf gives. Defined here once; MSR numbers
 * live in arch/x86/msr-index.h, NetBurst's ESCR/CCCR fields in p4-regs.h.
 */
#ifndef LIB_PMU_LAYOUT_H
#define LIB_PMU_LAYOUT_H
#include <stdint.h>

/* IA32_PERFEVTSELx (SDM Vol. 3B Figure 20-6; P6 Figure 21-xx has the same layout below
 * bit 32). */
#define ARCH_PERFMON_EVENTSEL_EVENT_SHIFT   0
#define ARCH_PERFMON_EVENTSEL_EVENT_MASK    0x000000ffULL
#define ARCH_PERFMON_EVENTSEL_UMASK_SHIFT   8
#define ARCH_PERFMON_EVENTSEL_UMASK_MASK    0x0000ff00ULL
#define ARCH_PERFMON_EVENTSEL_USR           (1ULL << 16)
#define ARCH_PERFMON_EVENTSEL_OS            (1ULL << 17)
#define ARCH_PERFMON_EVENTSEL_EDGE          (1ULL << 18)
#define ARCH_PERFMON_EVENTSEL_PC            (1ULL << 19)
#define ARCH_PERFMON_EVENTSEL_INT           (1ULL << 20)
#define ARCH_PERFMON_EVENTSEL_ANY           (1ULL << 21)   /* v3+, AnyThread */
#define ARCH_PERFMON_EVENTSEL_ENABLE        (1ULL << 22)
#define ARCH_PERFMON_EVENTSEL_INV           (1ULL << 23)
#define ARCH_PERFMON_EVENTSEL_CMASK_SHIFT   24
#define ARCH_PERFMON_EVENTSEL_CMASK_MASK    0xff000000ULL
#define ARCH_PERFMON_EVENTSEL_IN_TX         (1ULL << 32)   /* TSX, Haswell+ (SDM 20.3.6.5) */
#define ARCH_PERFMON_EVENTSEL_IN_TXCP       (1ULL << 33)
#define ARCH_PERFMON_EVENTSEL_RESERVED_HI   0xffffffff00000000ULL   /* bits 63:32 */
#define ARCH_PERFMON_EVENTSEL_EVENT(v)  (((uint64_t)(v) << ARCH_PERFMON_EVENTSEL_EVENT_SHIFT) & ARCH_PERFMON_EVENTSEL_EVENT_MASK)
#define ARCH_PERFMON_EVENTSEL_UMASK(v)  (((uint64_t)(v) << ARCH_PERFMON_EVENTSEL_UMASK_SHIFT) & ARCH_PERFMON_EVENTSEL_UMASK_MASK)
#define ARCH_PERFMON_EVENTSEL_CMASK(v)  (((uint64_t)(v) << ARCH_PERFMON_EVENTSEL_CMASK_SHIFT) & ARCH_PERFMON_EVENTSEL_CMASK_MASK)

/* MSR_PEBS_FRONTEND (SDM Vol. 3B 20.3.8.2, Table 20-xx "FRONTEND_RETIRED"; Vol. 4,
 * Skylake MSR table, 3F7H): bits 7:0 select the frontend event, bits 19:8 are the
 * IDQ bubble length (latency threshold in cycles), bits 22:20 the bubble width. */
#define PEBS_FRONTEND_IDQ_BUBBLE_LENGTH_SHIFT 8
#define PEBS_FRONTEND_IDQ_BUBBLE_LENGTH_MASK  0x000fff00ULL
#define PEBS_FRONTEND_IDQ_BUBBLE_LENGTH(v)    (((uint64_t)(v) << PEBS_FRONTEND_IDQ_BUBBLE_LENGTH_SHIFT) & PEBS_FRONTEND_IDQ_BUBBLE_LENGTH_MASK)
#define PEBS_FRONTEND_IDQ_BUBBLE_LENGTH_MAX   4095

/* P6 family: EN exists only in PERFEVTSEL0 and gates both counters (SDM 21.6.x, P6 PMU). */
#define P6_EVNTSEL_ENABLE               ARCH_PERFMON_EVENTSEL_ENABLE
#define P6_EVNTSEL1_RESERVED            ((1ULL << 22) | (1ULL << 21) | 0xffffffff00000000ULL)
#define P6_EVNTSEL0_RESERVED            ((1ULL << 21) | 0xffffffff00000000ULL)
/* L2_RQSTS with an empty MESI unit mask and neither USR nor OS: counts nothing. */
#define P6_NOP_EVENT                    0x0000002eULL
#define P6_COUNTERS                     2       /* SDM Vol. 3B 20.6.2 */
#define P6_COUNTER_WIDTH                40

/* PerfEvtSel / PERF_CTL (APM Vol. 2 Figure 13-7; K7 excerpt in shared/reference): bits
 * 15:0 and 31:16 as Intel's (bit 19 PC on K7, bit 21 reserved), plus the high event
 * select and the SVM host/guest filters from family 10h. */
#define AMD64_EVENTSEL_EVENT_LO_MASK    0x000000ffULL
#define AMD64_EVENTSEL_EVENT_HI_SHIFT   32
#define AMD64_EVENTSEL_EVENT_HI_MASK    0x0000000f00000000ULL   /* EventSelect[11:8] */
#define AMD64_EVENTSEL_UMASK_SHIFT      8
#define AMD64_EVENTSEL_UMASK_MASK       0x0000ff00ULL
#define AMD64_EVENTSEL_USR              (1ULL << 16)
#define AMD64_EVENTSEL_OS               (1ULL << 17)
#define AMD64_EVENTSEL_EDGE             (1ULL << 18)
#define AMD64_EVENTSEL_PC               (1ULL << 19)   /* K7 pin control */
#define AMD64_EVENTSEL_INT              (1ULL << 20)
#define AMD64_EVENTSEL_ENABLE           (1ULL << 22)
#define AMD64_EVENTSEL_INV              (1ULL << 23)
#define AMD64_EVENTSEL_CMASK_SHIFT      24
#define AMD64_EVENTSEL_CMASK_MASK       0xff000000ULL
#define AMD64_EVENTSEL_GUESTONLY        (1ULL << 40)
#define AMD64_EVENTSEL_HOSTONLY         (1ULL << 41)
/* Reserved: bit 21 always; K7/K8 everything above 31; family 10h+ 39:36 and 63:42. */
#define AMD64_EVENTSEL_RESERVED_K7      (0xffffffff00000000ULL | (1ULL << 21))
#define AMD64_EVENTSEL_RESERVED         (0xfffffc0000000000ULL | 0x000000f000000000ULL | (1ULL << 21))
#define AMD64_EVENTSEL_EVENT(v)         ((((uint64_t)(v) & 0xf00) << 24) | ((uint64_t)(v) & 0xff))
#define AMD64_EVENTSEL_EVENT_GET(sel)   ((((sel) & AMD64_EVENTSEL_EVENT_HI_MASK) >> 24) | ((sel) & AMD64_EVENTSEL_EVENT_LO_MASK))
#define AMD_LEGACY_COUNTERS             4       /* PerfEvtSel0-3, K7 on */
#define AMD_CORE_COUNTERS               6       /* PERF_CTL0-5 with PerfCtrExtCore */
#define AMD64_COUNTER_WIDTH             48

/* NetBurst: 18 counters of 40 bits (SDM Vol. 3B 20.6.4.2). */
#define P4_NUM_COUNTERS                 18
#define P4_COUNTER_WIDTH                40

#endif
