/* Ring switching with a recovery point. SDM Vol. 3A 5.8.8 (SYSCALL/SYSRET), 6.12. */
#include "arch/x86/run.h"
#include "arch/x86/cpu.h"
#include "arch/x86/desc.h"
#include "arch/x86/msr.h"
#include "arch/x86/paging.h"

extern uint64_t run_cpl0(uint64_t fn, uint64_t a0, uint64_t a1, uint64_t a2);
extern uint64_t run_cpl3(uint64_t rip, uint64_t rsp, uint64_t a0, uint64_t a1, uint64_t a2,
			 uint64_t rflags);
extern char run_resume[], syscall_entry[];
extern volatile uint8_t bp_fast_resume;   /* entry.asm: int3 from CPL 3 returns at once */

static struct {
	volatile bool active;
	struct run_opts opts;
	struct run_result *res;
} cur;

static const struct watchdog_ops *watchdog;

void run_set_watchdog(const struct watchdog_ops *ops)
{
	watchdog = ops;
}

void run_init(bool syscall)
{
	/* Without SYSCALL, EFER.SCE is reserved (#GP if set); CPL 3 runs do not need it. */
	if (!syscall)
		return;
	wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_SCE);
	wrmsr(MSR_STAR, ((uint64_t)SEL_UCODE32 << 48) | ((uint64_t)SEL_KCODE << 32));
	wrmsr(MSR_LSTAR, (uint64_t)syscall_entry);
	wrmsr(MSR_SYSCALL_MASK, RFLAGS_IF | RFLAGS_TF | RFLAGS_AC | (1ull << 10) /* DF */);
}

void run_set_pce(bool on)
{
	uint64_t cr4 = read_cr4();
	write_cr4(on ? cr4 | CR4_PCE : cr4 & ~CR4_PCE);
}

bool run_get_pce(void)
{
	return read_cr4() & CR4_PCE;
}

extern char user_entry[];      /* user-entry.asm */
static uint64_t user_stack_top;

void run_set_user_stack(uint64_t top)
{
	user_stack_top = top;
}

void run_call(const struct run_opts *o, const void *fn, uint64_t a0, uint64_t a1,
	      struct run_result *r)
{
	*r = (struct run_result){ .status = RUN_OK };
	cur.opts = *o;
	cur.res = r;
	bool armed = o->watchdog_ms && watchdog && watchdog->arm(o->watchdog_ms);
	bp_fast_resume = o->cpl3 && o->int3_resumes;
	cur.active = true;
	/* IF stays set so that only the watchdog (every other source is masked) can stop
	 * a payload that never ends; it fires only when the budget is spent. */
	if (o->cpl3) {
		r->value = run_cpl3(payload_user_alias((uint64_t)user_entry), user_stack_top,
				    payload_user_alias((uint64_t)fn), a0, a1,
				    RFLAGS_RESERVED1 | RFLAGS_IF);
	} else {
		irq_enable();
		r->value = run_cpl0((uint64_t)fn, a0, a1, 0);
	}
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

/* Point the interrupted context at run_resume in ring 0 so that the run returns. */
static void abort_run(struct trap_frame *f, enum run_status st)
{
	cur.res->status = st;
	f->rip = (uint64_t)run_resume;
	f->cs = SEL_KCODE;
	f->ss = SEL_KDATA;
	f->rflags = RFLAGS_RESERVED1;
	/* run_resume reloads RSP from its own save slot; any valid stack will do here. */
	f->rsp = (uint64_t)f;
	f->rax = 0;
	cur.active = false;
}

bool run_handle_trap(struct trap_frame *f)
{
	if (!cur.active)
		return false;
	unsigned cpl = f->cs & 3;
	if (f->vector == VEC_DB && cur.opts.single_step) {
		cur.res->steps++;
		return true;
	}
	if (watchdog && f->vector == watchdog->vector) {
		if (!watchdog->spent || watchdog->spent()) {
			/* Where the code was when time ran out: its loop, usually. */
			cur.res->fault = (struct run_fault){ .vector = f->vector, .rip = f->rip,
							     .rsp = f->rsp, .cpl = cpl };
			abort_run(f, RUN_TIMEOUT);
		}
		return false;     /* the timer driver still needs to EOI */
	}
	if (f->vector < 32 && f->vector != VEC_NMI && f->vector != VEC_MC && f->vector != VEC_DF) {
		cur.res->fault = (struct run_fault){
			.vector = f->vector, .error = f->error, .rip = f->rip,
			.cr2 = f->vector == VEC_PF ? read_cr2() : 0, .rsp = f->rsp, .cpl = cpl,
		};
		abort_run(f, RUN_FAULT);
		return true;
	}
	return false;
}

uint64_t run_payload_direct(const void *fn, uint64_t arg, uint64_t n)
{
	/* Payloads keep the System V callee-saved registers (the harness relies on it). */
	return ((uint64_t (*)(uint64_t, uint64_t))fn)(arg, n);
}
