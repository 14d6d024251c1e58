/*
 * mode=c2c (docs/c2c.md): the cross-core tests of lib/c2c.h on pairs of CPUs. For each
 * pair the boot CPU hands each half to its CPU through kernel/smp.h (or runs it itself
 * when it is one of the two), waits for both with watchdog= as the limit, then prints a
 * line for people and an @c2c record; c2c_latency ends with the matrix. The halves'
 * bounded spins and smp_wait's timeout turn a CPU that never answers into an error for
 * that pair, never a hang.
 */
#include "kernel/c2c-mode.h"
#include "kernel/checkpoint.h"
#include "arch/x86/cpu.h"
#include "arch/x86/run.h"
#include "kernel/console.h"
#include "kernel/engine.h"
#include "kernel/kernel.h"
#include "kernel/lava-report.h"
#include "kernel/mem.h"
#include "kernel/platform.h"
#include "kernel/kpmu.h"
#include "kernel/pmucheck.h"
#include "kernel/screen-ui.h"
#include "kernel/smp.h"
#include "lib/c2c.h"
#include "lib/format.h"
#include "lib/str.h"

_Static_assert(CFG_C2C_CPUS == SMP_MAX_CPUS, "c2c= takes the CPU numbers kernel/smp.h has");
_Static_assert(C2C_MATRIX_MAX >= SMP_MAX_CPUS, "a matrix row for every CPU");

#define PAIRS_MAX (SMP_MAX_CPUS * (SMP_MAX_CPUS - 1) / 2)
#define JSON_MAX  512

/* Sample arrays, reps long; each test reuses those of the one before. */
enum { SAMPLES_LATENCY = 0, SAMPLES_WRITE = 0, SAMPLES_READ, SAMPLES_SHARED_0, SAMPLES_SHARED_1,
       SAMPLES_PADDED_0, SAMPLES_PADDED_1, SAMPLE_ARRAYS };

static struct {
	uint8_t pair[PAIRS_MAX][2];     /* [0] starts (ping, first counter, writer) */
	unsigned npairs;
	int64_t *samples[SAMPLE_ARRAYS];        /* reps each */
	uintptr_t *buf;                 /* shared_bw, c2c.size bytes */
	unsigned results, errors;
	int lost;                       /* a CPU that outlasted watchdog=, or -1 */
} run = { .lost = -1 };

static struct c2c_pingpong pingpong;
static struct c2c_counters counters;
static struct c2c_stream stream;
static struct c2c_matrix matrix;

static bool human(void) { return kernel.cfg.format != CFG_FORMAT_MACHINE; }
static bool machine(void) { return kernel.cfg.format != CFG_FORMAT_HUMAN; }

static uint64_t tsc_clock(void)
{
	return rdtsc();
}

static void skip(const char *test, const char *why)
{
	if (machine())
		kprintf("@skip {\"bench\":\"%s\",\"reason\":\"%s\"}\n", test, why);
	if (human())
		kprintf("%s: skipped: %s\n", test, why);
}

static void pair_error(const char *test, unsigned a, unsigned b, const char *why)
{
	char msg[300];
	bp_snprintf(msg, sizeof(msg), "CPUs %u and %u: %s", a, b, why);
	report_error(test, msg);
	run.errors++;
}

/* One @c2c record, and its LAVA case: TEST_cpuA_cpuB with the figure that sums it up. */
static void record(const char *json, const char *test, unsigned a, unsigned b,
		   int64_t milli, const char *units)
{
	if (machine())
		kprintf("@c2c %s\n", json);
	lava_report_c2c(test, a, b, milli, units);
	run.results++;
}

/* ------------------------------------------------------------ running a pair */

#define C2C_STOP_GRACE_MS 1000    /* for a partner told to stop; see run_pair */

/* This CPU's half, for run_call: it takes no arguments, since the i686 payload
 * convention passes them in registers a C function does not read. */
static struct {
	smp_fn fn;
	void *arg;
} own_half;

static void run_own_half_fn(void)
{
	own_half.fn(own_half.arg);
}

/* fn(arg) here, under watchdog= as a payload runs (arch/x86/run.h): 0, or -1 with the
 * reason in why when it outlasted it (or faulted); abort(arg) then stops the other half
 * at its next wait, so that CPU stays usable. */
