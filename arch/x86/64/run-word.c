/* The x86-64 half of arch/x86/run.c: SYSCALL/SYSRET set-up (SDM Vol. 3A 5.8.8), entering
 * a payload, and the frame a trap returns through. */
#include "arch/x86/run-word.h"
#include "arch/x86/cpu.h"
#include "arch/x86/desc.h"
#include "arch/x86/msr.h"
#include "arch/x86/paging.h"

extern uint64_t run_cpl0(uint64_t fn, uint64_t a0, uint64_t a1, uint64_t stack);
extern uint64_t run_cpl3(uint64_t rip, uint64_t rsp, uint64_t a0, uint64_t a1, uint64_t a2,
			 uint64_t rflags);
extern char syscall_entry[];

static bool have_syscall;

void run_init(bool syscall)
{
	/* Without SYSCALL, EFER.SCE is reserved (#GP if set); CPL 3 runs do not need it. */
	have_syscall = syscall;
	if (!syscall)
		return;
	wrmsr(MSR_STAR, ((uint64_t)SEL_UCODE32 << 48) | ((uint64_t)SEL_KCODE << 32));
	wrmsr(MSR_LSTAR, (uint64_t)syscall_entry);
	wrmsr(MSR_SYSCALL_MASK, RFLAGS_IF | RFLAGS_TF | RFLAGS_AC | (1ull << 10) /* DF */);
}

/* EFER.SCE on this CPU: SYSCALL is served only while a run asks for it, so that anywhere
 * else (a user benchmark, at either CPL) it raises #UD where it stands (SDM Vol. 2B,
 * SYSCALL) instead of entering syscall_entry. */
static void syscall_enable(bool on)
{
	if (!have_syscall)
		return;
	uint64_t efer = rdmsr(MSR_EFER), want = on ? efer | EFER_SCE : efer & ~EFER_SCE;
	if (want != efer)
		wrmsr(MSR_EFER, want);
}

uint64_t run_enter(const struct run_opts *o, uintptr_t user_entry, uintptr_t stack,
		   const void *fn, uint64_t a0, uint64_t a1)
{
	uint64_t v;
	syscall_enable(o->syscall);
	if (o->cpl3) {
		v = run_cpl3(payload_user_alias(user_entry), stack, payload_user_alias((uint64_t)fn),
			     a0, a1, RFLAGS_RESERVED1 | RFLAGS_IF);
	} else {
			v = run_cpl0((uint64_t)fn, a0, a1, stack);
	}
	syscall_enable(false);
	return v;
}

void run_frame_resume(struct trap_frame *f)
{
	f->rip = (uint64_t)run_resume;
	f->cs = SEL_KCODE;
	f->ss = SEL_KDATA;
	f->rflags = RFLAGS_RESERVED1;
	/* run_resume reloads RSP from its own save slot; any valid stack will do here. */
	f->rsp = (uint64_t)f;
	f->rax = 0;
}

uint64_t run_payload_direct(const void *fn, uint64_t arg, uint64_t n)
{
	/* Payloads keep the System V callee-saved registers (the harness relies on it). */
	return ((uint64_t (*)(uint64_t, uint64_t))fn)(arg, n);
}
