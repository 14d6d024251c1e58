/*
 * mode=pmucheck: a PMU check suite with known answers (docs/pmucheck.md).
 *
 * The checks program counters through a generation's backend and the msr_io of the
 * pmu_state they are given, run payloads of known behaviour through the environment's
 * run() callback, and hand each verdict to its result() callback. They print nothing:
 * kernel/pmucheck.c prints the lines and @check records, the host tests drive the same
 * checks against the counting MSR model (tests/unit/msr_model.h).
 *
 * Every count is taken by the difference method the engine uses: the payload runs for N
 * and for 2N iterations with the counters programmed the same way, and count(2N) -
 * count(N) is what N iterations add. The call, the ring transitions and the backend's
 * start/stop code are the same in both runs and cancel exactly.
 */
#ifndef ARCH_X86_PMU_CONFORMANCE_H
#define ARCH_X86_PMU_CONFORMANCE_H
#include <stdbool.h>
#include <stdint.h>
#include "arch/x86/pmu/pmu.h"
#include "lib/event.h"

/* The payloads the checks run; the environment knows how to run each. */
enum pmucheck_payload {
	PMUCHECK_LOOP,          /* "dec; jnz": 2 instructions and 1 taken branch per iteration */
	PMUCHECK_SPACED,        /* a long dependency chain and 1 branch per iteration, so the
	                           branches retire far apart: 1 rising edge of "branches
	                           retired >= 1" per iteration */
	PMUCHECK_PAYLOAD_COUNT
};

/* The events the checks count, parsed by the caller for this PMU (perf generic names). */
enum pmucheck_event { PMUCHECK_EV_INSTRUCTIONS, PMUCHECK_EV_CYCLES, PMUCHECK_EV_BRANCHES,
		      PMUCHECK_EV_COUNT };

enum pmucheck_verdict { PMUCHECK_PASS, PMUCHECK_FAIL, PMUCHECK_SKIP };

/* Room for every counter of the largest PMU (8 GP, 4 fixed); longer text ends in "...". */
#define PMUCHECK_TEXT_MAX 1536

struct pmucheck_result {
	const char *name;               /* "instructions", "privilege", ... */
	enum pmucheck_verdict verdict;
	char measured[PMUCHECK_TEXT_MAX];   /* what was counted, "gp0.cpl0=200000 ..." */
	char rule[PMUCHECK_TEXT_MAX];       /* the rule the values were held to, or for a
	                                       SKIP why the check does not apply */
	char why[PMUCHECK_TEXT_MAX];        /* FAIL: which value broke the rule */
};

struct pmucheck_env {
	/* Run payload p at CPL cpl (0 or 3) for n iterations, the counters as programmed.
	 * 0, or the exception vector that ended it (-1 for a watchdog stop). */
	int (*run)(void *ctx, enum pmucheck_payload p, unsigned cpl, uint64_t n);
	/* RDPMC of index with fault fixup: 0 or the vector (6 = #UD, 13 = #GP). */
	int (*rdpmc)(void *ctx, uint32_t index, uint64_t *val);
	/* One verdict; called once per check, in table order. */
	void (*result)(void *ctx, const struct pmucheck_result *r);
	void *ctx;
	uint64_t iters;                 /* N; 2N must fit the payloads' loop counter */
	unsigned insns_per_iter[PMUCHECK_PAYLOAD_COUNT];    /* instructions per iteration */
	unsigned branches_per_iter[PMUCHECK_PAYLOAD_COUNT]; /* branches per iteration */
	struct ev_encoding ev[PMUCHECK_EV_COUNT];
	bool have_ev[PMUCHECK_EV_COUNT];    /* false: the event could not be encoded */
};

struct pmucheck_summary { unsigned passed, failed, skipped; };

enum pmucheck_scope {
	PMUCHECK_FULL,          /* mode=pmucheck: every check */
	PMUCHECK_BRIEF,         /* after the boot self-check: the cheap subset */
};

/*
 * Run the checks of scope on st (probed, nothing assigned). With skip_reason set no
 * counter is touched and every check of scope is reported SKIP with that reason (no
 * usable PMU). Leaves every counter disabled. The tally goes to sum.
 */
void pmucheck_run(struct pmu_state *st, const struct pmucheck_env *env,
		  enum pmucheck_scope scope, const char *skip_reason,
		  struct pmucheck_summary *sum);

/* Number of checks of scope, and the name of the i-th (for listings and tests). */
unsigned pmucheck_count(enum pmucheck_scope scope);
const char *pmucheck_name(enum pmucheck_scope scope, unsigned i);

#endif
