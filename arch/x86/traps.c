/* Every vector lands in trap_dispatch. Order: exception fixups in ring 0, the current
 * run (payload faults, single-step, watchdog), registered IRQ handlers, and finally a
 * full report and a clean stop for anything unexpected. */
#include "arch/x86/traps.h"
#include "arch/x86/cpu.h"
#include "arch/x86/desc.h"
#include "arch/x86/extable.h"
#include "arch/x86/run.h"

volatile int extable_vector;
extern const struct extable_entry __extable_start[], __extable_end[];
static irq_handler_fn irq_handlers[256];
static uint64_t nmi_count;
static const struct trap_hooks *hooks;

void trap_set_hooks(const struct trap_hooks *h)
{
	hooks = h;
}

void trap_printf(const char *fmt, ...)
{
	va_list ap;
	if (!hooks || !hooks->vprint)
		return;
	va_start(ap, fmt);
	hooks->vprint(fmt, ap);
	va_end(ap);
}

uintptr_t extable_lookup(uintptr_t rip)
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
		uintptr_t cont = extable_lookup(trap_frame_ip(f));
		if (cont) {
			extable_vector = (int)f->vector;
			trap_frame_set_ip(f, cont);
			return;
		}
	}
	/* An NMI (a platform watchdog, a BMC, a memory error report) is not ours to handle;
	 * say that it came, since it may have disturbed a measurement, and go on. */
	if (f->vector == VEC_NMI) {
		if (irq_handlers[VEC_NMI] && irq_handlers[VEC_NMI](f))
			return;
		nmi_count++;
		trap_printf("note: NMI received (%llu so far); a measurement in progress may include "
			"its handling\n", (unsigned long long)nmi_count);
		return;
	}
	bool handled = run_handle_trap(f, f->vector >= 32 && irq_handlers[f->vector]);
	if (f->vector >= 32 && irq_handlers[f->vector])
		handled = irq_handlers[f->vector](f) || handled;
	if (handled)
		return;
	if (f->vector == VEC_APIC_SPURIOUS)
		return;
	trap_fatal(f, (f->cs & 3) ? "unexpected trap from CPL 3 outside a run"
				  : "unexpected exception in the kernel");
}
