/* The catalogue. insns_per_iter is what the icount test holds each payload to. */
#include "payloads/payload.h"
#include "payloads/userbench.h"
#include "arch/x86/uaccess.h"
#include "lib/util.h"

extern char pl_empty[], pl_add_chain[], pl_add_indep[], pl_imul_chain[], pl_imul_indep[];
extern char pl_div_chain[], pl_div_indep[], pl_lea_chain[], pl_lea_indep[];
extern char pl_popcnt_chain[], pl_popcnt_indep[], pl_fp_chain[], pl_fp_indep[];
extern char pl_mem_chase[], pl_mem_seq_read[], pl_br_taken[], pl_br_random[];
extern char pl_br_predictable[], pl_sys_syscall[], pl_sys_int80[], pl_sys_int3[];
extern char pl_cost_rdtsc[], pl_cost_rdtscp[], pl_cost_rdpmc[], pl_cost_cpuid[];
extern char pl_cost_lfence[], pl_cost_mfence[], pl_cost_rdmsr[];
extern char pl_fault_priv[], pl_fault_kaddr[], pl_fault_div0[], pl_fault_ud[], pl_fault_hang[];

#define BOTH (PL_CPL0 | PL_CPL3)

/* Both kernels assemble the same payload sources (the .asm files here, with
 * arch/x86/word.inc), so the names and instruction counts are the same; the operations
 * are word-sized (64-bit registers on x86-64, 32-bit ones on i686) and the kernel returns
 * from INT 0x80 with IRETQ or IRETD. Only the descriptions say so. */
#ifdef __x86_64__
#define WORD "64"
#define IRET "IRETQ"
#define IRET_LC "iretq"
#else
#define WORD "32"
#define IRET "IRETD"
#define IRET_LC "iretd"
#endif

