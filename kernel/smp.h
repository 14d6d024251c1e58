/*
 * Every logical processor: bring-up from the ACPI MADT (INIT-SIPI-SIPI through a real-mode
 * trampoline), then parked in a loop the boot CPU commands. CPU numbers are bareperf's
 * own: 0 is the boot CPU, then the started APs in MADT order.
 */
#ifndef KERNEL_SMP_H
#define KERNEL_SMP_H
#include <stdbool.h>
#include <stdint.h>
#include "lib/topology.h"

#define SMP_MAX_CPUS 64
#define SMP_NONE     (~0u)

struct smp_cpu {
	unsigned index;             /* bareperf CPU number */
	uint32_t apic_id;
	struct cpu_position pos;
	bool online;                /* answered and parked (the boot CPU: always) */
	uint8_t initial_apic_id;    /* CPUID.1:EBX[31:24], which NetBurst's T0/T1 follow */
};

/* Find the APs, start them, report sys.cpus and one line per CPU. */
void smp_init(void);
unsigned smp_count(void);                       /* online CPUs, the boot CPU included */
const struct smp_cpu *smp_cpu(unsigned index);  /* NULL past smp_count() */
unsigned smp_self(void);                        /* the CPU running the caller */
unsigned smp_sibling_of(unsigned index);        /* an SMT sibling of index, or SMP_NONE */
bool smp_siblings(unsigned a, unsigned b);      /* two CPUs of one core (any of its threads) */

/* The code an AP runs first (arch/x86/64/trampoline.asm jumps here on its own stack). */
void smp_ap_main(unsigned self);

/* Make parked CPU index run fn(arg) (with interrupts off, as the boot CPU runs) and park
 * again; the boot CPU calls, and is woken by an IPI when the call returns. Returns at
 * once: 0, or -1 when the CPU is not online, is the boot CPU (0), or is busy. Parked CPUs
 * wait in HLT (interrupts on, every source masked but IPIs), so an idle sibling takes no
 * execution resources from the one being measured. */
typedef void (*smp_fn)(void *arg);
int smp_call_async(unsigned index, smp_fn fn, void *arg);
/* Wait for the call to finish: 0, or -1 after timeout_ms (the CPU is then marked lost
 * and never commanded again); timeout_ms 0 waits as long as the call runs (for a call
 * whose every step is bounded by its own watchdog, as the engine's runs are). The
 * waiting CPU halts meanwhile. */
int smp_wait(unsigned index, uint32_t timeout_ms);
/* Without waiting: 1 when the call has finished (the CPU is then ready for another), 0
 * while it runs, -1 when no call is outstanding or the CPU is not usable. */
int smp_poll(unsigned index);

#endif
