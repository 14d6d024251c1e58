/* trap_dump for x86-64: the full register state of struct trap_frame. */
#include "arch/x86/traps.h"
#include "arch/x86/cpu.h"
#include "arch/x86/desc.h"
#include "arch/x86/stacks.h"

void trap_dump(const struct trap_frame *f)
{
	trap_printf("exception %s (vector %lu) error=0x%lx cpl=%lu\n", vector_name(f->vector),
		f->vector, f->error, f->cs & 3);
	trap_printf("  RIP=%016lx CS=%04lx RFLAGS=%016lx\n", f->rip, f->cs, f->rflags);
	trap_printf("  RSP=%016lx SS=%04lx CR2=%016lx\n", f->rsp, f->ss, read_cr2());
	trap_printf("  RAX=%016lx RBX=%016lx RCX=%016lx RDX=%016lx\n", f->rax, f->rbx, f->rcx, f->rdx);
	trap_printf("  RSI=%016lx RDI=%016lx RBP=%016lx R8 =%016lx\n", f->rsi, f->rdi, f->rbp, f->r8);
	trap_printf("  R9 =%016lx R10=%016lx R11=%016lx R12=%016lx\n", f->r9, f->r10, f->r11, f->r12);
	trap_printf("  R13=%016lx R14=%016lx R15=%016lx CR3=%016lx\n", f->r13, f->r14, f->r15,
		read_cr3());
	if (f->vector == VEC_PF || f->vector == VEC_DF) {
		int s = stack_guard_hit(read_cr2());
		if (s >= 0)
			trap_printf("  CR2 is in the guard page of the %s stack: stack overflow\n",
				stack_name(s));
	}
}
