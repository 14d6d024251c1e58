/* Local APIC (xAPIC by MMIO, or x2APIC by MSR where the CPU has it): masking, the one-shot
 * timer used as the payload watchdog, IPIs. SDM Vol. 3A ch. 11. */
#ifndef DRIVERS_LAPIC_H
#define DRIVERS_LAPIC_H
#include <stdbool.h>
#include <stdint.h>

/* Map nothing (identity-mapped below 4 GiB), mask every LVT entry and the 8259 PICs,
 * calibrate the timer against the PIT. False (with a reason) when unusable. */
bool lapic_init(uint64_t phys_base, const char **why);
uint64_t lapic_timer_hz(void);
/* This CPU's local APIC (an application processor's, after lapic_init on the boot CPU):
 * enable it, mask every LVT entry. */
void lapic_init_ap(void);
bool lapic_x2apic(void);        /* x2APIC mode (IA32_APIC_BASE.EXTD) */
uint32_t lapic_id(void);        /* this CPU's APIC ID (x2APIC ID in x2APIC mode) */
void lapic_eoi(void);
/* Busy-wait us microseconds on this CPU's APIC timer (not while the watchdog is armed). */
void lapic_delay_us(uint32_t us);
/* Interprocessor interrupts to one APIC ID (SDM Vol. 3A 11.6): a fixed vector, INIT
 * (assert), and a start-up IPI whose vector is the 4 KiB page the processor starts at
 * (below 1 MiB). False when the xAPIC reports the send still pending. */
bool lapic_send_ipi(uint32_t apic_id, unsigned vector);
bool lapic_send_init(uint32_t apic_id);
bool lapic_send_sipi(uint32_t apic_id, uint32_t page);
/* A one-shot of ms on this CPU's timer raising vector (lapic_watchdog_disarm stops it). */
bool lapic_timer_arm(uint32_t ms, unsigned vector);
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
/* Whether the entry delivers as lapic_pmi_route(nmi) set it (mask aside). */
bool lapic_pmi_routed(bool nmi);
/* A fixed interrupt on vector (32..255) to this CPU, sent to its own APIC ID. */
bool lapic_send_ipi_to_self(uint8_t vector);

#endif
