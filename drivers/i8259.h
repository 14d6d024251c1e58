/* 8259A programmable interrupt controllers, master and slave (Intel 8259A datasheet; ports as
 * on every PC). Used only where there is no local APIC: then the PIC is what delivers IRQ0. */
#ifndef DRIVERS_I8259_H
#define DRIVERS_I8259_H
#include <stdbool.h>

/* Remap IRQ0-15 to VEC_PIC_BASE.. (away from the exceptions), mask every line but those in
 * unmask (bit n = IRQ n), and take the master's spurious IRQ7 quietly. */
void i8259_init(unsigned unmask);
/* End of interrupt for a master IRQ (non-specific EOI). */
void i8259_eoi(void);

#endif
