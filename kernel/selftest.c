/*
 * selftest mode: checks of the foundation on whatever CPU this is. Each check can fail:
 * it compares what the CPU did (vector, RIP, value, count) with what the manuals say.
 */
#include "arch/x86/cpu.h"
#include "arch/x86/desc.h"
#include "arch/x86/extable.h"
#include "arch/x86/msr.h"
#include "arch/x86/paging.h"
#include "arch/x86/run.h"
#include "arch/x86/stacks.h"
#include "drivers/lapic.h"
#include "kernel/check.h"
#include "kernel/console.h"
#include "kernel/kernel.h"
#include "kernel/mem.h"
#include "kernel/platform.h"
#include "kernel/kpmu.h"
#include "kernel/sample.h"
#include "kernel/smp.h"
#include "lib/str.h"
#include "lib/util.h"
#include "payloads/payload.h"      /* CPU_NO_SYSCALL */

extern char st_add[], st_priv_insn[], st_read_addr[], st_ud[], st_div0[], st_int3[];
extern char st_rdpmc[], st_sgdt[], st_syscall_null[], st_int80[], st_int3_loop[];
extern char st_step_loop[], st_spin[], st_push_pop[], st_lose_stack[], st_int_stray[];
extern char st_int_stray_rip[], st_int81[], st_int81_rip[];
extern char st_priv_insn_rip[], st_ud_rip[], st_div0_rip[], st_int3_rip[], st_read_rip[];
extern char st_rdpmc_rip[], st_sgdt_rip[];
extern char __text_start[];

#define PF_ERR_P   0x01
#define PF_ERR_W   0x02
#define PF_ERR_U   0x04
#define PF_ERR_ID  0x10

/* The endless loop's watchdog: short, as the test spins until it fires (on real hardware
 * and under TCG alike), long against the timer's granularity (1 ms ticks at worst). */
#define SPIN_WATCHDOG_MS 10
static const struct run_opts cpl3 = { .cpl3 = true, .watchdog_ms = 2000 };
static const struct run_opts cpl0 = { .cpl3 = false, .watchdog_ms = 2000 };

/* A "ret" in a data page, to be called at CPL 0: NX must stop it. */
static uint8_t data_ret[16] = { 0xc3 };

static uintptr_t ualias(const char *p)
{
	return payload_user_alias((uintptr_t)p);
}

/* A CPL 3 fault class: the run must end with this vector at this user RIP. */
struct fault_case {
	const char *name;
	const char *fn;
	uint64_t arg;
	unsigned vector;
	const char *rip;         /* the instruction that raised it (int3 too: a trap) */
};

static void check_fault(const struct fault_case *c)
{
	struct run_result r;
	run_call(&cpl3, c->fn, c->arg, 0, &r);
	uintptr_t want_rip = ualias(c->rip);
	check(r.status == RUN_FAULT && r.fault.vector == c->vector && r.fault.rip == want_rip &&
		      r.fault.cpl == 3,
	      c->name, "status %d vector %u at %llx cpl %u, expected %s at %llx", r.status,
	      r.fault.vector, (unsigned long long)r.fault.rip, r.fault.cpl, vector_name(c->vector),
	      (unsigned long long)want_rip);
	if (r.status == RUN_FAULT)
		kprintf("  caught %s at CPL 3, RIP %016llx error 0x%llx\n",
			vector_name(r.fault.vector), (unsigned long long)r.fault.rip,
			(unsigned long long)r.fault.error);
}

static void test_cpl3_basics(void)
{
	struct run_result r;
	run_call(&cpl3, st_add, 40, 2, &r);
	check(r.status == RUN_OK && r.value == 42, "cpl3.round_trip",
	      "status %d value %llu, expected 42", r.status, (unsigned long long)r.value);
	run_call(&cpl0, st_add, 40, 2, &r);
	check(r.status == RUN_OK && r.value == 42, "cpl0.round_trip",
	      "status %d value %llu, expected 42", r.status, (unsigned long long)r.value);

	const struct fault_case cases[] = {
		{ "cpl3.fault.gp_privileged_insn", st_priv_insn, 0, VEC_GP, st_priv_insn_rip },
		{ "cpl3.fault.pf_kernel_address", st_read_addr, (uintptr_t)__text_start, VEC_PF,
		  st_read_rip },
		{ "cpl3.fault.ud", st_ud, 0, VEC_UD, st_ud_rip },
		{ "cpl3.fault.de", st_div0, 7, VEC_DE, st_div0_rip },
		{ "cpl3.fault.bp", st_int3, 0, VEC_BP, st_int3_rip },
	};
	for (unsigned i = 0; i < ARRAY_SIZE(cases); i++)
		check_fault(&cases[i]);

	/* The #PF must say: protection violation (present page), user mode, kernel address. */
	run_call(&cpl3, st_read_addr, (uintptr_t)__text_start, 0, &r);
	check(r.status == RUN_FAULT && r.fault.cr2 == (uintptr_t)__text_start &&
		      (r.fault.error & (PF_ERR_P | PF_ERR_U)) == (PF_ERR_P | PF_ERR_U),
	      "cpl3.fault.pf_details", "cr2 %llx error 0x%llx", (unsigned long long)r.fault.cr2,
	      (unsigned long long)r.fault.error);

	run_call(&cpl3, st_add, 1, 2, &r);
	check(r.status == RUN_OK && r.value == 3, "cpl3.carries_on_after_faults",
	      "status %d value %llu", r.status, (unsigned long long)r.value);
}

