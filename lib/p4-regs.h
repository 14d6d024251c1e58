/* SDM Vol. 3B 18.18.2-18.18.3 (Tables 18-25/18-26), 18.19.1-18.19.2 Figures 18-45/18-46 */
/*
 * NetBurst (Pentium 4 / Xeon, family 15) performance-monitoring MSRs: 18 counters in
 * four groups (BPU, MS, FLAME, IQ), a CCCR per counter, and 45 ESCRs that select what
 * a counter of their group counts. The field layouts are those of processors with
 * Hyper-Threading; on others, ESCR bits 1:0 (T1_OS/T1_USR) are reserved, bits 3:2 act
 * as OS/USR, and CCCR bits 17:16 must be written as 11b (SDM 18.18.3, Figure 18-42).
 */
#ifndef LIB_P4_REGS_H
#define LIB_P4_REGS_H
#include "lib/pmu-layout.h"     /* P4_NUM_COUNTERS, P4_COUNTER_WIDTH */

/* ---- Counters: 40 bits wide, 0x300-0x311 */
#define MSR_BPU_COUNTER0        0x00000300
#define MSR_BPU_COUNTER1        0x00000301
#define MSR_BPU_COUNTER2        0x00000302
#define MSR_BPU_COUNTER3        0x00000303
#define MSR_MS_COUNTER0         0x00000304
#define MSR_MS_COUNTER1         0x00000305
#define MSR_MS_COUNTER2         0x00000306
#define MSR_MS_COUNTER3         0x00000307
#define MSR_FLAME_COUNTER0      0x00000308
#define MSR_FLAME_COUNTER1      0x00000309
#define MSR_FLAME_COUNTER2      0x0000030a
#define MSR_FLAME_COUNTER3      0x0000030b
#define MSR_IQ_COUNTER0         0x0000030c
#define MSR_IQ_COUNTER1         0x0000030d
#define MSR_IQ_COUNTER2         0x0000030e
#define MSR_IQ_COUNTER3         0x0000030f
#define MSR_IQ_COUNTER4         0x00000310
#define MSR_IQ_COUNTER5         0x00000311

#define P4_COUNTER_MASK         ((1ULL << P4_COUNTER_WIDTH) - 1)
#define P4_COUNTER_MSR(n)       (MSR_BPU_COUNTER0 + (n))
#define P4_COUNTER_RESERVED     (~P4_COUNTER_MASK)

/* ---- CCCRs: one per counter, same order, 0x360-0x371 */
#define MSR_BPU_CCCR0           0x00000360
#define MSR_BPU_CCCR1           0x00000361
#define MSR_BPU_CCCR2           0x00000362
#define MSR_BPU_CCCR3           0x00000363
#define MSR_MS_CCCR0            0x00000364
#define MSR_MS_CCCR1            0x00000365
#define MSR_MS_CCCR2            0x00000366
#define MSR_MS_CCCR3            0x00000367
#define MSR_FLAME_CCCR0         0x00000368
#define MSR_FLAME_CCCR1         0x00000369
#define MSR_FLAME_CCCR2         0x0000036a
#define MSR_FLAME_CCCR3         0x0000036b
#define MSR_IQ_CCCR0            0x0000036c
#define MSR_IQ_CCCR1            0x0000036d
#define MSR_IQ_CCCR2            0x0000036e
#define MSR_IQ_CCCR3            0x0000036f
#define MSR_IQ_CCCR4            0x00000370
#define MSR_IQ_CCCR5            0x00000371

#define P4_CCCR_MSR(n)          (MSR_BPU_CCCR0 + (n))

