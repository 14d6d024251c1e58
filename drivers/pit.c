#include "drivers/pit.h"
#include "arch/x86/cpu.h"
#include "arch/x86/desc.h"
#include "arch/x86/traps.h"
#include "drivers/i8259.h"

#define PIT_CH0      0x40
#define PIT_CMD      0x43
#define PIT_HZ       1193182u
/* Control word (8254 datasheet, Figure 8): counter 0, LSB then MSB, mode 0 (interrupt on
 * terminal count), binary. OUT goes low when it is written and high, raising IRQ0, when a
 * count written after it runs out; with no count written the counter waits. */
#define PIT_SEL_CH0       (0u << 6)
#define PIT_RW_LOHI       (3u << 4)
#define PIT_MODE0         (0u << 1)
#define PIT_CW_CH0_MODE0  (PIT_SEL_CH0 | PIT_RW_LOHI | PIT_MODE0)
#define PIT_COUNT_MAX     0xffffu
#define PIT_IRQ           0
#define SELFTEST_SPINS    50000000u
/* Counter 2, gated by port 0x61 bit 0, its OUT read back in bit 5 (8254 datasheet; the PC's
 * NMI status and control port): a countdown polled without an interrupt. */
#define PIT_CH2           0x42
#define PIT_SEL_CH2       (2u << 6)
#define PIT_CW_CH2_MODE0  (PIT_SEL_CH2 | PIT_RW_LOHI | PIT_MODE0)
#define PORT_NMI_SC       0x61
#define NMI_SC_GATE2      0x01u
#define NMI_SC_SPEAKER    0x02u
#define NMI_SC_OUT2       0x20u
#define TSC_CAL_MS        2u
#define TSC_CAL_RUNS      5

static uint64_t left;             /* input clocks still to count after the current piece */
static volatile uint64_t irqs;

static void start_piece(void)
{
	uint32_t n = left > PIT_COUNT_MAX ? PIT_COUNT_MAX : (uint32_t)left;
	left -= n;
	outb(PIT_CMD, PIT_CW_CH0_MODE0);
	outb(PIT_CH0, n & 0xff);
	outb(PIT_CH0, n >> 8);
}

static bool pit_irq(struct trap_frame *f)
{
	(void)f;
	irqs++;
	i8259_eoi();
	return true;
}

bool pit_watchdog_arm(uint32_t ms)
{
	left = (uint64_t)ms * PIT_HZ / 1000;
	if (!left)
		left = 1;
	start_piece();
	return true;
}

void pit_watchdog_disarm(void)
{
	outb(PIT_CMD, PIT_CW_CH0_MODE0);      /* no count follows: the counter stops */
	left = 0;
}

bool pit_watchdog_spent(void)
{
	if (!left)
		return true;
	start_piece();
	return false;
}

bool pit_init(const char **why)
{
	/* The firmware may have left channel 0 ticking for itself: stop it first. */
	pit_watchdog_disarm();
	trap_set_irq_handler(VEC_PIT, pit_irq);
	i8259_init(1u << PIT_IRQ);
	__asm__ volatile("sti; nop; cli" ::: "memory");   /* take anything latched before */
	uint64_t before = irqs;
	pit_watchdog_arm(1);
	irq_enable();
	for (uint32_t i = 0; i < SELFTEST_SPINS && irqs == before; i++)
		cpu_relax();
	irq_disable();
	pit_watchdog_disarm();
	if (irqs == before) {
		*why = "the 8254 PIT did not interrupt through the 8259 PIC";
		return false;
	}
	return true;
}

/* TSC ticks over one countdown of TSC_CAL_MS on counter 2; 0 when it does not end. */
static uint64_t tsc_over_countdown(void)
{
	uint16_t count = PIT_HZ * TSC_CAL_MS / 1000;
	uint8_t sc = inb(PORT_NMI_SC);

	outb(PORT_NMI_SC, (sc & ~NMI_SC_SPEAKER) & ~NMI_SC_GATE2);
	outb(PIT_CMD, PIT_CW_CH2_MODE0);
	outb(PIT_CH2, count & 0xff);
	outb(PIT_CH2, count >> 8);
	uint64_t start = rdtsc();
	outb(PORT_NMI_SC, (sc & ~NMI_SC_SPEAKER) | NMI_SC_GATE2);   /* the count starts */
	for (uint32_t i = 0; !(inb(PORT_NMI_SC) & NMI_SC_OUT2); i++)
		if (i >= SELFTEST_SPINS)
			return 0;
	uint64_t ticks = rdtsc() - start;
	outb(PORT_NMI_SC, sc & ~NMI_SC_SPEAKER);
	return ticks;
}

/* The least of a few countdowns: being interrupted (an SMI, or under emulation the host
 * running something else) only ever makes one longer. */
uint64_t pit_tsc_hz(void)
{
	uint64_t least = 0;

	for (unsigned i = 0; i < TSC_CAL_RUNS; i++) {
		uint64_t t = tsc_over_countdown();
		if (!t)
			return 0;
		if (!least || t < least)
			least = t;
	}
	return least * (1000 / TSC_CAL_MS);
}