/*
 * RDPMC of counter 0 at CPL 0, where CR4.PCE does not matter. QEMU TCG implements no
 * counters: RDPMC raises #UD there whatever the index (../shared/QEMU-FACTS.md, QEMU's
 * helper_rdpmc). Elsewhere RDPMC raises #GP for an index past the counters the CPU has
 * (SDM Vol. 2B, RDPMC), so counter 0 reads without a fault exactly when CPUID reports a
 * general-purpose counter (NetBurst, P6, architectural PMU, every AMD64 part).
 */
/* QEMU TCG, known by its hypervisor vendor, or, with the CPUID hypervisor bit hidden, by
 * what only TCG does on a machine with QEMU's fw_cfg: an unknown MSR reads as 0 without
 * #GP (KVM and real CPUs raise #GP). */
static bool qemu_tcg(void)
{
	if (kernel.cpu.hypervisor)
		return !strcmp(kernel.cpu.hv_vendor, "TCGTCGTCGTCG");
	uint64_t v = 1;
	return platform_is_qemu() && rdmsr_safe(MSR_NONEXISTENT, &v) == 0 && v == 0;
}

static int rdpmc0_expected(const char **why)
{
	if (qemu_tcg()) {
		*why = "QEMU TCG emulates no counters and raises #UD for RDPMC";
		return VEC_UD;
	}
	if (kernel.pmu.gp_counters) {
		*why = "CPUID reports general-purpose counters, so counter 0 exists";
		return 0;
	}
	*why = "CPUID reports no general-purpose counter, so index 0 is out of range";
	return VEC_GP;
}

static void test_fixups(void)
{
	uint64_t v = 0x1234;
	int vec = rdmsr_safe(MSR_NONEXISTENT, &v);
	if (vec == 0 && v == 0 && (kernel.cpu.hypervisor || platform_is_qemu()))
		check_skip("fixup.rdmsr_nonexistent",
			   "the hypervisor (%s) reads unknown MSRs as 0 instead of raising #GP",
			   kernel.cpu.hypervisor ? kernel.cpu.hv_vendor : "QEMU, found by fw_cfg");
	else
		check(vec == VEC_GP, "fixup.rdmsr_nonexistent", "vector %d, expected #GP", vec);
	vec = wrmsr_safe(MSR_NONEXISTENT, 1);
	if (vec == 0 && (kernel.cpu.hypervisor || platform_is_qemu()))
		check_skip("fixup.wrmsr_nonexistent", "the hypervisor drops writes to unknown MSRs");
	else
		check(vec == VEC_GP, "fixup.wrmsr_nonexistent", "vector %d, expected #GP", vec);

	vec = fault_try("ud2");
	check(vec == VEC_UD, "fixup.ud2", "vector %d, expected #UD", vec);
	/* An MSR that exists, with a value that says it was read: EFER with LME set in
	 * long mode; in the i686 kernel, where EFER may not exist, IA32_APIC_BASE with its
	 * global enable bit (set by reset on every CPU that has a local APIC). */
	if (sizeof(void *) == 8) {
		vec = rdmsr_safe(MSR_EFER, &v);
		check(vec == 0 && (v & EFER_LME), "fixup.rdmsr_existing", "vector %d EFER %llx",
		      vec, (unsigned long long)v);
	} else if (kernel.cpu.apic) {
		vec = rdmsr_safe(MSR_IA32_APIC_BASE, &v);
		check(vec == 0 && (v & APIC_BASE_ENABLE), "fixup.rdmsr_existing",
		      "vector %d IA32_APIC_BASE %llx", vec, (unsigned long long)v);
	} else {
		check_skip("fixup.rdmsr_existing", "no local APIC, so no IA32_APIC_BASE to read");
	}

	const char *why;
	int want = rdpmc0_expected(&why);
	vec = rdpmc_safe(0, &v);
	check(vec == want, "fixup.rdpmc_cpl0", "got %s, expected %s: %s",
	      vec ? vector_name(vec) : "no fault", want ? vector_name(want) : "no fault", why);
	kprintf("  rdpmc(0) at CPL 0: %s\n", vec ? vector_name(vec) : "ok");
}

