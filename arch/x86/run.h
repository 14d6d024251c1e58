/*
 * Running code at CPL 0 or CPL 3 with a recovery point: a fault, an int3, or the
 * watchdog ends the run and control comes back here with the details, instead of
 * stopping the kernel. One run at a time (single CPU).
 */
#ifndef ARCH_X86_RUN_H
#define ARCH_X86_RUN_H
#include <stdbool.h>
#include <stdint.h>
#include "arch/x86/traps.h"

enum run_status { RUN_OK = 0, RUN_FAULT, RUN_TIMEOUT };

struct run_fault {
	unsigned vector;
	uint64_t error, rip, cr2, rsp;   /* rip: the instruction's start; cr2: #PF and #DF */
	unsigned cpl;
	bool soft_int;                   /* raised by INT n (vector >= 32) */
};

struct run_result {
	enum run_status status;
	uint64_t value;            /* what the function returned (RUN_OK) */
	struct run_fault fault;    /* RUN_FAULT; RUN_TIMEOUT: rip, rsp and cpl where it stopped */
	uint64_t steps;            /* single-step #DB traps counted during the run */
	/* Single-stepping: the first instruction met after which the CPU gives no single-step
	 * trap (INT n, STI, MOV SS, ...: lib/x86-insn.h), so `steps` is short; NULL: none. */
	const char *step_hazard;
	uint64_t step_hazard_rip;
};

struct run_opts {
	bool cpl3;
	bool single_step;          /* count #DB traps (the code sets TF itself), and look at
				    * each instruction before it runs for a step_hazard */
	bool int3_resumes;         /* int3 from CPL 3 returns at once (exception round trip) */
	bool syscall;              /* SYSCALL is served (x86-64); otherwise it raises #UD */
	uint32_t watchdog_ms;      /* 0 = none */
};

/*
 * Call fn(a0, a1), a function in the .payload section, at CPL 0 (kernel alias) or
 * CPL 3 (user alias, entered through user_entry with the user stack). Returns what fn
 * returned in r->value, or the fault/timeout that ended it.
 */
void run_call(const struct run_opts *o, const void *fn, uint64_t a0, uint64_t a1,
	      struct run_result *r);
/* Call a .payload function fn(arg, n) directly at CPL 0, with no recovery point and no
 * watchdog: for loads that only keep a CPU busy (kernel/placement.c), never for
 * measurements or payloads that may fault. Returns what fn returned. */
uint64_t run_payload_direct(const void *fn, uint64_t arg, uint64_t n);
/* The user stack for CPL 3 runs (user-region address of its top). */
void run_set_user_stack(uint64_t top);

/* Set up SYSCALL/SYSRET (EFER.SCE, STAR, LSTAR, FMASK) where the CPU has them
 * (CPUID.80000001H:EDX[11]); only the SYSCALL payloads use them. */
void run_init(bool syscall);
/* Allow or refuse RDPMC at CPL 3 (CR4.PCE). */
void run_set_pce(bool on);
bool run_get_pce(void);

/* Watchdog provider (local APIC timer, else the PIT): arm/disarm a one-shot that raises
 * `vector`. Where one interrupt cannot span the budget, spent() says at each whether the
 * budget is used up (and starts the next piece if not); NULL: the first one ends the run. */
struct watchdog_ops {
	bool (*arm)(uint32_t ms);
	void (*disarm)(void);
	unsigned vector;
	bool (*spent)(void);
};
void run_set_watchdog(const struct watchdog_ops *ops);

/* For traps.c: consulted on every exception/interrupt, before the handler registered
 * for its vector (has_handler). True: the trap is dealt with, false: handle it as usual.
 * Ends the run of this CPU with every exception but NMI and #MC, with INT n, and with a
 * vector that has no handler. */
bool run_handle_trap(struct trap_frame *f, bool has_handler);

#endif
