/* cpu=, partner=, partner.load=: where the plan runs and what runs beside it. */
#include "kernel/placement.h"
#include "arch/x86/cpu.h"
#include "arch/x86/run.h"
#include "kernel/console.h"
#include "kernel/kernel.h"
#include "kernel/kpmu.h"
#include "kernel/smp.h"
#include "lib/format.h"
#include "lib/str.h"

#define PARTNER_STOP_MS  2000u     /* a load polls its stop flag at least this often */
#define SPIN_SLICE       1000u     /* spin iterations between looks at the measuring CPU */
/* Payload iterations per call at most: iters (up to 10^12) in one call could outlast
 * PARTNER_STOP_MS; 2^16 of the slowest load (a few DIVs or CPUIDs an iteration, exits
 * to a hypervisor included) take milliseconds. */
#define LOAD_ITERS_MAX   65536u

enum load_kind { LOAD_IDLE, LOAD_SPIN, LOAD_PAYLOAD };

struct load {
	enum load_kind kind;
	const struct payload *pl;   /* LOAD_PAYLOAD */
	char name[48];
};

struct placement placement = { .cpu = 0, .partner = -1, .load = "idle" };
static struct load loads[CFG_PARTNER_LOADS_MAX];
static unsigned nloads;
static volatile bool load_stop;
static int lost_partner = -1;       /* a partner that did not stop its load in time */
static void (*plan_fn)(void);
static unsigned errors_seen;

static void error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void error(const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	bp_vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	report_error("placement", msg);
	errors_seen++;
}

/* ------------------------------------------------------------ the loads */

/* Why payload pl cannot keep a partner busy, or NULL: it is run directly at CPL 0 with
 * no recovery point, over and over, so it must neither fault nor need a buffer. */
static const char *load_unfit(const struct payload *pl)
{
	if (pl->flags & (PL_FAULT | PL_KERNEL_CODE))
		return "it faults or enters the kernel on purpose";
	if (!(pl->flags & PL_CPL0) || (pl->flags & (PL_NEEDS_RDPMC | PL_SIZES)))
		return "it cannot run at CPL 0 without a buffer or counters";
	if (pl->arg != ARG_NONE && pl->arg != ARG_NONZERO)
		return "it needs an argument set up for it";
	return payload_unsupported(pl, &kernel.cpu, false);
}

static int parse_load(const char *item, size_t len, struct load *l)
{
	*l = (struct load){ .kind = LOAD_IDLE };
	if (len >= sizeof(l->name)) {
		error("partner.load: '%.*s...' is not idle, spin or a payload name", 40, item);
		return -1;
	}
	memcpy(l->name, item, len);
	l->name[len] = '\0';
	if (!strcmp(l->name, "idle"))
		return 0;
	if (!strcmp(l->name, "spin")) {
		l->kind = LOAD_SPIN;
		return 0;
	}
	for (unsigned i = 0; i < payload_count; i++) {
		const struct payload *pl = &payload_catalogue[i];
		if (strcmp(pl->name, l->name))
			continue;
		const char *why = load_unfit(pl);
		if (why) {
			error("partner.load=%s: that payload cannot be a partner's load: %s", l->name, why);
			return -1;
		}
		l->kind = LOAD_PAYLOAD;
		l->pl = pl;
		return 0;
	}
	error("partner.load=%s: not idle, spin or a payload of the catalogue (mode=list)", l->name);
	return -1;
}

/* One slice of the load: SPIN_SLICE turns of an empty loop, or one call of the payload,
 * then one PAUSE. Under QEMU TCG, -icount above all, the vCPUs take turns on one host
 * thread, and PAUSE is what hands the turn on (TCG ends the vCPU's slice there); without
 * it the measuring CPU got a turn so seldom that a run took 40 times as long, or never
 * ended. On a real CPU one PAUSE per slice leaves the load busy. */
static void load_step(const struct load *l)
{
	if (l->kind == LOAD_SPIN) {
		for (unsigned i = 0; i < SPIN_SLICE; i++)
			__asm__ volatile("" ::: "memory");
	} else if (l->kind == LOAD_PAYLOAD) {
		uint64_t arg = l->pl->arg == ARG_NONZERO ? 0x5555555555555555ull : 0;
		uint64_t n = kernel.cfg.iters < LOAD_ITERS_MAX ? kernel.cfg.iters : LOAD_ITERS_MAX;
		run_payload_direct(l->pl->fn, arg, n);
	}
	cpu_relax();
}

/* An AP partner: its load until load_stop. */
static void partner_main(void *arg)
{
	const struct load *l = arg;
	while (!load_stop)
		load_step(l);
}

/* The measuring AP: the plan, with NetBurst's thread choice following it. */
static void plan_main(void *arg)
{
	unsigned self = (unsigned)(uintptr_t)arg;
	kpmu_follow_cpu(smp_cpu(self)->initial_apic_id, self);
	plan_fn();
}

/* ------------------------------------------------------------ checking */

static void check_partner(void)
{
	unsigned want = kernel.cfg.partner, n = smp_count();
	placement.partner = -1;
	if (want == CFG_PARTNER_NONE)
		return;
	if (want == CFG_PARTNER_AUTO) {
		unsigned s = smp_sibling_of(placement.cpu);
		placement.partner = s == SMP_NONE ? -1 : (int)s;
		return;
	}
	if (want >= n || want == placement.cpu) {
		error("partner=%u: %s (CPUs 0..%u are up; see the sys.cpu.N lines)", want,
		      want == placement.cpu ? "the partner must be another CPU than cpu="
					    : "no such CPU is up", n - 1);
		return;
	}
	placement.partner = (int)want;
}