static int run_own_half(unsigned self, smp_fn fn, void (*abort)(void *), void *arg, char *why,
			size_t whylen)
{
	const struct run_opts o = { .watchdog_ms = kernel.cfg.watchdog_ms };
	struct run_result r;

	own_half.fn = fn;
	own_half.arg = arg;
	run_call(&o, (const void *)(uintptr_t)run_own_half_fn, 0, 0, &r);
	if (r.status == RUN_OK)
		return 0;
	abort(arg);
	if (r.status == RUN_TIMEOUT)
		bp_snprintf(why, whylen, "CPU %u did not finish within %u ms (watchdog=)", self,
			    kernel.cfg.watchdog_ms);
	else
		bp_snprintf(why, whylen, "CPU %u faulted in its half: vector %u at 0x%llx", self,
			    r.fault.vector, (unsigned long long)r.fault.rip);
	return -1;
}

/*
 * first(arg) on CPU a and second(arg) on CPU b at once: each half goes to its CPU through
 * smp_call_async, or runs here, under watchdog=, when this CPU is one of the two. A half
 * whose partner could not be started spins out by itself; smp_wait gives up after
 * watchdog= ms (and smp.c never commands that CPU again). 0, or -1 with the reason in why.
 */
static int run_pair(unsigned a, smp_fn first, unsigned b, smp_fn second, void (*abort)(void *),
		    void *arg, char *why, size_t whylen)
{
	const unsigned cpu[2] = { a, b };
	const smp_fn fn[2] = { first, second };
	bool sent[2] = { false, false };
	unsigned self = smp_self();
	int rc = 0;

	/* A CPU given up on may still be running its half: it reads and writes the line,
	 * counters, buffer and sample arrays every pair shares, so no pair runs after it. */
	if (run.lost >= 0) {
		bp_snprintf(why, whylen, "not run: CPU %d may still be running its half of an "
			    "earlier pair (it outlasted watchdog=%u ms) in the memory every pair "
			    "shares", run.lost, kernel.cfg.watchdog_ms);
		return -1;
	}
	for (unsigned i = 0; i < 2; i++) {
		if (cpu[i] == self)
			continue;
		if (smp_call_async(cpu[i], fn[i], arg) == 0) {
			sent[i] = true;
		} else if (rc == 0) {
			bp_snprintf(why, whylen, "CPU %u is not online or is busy", cpu[i]);
			rc = -1;
		}
	}
	/* A partner told to stop (this CPU's half was stopped) ends at its next wait, but on a
	 * busy host (QEMU TCG) that may be later than a short watchdog= allows: it gets
	 * C2C_STOP_GRACE_MS, as an AP gets its time to answer, before it is given up on. */
	unsigned wait_ms = kernel.cfg.watchdog_ms;
	for (unsigned i = 0; i < 2; i++) {
		char own_why[160];
		if (cpu[i] != self || !run_own_half(self, fn[i], abort, arg, own_why, sizeof(own_why)))
			continue;
		if (rc == 0)
			str_copy(why, own_why, whylen);
		rc = -1;
		if (wait_ms < C2C_STOP_GRACE_MS)
			wait_ms = C2C_STOP_GRACE_MS;
	}
	for (unsigned i = 0; i < 2; i++) {
		if (sent[i] && smp_wait(cpu[i], wait_ms) != 0) {
			if (run.lost < 0)
				run.lost = (int)cpu[i];
			if (rc == 0)
				bp_snprintf(why, whylen, "CPU %u did not finish within %u ms (watchdog=); "
					    "it is not used again", cpu[i], kernel.cfg.watchdog_ms);
			rc = -1;
		}
	}
	return rc;
}

/* Both halves' statuses as one reason; 0 when both are C2C_OK. */
static int halves_failed(const char *first, unsigned a, enum c2c_status sa, const char *second,
			 unsigned b, enum c2c_status sb, char *why, size_t whylen)
{
	if (sa == C2C_OK && sb == C2C_OK)
		return 0;
	bp_snprintf(why, whylen, "CPU %u (%s): %s; CPU %u (%s): %s", a, first, c2c_status_text(sa),
		    b, second, c2c_status_text(sb));
	return -1;
}

/* ------------------------------------------------------------ c2c_latency */

static const char *sibling_note(unsigned a, unsigned b)
{
	return smp_siblings(a, b) ? " (SMT siblings)" : "";
}

