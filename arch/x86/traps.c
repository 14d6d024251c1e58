/* Every vector lands in trap_dispatch. Order: exception fixups in ring 0, the current
 * run (payload faults, single-step, watchdog), registered IRQ handlers, and finally a
 * full report and a clean stop for anything unexpected. */
#include "arch/x86/traps.h"
#include "arch/x86/cpu.h"
#include "arch/x86/desc.h"
#include "arch/x86/extable.h"
#include "arch/x86/run.h"
#include "arch/x86/stacks.h"

volatile int extable_vector;
extern const struct extable_entry __extable_start[], __extable_end[];
static irq_handler_fn irq_handlers[256];
static uint64_t nmi_count;
static const struct trap_hooks *hooks;

void trap_set_hooks(const struct trap_hooks *h)
{
	hooks = h;
}

__attribute__((format(printf, 1, 2))) static void trap_printf(const char *fmt, ...)
{
	va_list ap;
	if (!hooks || !hooks->vprint)
		return;
	va_start(ap, fmt);
	hooks->vprint(fmt, ap);
	va_end(ap);
}

uint64_t extable_lookup(uint64_t rip)
{
	for (const struct extable_entry *e = __extable_start; e < __extable_end; e++)
		if (e->insn == rip)
			return e->cont;
	return 0;
}

uint64_t trap_nmi_count(void)
{
	return nmi_count;
}

void trap_set_irq_handler(unsigned vector, irq_handler_fn fn)
{
	if (vector < 256)
		irq_handlers[vector] = fn;
}

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
	if (f->vector == VEC_PF) {
		int s = stack_guard_hit(read_cr2());
		if (s >= 0)
			trap_printf("  CR2 is in the guard page of the %s stack: stack overflow\n",
				stack_name(s));
	}
}

void trap_fatal(const struct trap_frame *f, const char *why)
{
	trap_printf("\nFATAL: %s\n", why);
	if (f)
		trap_dump(f);
	if (hooks && hooks->stop_fatal)
		hooks->stop_fatal();
	/* No kernel to stop through yet: halt for good (an NMI only wakes the loop). */
	for (;;) {
		irq_disable();
		halt();
	}
}

void trap_dispatch(struct trap_frame *f)
{
	if ((f->cs & 3) == 0 && f->vector < 32) {
		uint64_t cont = extable_lookup(f->rip);
		if (cont) {
			extable_vector = (int)f->vector;
			f->rip = cont;
			return;
		}
	}
	/* An NMI (a platform watchdog, a BMC, a memory error report) is not ours to handle;
	 * say that it came, since it may have disturbed a measurement, and go on. */
	if (f->vector == VEC_NMI) {
		nmi_count++;
		trap_printf("note: NMI received (%lu so far); a measurement in progress may include "
			"its handling\n", nmi_count);
		return;
	}
	bool handled = run_handle_trap(f);
	if (f->vector >= 32 && irq_handlers[f->vector])
		handled = irq_handlers[f->vector](f) || handled;
	if (handled)
		return;
	if (f->vector == VEC_APIC_SPURIOUS)
		return;
	trap_fatal(f, (f->cs & 3) ? "unexpected trap from CPL 3 outside a run"
				  : "unexpected exception in the kernel");
}
