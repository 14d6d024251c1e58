/* Trap handling: exception fixups, CPL 3 and payload faults, kernel fault reports. */
#ifndef ARCH_X86_TRAPS_H
#define ARCH_X86_TRAPS_H
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

struct trap_frame {
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8, rbp, rdi, rsi, rdx, rcx, rbx, rax;
	uint64_t vector, error;
	uint64_t rip, cs, rflags, rsp, ss;   /* pushed by the CPU */
};
_Static_assert(sizeof(struct trap_frame) == 22 * 8, "trap frame layout");

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

/* Interrupt handlers registered by drivers (APIC timer, ...). Return true if handled. */
typedef bool (*irq_handler_fn)(struct trap_frame *f);
void trap_set_irq_handler(unsigned vector, irq_handler_fn fn);

/* Called by kernel code for an unrecoverable state: report, then stop. */
__attribute__((noreturn)) void trap_fatal(const struct trap_frame *f, const char *why);
/* NMIs received so far (each is noted on the console and otherwise ignored). */
uint64_t trap_nmi_count(void);
/* Print the full register dump (vector, error, RIP, CS, RFLAGS, RSP, CR2, GPRs). */
void trap_dump(const struct trap_frame *f);

#endif