/* CCCR fields (Figure 18-46) */
#define P4_CCCR_ENABLE                  0x00001000U     /* bit 12 */
#define P4_CCCR_ESCR_SELECT_SHIFT       13              /* bits 15:13 */
#define P4_CCCR_ESCR_SELECT_MASK        0x0000e000U
#define P4_CCCR_ACTIVE_THREAD_SHIFT     16              /* bits 17:16 */
#define P4_CCCR_ACTIVE_THREAD_MASK      0x00030000U
#define P4_CCCR_THREAD_NONE             0U              /* neither logical processor active */
#define P4_CCCR_THREAD_SINGLE           1U              /* exactly one active */
#define P4_CCCR_THREAD_BOTH             2U              /* both active */
#define P4_CCCR_THREAD_ANY              3U              /* either active */
#define P4_CCCR_COMPARE                 0x00040000U     /* bit 18 */
#define P4_CCCR_COMPLEMENT              0x00080000U     /* bit 19 */
#define P4_CCCR_THRESHOLD_SHIFT         20              /* bits 23:20 */
#define P4_CCCR_THRESHOLD_MASK          0x00f00000U
#define P4_CCCR_EDGE                    0x01000000U     /* bit 24 */
#define P4_CCCR_FORCE_OVF               0x02000000U     /* bit 25 */
#define P4_CCCR_OVF_PMI_T0              0x04000000U     /* bit 26 */
#define P4_CCCR_OVF_PMI_T1              0x08000000U     /* bit 27 */
#define P4_CCCR_CASCADE                 0x40000000U     /* bit 30 */
#define P4_CCCR_OVF                     0x80000000U     /* bit 31 */
/* bits 11:0, 29:28 and 63:32 */
#define P4_CCCR_RESERVED                0xffffffff30000fffULL

#define P4_CCCR_ESEL(v)         (((uint32_t)(v) << P4_CCCR_ESCR_SELECT_SHIFT) & P4_CCCR_ESCR_SELECT_MASK)
#define P4_CCCR_ACTIVE_THREAD(v) (((uint32_t)(v) << P4_CCCR_ACTIVE_THREAD_SHIFT) & P4_CCCR_ACTIVE_THREAD_MASK)
#define P4_CCCR_THRESHOLD(v)    (((uint32_t)(v) << P4_CCCR_THRESHOLD_SHIFT) & P4_CCCR_THRESHOLD_MASK)
#define P4_CCCR_GET_ESEL(c)     (((c) & P4_CCCR_ESCR_SELECT_MASK) >> P4_CCCR_ESCR_SELECT_SHIFT)
#define P4_CCCR_GET_THREAD(c)   (((c) & P4_CCCR_ACTIVE_THREAD_MASK) >> P4_CCCR_ACTIVE_THREAD_SHIFT)
#define P4_CCCR_GET_THRESHOLD(c) (((c) & P4_CCCR_THRESHOLD_MASK) >> P4_CCCR_THRESHOLD_SHIFT)

