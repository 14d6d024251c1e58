/* GDT, TSS and IDT. SDM Vol. 3A 3.4.5 (segment descriptors), 7.7 (64-bit TSS), 6.14 (64-bit IDT). */
#ifndef ARCH_X86_DESC_H
#define ARCH_X86_DESC_H
#include <stdint.h>
#include "arch/x86/abi.h"      /* SEL_*, RPL3, VEC_INT_ROUNDTRIP, VEC_USER_EXIT */

/* IST slots in the TSS */
#define IST_DF   1
#define IST_NMI  2
#define IST_MC   3
#define IST_DB   4

#define VEC_DE   0
#define VEC_DB   1
#define VEC_NMI  2
#define VEC_BP   3
#define VEC_UD   6
#define VEC_NM   7
#define VEC_DF   8
#define VEC_GP   13
#define VEC_PF   14
#define VEC_MC   18
#define VEC_PIC_BASE       0x20     /* 8259 IRQ0-15 (drivers/i8259.c), no local APIC only */
#define VEC_PIT            (VEC_PIC_BASE + 0)
#define VEC_APIC_TIMER     0xf0
#define VEC_PMI            0xf1     /* LVT performance-counter entry, fixed delivery */
#define VEC_SMP_WAKE       0xf2     /* IPI: a parked CPU has a call (kernel/smp.c) */
#define VEC_APIC_SPURIOUS  0xff

/* The boot CPU's GDT and TSS, and the IDT every CPU shares. */
void desc_init(void);
/* An application processor's own GDT and TSS (stack_top_cpu's stacks), loaded with the
 * shared IDT; on i686 also its own #DF task. cpu < STACK_CPUS (arch/x86/stacks.h). */
void desc_init_cpu(unsigned cpu);
void tss_set_rsp0(uint64_t rsp0);
/* Which CPU this is (its GDT's index, as desc_init_cpu was given it), read by SGDT. */
unsigned desc_this_cpu(void);
#ifndef __x86_64__
/* The page directory the i686 #DF task runs with (a task switch loads CR3 from its TSS). */
void desc_set_df_task_cr3(uintptr_t cr3);
#endif
const char *vector_name(unsigned vec);   /* "#GP" */

#endif
