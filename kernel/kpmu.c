/*
 * PMU bring-up: pick the libpfm4 model and backend for this CPU (or the one named by
 * pmu=), then check that counters really count: program cycles and instructions, run a
 * loop of known length, read them back by RDMSR and RDPMC. Under a hypervisor without
 * PMU emulation (QEMU TCG: writes dropped, reads 0, RDPMC #UD) that says so plainly and
 * the engine measures with the TSC alone.
 */
#include "kernel/kpmu.h"
#include "arch/x86/msr-io.h"
#include "arch/x86/run.h"
#include "arch/x86/setup.h"
#include "kernel/console.h"
#include "kernel/kernel.h"
#include "lib/format.h"
#include "lib/p4-events.h"
#include "lib/rapl.h"
#include "lib/str.h"

#define SELFCHECK_ITERS 100000ull
/* pl_empty: dec; jnz. The counted window adds the call and the backend's start/stop
 * code around it, a few hundred instructions at most. */
#define SELFCHECK_SLACK 5000ull

extern char pl_empty[];

struct kpmu kpmu;

static void trace_access(void *ctx, bool write, uint32_t msr, uint64_t val, int vector)
{
	(void)ctx;
	if (!write || !kernel.cfg.trace_msr)
		return;
	char desc[192];
	pmu_msr_describe_kind(kpmu.caps.kind, msr, val, desc, sizeof(desc));
	kprintf("wrmsr %s%s%s\n", desc, vector ? " -> fault " : "",
		vector == 13 ? "#GP" : vector ? "#UD" : "");
}

static const struct msr_observer tracer = { trace_access, 0 };

int kpmu_parse(const char *text, struct ev_encoding *ev, char *err, size_t errlen)
{
	if (event_parse(kpmu.model, &kpmu.parse_caps, pmu_generic_map_for_model(kpmu.model), text, ev, err, errlen))
		return -1;
	if (ev->cls == EV_CLASS_NETBURST && kpmu.nb_both)
		ev->nb.both_threads = true;
	return 0;
}

/*
 * NetBurst ESCRs qualify events by logical processor (T0/T1 bits, SDM Vol. 3B 18.19.4,
 * Table 18-29). The payload runs on the CPU with initial APIC ID apic_id, whose thread
 * number is the SMT field of that ID (SDM Vol. 3A 10.9.1) when its core has two threads;
 * the core field above it is no thread (Pentium EE). `where` says which CPU that is, for
 * the line it prints.
 */
static void choose_netburst_thread(uint8_t apic_id, const char *where)
{
	unsigned want = kernel.cfg.nb_thread, lp = 0;
	if (kpmu.caps.kind != PMU_INTEL_NETBURST)
		return;
	if (kpmu.caps.netburst_ht) {
		lp = netburst_thread_of(apic_id, kernel.cpu.threads_per_core);
	} else if (want == CFG_NB_T1 || want == CFG_NB_BOTH) {
		kprintf("note: netburst.thread=%s ignored: this CPU has no Hyper-Threading, only "
			"logical processor 0 (T0) exists\n", want == CFG_NB_T1 ? "1" : "both");
		want = CFG_NB_T0;
	}
	if (want == CFG_NB_T0 || want == CFG_NB_T1)
		lp = want;
	kpmu.st.logical_cpu = lp;
	kpmu.nb_both = want == CFG_NB_BOTH;
	kprintf("pmu.netburst_thread=%s (%s)%s\n", kpmu.nb_both ? "T0+T1" : lp ? "T1" : "T0",
		want == CFG_NB_AUTO ? "the logical processor running the payloads" : "netburst.thread",
		where);
}

void kpmu_follow_cpu(uint8_t initial_apic_id, unsigned cpu)
{
	char where[48];
	bp_snprintf(where, sizeof(where), " on CPU %u", cpu);
	choose_netburst_thread(initial_apic_id, where);
}