static void test_rdpmc_pce(void)
{
	struct run_result r;
	bool was = run_get_pce();
	run_set_pce(false);
	run_call(&cpl3, st_rdpmc, 0, 0, &r);
	check(r.status == RUN_FAULT && r.fault.vector == VEC_GP &&
		      r.fault.rip == ualias(st_rdpmc_rip),
	      "cpl3.rdpmc_pce_clear_gp", "status %d vector %u", r.status, r.fault.vector);
	run_set_pce(true);
	run_call(&cpl3, st_rdpmc, 0, 0, &r);
	check(!(r.status == RUN_FAULT && r.fault.vector == VEC_GP), "cpl3.rdpmc_pce_set_allowed",
	      "RDPMC still raised #GP with CR4.PCE set");
	kprintf("  rdpmc(0) at CPL 3 with PCE: %s\n",
		r.status == RUN_OK ? "ok" : vector_name(r.fault.vector));
	run_set_pce(was);
}

/* Loads one machine word: mov takes its width from the register. */
static int kernel_load(uintptr_t addr, uintptr_t *out)
{
	uintptr_t v = 0;
	extable_arm();
	__asm__ volatile(EXTABLE_TRY("mov (%1), %0") : "+r"(v) : "r"(addr) : "memory");
	*out = v;
	return extable_result();
}

static int kernel_store(uintptr_t addr, uint8_t val)
{
	extable_arm();
	__asm__ volatile(EXTABLE_TRY("movb %1, (%0)") : : "r"(addr), "r"(val) : "memory");
	return extable_result();
}

/* The application processors' stacks, allocated at SMP start: every one of them has its
 * guard page unmapped below it, as the boot CPU's have. */
static void test_ap_stack_guards(void)
{
	unsigned cpus = 0, faulted = 0, first_bad = 0;
	uintptr_t v;
	for (unsigned cpu = 1; cpu < STACK_CPUS; cpu++) {
		if (!stack_cpu_given(cpu))
			continue;
		cpus++;
		for (unsigned id = 0; id < STACK_COUNT; id++) {
			if (kernel_load(stack_guard_cpu(cpu, (enum stack_id)id), &v) == VEC_PF)
				faulted++;
			else if (!first_bad)
				first_bad = cpu * STACK_COUNT + id;
		}
	}
	if (!cpus) {
		check_skip("paging.ap_stack_guard_pages", "no application processor");
		return;
	}
	check(faulted == cpus * STACK_COUNT, "paging.ap_stack_guard_pages",
	      "%u of %u guard pages fault; the first that does not: CPU %u, the %s stack's", faulted,
	      cpus * STACK_COUNT, first_bad / STACK_COUNT, stack_name((enum stack_id)(first_bad % STACK_COUNT)));
}

static void test_protection(void)
{
	struct run_result r;
	uintptr_t v;
	uintptr_t ubuf = user_alloc(PAGE_SIZE, PAGE_SIZE);
	check(ubuf != 0, "mem.user_alloc", "no user memory");

	if (paging.smep) {
		run_call(&cpl0, (const void *)ualias(st_add), 1, 2, &r);
		check(r.status == RUN_FAULT && r.fault.vector == VEC_PF &&
			      (r.fault.error & PF_ERR_ID),
		      "smep.kernel_exec_user_page", "status %d vector %u error 0x%llx", r.status,
		      r.fault.vector, (unsigned long long)r.fault.error);
	} else {
		check_skip("smep.kernel_exec_user_page", "CPU does not report SMEP");
	}
	if (paging.smap && ubuf) {
		int vec = kernel_load(ubuf, &v);
		check(vec == VEC_PF, "smap.kernel_read_user_page", "vector %d, expected #PF", vec);
		user_access_begin();
		vec = kernel_load(ubuf, &v);
		user_access_end();
		check(vec == 0, "smap.stac_allows_access", "vector %d", vec);
	} else {
		check_skip("smap.kernel_read_user_page", "CPU does not report SMAP");
	}
	if (paging.umip) {
		run_call(&cpl3, st_sgdt, 0, 0, &r);
		check(r.status == RUN_FAULT && r.fault.vector == VEC_GP, "umip.sgdt_cpl3",
		      "status %d vector %u", r.status, r.fault.vector);
	} else {
		check_skip("umip.sgdt_cpl3", "CPU does not report UMIP");
	}
	if (paging.nx) {
		run_call(&cpl0, data_ret, 0, 0, &r);
		check(r.status == RUN_FAULT && r.fault.vector == VEC_PF &&
			      (r.fault.error & PF_ERR_ID),
		      "nx.kernel_data_not_executable", "status %d vector %u error 0x%llx",
		      r.status, r.fault.vector, (unsigned long long)r.fault.error);
	} else {
		check_skip("nx.kernel_data_not_executable", paging.two_level ?
			   "no PAE: two-level page tables have no NX bit" : "CPU has no NX");
	}
	int vec = kernel_store((uintptr_t)__text_start, 0x90);
	check(vec == VEC_PF, "wp.kernel_text_read_only", "vector %d, expected #PF", vec);
	vec = kernel_load(0, &v);
	check(vec == VEC_PF, "paging.null_page_unmapped", "vector %d, expected #PF", vec);
	vec = kernel_load(stack_guard(STACK_KERNEL), &v);
	check(vec == VEC_PF, "paging.stack_guard_page", "vector %d, expected #PF", vec);
	test_ap_stack_guards();
	user_reset();
}

