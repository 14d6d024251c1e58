#include "drivers/lapic.h"
#include "arch/x86/cpu.h"
#include "arch/x86/desc.h"
#include "arch/x86/traps.h"
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
#define ICR_DELIVERY_NMI     (4u << 8)
#define ICR_DELIVERY_PENDING (1u << 12)
#define ICR_LEVEL_ASSERT     (1u << 14)
#define ICR_ALL_INCL_SELF    (2u << 18)   /* NMI may not use the "self" shorthand */
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
static uint64_t timer_hz;          /* at divide-by-1 */

static uint32_t rd(uint32_t off) { return regs[off / 4]; }
static void wr(uint32_t off, uint32_t v) { regs[off / 4] = v; }

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
	outb(PIC1_DATA, 0xff);
	outb(PIC2_DATA, 0xff);
	wr(LAPIC_TPR, 0);
	wr(LAPIC_SVR, SVR_ENABLE | VEC_APIC_SPURIOUS);
	const uint32_t lvts[] = { LAPIC_LVT_TIMER, LAPIC_LVT_THERM, LAPIC_LVT_PERF,
				  LAPIC_LVT_LINT0, LAPIC_LVT_LINT1, LAPIC_LVT_ERROR };
	for (unsigned i = 0; i < ARRAY_SIZE(lvts); i++)
		wr(lvts[i], LVT_MASKED);
	trap_set_irq_handler(VEC_APIC_TIMER, timer_irq);
	if (!calibrate()) {
		*why = "APIC timer calibration against the PIT did not finish";
		return false;
	}
	return true;
}

uint64_t lapic_timer_hz(void)
{
	return timer_hz;
}

bool lapic_watchdog_arm(uint32_t ms)
{
	if (!timer_hz)
		return false;
	for (unsigned d = 0; d < 8; d++) {
		uint64_t ticks = (timer_hz >> d) * ms / 1000;
		if (ticks <= 0xffffffffu) {
			wr(LAPIC_TIMER_DIV, div_code[d]);
			wr(LAPIC_LVT_TIMER, LVT_ONESHOT | VEC_APIC_TIMER);
			wr(LAPIC_TIMER_INIT, ticks ? (uint32_t)ticks : 1);
			return true;
		}
	}
	return false;
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
	wr(LAPIC_ICR_HI, 0);
	wr(LAPIC_ICR_LO, ICR_ALL_INCL_SELF | ICR_LEVEL_ASSERT | ICR_DELIVERY_NMI);
	for (int i = 0; i < 1000000; i++)
		if (!(rd(LAPIC_ICR_LO) & ICR_DELIVERY_PENDING))
			return true;
	return false;
}

/* ---------------------------------------------------------------- performance-counter interrupt */

/* LVT performance-counter register (SDM Vol. 3A 11.5.1, Figure 11-8): vector 7:0,
 * delivery mode 10:8 (fixed, SMI or NMI), mask 16. The local APIC sets the mask bit
 * when it handles a performance-counter interrupt (same section), so the handler
 * unmasks it again. */
#define LVT_DELIVERY_FIXED  (0u << 8)
#define LVT_DELIVERY_NMI    (4u << 8)
#define ICR_DELIVERY_FIXED  (0u << 8)
#define ICR_SELF            (1u << 18)

bool lapic_pmi_route(bool nmi)
{
	if (!regs)
		return false;
	wr(LAPIC_LVT_PERF, LVT_MASKED | (nmi ? LVT_DELIVERY_NMI : LVT_DELIVERY_FIXED | VEC_PMI));
	return true;
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

void lapic_eoi(void)
{
	if (regs)
		wr(LAPIC_EOI, 0);
}

bool lapic_send_ipi_to_self(uint8_t vector)
{
	if (!regs || vector < 32)
		return false;
	wr(LAPIC_ICR_HI, 0);
	wr(LAPIC_ICR_LO, ICR_SELF | ICR_LEVEL_ASSERT | ICR_DELIVERY_FIXED | vector);
	for (int i = 0; i < 1000000; i++)
		if (!(rd(LAPIC_ICR_LO) & ICR_DELIVERY_PENDING))
			return true;
	return false;
}
