#include "drivers/lapic.h"
#include "arch/x86/cpu.h"
#include "arch/x86/desc.h"
#include "arch/x86/setup.h"
#include "arch/x86/traps.h"
#include "arch/x86/x2apic.h"
#include "lib/util.h"

/* Register offsets, SDM Vol. 3A Table 11-1. */
#define LAPIC_ID        0x020
#define LAPIC_TPR       0x080
#define LAPIC_EOI       0x0b0
#define LAPIC_SVR       0x0f0
#define LAPIC_LVT_CMCI  0x2f0
#define LAPIC_LVT_TIMER 0x320
#define LAPIC_LVT_THERM 0x330
#define LAPIC_LVT_PERF  0x340
#define LAPIC_LVT_LINT0 0x350
#define LAPIC_LVT_LINT1 0x360
#define LAPIC_LVT_ERROR 0x370
#define LAPIC_ICR_LO    0x300
#define LAPIC_ICR_HI    0x310
#define LAPIC_TIMER_INIT 0x380
#define LAPIC_TIMER_CUR  0x390
#define LAPIC_TIMER_DIV  0x3e0

#define SVR_ENABLE      (1u << 8)
/* ICR fields, SDM Vol. 3A Figure 11-12. */
#define ICR_DELIVERY_FIXED   (0u << 8)
#define ICR_DELIVERY_INIT    (5u << 8)
#define ICR_DELIVERY_STARTUP (6u << 8)
#define ICR_DELIVERY_NMI     (4u << 8)
#define ICR_DELIVERY_PENDING (1u << 12)
#define ICR_LEVEL_ASSERT     (1u << 14)
#define ICR_XAPIC_DEST_SHIFT 24           /* in ICR_HI (xAPIC); x2APIC: ICR bits 63:32 */
#define ICR_SIPI_VECTOR(page) ((uint32_t)((page) >> 12) & 0xff)
#define LAPIC_XAPIC_ID_SHIFT 24           /* ID register bits 31:24 (xAPIC); x2APIC: all 32 */
#define LVT_MASKED      (1u << 16)
#define LVT_ONESHOT     0u

/* Divide configuration register encodings for 1, 2, 4, ... 128 (Figure 11-10). */
static const uint32_t div_code[8] = { 0xb, 0x0, 0x1, 0x2, 0x3, 0x8, 0x9, 0xa };

/* 8259A PIC data ports and the PIT (Intel 8254) channel 2 for calibration. */
#define PIC1_DATA  0x21
#define PIC2_DATA  0xa1
#define PIT_CH2    0x42
#define PIT_CMD    0x43
#define PIT_GATE   0x61
#define PIT_HZ     1193182u
#define CAL_MS     10u

static volatile uint32_t *regs;
static bool x2apic;                /* registers are MSRs (SDM Vol. 3A 11.12), regs unused */
static uint64_t timer_hz;          /* at divide-by-1 */

/* The register access layer: MMIO at the xAPIC page, or in x2APIC mode the MSR at
 * MSR_X2APIC_BASE + offset / 16 (SDM Vol. 3A Table 11-6). Every CPU's own local APIC
 * answers at the same address, so these serve every CPU. */
static uint32_t rd(uint32_t off) { return x2apic ? x2apic_read(off) : regs[off / 4]; }
static void wr(uint32_t off, uint32_t v)
{
	if (x2apic)
		x2apic_write(off, v);
	else
		regs[off / 4] = v;
}

static bool timer_irq(struct trap_frame *f)
{
	(void)f;
	wr(LAPIC_EOI, 0);
	return true;
}

