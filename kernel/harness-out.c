/* The harness's output as samples; see kernel/harness-out.h. */
#include "kernel/harness-out.h"

unsigned harness_stride(const struct harness_values *v)
{
	return v->nctr + v->nmsr + 1;
}

enum result_source harness_source(const struct harness_values *v, unsigned c, unsigned *width)
{
	if (c < v->nctr) {
		*width = v->ctr_width[c];
		return SRC_PMU;
	}
	if (c < v->nctr + v->nmsr) {
		*width = v->msr_width[c - v->nctr];
		return SRC_MSR;
	}
	*width = 64;
	return SRC_TSC;
}

int64_t harness_delta(uint64_t count_n, uint64_t count_2n, unsigned width)
{
	uint64_t mask = width < 64 ? (1ull << width) - 1 : ~0ull;
	return (int64_t)((count_2n & mask) - (count_n & mask));
}

void harness_samples(const uint64_t *out, const struct harness_values *v, unsigned c, unsigned first,
		     unsigned reps, int64_t *samples)
{
	unsigned stride = harness_stride(v), width;
	harness_source(v, c, &width);
	for (unsigned r = 0; r < reps; r++) {
		const uint64_t *rep = out + (uint64_t)(first + r) * 2 * stride;
		samples[r] = harness_delta(rep[c], rep[stride + c], width);
	}
}