const struct payload payload_catalogue[] = {
	{ .name = "empty", .desc = "the loop alone (dec; jnz): calibration", .fn = pl_empty,
	  .insns_per_iter = 2, .flags = BOTH },
	{ .name = "add_chain", .desc = "8 dependent " WORD "-bit ADDs: ADD latency", .fn = pl_add_chain,
	  .insns_per_iter = 10, .flags = BOTH },
	{ .name = "add_indep", .desc = "8 ADDs over 4 registers: ADD throughput", .fn = pl_add_indep,
	  .insns_per_iter = 10, .flags = BOTH },
	{ .name = "imul_chain", .desc = "8 dependent IMUL r" WORD ": IMUL latency", .fn = pl_imul_chain,
	  .insns_per_iter = 10, .flags = BOTH },
	{ .name = "imul_indep", .desc = "8 IMUL r" WORD " over 4 registers: IMUL throughput", .fn = pl_imul_indep,
	  .insns_per_iter = 10, .flags = BOTH },
	{ .name = "div_chain", .desc = "4 dependent DIV r" WORD " (xor edx; div): DIV latency", .fn = pl_div_chain,
	  .insns_per_iter = 10, .flags = BOTH },
	{ .name = "div_indep", .desc = "4 independent DIV r" WORD ": DIV throughput", .fn = pl_div_indep,
	  .insns_per_iter = 14, .flags = BOTH },
	{ .name = "lea_chain", .desc = "8 dependent 3-component LEAs: LEA latency", .fn = pl_lea_chain,
	  .insns_per_iter = 10, .flags = BOTH },
	{ .name = "lea_indep", .desc = "8 independent 3-component LEAs", .fn = pl_lea_indep,
	  .insns_per_iter = 10, .flags = BOTH },
	{ .name = "popcnt_chain", .desc = "8 dependent POPCNT r" WORD, .fn = pl_popcnt_chain,
	  .insns_per_iter = 10, .flags = BOTH | PL_NEEDS_POPCNT, .arg = ARG_NONZERO },
	{ .name = "popcnt_indep", .desc = "8 POPCNT r" WORD " into 4 registers", .fn = pl_popcnt_indep,
	  .insns_per_iter = 10, .flags = BOTH | PL_NEEDS_POPCNT, .arg = ARG_NONZERO },
	{ .name = "fp_chain", .desc = "8 dependent ADDSD (SSE2): FP add latency", .fn = pl_fp_chain,
	  .insns_per_iter = 10, .flags = BOTH | PL_NEEDS_SSE2 },
	{ .name = "fp_indep", .desc = "8 ADDSD over 4 accumulators: FP add throughput", .fn = pl_fp_indep,
	  .insns_per_iter = 10, .flags = BOTH | PL_NEEDS_SSE2 },
	{ .name = "mem_chase", .desc = "pointer chase over a random cycle of cache lines: load latency", .fn = pl_mem_chase,
	  .insns_per_iter = 3, .flags = BOTH | PL_SIZES, .arg = ARG_CHASE },
	{ .name = "mem_seq_read", .desc = "sequential read, one 64-byte line per iteration: bandwidth", .fn = pl_mem_seq_read,
	  .insns_per_iter = 13, .flags = BOTH | PL_SIZES, .arg = ARG_SEQ_DESC },
	{ .name = "br_taken", .desc = "4 always-taken jumps", .fn = pl_br_taken,
	  .insns_per_iter = 6, .flags = BOTH },
	{ .name = "br_random", .desc = "branch on a pseudo-random bit: misprediction cost", .fn = pl_br_random,
	  .insns_per_iter = 15, .flags = BOTH },
	{ .name = "br_predictable", .desc = "br_random's code with an always-taken branch", .fn = pl_br_predictable,
	  .insns_per_iter = 15, .flags = BOTH },
	{ .name = "sys_syscall", .desc = "SYSCALL/SYSRET round trip (kernel side: cmp, jne, sysret)", .fn = pl_sys_syscall,
	  .insns_per_iter = 4, .flags = PL_CPL3 | PL_KERNEL_CODE | PL_NEEDS_SYSCALL },
	{ .name = "sys_int80", .desc = "INT 0x80/" IRET " round trip (kernel side: " IRET_LC ")", .fn = pl_sys_int80,
	  .insns_per_iter = 3, .flags = PL_CPL3 | PL_KERNEL_CODE },
	{ .name = "sys_int3", .desc = "#BP exception round trip (kernel side: test, jz, cmp, je, " IRET_LC ")", .fn = pl_sys_int3,
	  .insns_per_iter = 3, .flags = PL_CPL3 | PL_KERNEL_CODE | PL_INT3_RESUME },
	{ .name = "cost_rdtsc", .desc = "4 RDTSC", .fn = pl_cost_rdtsc,
	  .insns_per_iter = 6, .flags = BOTH },
	{ .name = "cost_rdtscp", .desc = "4 RDTSCP", .fn = pl_cost_rdtscp,
	  .insns_per_iter = 6, .flags = BOTH | PL_NEEDS_RDTSCP },
	{ .name = "cost_rdpmc", .desc = "4 RDPMC of a programmed counter", .fn = pl_cost_rdpmc,
	  .insns_per_iter = 6, .flags = BOTH | PL_NEEDS_RDPMC, .arg = ARG_RDPMC_INDEX },
	{ .name = "cost_cpuid", .desc = "2 CPUID leaf 0 (with 2 register clears each)", .fn = pl_cost_cpuid,
	  .insns_per_iter = 8, .flags = BOTH },
	{ .name = "cost_lfence", .desc = "4 LFENCE", .fn = pl_cost_lfence,
	  .insns_per_iter = 6, .flags = BOTH | PL_NEEDS_SSE2 },
	{ .name = "cost_mfence", .desc = "4 MFENCE", .fn = pl_cost_mfence,
	  .insns_per_iter = 6, .flags = BOTH | PL_NEEDS_SSE2 },
	{ .name = "cost_rdmsr", .desc = "4 RDMSR of IA32_TIME_STAMP_COUNTER", .fn = pl_cost_rdmsr,
	  .insns_per_iter = 6, .flags = PL_CPL0 },
	{ .name = "fault_priv", .desc = "test: HLT at CPL 3 (#GP)", .fn = pl_fault_priv,
	  .insns_per_iter = 3, .flags = PL_CPL3 | PL_FAULT, .arg = ARG_NONE, .expect_vector = 13 },
	{ .name = "fault_kaddr", .desc = "test: load from a kernel address at CPL 3 (#PF)", .fn = pl_fault_kaddr,
	  .insns_per_iter = 3, .flags = PL_CPL3 | PL_FAULT, .arg = ARG_KERNEL_ADDR, .expect_vector = 14 },
	{ .name = "fault_div0", .desc = "test: divide by zero (#DE)", .fn = pl_fault_div0,
	  .insns_per_iter = 5, .flags = BOTH | PL_FAULT, .arg = ARG_NONE, .expect_vector = 0 },
	{ .name = "fault_ud", .desc = "test: UD2 (#UD)", .fn = pl_fault_ud,
	  .insns_per_iter = 3, .flags = BOTH | PL_FAULT, .arg = ARG_NONE, .expect_vector = 6 },
	{ .name = "fault_hang", .desc = "test: a loop that never ends (watchdog)", .fn = pl_fault_hang,
	  .insns_per_iter = 1, .flags = BOTH | PL_FAULT, .arg = ARG_NONE, .expect_vector = NEVER_ENDS },
};
const unsigned payload_count = ARRAY_SIZE(payload_catalogue);

