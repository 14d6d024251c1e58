/*
 * The PMI handler and the sampling mode (kernel/sample.h).
 *
 * A counter armed with pmu_arm_overflow interrupts through the local APIC's LVT
 * performance-counter entry, on VEC_PMI or as an NMI (sample.delivery=). The handler asks
 * the backend which armed counters overflowed, records the interrupted IP for the
 * sampled one, banks and presets them again, acknowledges, and unmasks the LVT entry,
 * which the local APIC masks on each PMI it delivers (SDM Vol. 3A 11.5.1).
 */
#include "kernel/sample.h"
#include "arch/x86/desc.h"
#include "arch/x86/paging.h"
#include "arch/x86/run.h"
#include "arch/x86/traps.h"
#include "drivers/lapic.h"
#include "kernel/console.h"
#include "kernel/engine.h"
#include "kernel/kernel.h"
#include "kernel/kpmu.h"
#include "kernel/sample-hist.h"
#include "kernel/smp.h"
#include "lib/format.h"

static struct pmi_stats stats;
static struct sample_hist hist;
static volatile bool sampling;          /* a sampled run is on: slot 0 is its event */
static volatile unsigned pmi_cpu;       /* the CPU whose LVT entry was routed last: the
                                           only one whose counters can interrupt */
static bool enabled;                    /* sample.event= given and this machine can sample */
static struct ev_encoding sample_ev;

const struct pmi_stats *pmi_stats(void)
{
	return &stats;
}

/* Slots with an overflow period: only those can be the reason for a PMI. */
static uint32_t armed_slots(void)
{
	uint32_t mask = 0;
	for (unsigned i = 0; i < kpmu.st.nslots; i++)
		if (kpmu.st.slot[i].period)
			mask |= 1u << i;
	return mask;
}

static bool pmi_handle(struct trap_frame *f, bool nmi)
{
	/* Only the CPU that measures has armed counters. Elsewhere a counter's top bit (the
	 * overflow sign on P6, Intel v1, AMD before PerfMonV2) says nothing, so an NMI there
	 * is someone else's, and a vector is only acknowledged. */
	if (smp_self() != pmi_cpu) {
		if (nmi)
			return false;
		stats.elsewhere++;
		lapic_eoi();
		return true;
	}
	uint32_t mask = 0;
	bool status = kpmu.be && kpmu.be->overflowed &&
		      kpmu.be->overflowed(&kpmu.st, &mask) == 0;
	mask &= armed_slots();
	/* An NMI with no armed counter overflowed is someone else's (trap code notes it). */
	if (nmi && !mask)
		return false;
	stats.interrupts++;
	stats.last_mask = mask;
	if (status)
		stats.status_reads++;
	if (sampling && (mask & 1u))
		sample_hist_add(&hist, trap_frame_ip(f));
	if (mask)
		pmu_overflow_bank(&kpmu.st, mask);
	if (status && (!kpmu.be->ack || kpmu.be->ack(&kpmu.st, mask) == 0))
		stats.acks++;
	lapic_pmi_unmask();
	stats.rearms++;
	if (!nmi)
		lapic_eoi();
	return true;
}

static bool pmi_vector(struct trap_frame *f)
{
	return pmi_handle(f, false);
}

static bool pmi_nmi(struct trap_frame *f)
{
	return pmi_handle(f, true);
}

void pmi_install(bool nmi)
{
	pmi_cpu = smp_self();
	trap_set_irq_handler(VEC_PMI, pmi_vector);
	if (nmi)
		trap_set_irq_handler(VEC_NMI, pmi_nmi);
	kpmu.st.pmi_handler_installed = true;
}

/* Why this machine cannot sample, or NULL. */
static const char *cannot_sample(void)
{
	if (!kpmu.functional)
		return "no PMU interrupt without a counting PMU (pmu.functional=no, see its reason)";
	if (!kernel.lapic)
		return "no local APIC to deliver the PMU interrupt";
	if (!kpmu.be->enable_pmi || !kpmu.be->overflowed)
		return "this PMU backend has no overflow interrupt";
	return NULL;
}