static void latency_pair(unsigned a, unsigned b)
{
	char why[300], json[JSON_MAX], v[4][32];
	struct c2c_latency l;
	int ra = c2c_matrix_index(&matrix, a), rb = c2c_matrix_index(&matrix, b);

	c2c_pingpong_init(&pingpong, tsc_clock, C2C_SPIN_DEFAULT, kernel.cfg.c2c_rounds,
			  kernel.cfg.warmup, kernel.cfg.reps, run.samples[SAMPLES_LATENCY], why, sizeof(why));
	if (run_pair(a, c2c_ping, b, c2c_pong, c2c_pingpong_abort, &pingpong, why, sizeof(why)) ||
	    halves_failed("ping", a, pingpong.ping_status, "pong", b, pingpong.pong_status, why,
			  sizeof(why))) {
		matrix.cell[ra][rb] = C2C_CELL_FAIL;
		pair_error("c2c_latency", a, b, why);
		return;
	}
	c2c_latency_result(&pingpong, kernel.cfg.trim_pct, a, b, &l);
	matrix.cell[ra][rb] = l.one_way_median_milli;
	c2c_latency_json(&l, kernel.cpu.tsc_hz, json, sizeof(json));
	record(json, "c2c_latency", a, b, l.one_way_median_milli, "ticks/one-way");
	if (!human())
		return;
	stats_fmt_milli(v[0], sizeof(v[0]), l.one_way_median_milli);
	stats_fmt_milli(v[1], sizeof(v[1]), l.round_trip_median_milli);
	stats_fmt_milli(v[2], sizeof(v[2]), l.one_way_min_milli);
	stats_fmt_milli(v[3], sizeof(v[3]),
			c2c_ticks_to_ns_milli(l.one_way_median_milli, kernel.cpu.tsc_hz));
	kprintf("c2c_latency CPU %u -> %u%s: one way %s ticks (round trip %s), min %s%s%s%s\n", a,
		b, sibling_note(a, b), v[0], v[1], v[2], kernel.cpu.tsc_hz ? "; one way " : "",
		kernel.cpu.tsc_hz ? v[3] : "", kernel.cpu.tsc_hz ? " ns" : "");
}

static void matrix_to_ns(void)
{
	for (unsigned r = 0; r < matrix.n; r++)
		for (unsigned c = 0; c < matrix.n; c++)
			if (matrix.cell[r][c] != C2C_CELL_NONE && matrix.cell[r][c] != C2C_CELL_FAIL)
				matrix.cell[r][c] = c2c_ticks_to_ns_milli(matrix.cell[r][c],
									  kernel.cpu.tsc_hz);
}

static void run_latency(void)
{
	unsigned cpus[SMP_MAX_CPUS], n = 0;
	char why[200];

	if (c2c_pingpong_init(&pingpong, tsc_clock, C2C_SPIN_DEFAULT, kernel.cfg.c2c_rounds,
			      kernel.cfg.warmup, kernel.cfg.reps, run.samples[SAMPLES_LATENCY], why,
			      sizeof(why))) {
		report_error("c2c_latency", why);
		run.errors++;
		return;
	}
	/* The matrix has a row and a column for each CPU of some pair, in order. */
	for (unsigned cpu = 0; cpu < SMP_MAX_CPUS; cpu++)
		for (unsigned i = 0; i < run.npairs; i++)
			if (run.pair[i][0] == cpu || run.pair[i][1] == cpu) {
				cpus[n++] = cpu;
				break;
			}
	c2c_matrix_init(&matrix, cpus, n);
	for (unsigned i = 0; i < run.npairs; i++) {
		latency_pair(run.pair[i][0], run.pair[i][1]);
		checkpoint();
	}
	if (!human())
		return;
	kprintf("\n c2c_latency: one way = round trip / 2, in TSC ticks; median of %u samples of "
		"%u round trips; row: the CPU that writes first, column: the CPU that answers\n",
		kernel.cfg.reps, kernel.cfg.c2c_rounds);
	c2c_matrix_format(&matrix, console_line, 0);
	if (!kernel.cpu.tsc_hz)
		return;
	matrix_to_ns();
	kprintf("\n c2c_latency: the same in ns (TSC at %llu Hz)\n",
		(unsigned long long)kernel.cpu.tsc_hz);
	c2c_matrix_format(&matrix, console_line, 0);
}

/* ------------------------------------------------------------ false_sharing */

