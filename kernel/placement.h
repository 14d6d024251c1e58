/*
 * Where the plan runs and next to what: cpu= names the logical CPU that runs the
 * measurement loop (with its own PMU programming), partner= another CPU (by default the
 * SMT sibling of cpu=) and partner.load= what the partner does meanwhile, one whole run of
 * the plan per item: idle (parked in HLT), spin (a busy loop) or a catalogue payload run
 * over and over at CPL 0. The boot CPU waits in HLT while another CPU measures.
 */
#ifndef KERNEL_PLACEMENT_H
#define KERNEL_PLACEMENT_H
#include <stdbool.h>
#include "kernel/engine.h"
#include "lib/config.h"


struct placement {
	unsigned cpu;               /* the CPU running the plan now */
	int partner;                /* its partner, -1 when none */
	const char *load;           /* what the partner does now: "idle", "spin", a payload */
};
extern struct placement placement;

/* Check cpu=, partner= and partner.load= against the CPUs that came up and the
 * catalogue; errors go to report_error (context "placement"), and what is wrong falls
 * back to CPU 0, no partner, idle. The number of errors. */
unsigned placement_check(void);
/* Run run_plan once per partner load, on the chosen CPU, with the partner loaded. The
 * number of errors (a CPU that did not take its part). */
unsigned placement_run(void (*run_plan)(void));
/* Fill a result's cpu/partner fields (only when more than one CPU is up). */
void placement_mark(struct result *r);

#endif