int kpmu_assign(const struct ev_encoding *ev, unsigned n, char *err, size_t errlen)
{
	if (!kpmu.be) {
		bp_snprintf(err, errlen, "no PMU backend for %s", pmu_kind_name(kpmu.caps.kind));
		return -1;
	}
	return kpmu.be->assign(&kpmu.st, ev, n, err, errlen);
}

int kpmu_start(void)
{
	if (kpmu.be->program(&kpmu.st) || kpmu.be->start(&kpmu.st))
		return -1;
	return 0;
}

int kpmu_stop(void)
{
	return kpmu.be->stop(&kpmu.st) ? -1 : 0;
}

void kpmu_release(void)
{
	if (kpmu.be)
		kpmu.be->disable_all(&kpmu.st);
}

void kpmu_disable_this_cpu(void)
{
	const struct pmu_backend *be = pmu_backend_for(kernel.pmu.kind);
	struct pmu_state st = { .be = be, .caps = kernel.pmu, .io = msr_io_hardware(0) };
	if (be)
		be->disable_all(&st);
}

static void not_functional(const char *fmt, const char *detail)
{
	kpmu.functional = false;
	bp_snprintf(kpmu.reason, sizeof(kpmu.reason), fmt, detail);
}

static void selfcheck(void)
{
	static const char *const names[2] = { "cycles", "instructions" };
	struct ev_encoding ev[2];
	char err[160];

	for (int i = 0; i < 2; i++)
		if (kpmu_parse(names[i], &ev[i], err, sizeof(err)))
			return not_functional("cannot encode the self-check events: %s", err);
	if (kpmu_assign(ev, 2, err, sizeof(err)))
		return not_functional("cannot place cycles and instructions: %s", err);
	if (kpmu_start())
		return not_functional("programming the counters faulted (%s)",
				      kpmu.st.last_fault == 13 ? "#GP" : "exception");
	/* Through run_call, not as a C function: the i686 payloads take their count in ESI
	 * and keep only EBX and EBP (arch/x86/32/entry.asm), so a plain call would loop on
	 * whatever ESI held and return with the caller's ESI and EDI destroyed. */
	struct run_opts cpl0 = { .cpl3 = false };
	struct run_result run;
	run_call(&cpl0, pl_empty, 0, SELFCHECK_ITERS, &run);
	if (run.status != RUN_OK) {
		kpmu_release();
		return not_functional("the self-check loop did not end normally%s", "");
	}
	if (kpmu_stop())
		return not_functional("stopping the counters faulted%s", "");

	uint64_t cyc = 0, ins = 0, pmc = 0;
	kpmu.be->read(&kpmu.st, 0, &cyc);
	kpmu.be->read(&kpmu.st, 1, &ins);
	int vec = pmc_read_safe(kpmu.st.slot[1].rdpmc_index, &pmc);
	kpmu_release();
	kprintf("pmu.selfcheck=cycles:%llu instructions:%llu expected_instructions:%llu rdpmc:%s\n",
		(unsigned long long)cyc, (unsigned long long)ins,
		(unsigned long long)(2 * SELFCHECK_ITERS),
		vec == 0 ? "ok" : vec == 6 ? "#UD" : "#GP");
	if (cyc == 0 && ins == 0)
		return not_functional("counters read 0 after a known loop%s: this machine does "
				      "not emulate the PMU (a hypervisor such as QEMU TCG drops "
				      "counter MSR writes)", vec == 6 ? " and RDPMC raises #UD" : "");
	if (vec)
		return not_functional("RDPMC raises %s", vec == 6 ? "#UD" : "#GP");
	if (ins < 2 * SELFCHECK_ITERS || ins > 2 * SELFCHECK_ITERS + SELFCHECK_SLACK)
		return not_functional("instructions counted do not match the loop (%s)",
				      "see pmu.selfcheck");
	kpmu.functional = true;
}

/* RAPL is no part of a PMU model: probe the machine, whatever pmu= says, and print
 * "rapl=pkg,cores (energy unit 61.04 uJ)" or "rapl=no (why)". */
