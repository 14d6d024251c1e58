/*
 * The payload catalogue: each entry names a .payload function fn(arg, iters), says
 * what it measures, how many instructions one iteration executes, and where it may run.
 */
#ifndef PAYLOADS_PAYLOAD_H
#define PAYLOADS_PAYLOAD_H
#include <stdbool.h>
#include <stdint.h>
#include "lib/config.h"
#include "lib/cpuinfo.h"
#include "payloads/userbench.h"

#define PL_CPL0          0x001u   /* may run at CPL 0 */
#define PL_CPL3          0x002u   /* may run at CPL 3 */
#define PL_SIZES         0x004u   /* measured once per configured buffer size */
#define PL_KERNEL_CODE   0x008u   /* each iteration also runs kernel code (transitions) */
#define PL_FAULT         0x010u   /* test payload: expected to fault or hang */
#define PL_INT3_RESUME   0x020u   /* int3 from CPL 3 must return at once */
#define PL_NEEDS_RDPMC   0x040u   /* needs a working PMU and RDPMC */
#define PL_NEEDS_RDTSCP  0x080u
#define PL_NEEDS_POPCNT  0x100u
#define PL_NEEDS_SYSCALL 0x200u   /* executes SYSCALL itself (never in the i686 kernel) */
#define PL_NEEDS_SSE2    0x400u   /* SSE2 instructions (LFENCE, MFENCE too): all x86-64 CPUs */

enum payload_arg {
	ARG_NONE = 0,
	ARG_CHASE,          /* start of the pointer chain built over the buffer */
	ARG_SEQ_DESC,       /* pointer to {base, end} of the buffer */
	ARG_KERNEL_ADDR,    /* an address in the kernel image */
	ARG_RDPMC_INDEX,    /* RDPMC index of the first programmed counter */
	ARG_NONZERO,        /* any non-zero value (popcnt input) */
};

struct payload {
	const char *name;
	const char *desc;
	const void *fn;
	int insns_per_iter;       /* instructions of the payload per iteration */
	unsigned flags;
	enum payload_arg arg;
	unsigned expect_vector;   /* PL_FAULT: the exception it raises, or NEVER_ENDS */
	/* A user benchmark (bench.NAME.* in the configuration): its code is generated at run
	 * time, fn is its supervisor alias, user_fn the user one; layout says where what is. */
	const struct cfg_bench *user;
	uintptr_t user_fn;
	const struct userbench_layout *layout;
};

extern const struct payload payload_catalogue[];
extern const unsigned payload_count;

#define NEVER_ENDS (~0u)         /* expect_vector of a payload only the watchdog stops */
#define CPU_NO_SYSCALL "CPU has no SYSCALL (CPUID.80000001H:EDX[11] is clear)"

/* Why this payload cannot run on this CPU (NULL if it can). */
const char *payload_unsupported(const struct payload *p, const struct cpu_info *ci,
				bool pmu_functional);
/* Fill buf (user VA, `size` bytes) with a random cyclic chain of cache lines: each
 * line's first machine word points to the next. Same permutation for a given size. */
void payload_build_chase(uintptr_t buf, uint64_t size);
/* The same with `stride` bytes between the chained words (a multiple of the word size):
 * the cycle visits size / stride words in random order, starting at buf. */
void payload_build_chase_stride(uintptr_t buf, uint64_t size, uint64_t stride);
/* Fill buf with pseudo-random words (the same for a given size). */
void payload_fill_random(uintptr_t buf, uint64_t size);

#endif
