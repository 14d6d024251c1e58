/*
 * Cross-core measurements (docs/c2c.md): the halves two CPUs run, what their results
 * become, and the latency matrix as text.
 *   c2c_latency    one 64-byte line bounced between two CPUs (ping writes a sequence
 *                  number, pong answers with the next one)
 *   false_sharing  each CPU increments its own counter: both in one line, then a line each
 *   shared_bw      one CPU writes a buffer, the other reads it
 * Plain C with GCC __atomic builtins, for the kernel and the host alike: the caller gives
 * the clock (RDTSC in the kernel) and puts the two halves on two CPUs (kernel/c2c-mode.c
 * through kernel/smp.h; the host tests on two threads). Every wait is bounded by a spin
 * count: a partner that never comes, or stops, ends the run with a status, never a hang.
 * Values are 32-bit so that i686 needs no 64-bit atomics.
 */
#ifndef LIB_C2C_H
#define LIB_C2C_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "lib/stats.h"

/* Every x86 CPU bareperf knows has 64-byte lines (CPUID.01H:EBX[15:8] x 8 says so
 * where present). */
#define C2C_LINE_BYTES 64
/* Loads of a flag one wait may spend before the partner counts as gone: 2^27, over
 * 0.1 s on any CPU, far above one transfer of a line (well under 1 us). */
#define C2C_SPIN_DEFAULT (1ull << 27)
/* A flag value no sequence reaches: the half that gives up writes it, so its partner
 * stops at once instead of spinning out too. */
#define C2C_ABORT 0xffffffffu
/* Ping-pong uses values up to 2 x round trips + 1 below C2C_ABORT. */
#define C2C_ROUND_TRIPS_MAX (1u << 30)

typedef uint64_t (*c2c_clock_fn)(void);

enum c2c_status {
	C2C_OK = 0,
	C2C_NO_PARTNER,         /* the partner never showed up */
	C2C_LOST_PARTNER,       /* it stopped answering part way */
	C2C_ABORTED,            /* the partner gave up first */
	C2C_BAD_DATA,           /* a counter or the buffer does not hold what was written */
};
const char *c2c_status_text(enum c2c_status s);

/* One flag alone in its cache line. */
struct c2c_line {
	uint32_t word;
	uint8_t pad[C2C_LINE_BYTES - sizeof(uint32_t)];
} __attribute__((aligned(C2C_LINE_BYTES)));

/* ------------------------------------------------------------ c2c_latency */

/* Round trip k (from 0): ping writes 2k + 2, pong answers 2k + 3. Pong starts by moving
 * the line from 0 to 1 ("here"). Each sample times `rounds` round trips on ping's clock. */
struct c2c_pingpong {
	struct c2c_line line;           /* the bounced line */
	c2c_clock_fn clock;
	uint64_t spin_limit;
	uint32_t rounds, warmup, samples;
	int64_t *ticks;                 /* [samples] */
	/* Each half writes its own, once, at its end. */
	enum c2c_status ping_status, pong_status;
	uint32_t answered;              /* round trips pong answered */
	uint32_t stuck_at;              /* the value ping waited for in vain; 0: none */
};

/* warmup untimed samples, then samples timed ones of rounds round trips each, into
 * ticks. -1 with the reason in why when the run would pass C2C_ROUND_TRIPS_MAX. */
int c2c_pingpong_init(struct c2c_pingpong *p, c2c_clock_fn clock, uint64_t spin_limit,
		      uint32_t rounds, uint32_t warmup, uint32_t samples, int64_t *ticks,
		      char *why, size_t whylen);
void c2c_ping(void *pingpong);  /* the CPU that writes first; times the samples */
void c2c_pong(void *pingpong);  /* the CPU that answers */
/* For a caller that stopped one half from outside (kernel/c2c-mode.c's watchdog): the other
 * half stops at its next wait. The same for each test below. */
void c2c_pingpong_abort(void *pingpong);

struct c2c_latency {
	unsigned ping_cpu, pong_cpu;
	uint32_t rounds;
	struct stats st;                /* ticks per sample of `rounds` round trips */
	/* Ticks x1000. One way is round trip / 2, as core-to-core-latency prints it. */
	int64_t round_trip_median_milli, round_trip_min_milli;
	int64_t one_way_median_milli, one_way_min_milli;
};
/* Statistics of a finished run (ping_status C2C_OK); sorts p->ticks. */
void c2c_latency_result(const struct c2c_pingpong *p, unsigned trim_pct, unsigned ping_cpu,
			unsigned pong_cpu, struct c2c_latency *out);

/* ------------------------------------------------------------ false_sharing */

/* Both halves meet at a start line (each raises its flag and waits for the other's),
 * then add 1 to their own counter `increments` times with a locked add. */
struct c2c_counter_line {
	uint32_t word[C2C_LINE_BYTES / sizeof(uint32_t)];
} __attribute__((aligned(C2C_LINE_BYTES)));