/* Benchmarks map buffers of every size into the user region again and again: 4 KiB
 * pages need page tables, 2 MiB pages replace them. Tables must be reused, not leaked:
 * a leak of one table a round shows as 4 more in use, past the 2 the check allows. (Each
 * round zeroes 8 MiB, which TCG takes about 15 ms for: 4 rounds keep the self-test quick.) */
static void test_user_region_reuse(void)
{
	unsigned before = paging_tables_in_use(), rounds = 4, ok = 0;
	for (unsigned i = 0; i < rounds; i++) {
		uintptr_t small = user_alloc(PAGE_SIZE, PAGE_SIZE);
		user_reset();
		uintptr_t large = user_alloc(4 * LARGE_PAGE_SIZE, LARGE_PAGE_SIZE);
		user_reset();
		if (!small || !large)
			break;
		ok++;
	}
	unsigned after = paging_tables_in_use();
	check(ok == rounds && after <= before + 2, "paging.user_region_tables_reused",
	      "%u of %u rounds mapped; page tables in use %u before, %u after", ok, rounds, before,
	      after);
}

/* Without PAE the identity map's 32-bit entries are not split: the registers get their
 * own uncached page in the MMIO window, and a write through it reaches the page. */
static void test_mmio_window(uint64_t pa)
{
	volatile uint32_t *regs = paging_map_mmio(pa, 8);
	if (regs)
		*regs = 0x4badb002;
	uintptr_t va = (uintptr_t)regs;
	check(va >= KERNEL_MMIO_BASE && va < KERNEL_MMIO_BASE + KERNEL_MMIO_MAX &&
	      *(volatile uint32_t *)(uintptr_t)pa == 0x4badb002, "paging.mmio_window",
	      "mapped at %p for 0x%llx", (void *)regs, (unsigned long long)pa);
}

/* The RAM page at 4 GiB + 1 MiB where it is usable, else 0: it stands in for registers
 * a firmware put above 4 GiB (a 64-bit BAR); 4 GiB below it is RAM the identity map holds. */
static uint64_t ram_page_above_4g(void)
{
	const uint64_t want = (1ull << 32) + (1ull << 20);
	for (uint32_t i = 0; i < kernel.bi->mmap_count; i++) {
		const struct bi_mem_range *r = &kernel.bi->mmap[i];
		uint64_t end = r->base + r->pages * BI_PAGE_SIZE;
		if (r->type == BI_MEM_USABLE && r->base <= want && end >= want + PAGE_SIZE)
			return want;
	}
	return 0;
}

/* Registers above 4 GiB: mapped in the MMIO window, two mappings reach the same page, and
 * the page 4 GiB below it (where a truncated address would land) is left alone. Without
 * PAE the kernel cannot map them and says so (NULL), instead of mapping the wrong page. */
static void test_mmio_above_4g(void)
{
	uint64_t pa = ram_page_above_4g();
	if (!pa) {
		check_skip("paging.mmio_above_4g", "no RAM above 4 GiB to stand in for registers");
		return;
	}
	volatile uint32_t *a = paging_map_mmio(pa, 8);
	if (paging.two_level) {
		check(a == NULL, "paging.mmio_above_4g", "no PAE, yet 0x%llx was mapped at %p",
		      (unsigned long long)pa, (void *)a);
		return;
	}
	volatile uint32_t *b = paging_map_mmio(pa, 8);
	volatile uint32_t *low = (volatile uint32_t *)(uintptr_t)(uint32_t)pa;    /* identity */
	uint32_t low_before = *low;
	if (a && b) {
		*a = ~low_before;
		a[1] = 0x6badb002;
	}
	check(a && b && a != b && b[0] == ~low_before && b[1] == 0x6badb002 && *low == low_before &&
	      paging_uncached((uintptr_t)a), "paging.mmio_above_4g",
	      "0x%llx mapped at %p and %p; low alias %x (was %x)", (unsigned long long)pa, (void *)a,
	      (void *)b, *low, low_before);
}

/* A memory-mapped UART's registers are mapped uncached (kernel/serial-console.c): the
 * identity map's 2 MiB page around them is split, the page that holds them alone made
 * uncached, its neighbours mapped as before. A RAM page stands in for the registers. */