/* ---- ESCRs, 0x3a0-0x3e1 (Table 18-26; IQ_ESCR0/1 exist only on models 0-2) */
#define MSR_BSU_ESCR0           0x000003a0
#define MSR_BSU_ESCR1           0x000003a1
#define MSR_FSB_ESCR0           0x000003a2
#define MSR_FSB_ESCR1           0x000003a3
#define MSR_FIRM_ESCR0          0x000003a4
#define MSR_FIRM_ESCR1          0x000003a5
#define MSR_FLAME_ESCR0         0x000003a6
#define MSR_FLAME_ESCR1         0x000003a7
#define MSR_DAC_ESCR0           0x000003a8
#define MSR_DAC_ESCR1           0x000003a9
#define MSR_MOB_ESCR0           0x000003aa
#define MSR_MOB_ESCR1           0x000003ab
#define MSR_PMH_ESCR0           0x000003ac
#define MSR_PMH_ESCR1           0x000003ad
#define MSR_SAAT_ESCR0          0x000003ae
#define MSR_SAAT_ESCR1          0x000003af
#define MSR_U2L_ESCR0           0x000003b0
#define MSR_U2L_ESCR1           0x000003b1
#define MSR_BPU_ESCR0           0x000003b2
#define MSR_BPU_ESCR1           0x000003b3
#define MSR_IS_ESCR0            0x000003b4
#define MSR_IS_ESCR1            0x000003b5
#define MSR_ITLB_ESCR0          0x000003b6
#define MSR_ITLB_ESCR1          0x000003b7
#define MSR_CRU_ESCR0           0x000003b8
#define MSR_CRU_ESCR1           0x000003b9
#define MSR_IQ_ESCR0            0x000003ba
#define MSR_IQ_ESCR1            0x000003bb
#define MSR_RAT_ESCR0           0x000003bc
#define MSR_RAT_ESCR1           0x000003bd
#define MSR_SSU_ESCR0           0x000003be
#define MSR_MS_ESCR0            0x000003c0
#define MSR_MS_ESCR1            0x000003c1
#define MSR_TBPU_ESCR0          0x000003c2
#define MSR_TBPU_ESCR1          0x000003c3
#define MSR_TC_ESCR0            0x000003c4
#define MSR_TC_ESCR1            0x000003c5
#define MSR_IX_ESCR0            0x000003c8
#define MSR_IX_ESCR1            0x000003c9
#define MSR_ALF_ESCR0           0x000003ca
#define MSR_ALF_ESCR1           0x000003cb
#define MSR_CRU_ESCR2           0x000003cc
#define MSR_CRU_ESCR3           0x000003cd
#define MSR_CRU_ESCR4           0x000003e0
#define MSR_CRU_ESCR5           0x000003e1

#define P4_NUM_ESCRS            45
/* IQ_ESCR0/1 are absent from family 15 models 3 and later (SDM Table 18-26 note). */
#define P4_IQ_ESCR_LAST_MODEL   2

/* ESCR fields (Figure 18-45) */
#define P4_ESCR_T1_USR                  0x00000001U     /* bit 0 */
#define P4_ESCR_T1_OS                   0x00000002U     /* bit 1 */
#define P4_ESCR_T0_USR                  0x00000004U     /* bit 2 */
#define P4_ESCR_T0_OS                   0x00000008U     /* bit 3 */
#define P4_ESCR_THREAD_BITS             0x0000000fU
#define P4_ESCR_TAG_ENABLE              0x00000010U     /* bit 4 */
#define P4_ESCR_TAG_VALUE_SHIFT         5               /* bits 8:5 */
#define P4_ESCR_TAG_VALUE_MASK          0x000001e0U
#define P4_ESCR_EVENT_MASK_SHIFT        9               /* bits 24:9 */
#define P4_ESCR_EVENT_MASK_MASK         0x01fffe00U
#define P4_ESCR_EVENT_SELECT_SHIFT      25              /* bits 30:25 */
#define P4_ESCR_EVENT_SELECT_MASK       0x7e000000U
/* bits 63:31 */
#define P4_ESCR_RESERVED                0xffffffff80000000ULL

#define P4_ESCR_EVENT(v)        (((uint32_t)(v) << P4_ESCR_EVENT_SELECT_SHIFT) & P4_ESCR_EVENT_SELECT_MASK)
#define P4_ESCR_EMASK(v)        (((uint32_t)(v) << P4_ESCR_EVENT_MASK_SHIFT) & P4_ESCR_EVENT_MASK_MASK)
#define P4_ESCR_TAG(v)          (((uint32_t)(v) << P4_ESCR_TAG_VALUE_SHIFT) & P4_ESCR_TAG_VALUE_MASK)
#define P4_ESCR_GET_EVENT(e)    (((e) & P4_ESCR_EVENT_SELECT_MASK) >> P4_ESCR_EVENT_SELECT_SHIFT)
#define P4_ESCR_GET_EMASK(e)    (((e) & P4_ESCR_EVENT_MASK_MASK) >> P4_ESCR_EVENT_MASK_SHIFT)
#define P4_ESCR_GET_TAG(e)      (((e) & P4_ESCR_TAG_VALUE_MASK) >> P4_ESCR_TAG_VALUE_SHIFT)

#endif
