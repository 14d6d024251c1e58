/* Ring switching with a recovery point, for both word sizes: a run, its watchdog, and the
 * traps that end it. SDM Vol. 3A 6.12 (interrupt and exception handling). The word-size
 * halves (entering CPL 0 or 3, the frame a trap returns through, SYSCALL) are
 * arch/x86/64/run-word.c and arch/x86/32/run-word.c. */
#include "arch/x86/run.h"
#include "arch/x86/cpu.h"
#include "arch/x86/desc.h"
#include "arch/x86/extable.h"
#include "arch/x86/paging.h"
#include "arch/x86/run-word.h"
#include "arch/x86/stacks.h"
#include "lib/x86-insn.h"

extern volatile uint8_t bp_fast_resume;   /* entry.asm: int3 from CPL 3 returns at once */
extern char user_entry[], user_exit_ret[]; /* user-entry.asm */

static struct {
	volatile bool active;
	unsigned cpu;               /* desc_this_cpu() of the CPU running it */
	struct run_opts opts;
	struct run_result *res;
} cur;

static const struct watchdog_ops *watchdog;
static uintptr_t user_stack_top;

void run_set_watchdog(const struct watchdog_ops *ops)
{
	watchdog = ops;
}

void run_set_pce(bool on)
{
	uintptr_t cr4 = read_cr4();
	write_cr4(on ? cr4 | CR4_PCE : cr4 & ~CR4_PCE);
}

bool run_get_pce(void)
{
	return read_cr4() & CR4_PCE;
}

void run_set_user_stack(uint64_t top)
{
	user_stack_top = (uintptr_t)top;
}

void run_call(const struct run_opts *o, const void *fn, uint64_t a0, uint64_t a1,
	      struct run_result *r)
{
	/* Interrupts stay off until the run's recovery point is saved: run_cpl0 turns them
	 * on after it, and run_cpl3's IRET with the payload's RFLAGS. */
	irq_disable();
	*r = (struct run_result){ .status = RUN_OK };
	cur.opts = *o;
	cur.res = r;
	bool armed = o->watchdog_ms && watchdog && watchdog->arm(o->watchdog_ms);
	bp_fast_resume = o->cpl3 && o->int3_resumes;
	cur.cpu = desc_this_cpu();
	stack_run_claim(cur.cpu);
	/* user_entry aligns its stack to 16 bytes before it calls the payload. */
	run_exit_rip = (uintptr_t)payload_user_alias((uintptr_t)user_exit_ret);
	run_exit_rsp = user_stack_top & ~(uintptr_t)15;
	cur.active = true;
	/* IF stays set so that only the watchdog (every other source is masked) can stop
	 * a payload that never ends; it fires only when the budget is spent. */
	r->value = run_enter(o, (uintptr_t)user_entry, o->cpl3 ? user_stack_top : stack_run_top(),
			     fn, a0, a1);
	irq_disable();
	cur.active = false;
	bp_fast_resume = 0;
	if (armed) {
		watchdog->disarm();
		/* A timer interrupt that became pending just as the run ended must not land
		 * in the next run: open a one-instruction window (after STI's shadow) so it is
		 * taken now, while no run is active, and merely acknowledged. */
		__asm__ volatile("sti; nop; cli" ::: "memory");
	}
}

/* The byte of code at va, or -1 where reading it faults (the page before a payload's
 * first instruction need not be mapped). Payload code may be in user pages. */
static int code_byte(uintptr_t va)
{
	uint8_t b = 0;
	extable_arm();
	user_access_begin();
	__asm__ volatile(EXTABLE_TRY("movb (%1), %0") : "+q"(b) : "r"(va) : "memory");
	user_access_end();
	return extable_result() ? -1 : b;
}

static int code_byte_at(void *ip, size_t i)
{
	return code_byte(*(const uintptr_t *)ip + i);
}

/* A single-step trap stops before each instruction: note the first one that the count
 * would miss (no trap after it), for the caller to refuse the count. */
