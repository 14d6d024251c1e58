/* trap_dump for i686: the full register state of struct trap_frame. */
#include "arch/x86/traps.h"
#include "arch/x86/cpu.h"
#include "arch/x86/desc.h"
#include "arch/x86/stacks.h"

void trap_dump(const struct trap_frame *f)
{
	/* A #DF frame is built by df_task from the saved task state: ESP and SS are real. */
	bool saved_task = f->vector == VEC_DF;
	uint32_t ss = (f->cs & 3) || saved_task ? f->ss : SEL_KDATA;
	uint32_t sp = saved_task ? f->esp : trap_frame_sp(f);

	trap_printf("exception %s (vector %u) error=0x%x cpl=%u\n", vector_name(f->vector),
		f->vector, f->error, f->cs & 3);
	trap_printf("  EIP=%08x CS=%04x EFLAGS=%08x\n", f->eip, f->cs & 0xffff, f->eflags);
	trap_printf("  ESP=%08x SS=%04x CR2=%08x CR3=%08x\n", sp, ss & 0xffff,
		(uint32_t)read_cr2(), (uint32_t)read_cr3());
	trap_printf("  EAX=%08x EBX=%08x ECX=%08x EDX=%08x\n", f->eax, f->ebx, f->ecx, f->edx);
	trap_printf("  ESI=%08x EDI=%08x EBP=%08x\n", f->esi, f->edi, f->ebp);
	trap_printf("  DS=%04x ES=%04x FS=%04x GS=%04x\n", f->ds & 0xffff, f->es & 0xffff,
		f->fs & 0xffff, f->gs & 0xffff);
	if (f->vector == VEC_PF || f->vector == VEC_DF) {
		int s = stack_guard_hit(read_cr2());
		if (s >= 0)
			trap_printf("  CR2 is in the guard page of the %s stack: stack overflow\n",
				stack_name(s));
	}
}