struct c2c_counters {
	/* Together: word[0] and word[1] of data[0]; padded: word[0] of data[0] and data[1]. */
	struct c2c_counter_line data[2];
	struct c2c_line gate[2];        /* gate[side]: that side is here (or C2C_ABORT) */
	c2c_clock_fn clock;
	uint64_t spin_limit;
	uint32_t increments;
	bool padded;
	uint64_t ticks[2];              /* each side's loop on its own clock */
	enum c2c_status status[2];
};
void c2c_counters_init(struct c2c_counters *c, c2c_clock_fn clock, uint64_t spin_limit,
		       uint32_t increments, bool padded);
void c2c_count_first(void *counters);   /* side 0 */
void c2c_count_second(void *counters);  /* side 1 */
void c2c_counters_abort(void *counters); /* a side past the start line counts on to its end */

struct c2c_false_sharing {
	unsigned cpu[2];
	uint32_t increments;
	unsigned reps;
	/* Median ticks per increment x1000, per side: counters in one line, then padded. */
	int64_t shared_milli[2], padded_milli[2];
	/* (shared[0] + shared[1]) / (padded[0] + padded[1]), x1000; 0 when padded is 0. */
	int64_t ratio_milli;
};
/* From reps runs each way: shared[side][rep] and padded[side][rep] are ticks per run of
 * `increments` (sorted in place). */
void c2c_false_sharing_result(int64_t *const shared[2], int64_t *const padded[2], unsigned reps,
			      uint32_t increments, const unsigned cpu[2],
			      struct c2c_false_sharing *out);

/* ------------------------------------------------------------ shared_bw */

/* Generation g = 1, 2, ...: the writer fills every word of buf with g and raises
 * to_reader to g; the reader waits for it, reads every word (counting those that are not
 * g) and raises to_writer to g; the writer waits for that before the next generation. */
struct c2c_stream {
	struct c2c_line to_reader, to_writer;
	c2c_clock_fn clock;
	uint64_t spin_limit;
	uintptr_t *buf;
	size_t words;
	uint32_t warmup, samples;
	int64_t *write_ticks, *read_ticks;      /* [samples] */
	enum c2c_status writer_status, reader_status;
	uint64_t bad_words;                     /* words the reader found wrong */
};
void c2c_stream_init(struct c2c_stream *s, c2c_clock_fn clock, uint64_t spin_limit,
		     uintptr_t *buf, size_t bytes, uint32_t warmup, uint32_t samples,
		     int64_t *write_ticks, int64_t *read_ticks);
void c2c_stream_write(void *stream);
void c2c_stream_read(void *stream);
void c2c_stream_abort(void *stream);

struct c2c_bandwidth {
	unsigned writer_cpu, reader_cpu;
	uint64_t bytes;
	unsigned reps;
	/* Bytes per tick x1000 from the median ticks of each side. */
	int64_t write_milli, read_milli;
};
void c2c_bandwidth_result(const struct c2c_stream *s, unsigned writer_cpu, unsigned reader_cpu,
			  struct c2c_bandwidth *out);

/* ------------------------------------------------------------ printing */

/* x1000 values in TSC ticks as x1000 nanoseconds; 0 when tsc_hz is 0 (unknown). */
int64_t c2c_ticks_to_ns_milli(int64_t ticks_milli, uint64_t tsc_hz);
/* Bytes per tick x1000 as GB/s (10^9 bytes) x1000; 0 when tsc_hz is 0. */
int64_t c2c_gbps_milli(int64_t bytes_per_tick_milli, uint64_t tsc_hz);

/* "@c2c" bodies (docs/results.md); tsc_hz 0 leaves out the nanosecond and GB/s fields.
 * The length written, or -1 when buf is too small. */
int c2c_latency_json(const struct c2c_latency *l, uint64_t tsc_hz, char *buf, size_t len);
int c2c_false_sharing_json(const struct c2c_false_sharing *f, char *buf, size_t len);
int c2c_bandwidth_json(const struct c2c_bandwidth *b, uint64_t tsc_hz, char *buf, size_t len);

#define C2C_MATRIX_MAX  64
#define C2C_CELL_NONE   INT64_MIN          /* not measured: left blank */
#define C2C_CELL_FAIL   (INT64_MIN + 1)    /* measured, and it failed */
#define C2C_MATRIX_LINE_MAX (8 + 8 * C2C_MATRIX_MAX)

/* Rows and columns are the CPUs in cpu[0..n); a cell holds a x1000 value. */
struct c2c_matrix {
	unsigned n;
	unsigned cpu[C2C_MATRIX_MAX];
	int64_t cell[C2C_MATRIX_MAX][C2C_MATRIX_MAX];
};
/* n CPUs and every cell C2C_CELL_NONE. */
void c2c_matrix_init(struct c2c_matrix *m, const unsigned *cpu, unsigned n);
/* The index of CPU number cpu in m, or -1. */
int c2c_matrix_index(const struct c2c_matrix *m, unsigned cpu);
/* One line per call to emit, no '\n': a header of column CPUs, then one row per CPU;
 * cells right-aligned in 8 columns with one decimal, "fail" for a failed pair, blank when
 * not measured; trailing blanks cut. */
void c2c_matrix_format(const struct c2c_matrix *m, void (*emit)(void *ctx, const char *line),
		       void *ctx);

#endif