void sample_init(void)
{
	char err[200], why[256];
	if (!kernel.cfg.sample_event[0])
		return;
	if (kpmu_parse(kernel.cfg.sample_event, &sample_ev, err, sizeof(err))) {
		bp_snprintf(why, sizeof(why), "sample.event=%s: %s", kernel.cfg.sample_event, err);
		report_error("config", why);
		kernel.config_errors++;
		return;
	}
	const char *no = cannot_sample();
	if (no) {
		bp_snprintf(why, sizeof(why), "sample.event=%s not sampled: %s", kernel.cfg.sample_event, no);
		report_note("sample", why);
		return;
	}
	pmi_install(kernel.cfg.sample_nmi);
	lapic_pmi_route(kernel.cfg.sample_nmi);
	enabled = true;
}

static void sample_print(const struct sample_run *run)
{
	sample_hist_sort(&hist);
	if (kernel.cfg.format != CFG_FORMAT_MACHINE) {
		kprintf("sample %s size %llu cpl %u: %s every %llu: %llu samples, %llu events\n",
			run->bench, (unsigned long long)run->size, run->cpl, run->event,
			(unsigned long long)run->period, (unsigned long long)hist.total,
			(unsigned long long)run->events);
		for (unsigned i = 0; i < hist.n; i++) {
			uint64_t permille = hist.bin[i].count * 1000 / hist.total;
			kprintf("  +0x%04x %10llu %3llu.%llu%%\n", hist.bin[i].offset,
				(unsigned long long)hist.bin[i].count,
				(unsigned long long)(permille / 10), (unsigned long long)(permille % 10));
		}
		if (hist.outside || hist.unbinned)
			kprintf("  outside the payload %llu, offsets beyond %u bins %llu\n",
				(unsigned long long)hist.outside, SAMPLE_HIST_BINS,
				(unsigned long long)hist.unbinned);
	}
	if (kernel.cfg.format != CFG_FORMAT_HUMAN) {
		static char json[2048];
		sample_json(run, &hist, json, sizeof(json));
		kprintf("@sample %s\n", json);
	}
}

static void sample_fail(const struct payload *pl, const char *what, const char *detail)
{
	char msg[320];
	bp_snprintf(msg, sizeof(msg), "sampling %s: %s%s", pl->name, what, detail);
	report_error("sample", msg);
}

/* Each local APIC has its own LVT entry, and sample_init routed only the boot CPU's: on
 * an AP (cpu=N) the entry is as lapic_init_ap left it, masked with no vector, and
 * unmasking that would deliver nothing. Route it here, on the CPU that takes the PMIs. */
void sample_pmi_arm(void)
{
	pmi_cpu = smp_self();
	lapic_pmi_route(kernel.cfg.sample_nmi);
	lapic_pmi_unmask();
}

void sample_payload(const struct payload *pl, uint64_t size, unsigned cpl, uint64_t arg,
		    uint64_t n)
{
	char err[200];
	if (!enabled || (pl->flags & PL_FAULT))
		return;
	if (pl->user) {
		bp_snprintf(err, sizeof(err), "%s: user benchmarks are not sampled (their code is "
			    "generated at run time and has no catalogue entry)", pl->name);
		report_note("sample", err);
		return;
	}
	if (kpmu_assign(&sample_ev, 1, err, sizeof(err)) ||
	    pmu_arm_overflow(&kpmu.st, 0, kernel.cfg.sample_period, err, sizeof(err)))
		return sample_fail(pl, "", err);
	sample_hist_reset(&hist, cpl ? (uintptr_t)payload_user_alias((uintptr_t)pl->fn)
				     : (uintptr_t)pl->fn);
	if (kpmu_start()) {
		kpmu_release();
		return sample_fail(pl, "programming the counter faulted", "");
	}
	struct run_opts o = { .cpl3 = cpl == 3, .watchdog_ms = kernel.cfg.watchdog_ms,
			      .syscall = pl->flags & PL_NEEDS_SYSCALL };
	struct run_result r;
	sampling = true;
	sample_pmi_arm();
	run_call(&o, pl->fn, arg, n, &r);
	lapic_pmi_mask();
	kpmu_stop();
	sampling = false;
	struct sample_run run = { .bench = pl->name, .size = size, .cpl = cpl,
				  .event = sample_ev.name, .period = kpmu.st.slot[0].period };
	pmu_read_wide(&kpmu.st, 0, &run.events);
	kpmu_release();
	if (r.status != RUN_OK)
		return sample_fail(pl, "the run did not finish ", r.status == RUN_TIMEOUT ?
				   "(watchdog)" : "(fault)");
	sample_print(&run);
}