const char *payload_unsupported(const struct payload *p, const struct cpu_info *ci,
				bool pmu_functional)
{
	if ((p->flags & PL_NEEDS_RDTSCP) && !ci->rdtscp)
		return "CPU has no RDTSCP";
	if ((p->flags & PL_NEEDS_POPCNT) && !ci->popcnt)
		return "CPU has no POPCNT";
	if ((p->flags & PL_NEEDS_SSE2) && !ci->sse2)
		return "CPU has no SSE2 (CPUID.01H:EDX[26] is clear)";
	if ((p->flags & PL_NEEDS_SYSCALL) && sizeof(void *) == 4)
		return "SYSCALL is for long mode here: the i686 kernel runs in protected mode "
		       "(where Intel CPUs have no SYSCALL) and does not set it up";
	if ((p->flags & PL_NEEDS_SYSCALL) && !ci->syscall)
		return CPU_NO_SYSCALL;
	if (p->user && userbench_skip(p->user))
		return userbench_skip(p->user);
	if ((p->flags & PL_NEEDS_RDPMC) && !pmu_functional)
		return "no working PMU: RDPMC has nothing to read";
	return 0;
}

#define LINE 64u

/* xorshift64 (Marsaglia 2003): deterministic, so every run chases the same cycle. */
static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * Sattolo's algorithm gives a single cycle through all lines. The permutation is kept
 * in the lines themselves: first as line indices, then rewritten as addresses. The
 * chase loads machine words, so each line's first uintptr_t is the link.
 */
void payload_build_chase(uintptr_t buf, uint64_t size)
{
	payload_build_chase_stride(buf, size, LINE);
}

void payload_fill_random(uintptr_t buf, uint64_t size)
{
	uint64_t seed = 0x9e3779b97f4a7c15ull ^ size;
	volatile uint64_t *w = (volatile uint64_t *)buf;
	user_access_begin();
	for (uint64_t i = 0; i < size / sizeof(uint64_t); i++)
		w[i] = xorshift(&seed);
	user_access_end();
}

void payload_build_chase_stride(uintptr_t buf, uint64_t size, uint64_t line)
{
	const uintptr_t stride = (uintptr_t)(line / sizeof(uintptr_t));
	uintptr_t lines = (uintptr_t)size / (uintptr_t)line;      /* both at most 1 GiB */
	if (lines == 0)
		return;
	uint64_t seed = 0x2545f4914f6cdd1dull ^ size;
	volatile uintptr_t *w = (volatile uintptr_t *)buf;
	user_access_begin();
	for (uintptr_t i = 0; i < lines; i++)
		w[i * stride] = i;
	for (uintptr_t i = lines - 1; i > 0; i--) {
		/* j < i: Sattolo, not Fisher-Yates. Word-sized %, which needs no libgcc. */
		uintptr_t j = (uintptr_t)xorshift(&seed) % i;
		uintptr_t t = w[i * stride];
		w[i * stride] = w[j * stride];
		w[j * stride] = t;
	}
	for (uintptr_t i = 0; i < lines; i++)
		w[i * stride] = buf + w[i * stride] * (uintptr_t)line;
	user_access_end();
}
