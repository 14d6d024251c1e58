/* Local APIC (xAPIC, MMIO): masking, the one-shot timer used as the payload watchdog. SDM Vol. 3A ch. 11. */
#ifndef DRIVERS_LAPIC_H
#define DRIVERS_LAPIC_H
#include <stdbool.h>
#include <stdint.h>

/* Map nothing (identity-mapped below 4 GiB), mask every LVT entry and the 8259 PICs,
 * calibrate the timer against the PIT. False (with a reason) when unusable. */
bool lapic_init(uint64_t phys_base, const char **why);
uint64_t lapic_timer_hz(void);
/* The run watchdog: a one-shot on VEC_APIC_TIMER. */
bool lapic_watchdog_arm(uint32_t ms);
void lapic_watchdog_disarm(void);
/* Send this CPU an NMI through the ICR (for the self-test of the NMI path). */
bool lapic_send_nmi_to_self(void);

/* The performance-counter interrupt (LVT entry 0x340): route it to VEC_PMI or as an NMI,
 * masked; unmask (also after each PMI, which sets the mask bit), mask, read the mask.
 * False from lapic_pmi_route when there is no local APIC. */
bool lapic_pmi_route(bool nmi);
void lapic_pmi_unmask(void);
void lapic_pmi_mask(void);
bool lapic_pmi_masked(void);
/* End of interrupt, for a handler of a fixed-delivery vector. */
void lapic_eoi(void);
/* A fixed interrupt on vector (32..255) to this CPU, through the ICR's self shorthand. */
bool lapic_send_ipi_to_self(uint8_t vector);

#endif