/* One run each way: counters in one line, then padded; the ticks of a timed one kept. */
static int count_both_ways(unsigned a, unsigned b, unsigned rep, char *why, size_t whylen)
{
	for (unsigned padded = 0; padded < 2; padded++) {
		c2c_counters_init(&counters, tsc_clock, C2C_SPIN_DEFAULT, kernel.cfg.c2c_increments,
				  padded);
		if (run_pair(a, c2c_count_first, b, c2c_count_second, c2c_counters_abort, &counters,
			     why, whylen) ||
		    halves_failed("first counter", a, counters.status[0], "second counter", b,
				  counters.status[1], why, whylen))
			return -1;
		if (rep < kernel.cfg.warmup)
			continue;
		unsigned at = rep - kernel.cfg.warmup;
		run.samples[padded ? SAMPLES_PADDED_0 : SAMPLES_SHARED_0][at] = (int64_t)counters.ticks[0];
		run.samples[padded ? SAMPLES_PADDED_1 : SAMPLES_SHARED_1][at] = (int64_t)counters.ticks[1];
	}
	return 0;
}

static void false_sharing_pair(unsigned a, unsigned b)
{
	int64_t *const shared[2] = { run.samples[SAMPLES_SHARED_0], run.samples[SAMPLES_SHARED_1] };
	int64_t *const padded[2] = { run.samples[SAMPLES_PADDED_0], run.samples[SAMPLES_PADDED_1] };
	const unsigned cpu[2] = { a, b };
	struct c2c_false_sharing f;
	char why[300], json[JSON_MAX], v[5][32];

	for (unsigned rep = 0; rep < kernel.cfg.warmup + kernel.cfg.reps; rep++) {
		if (count_both_ways(a, b, rep, why, sizeof(why))) {
			pair_error("false_sharing", a, b, why);
			return;
		}
	}
	c2c_false_sharing_result(shared, padded, kernel.cfg.reps, kernel.cfg.c2c_increments, cpu,
				 &f);
	c2c_false_sharing_json(&f, json, sizeof(json));
	record(json, "false_sharing", a, b, f.ratio_milli, "shared/padded");
	if (!human())
		return;
	stats_fmt_milli(v[0], sizeof(v[0]), f.shared_milli[0]);
	stats_fmt_milli(v[1], sizeof(v[1]), f.shared_milli[1]);
	stats_fmt_milli(v[2], sizeof(v[2]), f.padded_milli[0]);
	stats_fmt_milli(v[3], sizeof(v[3]), f.padded_milli[1]);
	stats_fmt_milli(v[4], sizeof(v[4]), f.ratio_milli);
	kprintf("false_sharing CPUs %u and %u%s: ticks per locked increment (median of %u runs "
		"of %u), counters in one line %s and %s, in two lines %s and %s; ratio %s\n", a, b, sibling_note(a, b), kernel.cfg.reps,
		kernel.cfg.c2c_increments, v[0], v[1], v[2], v[3], v[4]);
}

/* ------------------------------------------------------------ shared_bw */

static void shared_bw_pair(unsigned a, unsigned b)
{
	struct c2c_bandwidth bw;
	char why[300], json[JSON_MAX], v[4][32], gb[80] = "";

	c2c_stream_init(&stream, tsc_clock, C2C_SPIN_DEFAULT, run.buf, kernel.cfg.c2c_size,
			kernel.cfg.warmup, kernel.cfg.reps, run.samples[SAMPLES_WRITE],
			run.samples[SAMPLES_READ]);
	if (run_pair(a, c2c_stream_write, b, c2c_stream_read, c2c_stream_abort, &stream, why,
			     sizeof(why)) ||
	    halves_failed("writer", a, stream.writer_status, "reader", b, stream.reader_status, why,
			  sizeof(why))) {
		pair_error("shared_bw", a, b, why);
		return;
	}
	c2c_bandwidth_result(&stream, a, b, &bw);
	c2c_bandwidth_json(&bw, kernel.cpu.tsc_hz, json, sizeof(json));
	record(json, "shared_bw", a, b, bw.read_milli, "bytes/tick");
	if (!human())
		return;
	stats_fmt_milli(v[0], sizeof(v[0]), bw.write_milli);
	stats_fmt_milli(v[1], sizeof(v[1]), bw.read_milli);
	if (kernel.cpu.tsc_hz) {
		stats_fmt_milli(v[2], sizeof(v[2]), c2c_gbps_milli(bw.write_milli, kernel.cpu.tsc_hz));
		stats_fmt_milli(v[3], sizeof(v[3]), c2c_gbps_milli(bw.read_milli, kernel.cpu.tsc_hz));
		bp_snprintf(gb, sizeof(gb), " (%s and %s GB/s)", v[2], v[3]);
	}
	kprintf("shared_bw CPU %u writes, CPU %u reads%s: %llu bytes, bytes per tick (median of %u) "
		"write %s, read %s%s\n", a, b, sibling_note(a, b), (unsigned long long)bw.bytes,
		kernel.cfg.reps, v[0], v[1], gb);
}

