/* Trap handling: exception fixups, CPL 3 and payload faults, kernel fault reports. */
#ifndef ARCH_X86_TRAPS_H
#define ARCH_X86_TRAPS_H
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

/* struct trap_frame, trap_frame_ip and trap_frame_set_ip, one per word size. */
#ifdef __x86_64__
#include "arch/x86/64/trap-frame.h"
#else
#include "arch/x86/32/trap-frame.h"
#endif

/*
 * What traps need from the kernel, registered by kernel/ at init so that arch/ does not
 * include it. Until then a trap that would print stays silent, and a fatal one halts
 * with interrupts off (never a triple fault).
 */
struct trap_hooks {
	int (*vprint)(const char *fmt, va_list ap);     /* console output */
	__attribute__((noreturn)) void (*stop_fatal)(void); /* after the report: stop, failing */
};
void trap_set_hooks(const struct trap_hooks *hooks);

/* Interrupt handlers registered by drivers and the kernel (APIC timer, PMI, ...). Return
 * true if handled. A handler for VEC_NMI is asked first on every NMI (a PMI delivered as
 * NMI): true means it was its own; otherwise the NMI is noted as foreign. */
typedef bool (*irq_handler_fn)(struct trap_frame *f);
void trap_set_irq_handler(unsigned vector, irq_handler_fn fn);

/* Called by kernel code for an unrecoverable state: report, then stop. */
__attribute__((noreturn)) void trap_fatal(const struct trap_frame *f, const char *why);
/* NMIs received so far (each is noted on the console and otherwise ignored). */
uint64_t trap_nmi_count(void);
/* Print the full register dump (vector, error, RIP, CS, RFLAGS, RSP, CR2, GPRs); one per
 * word size (arch/x86/64/trap-dump.c, arch/x86/32/trap-dump.c). */
void trap_dump(const struct trap_frame *f);
/* Console output for trap code, through the registered hook (silent before it). */
__attribute__((format(printf, 1, 2))) void trap_printf(const char *fmt, ...);

#endif