static void test_mmio_uncached(void)
{
	uint64_t pa = mem_alloc_phys(3 * PAGE_SIZE, LARGE_PAGE_SIZE);
	if (!pa) {
		check(false, "paging.mmio_uncached_split", "no memory for the test");
		return;
	}
	if (paging.two_level) {
		test_mmio_window(pa + PAGE_SIZE);
		return;
	}
	volatile uint32_t *lo = (volatile uint32_t *)(uintptr_t)pa;
	volatile uint32_t *hi = (volatile uint32_t *)(uintptr_t)(pa + 2 * PAGE_SIZE);
	*lo = 0x1badb002;
	*hi = 0x2badb002;
	volatile uint32_t *regs = paging_map_mmio(pa + PAGE_SIZE, 8);
	if (regs)
		*regs = 0x3badb002;
	check(regs == (volatile uint32_t *)(uintptr_t)(pa + PAGE_SIZE) && *regs == 0x3badb002 &&
	      paging_uncached(pa + PAGE_SIZE) && !paging_uncached(pa) &&
	      !paging_uncached(pa + 2 * PAGE_SIZE) && *lo == 0x1badb002 && *hi == 0x2badb002,
	      "paging.mmio_uncached_split", "mapped at %p for 0x%llx; uncached %d, neighbours %d %d, "
	      "values %x %x", (void *)regs, (unsigned long long)(pa + PAGE_SIZE),
	      paging_uncached(pa + PAGE_SIZE), paging_uncached(pa),
	      paging_uncached(pa + 2 * PAGE_SIZE), *lo, *hi);
}

static void test_transitions(void)
{
	struct run_result r;
	/* SYSCALL exists only in long mode here: the i686 kernel never sets it up, so on a CPU
	 * that reports it (AMD's do in protected mode) it must #UD like any run's that did
	 * not ask for it. */
	if (kernel.cpu.syscall && sizeof(void *) == 8) {
		struct run_opts o = cpl3;
		o.syscall = true;
		run_call(&o, st_syscall_null, 1000, 0, &r);
		check(r.status == RUN_OK && r.value == 1000, "cpl3.syscall_sysret_round_trip",
		      "status %d value %llu vector %u", r.status, (unsigned long long)r.value,
		      r.fault.vector);
	} else {
		check_skip("cpl3.syscall_sysret_round_trip",
			   kernel.cpu.syscall ? "SYSCALL is for long mode here" : CPU_NO_SYSCALL);
	}
	if (kernel.cpu.syscall) {
		/* A run that does not ask for SYSCALL cannot leave through it: #UD. */
		run_call(&cpl3, st_syscall_null, 1000, 0, &r);
		check(r.status == RUN_FAULT && r.fault.vector == VEC_UD, "cpl3.syscall_ud_unless_asked",
		      "status %d vector %u value %llu", r.status, r.fault.vector,
		      (unsigned long long)r.value);
	} else {
		check_skip("cpl3.syscall_ud_unless_asked", CPU_NO_SYSCALL);
	}
	/* Only user_entry's own INT VEC_USER_EXIT leaves CPL 3; a payload's is its fault. */
	for (int cpl = 0; cpl <= 3; cpl += 3) {
		uintptr_t at = cpl ? ualias(st_int81_rip) : (uintptr_t)st_int81_rip;
		run_call(cpl ? &cpl3 : &cpl0, st_int81, 0, 0, &r);
		check(r.status == RUN_FAULT && r.fault.vector == VEC_USER_EXIT && r.fault.soft_int &&
			      r.fault.rip == at,
		      cpl ? "cpl3.exit_vector_from_payload_faults" : "cpl0.exit_vector_from_payload_faults",
		      "status %d vector %u at %llx, expected INT 0x%x at %llx", r.status,
		      r.fault.vector, (unsigned long long)r.fault.rip, VEC_USER_EXIT,
		      (unsigned long long)at);
	}
	run_call(&cpl3, st_int80, 1000, 0, &r);
	check(r.status == RUN_OK && r.value == 1000, "cpl3.int_iret_round_trip",
	      "status %d value %llu vector %u", r.status, (unsigned long long)r.value,
	      r.fault.vector);
	struct run_opts o = cpl3;
	o.int3_resumes = true;
	run_call(&o, st_int3_loop, 1000, 0, &r);
	check(r.status == RUN_OK && r.value == 1000, "cpl3.int3_round_trip",
	      "status %d value %llu vector %u", r.status, (unsigned long long)r.value,
	      r.fault.vector);
}

/* Trap-flag counting: the loop is 2 instructions per iteration, so the counts for n and
 * 2n iterations differ by exactly 2n whatever the fixed overhead. */
static void test_single_step(void)
{
	for (int cpl = 0; cpl <= 3; cpl += 3) {
		struct run_opts o = cpl ? cpl3 : cpl0;
		o.single_step = true;
		struct run_result a, b;
		run_call(&o, st_step_loop, 100, 0, &a);
		run_call(&o, st_step_loop, 200, 0, &b);
		check(a.status == RUN_OK && b.status == RUN_OK && b.steps - a.steps == 200,
		      cpl ? "single_step.count_cpl3" : "single_step.count_cpl0",
		      "steps %llu and %llu, difference should be 200", (unsigned long long)a.steps,
		      (unsigned long long)b.steps);
	}
}