static bool calibrate(void)
{
	uint16_t count = PIT_HZ * CAL_MS / 1000;
	outb(PIT_GATE, (inb(PIT_GATE) & ~0x02) | 0x01);   /* gate on, speaker off */
	outb(PIT_CMD, 0xb0);                               /* ch2, lo/hi, mode 0 */
	outb(PIT_CH2, count & 0xff);
	outb(PIT_CH2, count >> 8);
	wr(LAPIC_TIMER_DIV, div_code[0]);
	wr(LAPIC_LVT_TIMER, LVT_MASKED);
	wr(LAPIC_TIMER_INIT, 0xffffffffu);
	uint64_t spins = 0;
	while (!(inb(PIT_GATE) & 0x20))
		if (++spins > 100000000ull)
			return false;
	uint32_t elapsed = 0xffffffffu - rd(LAPIC_TIMER_CUR);
	wr(LAPIC_TIMER_INIT, 0);
	timer_hz = (uint64_t)elapsed * (1000 / CAL_MS);
	return timer_hz > 0;
}

bool lapic_init(uint64_t phys_base, const char **why)
{
	if (!phys_base) {
		*why = "CPU has no local APIC";
		return false;
	}
	regs = (volatile uint32_t *)(uintptr_t)phys_base;     /* identity-mapped */
	x2apic = cpu_lapic_x2apic();
	outb(PIC1_DATA, 0xff);
	outb(PIC2_DATA, 0xff);
	lapic_init_ap();
	trap_set_irq_handler(VEC_APIC_TIMER, timer_irq);
	if (!calibrate()) {
		*why = "APIC timer calibration against the PIT did not finish";
		return false;
	}
	return true;
}

void lapic_init_ap(void)
{
	wr(LAPIC_TPR, 0);
	wr(LAPIC_SVR, SVR_ENABLE | VEC_APIC_SPURIOUS);
	const uint32_t lvts[] = { LAPIC_LVT_TIMER, LAPIC_LVT_THERM, LAPIC_LVT_PERF,
				  LAPIC_LVT_LINT0, LAPIC_LVT_LINT1, LAPIC_LVT_ERROR };
	for (unsigned i = 0; i < ARRAY_SIZE(lvts); i++)
		wr(lvts[i], LVT_MASKED);
}

bool lapic_x2apic(void)
{
	return x2apic;
}

uint32_t lapic_id(void)
{
	uint32_t v = rd(LAPIC_ID);
	return x2apic ? v : v >> LAPIC_XAPIC_ID_SHIFT;
}

void lapic_eoi(void)
{
	wr(LAPIC_EOI, 0);
}

/* Busy-wait on this CPU's timer (masked one-shot at divide-by-1): no interrupt, no
 * firmware. The watchdog must not be armed meanwhile. */
void lapic_delay_us(uint32_t us)
{
	uint64_t ticks = timer_hz * us / 1000000;
	while (ticks) {
		uint32_t piece = ticks > 0xffffffffu ? 0xffffffffu : (uint32_t)ticks;
		wr(LAPIC_TIMER_DIV, div_code[0]);
		wr(LAPIC_LVT_TIMER, LVT_MASKED);
		wr(LAPIC_TIMER_INIT, piece);
		while (rd(LAPIC_TIMER_CUR))
			cpu_relax();
		ticks -= piece;
	}
}

/* Write the ICR: xAPIC needs the destination in ICR_HI first and reports delivery in
 * ICR_LO bit 12; the x2APIC ICR is one MSR write, with no delivery status (SDM Vol. 3A
 * 11.12.9). False when an xAPIC send stays pending. */
static bool icr_send(uint32_t apic_id, uint32_t lo)
{
	if (x2apic) {
		x2apic_write_icr(apic_id, lo);
		return true;
	}
	wr(LAPIC_ICR_HI, apic_id << ICR_XAPIC_DEST_SHIFT);
	wr(LAPIC_ICR_LO, lo);
	for (int i = 0; i < 1000000; i++)
		if (!(rd(LAPIC_ICR_LO) & ICR_DELIVERY_PENDING))
			return true;
	return false;
}

bool lapic_send_ipi(uint32_t apic_id, unsigned vector)
{
	return icr_send(apic_id, ICR_DELIVERY_FIXED | ICR_LEVEL_ASSERT | (vector & 0xff));
}

