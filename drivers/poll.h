/* How the storage drivers wait: they poll a register, reading I/O port 0x80 between polls
 * (the classic ISA delay of about 1 us on PC hardware), until it answers or a bound is
 * spent. The bound is time on the TSC where the kernel knows its rate (poll_clock_set:
 * CPUID leaf 0x15, else measured against the PIT), since under emulation a poll takes far
 * less than 1 us (issue 32: two 5,000,000-poll timeouts within a 1.06 s QEMU boot); without
 * a TSC it is a count of polls, and a timeout message says which it was. Fixed delays
 * (a reset held 50 ms) are still counted in polls. */
#ifndef DRIVERS_POLL_H
#define DRIVERS_POLL_H
#include <stdbool.h>
#include <stdint.h>
#include "drivers/mmio.h"     /* inb: the port's, or a host test's fake (BAREPERF_FAKE_HW) */

#define POLL_DELAY_PORT         0x80
#define POLLS_PER_MS            1000u   /* at 1 us a poll */

/* One poll's pause: a read of POLL_DELAY_PORT, about 1 us on PC hardware. */
static inline void poll_pause(void)
{
	(void)inb(POLL_DELAY_PORT);
}

/* A fixed delay, counted in polls (not on the clock: see above). */
static inline void poll_delay(uint32_t polls)
{
	for (uint32_t i = 0; i < polls; i++)
		poll_pause();
}

/* The TSC's rate in Hz, 0 for none: bounds are then counted in polls. */
void poll_clock_set(uint64_t tsc_hz);

/* A bound of polls / POLLS_PER_MS milliseconds, started when it is set up. */
struct poll_bound {
	uint64_t start, ticks;      /* TSC, when the clock is known */
	uint32_t polls, max_polls;  /* otherwise */
	bool last;                  /* the poll after the bound ran out has been given */
};
void poll_bound_start(struct poll_bound *b, uint32_t polls);
/* Called once a poll, before it: whether the bound is spent. Once the time is up it allows
 * one poll more, so that a wait the CPU was kept from (an SMI, a host that did not run
 * the emulated CPU) looks once more before it calls a finished transfer a timeout. */
bool poll_bound_spent(struct poll_bound *b);

/* What a bound of polls is, for a message: "about 5 s" on the clock, "5000000 polls (5 s
 * at 1 us a poll)" without it: "within %s", POLLS_ARGS(n). */
struct poll_text {
	char s[48];
};
struct poll_text poll_bound_text(uint32_t polls);
#define POLLS_TEXT              "%s"
#define POLLS_ARGS(n)           poll_bound_text(n).s

#endif