/*
 * A payload's stack (docs/bench.md): PAYLOAD_STACK_SIZE of its own at either CPL, of which
 * all but PAYLOAD_STACK_KEEP is the payload's; at CPL 0 a lost or overflowed stack is a
 * #DF (on a stack of its own: IST, or the i686 #DF task) that ends the run like any
 * fault, and so is a vector nothing handles; the next run goes on.
 */
static void test_payload_stack(void)
{
	const uint64_t words = (PAYLOAD_STACK_SIZE - PAYLOAD_STACK_KEEP) / sizeof(uintptr_t);
	struct run_result r;
	for (int cpl = 0; cpl <= 3; cpl += 3) {
		run_call(cpl ? &cpl3 : &cpl0, st_push_pop, words, 0, &r);
		check(r.status == RUN_OK && r.value == words,
		      cpl ? "run.stack_of_its_own_cpl3" : "run.stack_of_its_own_cpl0",
		      "%llu pushes: status %d vector %u value %llu", (unsigned long long)words, r.status,
		      r.fault.vector, (unsigned long long)r.value);
	}
	run_call(&cpl0, st_push_pop, PAYLOAD_STACK_SIZE / sizeof(uintptr_t) + 1, 0, &r);
	check(r.status == RUN_FAULT && r.fault.vector == VEC_DF && r.fault.cpl == 0,
	      "run.cpl0_stack_overflow_df", "status %d vector %u cpl %u, expected #DF at CPL 0",
	      r.status, r.fault.vector, r.fault.cpl);
	run_call(&cpl0, st_lose_stack, 0, 0, &r);
	check(r.status == RUN_FAULT && r.fault.vector == VEC_DF && r.fault.cpl == 0,
	      "run.cpl0_stack_lost_df", "status %d vector %u cpl %u, expected #DF at CPL 0", r.status,
	      r.fault.vector, r.fault.cpl);
	run_call(&cpl0, st_int_stray, 0, 0, &r);
	check(r.status == RUN_FAULT && r.fault.vector == VEC_SELFTEST_STRAY && r.fault.soft_int &&
		      r.fault.rip == (uintptr_t)st_int_stray_rip,
	      "run.cpl0_stray_vector", "status %d vector %u at %llx, expected INT 0x%x at %llx",
	      r.status, r.fault.vector, (unsigned long long)r.fault.rip, VEC_SELFTEST_STRAY,
	      (unsigned long long)(uintptr_t)st_int_stray_rip);
	/* ... with CR0.TS clear, which the i686 #DF task's switches set: x87/SSE would #NM */
	run_call(&cpl0, st_add, 40, 2, &r);
	check(r.status == RUN_OK && r.value == 42 && !(read_cr0() & CR0_TS),
	      "run.cpl0_carries_on_after_df", "status %d value %llu (expected 42), CR0 %llx",
	      r.status, (unsigned long long)r.value, (unsigned long long)read_cr0());
}

static void test_watchdog(bool have_watchdog)
{
	if (!have_watchdog) {
		check_skip("watchdog.stops_endless_loop", "no APIC timer and no PIT");
		return;
	}
	for (int cpl = 0; cpl <= 3; cpl += 3) {
		struct run_opts o = { .cpl3 = cpl == 3, .watchdog_ms = SPIN_WATCHDOG_MS };
		struct run_result r;
		run_call(&o, st_spin, 0, 0, &r);
		check(r.status == RUN_TIMEOUT,
		      cpl ? "watchdog.stops_endless_loop_cpl3" : "watchdog.stops_endless_loop_cpl0",
		      "status %d", r.status);
	}
	struct run_result r;
	run_call(&cpl3, st_add, 2, 3, &r);
	check(r.status == RUN_OK && r.value == 5, "watchdog.next_run_normal", "status %d", r.status);
}

/* What an application processor saw when called (test_smp). */
struct ap_probe {
	unsigned self;
	uint32_t apic_id;
	uintptr_t cr0, cr4;
	struct run_result r;
};

static void ap_probe(void *arg)
{
	struct ap_probe *a = arg;
	a->self = smp_self();
	a->apic_id = lapic_id();
	a->cr0 = read_cr0();
	a->cr4 = read_cr4();
	run_call(&cpl3, st_add, 40, 2, &a->r);
}

struct ap_lost_stack {
	struct run_result lost, after;
};

static void ap_lose_stack(void *arg)
{
	struct ap_lost_stack *l = arg;
	run_call(&cpl0, st_lose_stack, 0, 0, &l->lost);
	run_call(&cpl0, st_add, 40, 2, &l->after);
}

/* Every other CPU takes a call and runs it on its own stacks, with its own APIC ID, in
 * the boot CPU's CR0/CR4 state, and a CPL 3 round trip through its own TSS. */
