/*
 * Every logical processor. The boot CPU finds the others in the ACPI MADT and starts them
 * one at a time with INIT-SIPI-SIPI (SDM Vol. 3A 9.4.4.1, 11.6.1) through a trampoline
 * page below 1 MiB (arch/x86/64/trampoline.asm, arch/x86/32/trampoline.asm). Each one loads
 * its own GDT and TSS (the IDT is shared), runs on its own stacks (arch/x86/stacks.c: a
 * kernel stack and #DF/NMI/#MC/#DB stacks, each above a guard page), takes the boot CPU's
 * CR0/CR4/EFER and SYSCALL setup, masks its local APIC's LVT entries, disables its
 * performance counters, reads its own APIC ID by CPUID, and parks.
 *
 * Parked means HLT with interrupts on and every interrupt source masked but IPIs: a
 * parked processor executes nothing, so it takes no execution resources from an SMT
 * sibling being measured. smp_call_async writes the CPU's mailbox and wakes it with an
 * IPI (VEC_SMP_WAKE); when the call returns it wakes the boot CPU the same way. The
 * boot CPU, too, waits in HLT (smp_wait), its APIC timer bounding the wait.
 */
#include "kernel/smp.h"
#include "arch/x86/cpu.h"
#include "arch/x86/desc.h"
#include "arch/x86/msr-index.h"
#include "arch/x86/paging.h"
#include "arch/x86/run.h"
#include "arch/x86/setup.h"
#include "arch/x86/stacks.h"
#include "arch/x86/traps.h"
#include "drivers/lapic.h"
#include "kernel/console.h"
#include "kernel/kernel.h"
#include "kernel/kpmu.h"
#include "kernel/mem.h"
#include "lib/acpi.h"
#include "lib/str.h"

_Static_assert(SMP_MAX_CPUS == STACK_CPUS, "one set of stacks per CPU");

#define LOW_MEMORY_END      0x100000ull      /* the start-up vector names a page below 1 MiB */
#define INIT_DELAY_US       10000u           /* SDM Vol. 3A 9.4.4.1: INIT, 10 ms, SIPI */
#define SIPI_DELAY_US       200u             /* 200 us, then the second SIPI */
#define ANSWER_TIMEOUT_MS   200u             /* an AP that is not up by then is left out */
#define WAIT_SLICE_MS       10u              /* the boot CPU's timer wakes it this often */

extern char smp_trampoline[], smp_trampoline_end[], smp_ap_entry[];

enum mailbox_state { MB_IDLE, MB_CALLED, MB_DONE };

struct mailbox {
	volatile enum mailbox_state state;
	smp_fn fn;
	void *arg;
};

static struct smp_cpu cpus[SMP_MAX_CPUS];
static struct mailbox mbox[SMP_MAX_CPUS];
static volatile bool lost[SMP_MAX_CPUS];
static volatile bool answered[SMP_MAX_CPUS];
static unsigned ncpus = 1;
static struct cpu_topology topo;
static uintptr_t boot_cr0, boot_cr4;
static uint32_t boot_apic_id;

/* Processors that did not answer, for the report: MADT APIC IDs. */
static uint32_t silent[SMP_MAX_CPUS];
static unsigned nsilent;

/* ---------------------------------------------------------------- who am I */

/* The APIC ID CPUID gives this processor: the x2APIC ID of leaf 0xB where it exists
 * (SDM Vol. 3A 10.9.1 / 11.12.8.1), else the initial APIC ID, CPUID.1:EBX[31:24]. */
static uint32_t cpuid_apic_id(uint8_t *initial)
{
	uint32_t r[4];
	cpuid_count(1, 0, r);
	*initial = (uint8_t)(r[1] >> 24);
	if (kernel.cpu.max_leaf >= 0xb) {
		cpuid_count(0xb, 0, r);
		if (r[1])
			return r[3];
	}
	return *initial;
}

unsigned smp_self(void)
{
	int cpu = stack_cpu_of((uintptr_t)__builtin_frame_address(0));
	return cpu < 0 ? 0 : (unsigned)cpu;
}

unsigned smp_count(void)
{
	return ncpus;
}

const struct smp_cpu *smp_cpu(unsigned index)
{
	return index < ncpus ? &cpus[index] : 0;
}