static void rapl_init(void)
{
	struct msr_io io = msr_io_hardware(NULL);
	struct rapl_caps rc = kernel.pmu.rapl;
	char list[32] = "", unit[24], ram[40] = "";
	rapl_probe(&io, &rc);
	kpmu.caps.rapl = kpmu.parse_caps.rapl = rc;
	const char *why = rapl_unavailable(&rc, RAPL_PKG);
	if (rc.state != RAPL_PRESENT || !rc.domains) {
		kprintf("rapl=no (%s)\n", why ? why : "no energy status MSR reads");
		return;
	}
	for (unsigned d = 0; d < RAPL_DOMAIN_COUNT; d++)
		if (rc.domains & RAPL_DOMAIN_BIT(d))
			bp_snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
				    list[0] ? "," : "", rapl_domain_name((enum rapl_domain)d));
	rapl_fmt_joules_si(unit, sizeof(unit), 1000, 1, rc.esu[RAPL_PKG], 4);
	if ((rc.domains & RAPL_DOMAIN_BIT(RAPL_RAM)) && rc.esu[RAPL_RAM] != rc.esu[RAPL_PKG]) {
		char u[24];
		rapl_fmt_joules_si(u, sizeof(u), 1000, 1, rc.esu[RAPL_RAM], 4);
		bp_snprintf(ram, sizeof(ram), ", ram %s", u);
	}
	kprintf("rapl=%s (energy unit %s%s)\n", list, unit, ram);
}

void kpmu_init(void)
{
	kpmu.caps = kernel.pmu;
	kpmu.serialize_lfence = cpu_lfence_serializing(&kernel.cpu);
	if (strcmp(kernel.cfg.pmu, "auto")) {
		kpmu.model = pmu_model_by_name(kernel.cfg.pmu);
		if (!kpmu.model) {
			kprintf("config error: pmu=%s is not a libpfm4 PMU model bareperf knows "
				"(bareperf-encode --list-pmus lists them); using the detected one\n",
				kernel.cfg.pmu);
			kernel.config_errors++;
		} else {
			kpmu.forced = true;
			pmu_model_default_caps(kpmu.model, &kpmu.caps);
		}
	}
	if (!kpmu.model)
		kpmu.model = pmu_model_for_cpu(&kernel.cpu, &kernel.pmu);

	kpmu.be = pmu_backend_for(kpmu.caps.kind);
	/* With no PMU in CPUID, event names are still checked, against the model's
	 * usual counters, so that a typo is reported as one rather than as "no PMU". */
	kpmu.parse_caps = kpmu.caps;
	if (!kpmu.be) {
		pmu_model_default_caps(kpmu.model, &kpmu.parse_caps);
		kpmu.parse_caps.aperfmperf = kernel.pmu.aperfmperf;   /* CPUID.06H still holds */
	}
	rapl_init();
	kpmu.st = (struct pmu_state){ .be = kpmu.be, .caps = kpmu.caps,
				      .io = msr_io_hardware(&tracer) };
	choose_netburst_thread(kernel.cpu.initial_apic_id, "");
	kprintf("pmu.model=%s%s\n", kpmu.model->pfm_name, kpmu.forced ? " (forced by pmu=)" : "");
	kprintf("pmu.serialize=%s\n", kpmu.serialize_lfence ? "lfence" : "cpuid");
	char err[160];
	if (!kpmu.be) {
		not_functional("CPUID reports no usable PMU%s",
			       kernel.cpu.hypervisor ? " (leaf 0xA is empty: the hypervisor does "
						       "not expose one)" : "");
	} else if (kpmu.be->probe(&kpmu.st, err, sizeof(err))) {
		not_functional("backend probe failed: %s", err);
	} else {
		selfcheck();
	}
	if (kpmu.functional)
		kprintf("pmu.functional=yes\n");
	else
		kprintf("pmu.functional=no (%s)\n", kpmu.reason);
}
