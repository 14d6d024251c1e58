/* The i686 half of arch/x86/run.c: IRET into ring 3, an interrupt gate out (SDM Vol. 3A
 * 6.12.1). SYSCALL does not exist in protected mode on Intel CPUs, so nothing here sets
 * it up (EFER.SCE stays clear: SYSCALL raises #UD, and run_opts.syscall is ignored). */
#include "arch/x86/run-word.h"
#include "arch/x86/cpu.h"
#include "arch/x86/desc.h"
#include "arch/x86/paging.h"

extern uint64_t run_cpl0(uint32_t fn, uint32_t a0, uint32_t a1, uint32_t stack);
extern uint64_t run_cpl3(uint32_t eip, uint32_t esp, uint32_t a0, uint32_t a1, uint32_t a2,
			 uint32_t eflags);

void run_init(bool syscall)
{
	(void)syscall;
}

uint64_t run_enter(const struct run_opts *o, uintptr_t user_entry, uintptr_t stack,
		   const void *fn, uint64_t a0, uint64_t a1)
{
	if (o->cpl3)
		return run_cpl3(payload_user_alias(user_entry), stack,
				payload_user_alias((uintptr_t)fn), (uint32_t)a0, (uint32_t)a1,
				RFLAGS_RESERVED1 | RFLAGS_IF);
	return run_cpl0((uintptr_t)fn, (uint32_t)a0, (uint32_t)a1, stack);
}

/* IRET to the same privilege pops EIP, CS and EFLAGS only and leaves ESP on the trap
 * stack; run_resume reloads ESP from its own save slot. */
void run_frame_resume(struct trap_frame *f)
{
	f->eip = (uintptr_t)run_resume;
	f->cs = SEL_KCODE;
	f->eflags = RFLAGS_RESERVED1;
	f->ds = f->es = SEL_KDATA;
	f->fs = f->gs = 0;
	f->eax = f->edx = 0;
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