static void step_look_ahead(const struct trap_frame *f)
{
	uintptr_t ip = trap_frame_ip(f);
	const char *insn = x86_step_hazard(code_byte_at, &ip, sizeof(void *) == 8);
	if (insn) {
		cur.res->step_hazard = insn;
		cur.res->step_hazard_rip = ip;
	}
}

/* Where the instruction that raised f starts: a trap (int3, INT n) leaves RIP after it
 * (lib/x86-insn.h); a fault leaves RIP on it. */
static uintptr_t trap_insn_ip(const struct trap_frame *f)
{
	uintptr_t ip = trap_frame_ip(f);
	return ip - x86_trap_insn_len((unsigned)f->vector, code_byte(ip - 1), code_byte(ip - 2));
}

/* Where the code was when an interrupt stopped it: an interrupt that ends a HLT leaves
 * RIP after the HLT (SDM Vol. 2A, HLT), so at CPL 0 (at CPL 3 HLT is a #GP) a HLT just
 * before RIP is where it waited. */
static uintptr_t stopped_ip(const struct trap_frame *f)
{
	uintptr_t ip = trap_frame_ip(f);
	return (f->cs & 3) ? ip : ip - x86_halt_insn_len(code_byte(ip - 1));
}

static void abort_run(struct trap_frame *f, enum run_status st)
{
	cur.res->status = st;
	run_frame_resume(f);
	cur.active = false;
}

/* End the run with the exception or interrupt f as its fault. */
static void fault_run(struct trap_frame *f, uintptr_t ip, bool soft_int)
{
	cur.res->fault = (struct run_fault){
		.vector = f->vector, .error = f->error, .rip = ip, .soft_int = soft_int,
		.cr2 = f->vector == VEC_PF || f->vector == VEC_DF ? read_cr2() : 0,
		.rsp = trap_frame_sp(f), .cpl = f->cs & 3,
	};
	abort_run(f, RUN_FAULT);
}

bool run_handle_trap(struct trap_frame *f, bool has_handler)
{
	if (!cur.active)
		return false;
	unsigned cpl = f->cs & 3;
	if (f->vector == VEC_DB && cur.opts.single_step) {
		cur.res->steps++;
		if (!cur.res->step_hazard)
			step_look_ahead(f);
		return true;
	}
	/* Only the CPU running the payload ends it: another one's trap is its own. */
	if (desc_this_cpu() != cur.cpu)
		return false;
	if (f->vector >= 32) {
		/* INT n, which CPL 0 code may aim at any vector: the payload's fault, even where
		 * a handler exists (it still runs: an external interrupt that arrived right
		 * after bytes CD n is told from nothing else, and must have its EOI). */
		uintptr_t ip = trap_insn_ip(f);
		if (ip != trap_frame_ip(f)) {
			fault_run(f, ip, true);
			return !has_handler;
		}
	}
	if (watchdog && f->vector == watchdog->vector) {
		if (!watchdog->spent || watchdog->spent()) {
			/* Where the code was when time ran out: its loop, usually. */
			cur.res->fault = (struct run_fault){ .vector = f->vector,
							     .rip = stopped_ip(f),
							     .rsp = trap_frame_sp(f), .cpl = cpl };
			abort_run(f, RUN_TIMEOUT);
		}
		return false;     /* the timer driver still needs to EOI */
	}
	/* Every exception but NMI and #MC (the machine's, not the payload's) ends the run,
	 * #DF included: on its own stack (IST on x86-64, a task on i686) it is how a payload
	 * at CPL 0 that lost its stack ends. So does a vector nothing handles. */
	bool stray = f->vector >= 32 && !has_handler && f->vector != VEC_APIC_SPURIOUS;
	if ((f->vector < 32 && f->vector != VEC_NMI && f->vector != VEC_MC) || stray) {
		fault_run(f, trap_insn_ip(f), false);
		return true;
	}
	return false;
}
