#include "drivers/poll.h"
#include "arch/x86/cpu.h"
#include "lib/format.h"

static uint64_t tsc_per_ms;             /* 0: no clock, bounds count polls */

void poll_clock_set(uint64_t tsc_hz)
{
	tsc_per_ms = tsc_hz / 1000;
}

void poll_bound_start(struct poll_bound *b, uint32_t polls)
{
	b->polls = 0;
	b->max_polls = polls;
	b->last = false;
	b->ticks = tsc_per_ms * polls / POLLS_PER_MS;
	b->start = tsc_per_ms ? rdtsc() : 0;
}

bool poll_bound_spent(struct poll_bound *b)
{
	bool up = tsc_per_ms ? rdtsc() - b->start >= b->ticks : ++b->polls >= b->max_polls;

	if (!up)
		return false;
	if (b->last)
		return true;
	b->last = true;
	return false;
}

/* "5 s" or "500 ms" */
static void time_text(char *buf, size_t size, uint32_t ms)
{
	if (ms >= 1000 && ms % 1000 == 0)
		bp_snprintf(buf, size, "%u s", ms / 1000);
	else
		bp_snprintf(buf, size, "%u ms", ms);
}

struct poll_text poll_bound_text(uint32_t polls)
{
	struct poll_text t;
	char time[16];

	time_text(time, sizeof(time), polls / POLLS_PER_MS);
	if (tsc_per_ms)
		bp_snprintf(t.s, sizeof(t.s), "about %s", time);
	else
		bp_snprintf(t.s, sizeof(t.s), "%u polls (%s at 1 us a poll)", polls, time);
	return t;
}