bool smp_siblings(unsigned a, unsigned b)
{
	if (a >= ncpus || b >= ncpus || a == b)
		return false;
	const struct cpu_position *p = &cpus[a].pos, *q = &cpus[b].pos;
	return p->package == q->package && p->core == q->core;
}

unsigned smp_sibling_of(unsigned index)
{
	for (unsigned i = 0; i < ncpus; i++)
		if (smp_siblings(index, i))
			return i;
	return SMP_NONE;
}

/* ---------------------------------------------------------------- parked CPUs */

static bool wake_irq(struct trap_frame *f)
{
	(void)f;
	lapic_eoi();
	return true;
}

/* HLT until *flag is `want`, interrupts off around the test so that a wake-up IPI
 * between the test and HLT is not lost: STI's one-instruction shadow holds it until HLT
 * has begun (SDM Vol. 2B STI). */
static void halt_until(volatile enum mailbox_state *flag, enum mailbox_state want)
{
	while (*flag != want)
		__asm__ volatile("sti; hlt; cli" ::: "memory");
}

static __attribute__((noreturn)) void park(unsigned self)
{
	struct mailbox *m = &mbox[self];
	for (;;) {
		irq_disable();
		/* Not just while MB_IDLE: a MB_DONE the caller has not collected yet (or never
		 * will, for a CPU it gave up on) must not make this loop spin. */
		halt_until(&m->state, MB_CALLED);
		/* Acquire: fn and arg are plain fields, written before the state. */
		if (__atomic_load_n(&m->state, __ATOMIC_ACQUIRE) != MB_CALLED)
			continue;
		/* The boot CPU's page-table changes since the last call: drop stale entries. */
		write_cr3(read_cr3());
		m->fn(m->arg);
		irq_disable();
		m->state = MB_DONE;
		lapic_send_ipi(boot_apic_id, VEC_SMP_WAKE);
	}
}

int smp_call_async(unsigned index, smp_fn fn, void *arg)
{
	if (index == 0 || index >= ncpus || lost[index] || mbox[index].state != MB_IDLE)
		return -1;
	mbox[index].fn = fn;
	mbox[index].arg = arg;
	/* Release: the compiler may otherwise sink the plain stores above past this one. */
	__atomic_store_n(&mbox[index].state, MB_CALLED, __ATOMIC_RELEASE);
	lapic_send_ipi(cpus[index].apic_id, VEC_SMP_WAKE);
	return 0;
}

int smp_wait(unsigned index, uint32_t timeout_ms)
{
	if (index == 0 || index >= ncpus || lost[index])
		return -1;
	struct mailbox *m = &mbox[index];
	uint32_t waited = 0;
	irq_disable();
	while (m->state == MB_CALLED) {
		if (timeout_ms && waited >= timeout_ms) {
			lost[index] = true;
			return -1;
		}
		/* Without a bound, only the callee's IPI wakes this CPU: it executes nothing
		 * meanwhile (under -icount every instruction anywhere advances the clock the
		 * measuring CPU reads). With one, a wake-up timer on this CPU's APIC timer, idle
		 * here now; not on the watchdog's vector, which the run in progress elsewhere
		 * would take for its own. */
		if (timeout_ms)
			lapic_timer_arm(WAIT_SLICE_MS, VEC_SMP_WAKE);
		if (m->state == MB_CALLED)
			__asm__ volatile("sti; hlt; cli" ::: "memory");
		if (timeout_ms)
			lapic_watchdog_disarm();
		waited += WAIT_SLICE_MS;
	}
	m->state = MB_IDLE;
	write_cr3(read_cr3());
	return 0;
}

int smp_poll(unsigned index)
{
	if (index == 0 || index >= ncpus || lost[index])
		return -1;
	enum mailbox_state st = mbox[index].state;
	if (st == MB_IDLE)
		return -1;
	if (st == MB_CALLED)
		return 0;
	mbox[index].state = MB_IDLE;
	write_cr3(read_cr3());
	return 1;
}

/* ---------------------------------------------------------------- an AP comes up */