static void run_false_sharing(void)
{
	for (unsigned i = 0; i < run.npairs; i++) {
		false_sharing_pair(run.pair[i][0], run.pair[i][1]);
		checkpoint();
	}
}

static void run_shared_bw(void)
{
	for (unsigned i = 0; i < run.npairs; i++) {
		shared_bw_pair(run.pair[i][0], run.pair[i][1]);
		checkpoint();
	}
}

/* ------------------------------------------------------------ the mode */

static const struct {
	unsigned bit;
	const char *name;
	void (*run)(void);
} tests[] = {
	{ CFG_C2C_LATENCY, "c2c_latency", run_latency },
	{ CFG_C2C_FALSE_SHARING, "false_sharing", run_false_sharing },
	{ CFG_C2C_SHARED_BW, "shared_bw", run_shared_bw },
};
#define NTESTS (sizeof(tests) / sizeof(tests[0]))

/* c2c=all: every pair once, the higher number starting (the matrix's lower triangle, as
 * core-to-core-latency prints it). c2c=A-B,...: those with both CPUs online; @skip for
 * the rest. */
static void choose_pairs(unsigned ncpu)
{
	char why[120];

	run.npairs = 0;
	if (kernel.cfg.c2c_npairs == 0) {
		for (unsigned a = 1; a < ncpu; a++)
			for (unsigned b = 0; b < a; b++) {
				run.pair[run.npairs][0] = (uint8_t)a;
				run.pair[run.npairs++][1] = (uint8_t)b;
			}
		return;
	}
	for (unsigned i = 0; i < kernel.cfg.c2c_npairs && i < CFG_C2C_PAIRS_MAX; i++) {
		unsigned a = kernel.cfg.c2c_pairs[i][0], b = kernel.cfg.c2c_pairs[i][1];
		if (a < ncpu && b < ncpu) {
			run.pair[run.npairs][0] = (uint8_t)a;
			run.pair[run.npairs++][1] = (uint8_t)b;
			continue;
		}
		bp_snprintf(why, sizeof(why), "pair %u-%u: CPU %u is not online (CPUs 0..%u are)", a,
			    b, a < ncpu ? b : a, ncpu - 1);
		for (unsigned t = 0; t < NTESTS; t++)
			if (kernel.cfg.c2c_tests & tests[t].bit)
				skip(tests[t].name, why);
	}
}

/* Sample arrays and the shared_bw buffer, identity-mapped memory from mem_alloc_phys. */
static bool alloc_buffers(void)
{
	for (unsigned i = 0; i < SAMPLE_ARRAYS; i++) {
		uint64_t pa = mem_alloc_phys((uint64_t)kernel.cfg.reps * sizeof(int64_t), 64);
		if (!pa)
			return false;
		run.samples[i] = (int64_t *)(uintptr_t)pa;
	}
	uint64_t pa = mem_alloc_phys(kernel.cfg.c2c_size, C2C_LINE_BYTES);
	run.buf = (uintptr_t *)(uintptr_t)pa;
	return pa != 0;
}

int c2c_main(void)
{
	unsigned ncpu = smp_count();
	char why[120];

	kpmu_init();            /* @meta names the PMU */
	screen_pmu();
	report_meta();
	pmucheck_brief();
	if (ncpu < 2) {
		bp_snprintf(why, sizeof(why), "needs 2 CPUs; %u is online", ncpu);
		for (unsigned t = 0; t < NTESTS; t++)
			if (kernel.cfg.c2c_tests & tests[t].bit)
				skip(tests[t].name, why);
		report_done(0, 0, 0, kernel.config_errors);
		return kernel.config_errors ? PLATFORM_EXIT_FAIL : PLATFORM_EXIT_OK;
	}
	choose_pairs(ncpu);
	if (!alloc_buffers()) {
		report_error("c2c", "not enough memory below 4 GiB for the samples and the c2c.size "
			     "buffer");
		run.errors++;
	} else if (run.npairs) {
		for (unsigned t = 0; t < NTESTS; t++)
			if (kernel.cfg.c2c_tests & tests[t].bit)
				tests[t].run();
	}
	report_done(run.results, 0, 0, run.errors + kernel.config_errors);
	return run.errors || kernel.config_errors ? PLATFORM_EXIT_FAIL : PLATFORM_EXIT_OK;
}
