/* Intel 8254 programmable interval timer, channel 0 on IRQ0: the run watchdog where there is
 * no local APIC (8254 datasheet; 1.193182 MHz input on every PC). */
#ifndef DRIVERS_PIT_H
#define DRIVERS_PIT_H
#include <stdbool.h>
#include <stdint.h>

/* Stop channel 0, route IRQ0 through the 8259 (i8259_init) and check that one short
 * countdown interrupts. False (with a reason) when it does not. */
bool pit_init(const char **why);
/* The run watchdog, the same interface as the APIC timer's. The 16-bit counter spans at
 * most 55 ms, so a longer budget is counted down in pieces of up to 55 ms, each ending in
 * an interrupt; pit_watchdog_spent says, at each, whether the budget is used up. */
bool pit_watchdog_arm(uint32_t ms);
void pit_watchdog_disarm(void);
bool pit_watchdog_spent(void);

/* The TSC's rate in Hz, the least of five 2 ms countdowns of counter 2 (no interrupt); 0 when a
 * countdown does not end. For a CPU with a TSC only. */
uint64_t pit_tsc_hz(void);

#endif