/* Every item of partner.load, or none: a list with a refused item leaves the partner idle
 * for one run of the plan (each refused item is named). */
static void check_loads(void)
{
	const char *v = kernel.cfg.partner_load;
	unsigned refused = 0;
	nloads = 0;
	while (*v) {
		const char *comma = strchr(v, ',');
		size_t len = comma ? (size_t)(comma - v) : strlen(v);
		/* lib/config.c takes no longer list */
		if (nloads == CFG_PARTNER_LOADS_MAX) {
			error("partner.load: more than %u items", CFG_PARTNER_LOADS_MAX);
			refused++;
			break;
		}
		if (parse_load(v, len, &loads[nloads]) == 0)
			nloads++;
		else
			refused++;
		v += len + (comma != 0);
	}
	bool busy = false;
	for (unsigned i = 0; i < nloads; i++)
		busy |= loads[i].kind != LOAD_IDLE;
	if (busy && placement.partner < 0)
		error("partner.load=%s needs a partner CPU, and CPU %u has none (no SMT sibling, or "
		      "partner=none): name one with partner=N", kernel.cfg.partner_load, placement.cpu);
	else if (refused)
		error("partner.load=%s: not used, since an item is refused (a list is taken whole); "
		      "the partner stays idle", kernel.cfg.partner_load);
	if (nloads == 0 || refused || (busy && placement.partner < 0)) {
		nloads = 1;
		loads[0] = (struct load){ .kind = LOAD_IDLE, .name = "idle" };
	}
}

unsigned placement_check(void)
{
	unsigned before = errors_seen, n = smp_count();
	placement.cpu = 0;
	if (kernel.cfg.cpu >= n) {
		error("cpu=%u: only %u CPU%s %s up (0..%u; see the sys.cpu.N lines); running on "
		      "CPU 0", kernel.cfg.cpu, n, n == 1 ? "" : "s", n == 1 ? "is" : "are", n - 1);
	} else {
		placement.cpu = kernel.cfg.cpu;
	}
	check_partner();
	check_loads();
	return errors_seen - before;
}

/* ------------------------------------------------------------ running */

static void announce(void)
{
	const struct smp_cpu *c = smp_cpu(placement.cpu);
	kprintf("placement: payloads on CPU %u (APIC ID %u, package %u core %u thread %u)",
		placement.cpu, (unsigned)c->apic_id, (unsigned)c->pos.package,
		(unsigned)c->pos.core, (unsigned)c->pos.thread);
	if (placement.partner >= 0)
		kprintf(", partner CPU %d: %s\n", placement.partner, placement.load);
	else
		kprintf(", no partner\n");
}

/* The boot CPU measures itself; an AP partner runs the load meanwhile. */
static void run_here(const struct load *l)
{
	bool started = l->kind != LOAD_IDLE &&
		       smp_call_async((unsigned)placement.partner, partner_main, (void *)l) == 0;
	if (l->kind != LOAD_IDLE && !started)
		error("partner CPU %d did not take its load: measuring without it", placement.partner);
	plan_fn();
	load_stop = true;
	if (started && smp_wait((unsigned)placement.partner, PARTNER_STOP_MS)) {
		error("partner CPU %d did not stop its load within %u ms; it is left out from now",
		      placement.partner, PARTNER_STOP_MS);
		lost_partner = placement.partner;
	}
}

/* An AP measures; the boot CPU waits in HLT, or is the partner and runs the load until
 * the AP is done, or waits while another AP runs it. */
static void run_there(const struct load *l)
{
	bool boot_partner = placement.partner == 0;
	bool started = false;
	if (l->kind != LOAD_IDLE && !boot_partner) {
		started = smp_call_async((unsigned)placement.partner, partner_main, (void *)l) == 0;
		if (!started)
			error("partner CPU %d did not take its load: measuring without it",
			      placement.partner);
	}
	if (smp_call_async(placement.cpu, plan_main, (void *)(uintptr_t)placement.cpu)) {
		error("CPU %u did not take the plan: nothing measured there", placement.cpu);
	} else if (boot_partner && l->kind != LOAD_IDLE) {
		while (smp_poll(placement.cpu) == 0)
			load_step(l);
	} else {
		smp_wait(placement.cpu, 0);
	}
	load_stop = true;
	if (started && smp_wait((unsigned)placement.partner, PARTNER_STOP_MS)) {
		error("partner CPU %d did not stop its load within %u ms; it is left out from now",
		      placement.partner, PARTNER_STOP_MS);
		lost_partner = placement.partner;
	}
}

unsigned placement_run(void (*run_plan)(void))
{
	unsigned before = errors_seen;
	plan_fn = run_plan;
	for (unsigned i = 0; i < nloads; i++) {
		/* A lost partner may still run its load (load_stop keeps asking it to stop):
		 * whatever ran now would be measured next to that, not next to this load. */
		if (lost_partner >= 0) {
			error("partner.load=%s: not run: partner CPU %d may still be running its "
			      "earlier load", loads[i].name, lost_partner);
			continue;
		}
		placement.load = loads[i].name;
		load_stop = false;
		if (smp_count() > 1)
			announce();
		if (placement.cpu == 0)
			run_here(&loads[i]);
		else
			run_there(&loads[i]);
	}
	return errors_seen - before;
}

void placement_mark(struct result *r)
{
	r->placed = smp_count() > 1;
	r->cpu = smp_self();        /* where it really ran: placement.cpu, unless smp.c erred */
	r->partner = placement.partner;
	r->partner_load = placement.partner >= 0 ? placement.load : 0;
}
