/*
 * Intel P6 family (Pentium Pro, II, III, Pentium M) PMU: two 40-bit counters,
 * PERFEVTSEL0/1 at 0x186/0x187 and PERFCTR0/1 at 0xc1/0xc2 (SDM Vol. 3B 21.6.x,
 * "Performance Monitoring for P6 Family Processors"). EN (bit 22) exists only in
 * PERFEVTSEL0 and starts and stops both counters; in PERFEVTSEL1 it is reserved.
 */
#include "arch/x86/msr-index.h"
#include "arch/x86/pmu/core.h"
#include "lib/format.h"
#include "lib/str.h"

#define P6_COUNTERS 2

static int p6_probe(struct pmu_state *st, char *err, size_t errlen)
{
	if (st->caps.kind != PMU_INTEL_P6) {
		bp_snprintf(err, errlen, "intel-p6: the detected PMU is of another kind (%d)",
			    (int)st->caps.kind);
		return -1;
	}
	/* Two counters of 40 bits on every P6; CPUID has no leaf that says so. */
	st->full_width_writes = false;
	return 0;
}

static int p6_assign(struct pmu_state *st, const struct ev_encoding *ev, unsigned n,
		     char *err, size_t errlen)
{
	uint32_t cand[PMU_MAX_SLOTS] = { 0 };
	int counter[PMU_MAX_SLOTS] = { 0 };

	st->nslots = 0;
	if (n > PMU_MAX_SLOTS) {
		bp_snprintf(err, errlen, "%u events given, at most %u", n, PMU_MAX_SLOTS);
		return -1;
	}
	for (unsigned k = 0; k < n; k++) {
		const struct ev_encoding *e = &ev[k];
		cand[k] = 0;
		if (pmu_check_class("intel-p6", e, err, errlen))
			return -1;
		if (e->cls != EV_CLASS_GP)
			continue;
		if (e->evtsel & P6_EVNTSEL0_RESERVED) {
			bp_snprintf(err, errlen, "event '%s': event-select bits 0x%llx are reserved on "
				    "P6 (bit 21 and bits 63:32)", e->name,
				    (unsigned long long)(e->evtsel & P6_EVNTSEL0_RESERVED));
			return -1;
		}
		cand[k] = e->gp_mask & ((1u << P6_COUNTERS) - 1);
		if (!cand[k]) {
			bp_snprintf(err, errlen, "event '%s' cannot be counted here: it allows counters "
				    "0x%x, P6 has counters 0 and 1", e->name, e->gp_mask);
			return -1;
		}
	}
	int bad = pmu_match_counters(cand, n, counter);
	if (bad >= 0) {
		bp_snprintf(err, errlen, "event '%s' does not fit: no free counter among its "
			    "candidates (0x%x); %u events for P6's 2 counters", ev[bad].name,
			    cand[bad], n);
		return -1;
	}
	for (unsigned k = 0; k < n; k++) {
		struct pmu_slot *s = &st->slot[k];
		if (pmu_slot_free_running(s, &ev[k]))
			continue;
		unsigned i = (unsigned)counter[k];
		memset(s, 0, sizeof(*s));
		s->type = SLOT_GP;
		s->index = i;
		s->ctr_msr = MSR_IA32_PMC0 + i;
		s->ctl_msr = MSR_IA32_PERFEVTSEL0 + i;
		/* Counter 0's select is written with EN at start; counter 1's never has it. */
		s->ctl_value = i == 0 ? ev[k].evtsel | P6_EVNTSEL_ENABLE : ev[k].evtsel & ~P6_EVNTSEL_ENABLE;
		s->rdpmc_index = i;
		s->width = P6_COUNTER_WIDTH;
	}
	st->nslots = n;
	return 0;
}

static const struct pmu_slot *p6_slot_on(const struct pmu_state *st, unsigned counter)
{
	for (unsigned k = 0; k < st->nslots; k++)
		if (st->slot[k].type == SLOT_GP && st->slot[k].index == counter)
			return &st->slot[k];
	return NULL;
}

/* PERFEVTSEL0 with EN on or off. When counter 0 is unused it still carries the global
 * enable for counter 1, so it holds an event that counts nothing (Linux p6 does the same). */
static uint64_t p6_evtsel0(const struct pmu_state *st, bool enable)
{
	const struct pmu_slot *s0 = p6_slot_on(st, 0);
	uint64_t v = s0 ? s0->ctl_value : P6_NOP_EVENT;
	return enable ? v | P6_EVNTSEL_ENABLE : v & ~P6_EVNTSEL_ENABLE;
}

static int p6_program(struct pmu_state *st)
{
	/* EN clear in PERFEVTSEL0 first: that stops both counters. */
	if (pmu_wrmsr(st, MSR_IA32_PERFEVTSEL0, p6_evtsel0(st, false)))
		return -1;
	const struct pmu_slot *s1 = p6_slot_on(st, 1);
	if (pmu_wrmsr(st, MSR_IA32_PERFEVTSEL0 + 1, s1 ? s1->ctl_value : P6_NOP_EVENT))
		return -1;
	return pmu_zero_counters(st);
}

static int p6_start(struct pmu_state *st)
{
	return pmu_wrmsr(st, MSR_IA32_PERFEVTSEL0, p6_evtsel0(st, true));
}

static int p6_stop(struct pmu_state *st)
{
	return pmu_wrmsr(st, MSR_IA32_PERFEVTSEL0, p6_evtsel0(st, false));
}

static int p6_disable_all(struct pmu_state *st)
{
	if (pmu_wrmsr(st, MSR_IA32_PERFEVTSEL0, 0))
		return -1;
	return pmu_wrmsr(st, MSR_IA32_PERFEVTSEL0 + 1, 0);
}

const struct pmu_backend pmu_backend_intel_p6 = {
	.name = "intel-p6",
	.kind = PMU_INTEL_P6,
	.probe = p6_probe,
	.assign = p6_assign,
	.program = p6_program,
	.start = p6_start,
	.stop = p6_stop,
	.read = pmu_read_slot,
	.reset = pmu_zero_counters,
	.disable_all = p6_disable_all,
};
