/*
 * Counter-overflow interrupts (PMIs) and the sampling mode: the kernel's PMI handler
 * (installed through trap_set_irq_handler, on VEC_PMI and, for NMI delivery, on NMIs),
 * and sample.event= runs that record the interrupted IP every sample.period events.
 */
#ifndef KERNEL_SAMPLE_H
#define KERNEL_SAMPLE_H
#include <stdbool.h>
#include <stdint.h>
#include "payloads/payload.h"

/* What the handler did, for the self-test. */
struct pmi_stats {
	uint64_t interrupts;    /* PMIs taken as ours (vector, or NMI with an overflow) */
	uint64_t status_reads;  /* the backend's overflowed() answered */
	uint64_t acks;          /* overflows acknowledged (ack hook, or none needed) */
	uint64_t rearms;        /* LVT performance-counter entry unmasked again */
	uint64_t elsewhere;     /* PMI vectors taken on a CPU that does not measure: only
	                           acknowledged (NMIs there go on to the trap code) */
	uint32_t last_mask;     /* slots the last PMI found overflowed */
};
const struct pmi_stats *pmi_stats(void);

/* Install the PMI handler (and, with nmi, the NMI hook) and tell the PMU state that
 * counters may now interrupt. After kpmu_init, which resets that state. */
void pmi_install(bool nmi);

/* mode=run: check sample.event= against this machine once (a note says why sampling
 * cannot run, and the run goes on); then sample_payload samples each payload run. */
void sample_init(void);
void sample_payload(const struct payload *pl, uint64_t size, unsigned cpl, uint64_t arg,
		    uint64_t n);
/* Open this CPU's LVT performance-counter entry for a sampled run (sample_payload calls it
 * on the CPU that runs the payload; lapic_pmi_mask closes it). */
void sample_pmi_arm(void);

#endif
