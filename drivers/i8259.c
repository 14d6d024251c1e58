#include "drivers/i8259.h"
#include "arch/x86/cpu.h"
#include "arch/x86/desc.h"
#include "arch/x86/traps.h"

#define PIC1_CMD   0x20
#define PIC1_DATA  0x21
#define PIC2_CMD   0xa0
#define PIC2_DATA  0xa1

/* Initialization and operation command words (8259A datasheet, Figures 7 and 8). */
#define ICW1_INIT      0x10
#define ICW1_ICW4      0x01
#define ICW3_SLAVE_ON_IRQ2  0x04     /* master: a slave sits on IR2 */
#define ICW3_SLAVE_ID       0x02     /* slave: its cascade identity */
#define ICW4_8086      0x01
#define OCW2_EOI       0x20          /* non-specific EOI */
#define OCW3_READ_ISR  0x0b
#define IRQ_SPURIOUS   7

static bool spurious_irq7(struct trap_frame *f)
{
	(void)f;
	/* A spurious IRQ7 (a request that went away before the acknowledge; it comes even
	 * while IRQ7 is masked) is not in service and must get no EOI; a real one does. */
	outb(PIC1_CMD, OCW3_READ_ISR);
	if (inb(PIC1_CMD) & (1u << IRQ_SPURIOUS))
		i8259_eoi();
	return true;
}

void i8259_init(unsigned unmask)
{
	outb(PIC1_DATA, 0xff);
	outb(PIC2_DATA, 0xff);
	outb(PIC1_CMD, ICW1_INIT | ICW1_ICW4);
	outb(PIC2_CMD, ICW1_INIT | ICW1_ICW4);
	outb(PIC1_DATA, VEC_PIC_BASE);          /* ICW2: vector of IRQ0 */
	outb(PIC2_DATA, VEC_PIC_BASE + 8);
	outb(PIC1_DATA, ICW3_SLAVE_ON_IRQ2);
	outb(PIC2_DATA, ICW3_SLAVE_ID);
	outb(PIC1_DATA, ICW4_8086);
	outb(PIC2_DATA, ICW4_8086);
	trap_set_irq_handler(VEC_PIC_BASE + IRQ_SPURIOUS, spurious_irq7);
	/* The slave stays masked, cascade line included: only master IRQs are wanted. */
	outb(PIC1_DATA, (uint8_t)~(unmask & 0xfb));
	outb(PIC2_DATA, 0xff);
}

void i8259_eoi(void)
{
	outb(PIC1_CMD, OCW2_EOI);
}
