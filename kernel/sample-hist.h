/*
 * The histogram of sampled instruction pointers by offset into the payload, and its
 * @sample record: pure (no hardware, no globals), so the host tests check it.
 */
#ifndef KERNEL_SAMPLE_HIST_H
#define KERNEL_SAMPLE_HIST_H
#include <stddef.h>
#include <stdint.h>

#define SAMPLE_HIST_BINS   32
/* The payloads are small loops; a sample this far past the entry or before it is code
 * around the payload (the harness, an interrupt, the kernel). */
#define SAMPLE_PAYLOAD_SPAN 0x10000u

struct sample_bin {
	uint32_t offset;        /* IP - payload entry */
	uint64_t count;
};

struct sample_hist {
	uintptr_t base;                 /* the payload's entry as it ran (kernel or user alias) */
	unsigned n;                     /* bins in use */
	struct sample_bin bin[SAMPLE_HIST_BINS];
	uint64_t total;                 /* every sample */
	uint64_t outside;               /* IP outside [base, base + SAMPLE_PAYLOAD_SPAN) */
	uint64_t unbinned;              /* inside, but every bin held another offset */
};

void sample_hist_reset(struct sample_hist *h, uintptr_t base);
void sample_hist_add(struct sample_hist *h, uintptr_t ip);
/* Most samples first; equal counts by offset. */
void sample_hist_sort(struct sample_hist *h);

/* What one sampled run was, for the record. */
struct sample_run {
	const char *bench;
	uint64_t size;
	unsigned cpl;
	const char *event;
	uint64_t period;
	uint64_t events;                /* the event's 64-bit count over the run */
};

/* {"bench":...,"offsets":[[off,count],...]}: the body of one @sample (docs/results.md).
 * Length written, or -1 when buf is too small (it then holds what fitted). */
int sample_json(const struct sample_run *run, const struct sample_hist *h, char *buf, size_t len);

#endif