static void test_smp(void)
{
	unsigned n = smp_count(), ok = 0;
	if (n < 2) {
		check_skip("smp.call_each_cpu", "one CPU is up");
		return;
	}
	for (unsigned i = 1; i < n; i++) {
		static struct ap_probe a;
		a = (struct ap_probe){ .self = SMP_NONE };
		int st = smp_call_async(i, ap_probe, &a) == 0 ? smp_wait(i, 1000) : -1;
		if (st == 0 && a.self == i && a.apic_id == smp_cpu(i)->apic_id && a.cr0 == read_cr0() &&
		    a.cr4 == read_cr4() && a.r.status == RUN_OK && a.r.value == 42)
			ok++;
		else
			kprintf("smp: CPU %u: call %d, ran on %u, APIC ID %u (want %u), CR0 %llx CR4 %llx, "
				"CPL 3 run status %d value %llu\n", i, st, a.self, (unsigned)a.apic_id,
				(unsigned)smp_cpu(i)->apic_id, (unsigned long long)a.cr0,
				(unsigned long long)a.cr4, a.r.status, (unsigned long long)a.r.value);
	}
	check(ok == n - 1, "smp.call_each_cpu", "%u of %u processors answered as expected", ok,
	      n - 1);
	/* A run on the last CPU that loses its stack at CPL 0 ends there as a #DF (that CPU's
	 * IST or #DF task), and the CPU runs the next one. */
	static struct ap_lost_stack l;
	l = (struct ap_lost_stack){ 0 };
	int st = smp_call_async(n - 1, ap_lose_stack, &l) == 0 ? smp_wait(n - 1, 1000) : -1;
	check(st == 0 && l.lost.status == RUN_FAULT && l.lost.fault.vector == VEC_DF &&
		      l.after.status == RUN_OK && l.after.value == 42,
	      "smp.ap_run_recovers_df", "CPU %u: call %d, lost-stack run status %d vector %u, next "
	      "run status %d value %llu", n - 1, st, l.lost.status, l.lost.fault.vector,
	      l.after.status, (unsigned long long)l.after.value);
}

/* An NMI to this CPU's own APIC ID is noted and survived. */
static void test_nmi(void)
{
	if (!kernel.lapic) {
		check_skip("nmi.noted_and_survived", "no local APIC");
		return;
	}
	uint64_t before = trap_nmi_count();
	bool sent = lapic_send_nmi_to_self();
	for (int i = 0; i < 100000 && trap_nmi_count() == before; i++)
		__asm__ volatile("pause");
	struct run_result r;
	run_call(&cpl3, st_add, 20, 22, &r);
	check(sent && trap_nmi_count() == before + 1 && r.status == RUN_OK && r.value == 42,
	      "nmi.noted_and_survived", "sent %d, NMIs %llu -> %llu, next run status %d", sent,
	      (unsigned long long)before, (unsigned long long)trap_nmi_count(), r.status);
}

/* The PMI path without a counting PMU (QEMU TCG never raises one): a self-IPI on
 * VEC_PMI with the LVT performance-counter entry masked, as the local APIC leaves it
 * after delivering a PMI. The handler must run once, ask the backend for the overflow
 * status, acknowledge, and unmask the entry again. */
static void test_pmi(void)
{
	if (!kernel.lapic) {
		check_skip("pmi.self_ipi_handler", "no local APIC");
		return;
	}
	if (!kpmu.model)
		kpmu_init();
	pmi_install(false);
	struct pmi_stats before = *pmi_stats();
	lapic_pmi_route(false);
	bool masked = lapic_pmi_masked();
	bool sent = lapic_send_ipi_to_self(VEC_PMI);
	for (int i = 0; i < 100000 && pmi_stats()->interrupts == before.interrupts; i++)
		__asm__ volatile("sti; nop; cli" ::: "memory");
	const struct pmi_stats *after = pmi_stats();
	bool backend = kpmu.be != NULL;
	bool rearmed = !lapic_pmi_masked();
	check(masked && sent && after->interrupts == before.interrupts + 1 &&
		      after->rearms == before.rearms + 1 && rearmed &&
		      (!backend || (after->status_reads == before.status_reads + 1 &&
				    after->acks == before.acks + 1 && after->last_mask == 0)),
	      "pmi.self_ipi_handler", "masked before %d, sent %d, PMIs %llu -> %llu, status reads "
	      "%llu -> %llu, acks %llu -> %llu, overflowed 0x%x, LVT unmasked after %d (backend %s)",
	      masked, sent, (unsigned long long)before.interrupts,
	      (unsigned long long)after->interrupts, (unsigned long long)before.status_reads,
	      (unsigned long long)after->status_reads, (unsigned long long)before.acks,
	      (unsigned long long)after->acks, after->last_mask, rearmed,
	      backend ? pmu_kind_name(kpmu.be->kind) : "none");
	lapic_pmi_mask();

	/* With NMI delivery the handler also sees every NMI: one that no armed counter
	 * explains must go on to the trap code, which notes it as foreign. */
	pmi_install(true);
	uint64_t nmis = trap_nmi_count(), pmis = pmi_stats()->interrupts;
	sent = lapic_send_nmi_to_self();
	for (int i = 0; i < 100000 && trap_nmi_count() == nmis; i++)
		__asm__ volatile("pause");
	check(sent && trap_nmi_count() == nmis + 1 && pmi_stats()->interrupts == pmis,
	      "pmi.nmi_hook_passes_foreign_nmi", "sent %d, NMIs noted %llu -> %llu, PMIs %llu -> %llu",
	      sent, (unsigned long long)nmis, (unsigned long long)trap_nmi_count(),
	      (unsigned long long)pmis, (unsigned long long)pmi_stats()->interrupts);
	trap_set_irq_handler(VEC_NMI, NULL);
}