void smp_ap_main(unsigned self)
{
	desc_init_cpu(self);
	write_cr0(boot_cr0);
	write_cr4(boot_cr4);
	run_init(kernel.cpu.syscall);
	cpu_lapic_enable(&kernel.cpu);
	lapic_init_ap();
	kpmu_disable_this_cpu();
	struct smp_cpu *c = &cpus[self];
	c->apic_id = cpuid_apic_id(&c->initial_apic_id);
	topology_position(&topo, c->apic_id, &c->pos);
	c->index = self;
	c->online = true;
	__atomic_store_n(&answered[self], true, __ATOMIC_RELEASE);   /* after *c, for the boot CPU */
	park(self);
}

/* ---------------------------------------------------------------- the boot CPU starts them */

/* A usable page below 1 MiB (never page 0) for the trampoline: the highest one, away
 * from what BIOS and loaders use low down. kernel/mem.c never allocates below 1 MiB
 * (LOW_MEMORY), so the page stays ours. 0 when there is none. */
static uint64_t trampoline_page(const struct boot_info *bi)
{
	uint64_t best = 0;
	for (uint32_t i = 0; i < bi->mmap_count; i++) {
		const struct bi_mem_range *r = &bi->mmap[i];
		uint64_t end = r->base + r->pages * BI_PAGE_SIZE;
		if (r->type != BI_MEM_USABLE || r->base >= LOW_MEMORY_END)
			continue;
		if (end > LOW_MEMORY_END)
			end = LOW_MEMORY_END;
		if (end >= r->base + PAGE_SIZE && end - PAGE_SIZE >= PAGE_SIZE && end - PAGE_SIZE > best)
			best = end - PAGE_SIZE;
	}
	return best;
}

/* Fill the page's parameters for CPU index and send INIT, SIPI, SIPI. True when it
 * answered within ANSWER_TIMEOUT_MS; otherwise it gets INIT again, which leaves it
 * waiting for a SIPI that never comes (9.4.4.1), and is left out. */
static bool start_ap(uint64_t page, unsigned index, uint32_t apic_id)
{
	volatile uint8_t *p = (volatile uint8_t *)(uintptr_t)page;
	*(volatile uint64_t *)(p + TRAMP_STACK) = stack_top_cpu(index, STACK_KERNEL);
	*(volatile uint64_t *)(p + TRAMP_CPU) = index;
	answered[index] = false;

	lapic_send_init(apic_id);
	lapic_delay_us(INIT_DELAY_US);
	lapic_send_sipi(apic_id, (uint32_t)page);
	lapic_delay_us(SIPI_DELAY_US);
	if (!answered[index])
		lapic_send_sipi(apic_id, (uint32_t)page);
	for (uint32_t us = 0; !answered[index] && us < ANSWER_TIMEOUT_MS * 1000; us += 100)
		lapic_delay_us(100);
	if (answered[index])
		return true;
	lapic_send_init(apic_id);
	return false;
}

/* Copy the trampoline and write what every processor shares: the kernel's tables and
 * paging mode. -1 with a reason when this machine cannot start its APs this way. */
static int trampoline_setup(uint64_t page, const char **why)
{
	uintptr_t cr3 = read_cr3();
	if (!page) {
		*why = "no usable 4 KiB page below 1 MiB in the memory map for the start-up code";
		return -1;
	}
	if ((uint64_t)cr3 >> 32) {
		*why = "the kernel's page tables lie above 4 GiB, out of a 32-bit CR3's reach";
		return -1;
	}
	uint8_t *p = (uint8_t *)(uintptr_t)page;
	memcpy(p, smp_trampoline, (size_t)(smp_trampoline_end - smp_trampoline));
	*(volatile uint64_t *)(p + TRAMP_CR3) = cr3;
	*(volatile uint64_t *)(p + TRAMP_ENTRY) = (uintptr_t)smp_ap_entry;
#ifdef __x86_64__
	*(volatile uint64_t *)(p + TRAMP_CR4) = CR4_PAE;
	*(volatile uint64_t *)(p + TRAMP_EFER) = EFER_LME | (paging.nx ? EFER_NXE : 0);
	/* The switch to long mode runs from this page with paging on: executable for now. */
	paging_map(page, page, PAGE_SIZE, MAP_WRITE | MAP_EXEC);
#else
	*(volatile uint64_t *)(p + TRAMP_CR4) = read_cr4() & (CR4_PAE | CR4_PSE);
	*(volatile uint64_t *)(p + TRAMP_EFER) = paging.nx ? EFER_NXE : 0;
#endif
	boot_cr0 = read_cr0();
	boot_cr4 = read_cr4();
	return 0;
}