bool lapic_send_init(uint32_t apic_id)
{
	return icr_send(apic_id, ICR_DELIVERY_INIT | ICR_LEVEL_ASSERT);
}

bool lapic_send_sipi(uint32_t apic_id, uint32_t page)
{
	return icr_send(apic_id, ICR_DELIVERY_STARTUP | ICR_LEVEL_ASSERT | ICR_SIPI_VECTOR(page));
}

uint64_t lapic_timer_hz(void)
{
	return timer_hz;
}

bool lapic_timer_arm(uint32_t ms, unsigned vector)
{
	if (!timer_hz)
		return false;
	for (unsigned d = 0; d < 8; d++) {
		uint64_t ticks = (timer_hz >> d) * ms / 1000;
		if (ticks <= 0xffffffffu) {
			wr(LAPIC_TIMER_DIV, div_code[d]);
			wr(LAPIC_LVT_TIMER, LVT_ONESHOT | (vector & 0xff));
			wr(LAPIC_TIMER_INIT, ticks ? (uint32_t)ticks : 1);
			return true;
		}
	}
	return false;
}

bool lapic_watchdog_arm(uint32_t ms)
{
	return lapic_timer_arm(ms, VEC_APIC_TIMER);
}

void lapic_watchdog_disarm(void)
{
	wr(LAPIC_TIMER_INIT, 0);
	wr(LAPIC_LVT_TIMER, LVT_MASKED);
}

bool lapic_send_nmi_to_self(void)
{
	if (!regs)
		return false;
	/* To this CPU's own APIC ID: the "self" shorthand is invalid for NMIs, and "all
	 * including self" would reach the other processors too. */
	return icr_send(lapic_id(), ICR_LEVEL_ASSERT | ICR_DELIVERY_NMI);
}

/* ---------------------------------------------------------------- performance-counter interrupt */

/* LVT performance-counter register (SDM Vol. 3A 11.5.1, Figure 11-8): vector 7:0,
 * delivery mode 10:8 (fixed, SMI or NMI), mask 16. The local APIC sets the mask bit
 * when it handles a performance-counter interrupt (same section), so the handler
 * unmasks it again. */
#define LVT_DELIVERY_FIXED  (0u << 8)
#define LVT_DELIVERY_NMI    (4u << 8)

#define LVT_VECTOR_MASK     0xffu
#define LVT_DELIVERY_MASK   (7u << 8)

static uint32_t pmi_lvt(bool nmi)
{
	return nmi ? LVT_DELIVERY_NMI : LVT_DELIVERY_FIXED | VEC_PMI;
}

bool lapic_pmi_route(bool nmi)
{
	if (!regs)
		return false;
	wr(LAPIC_LVT_PERF, LVT_MASKED | pmi_lvt(nmi));
	return true;
}

bool lapic_pmi_routed(bool nmi)
{
	uint32_t v = regs ? rd(LAPIC_LVT_PERF) : 0;
	/* NMI delivery ignores the vector field (SDM Vol. 3A 11.5.1). */
	uint32_t mask = LVT_DELIVERY_MASK | (nmi ? 0 : LVT_VECTOR_MASK);
	return regs && (v & mask) == pmi_lvt(nmi);
}

void lapic_pmi_unmask(void)
{
	if (regs)
		wr(LAPIC_LVT_PERF, rd(LAPIC_LVT_PERF) & ~LVT_MASKED);
}

void lapic_pmi_mask(void)
{
	if (regs)
		wr(LAPIC_LVT_PERF, rd(LAPIC_LVT_PERF) | LVT_MASKED);
}

bool lapic_pmi_masked(void)
{
	return !regs || (rd(LAPIC_LVT_PERF) & LVT_MASKED);
}

bool lapic_send_ipi_to_self(uint8_t vector)
{
	if (!regs || vector < 32)
		return false;
	/* To this CPU's own APIC ID, through the ICR layer (xAPIC or x2APIC). */
	return lapic_send_ipi(lapic_id(), vector);
}