/* What CPU 1 saw when it opened its PMI entry as sample_payload does (test_pmi_on_ap). */
struct ap_pmi {
	bool routed, unmasked, sent, rearmed;
	uint64_t before, after;
};

static void ap_pmi_probe(void *arg)
{
	struct ap_pmi *a = arg;
	a->before = pmi_stats()->interrupts;
	sample_pmi_arm();
	a->routed = lapic_pmi_routed(false);
	a->unmasked = !lapic_pmi_masked();
	lapic_pmi_mask();
	a->sent = lapic_send_ipi_to_self(VEC_PMI);
	for (int i = 0; i < 100000 && pmi_stats()->interrupts == a->before; i++)
		__asm__ volatile("sti; nop; cli" ::: "memory");
	a->after = pmi_stats()->interrupts;
	a->rearmed = !lapic_pmi_masked();
	lapic_pmi_mask();
}

/* What CPU 1 saw when it took a PMI vector while CPU 0 is the one measuring. */
static void ap_pmi_elsewhere(void *arg)
{
	struct ap_pmi *a = arg;
	const struct pmi_stats *st = pmi_stats();
	a->before = st->interrupts;
	uint64_t elsewhere = st->elsewhere;
	a->sent = lapic_send_ipi_to_self(VEC_PMI);
	for (int i = 0; i < 100000 && st->elsewhere == elsewhere; i++)
		__asm__ volatile("sti; nop; cli" ::: "memory");
	a->after = st->interrupts;
	a->rearmed = st->elsewhere == elsewhere + 1;
}

/* Only the CPU that measures has armed counters: a PMI taken on another one is
 * acknowledged and not counted (a counter's idle top bit there would read as an overflow
 * on P6, Intel v1 and AMD before PerfMonV2). */
static void test_pmi_elsewhere(void)
{
	if (smp_count() < 2) {
		check_skip("pmi.ignored_on_other_cpu", "one CPU is up");
		return;
	}
	static struct ap_pmi a;
	a = (struct ap_pmi){ 0 };
	pmi_install(false);
	int st = smp_call_async(1, ap_pmi_elsewhere, &a) == 0 ? smp_wait(1, 1000) : -1;
	check(st == 0 && a.sent && a.rearmed && a.after == a.before, "pmi.ignored_on_other_cpu",
	      "call %d, sent %d, taken and acknowledged on CPU 1 %d, PMIs counted %llu -> %llu",
	      st, a.sent, a.rearmed, (unsigned long long)a.before, (unsigned long long)a.after);
}

/* cpu=N samples on an AP: its own LVT entry (which lapic_init_ap leaves masked, with no
 * vector) must deliver on VEC_PMI once sample_payload opens it there, and the handler
 * must run and re-arm on that CPU. */
static void test_pmi_on_ap(void)
{
	if (smp_count() < 2) {
		check_skip("pmi.routed_on_ap", "one CPU is up");
		return;
	}
	static struct ap_pmi a;
	a = (struct ap_pmi){ 0 };
	pmi_install(false);
	int st = smp_call_async(1, ap_pmi_probe, &a) == 0 ? smp_wait(1, 1000) : -1;
	check(st == 0 && a.routed && a.unmasked && a.sent && a.after == a.before + 1 && a.rearmed,
	      "pmi.routed_on_ap", "call %d, LVT on VEC_PMI %d, unmasked %d, sent %d, PMIs %llu -> "
	      "%llu, unmasked again %d", st, a.routed, a.unmasked, a.sent,
	      (unsigned long long)a.before, (unsigned long long)a.after, a.rearmed);
}

int selftest_run(void)
{
	kprintf("selftest: start\n");
	check(paging.smep == kernel.cpu.smep && paging.smap == kernel.cpu.smap &&
		      paging.umip == kernel.cpu.umip,
	      "cpu.protections_enabled_as_reported", "smep %d/%d smap %d/%d umip %d/%d",
	      paging.smep, kernel.cpu.smep, paging.smap, kernel.cpu.smap, paging.umip,
	      kernel.cpu.umip);
	test_cpl3_basics();
	test_fixups();
	test_rdpmc_pce();
	test_protection();
	test_user_region_reuse();
	test_mmio_uncached();
	test_mmio_above_4g();
	test_transitions();
	test_single_step();
	test_payload_stack();
	test_watchdog(kernel.watchdog);
	test_nmi();
	test_pmi();
	test_smp();
	test_pmi_on_ap();
	test_pmi_elsewhere();
	return check_summary();
}
