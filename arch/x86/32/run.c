/* Ring switching with a recovery point, i686: IRET into ring 3, an interrupt gate out
 * (SDM Vol. 3A 6.12.1). The same interface as arch/x86/run.c; SYSCALL does not exist in
 * protected mode on Intel CPUs, so nothing here sets it up. */
#include "arch/x86/run.h"
#include "arch/x86/cpu.h"
#include "arch/x86/desc.h"
#include "arch/x86/paging.h"

extern uint64_t run_cpl0(uint32_t fn, uint32_t a0, uint32_t a1, uint32_t a2);
extern uint64_t run_cpl3(uint32_t eip, uint32_t esp, uint32_t a0, uint32_t a1, uint32_t a2,
			 uint32_t eflags);
extern char run_resume[];
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
	(void)syscall;
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

extern char user_entry[];      /* arch/x86/32/user-entry.asm */
static uint32_t user_stack_top;

void run_set_user_stack(uint64_t top)
{
	user_stack_top = (uint32_t)top;
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
	 * a payload that never ends. */
	if (o->cpl3) {
		r->value = run_cpl3(payload_user_alias((uintptr_t)user_entry), user_stack_top,
				    payload_user_alias((uintptr_t)fn), (uint32_t)a0, (uint32_t)a1,
				    RFLAGS_RESERVED1 | RFLAGS_IF);
	} else {
		irq_enable();
		r->value = run_cpl0((uintptr_t)fn, (uint32_t)a0, (uint32_t)a1, 0);
	}
	irq_disable();
	cur.active = false;
	bp_fast_resume = 0;
	if (armed) {
		watchdog->disarm();
		/* Take a timer interrupt that became pending as the run ended now, while no
		 * run is active (see arch/x86/run.c). */
		__asm__ volatile("sti; nop; cli" ::: "memory");
	}
}

/* Point the interrupted context at run_resume in ring 0 so that the run returns. IRET
 * to the same privilege pops EIP, CS and EFLAGS only and leaves ESP on the trap stack;
 * run_resume reloads ESP from its own save slot. */
static void abort_run(struct trap_frame *f, enum run_status st)
{
	cur.res->status = st;
	f->eip = (uintptr_t)run_resume;
	f->cs = SEL_KCODE;
	f->eflags = RFLAGS_RESERVED1;
	f->ds = f->es = SEL_KDATA;
	f->fs = f->gs = 0;
	f->eax = f->edx = 0;
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
		if (!watchdog->spent || watchdog->spent())
			abort_run(f, RUN_TIMEOUT);
		return false;     /* the timer driver still needs to EOI */
	}
	if (f->vector < 32 && f->vector != VEC_NMI && f->vector != VEC_MC && f->vector != VEC_DF) {
		cur.res->fault = (struct run_fault){
			.vector = f->vector, .error = f->error, .rip = f->eip,
			.cr2 = f->vector == VEC_PF ? read_cr2() : 0, .rsp = trap_frame_sp(f),
			.cpl = cpl,
		};
		abort_run(f, RUN_FAULT);
		return true;
	}
	return false;
}

uint64_t run_payload_direct(const void *fn, uint64_t arg, uint64_t n)
{
	/* The i686 payload convention (arch/x86/32/entry.asm): EDI, ESI in; EDX:EAX out;
	 * EBX and EBP kept. */
	uint32_t a = (uint32_t)arg, c = (uint32_t)n, lo, hi;
	__asm__ volatile("call *%4" : "+D"(a), "+S"(c), "=a"(lo), "=d"(hi) : "r"(fn)
			 : "ecx", "memory", "cc");
	return ((uint64_t)hi << 32) | lo;
}