static void report_cpu(unsigned n, uint32_t apic_id, const struct cpu_position *pos,
		       const char *state)
{
	kprintf("sys.cpu.%u=apic_id=%u package=%u core=%u thread=%u state=%s\n", n,
		(unsigned)apic_id, (unsigned)pos->package, (unsigned)pos->core,
		(unsigned)pos->thread, state);
}

static void report(void)
{
	kprintf("sys.cpus=%u\n", ncpus);
	kprintf("sys.topology=%s smt_bits=%u core_bits=%u\n", topo.source, topo.smt_bits,
		topo.core_bits);
	for (unsigned i = 0; i < ncpus; i++)
		report_cpu(i, cpus[i].apic_id, &cpus[i].pos, i ? "online" : "boot");
	for (unsigned i = 0; i < nsilent; i++) {
		struct cpu_position pos;
		topology_position(&topo, silent[i], &pos);
		report_cpu(ncpus + i, silent[i], &pos, "no-answer");
	}
}

/* CPU index's stacks, taken from free memory now that the CPU is known to exist (a CPU
 * that did not answer leaves them to the next). False, with a note, when there is no
 * memory for them. */
static bool give_stacks(unsigned index, uint32_t apic_id)
{
	if (stack_cpu_given(index))
		return true;
	uint64_t block = mem_alloc_phys(stack_cpu_bytes(), PAGE_SIZE);
	if (block && stack_cpu_give(index, (uintptr_t)block) == 0)
		return true;
	kprintf("sys.smp.note=APIC ID %u not started: %s for its stacks\n", (unsigned)apic_id,
		block ? "no page-table page left for the guard pages" : "no memory");
	return false;
}

/* Start every enabled MADT processor but this one, in table order. */
static void start_all(const struct acpi_madt_info *madt, uint64_t page)
{
	for (unsigned i = 0; i < madt->ncpus && ncpus < SMP_MAX_CPUS; i++) {
		const struct acpi_cpu *a = &madt->cpu[i];
		if (!a->enabled || a->apic_id == boot_apic_id)
			continue;
		/* An xAPIC addresses 8-bit IDs only (SDM Vol. 3A 11.6.1). */
		if (!lapic_x2apic() && a->apic_id > 0xfe) {
			kprintf("sys.smp.note=APIC ID %u needs x2APIC mode, which this CPU lacks\n",
				(unsigned)a->apic_id);
			continue;
		}
		if (!give_stacks(ncpus, a->apic_id))
			continue;
		if (start_ap(page, ncpus, a->apic_id)) {
			cpus[ncpus].online = true;
			ncpus++;
		} else if (nsilent < SMP_MAX_CPUS) {
			silent[nsilent++] = a->apic_id;
		}
	}
}

void smp_init(void)
{
	static struct acpi_madt_info madt;
	const char *why = 0;
	char err[160];
	uint8_t initial;

	topology_decode(cpuid_hw_read, 0, &topo);
	boot_apic_id = cpuid_apic_id(&initial);
	cpus[0] = (struct smp_cpu){ .index = 0, .apic_id = boot_apic_id, .online = true,
				    .initial_apic_id = initial };
	topology_position(&topo, boot_apic_id, &cpus[0].pos);
	if (!kernel.lapic) {
		why = "no usable local APIC";
	} else if (acpi_read_madt(mem_read_phys, 0, kernel.bi->rsdp, kernel.bi->rsdp_revision, &madt,
				  err, sizeof(err))) {
		why = err;
	} else {
		uint64_t page = trampoline_page(kernel.bi);
		bool others = false;
		for (unsigned i = 0; i < madt.ncpus; i++)
			others |= madt.cpu[i].enabled && madt.cpu[i].apic_id != boot_apic_id;
		if (others && trampoline_setup(page, &why) == 0) {
			trap_set_irq_handler(VEC_SMP_WAKE, wake_irq);
			start_all(&madt, page);
#ifdef __x86_64__
			paging_map(page, page, PAGE_SIZE, MAP_WRITE);
#endif
		}
	}
	report();
	if (why)
		kprintf("sys.smp=boot CPU only (%s)\n", why);
}
