/* The sampled-IP histogram and its @sample record (kernel/sample-hist.h). */
#include "kernel/sample-hist.h"
#include "lib/format.h"
#include "lib/json-out.h"
#include "lib/str.h"

void sample_hist_reset(struct sample_hist *h, uintptr_t base)
{
	memset(h, 0, sizeof(*h));
	h->base = base;
}

void sample_hist_add(struct sample_hist *h, uintptr_t ip)
{
	h->total++;
	if (ip < h->base || ip - h->base >= SAMPLE_PAYLOAD_SPAN) {
		h->outside++;
		return;
	}
	uint32_t off = (uint32_t)(ip - h->base);
	for (unsigned i = 0; i < h->n; i++)
		if (h->bin[i].offset == off) {
			h->bin[i].count++;
			return;
		}
	if (h->n == SAMPLE_HIST_BINS) {
		h->unbinned++;
		return;
	}
	h->bin[h->n++] = (struct sample_bin){ .offset = off, .count = 1 };
}

static bool before(const struct sample_bin *a, const struct sample_bin *b)
{
	return a->count != b->count ? a->count > b->count : a->offset < b->offset;
}

void sample_hist_sort(struct sample_hist *h)
{
	for (unsigned i = 1; i < h->n; i++) {
		struct sample_bin b = h->bin[i];
		unsigned j = i;
		for (; j > 0 && before(&b, &h->bin[j - 1]); j--)
			h->bin[j] = h->bin[j - 1];
		h->bin[j] = b;
	}
}

int sample_json(const struct sample_run *run, const struct sample_hist *h, char *buf, size_t len)
{
	char bench[6 * 64 + 8], event[6 * 128 + 8];
	struct json_out o = json_out_start(buf, len);
	json_escape(run->bench, bench, sizeof(bench));
	json_escape(run->event, event, sizeof(event));
	json_put(&o, "{\"bench\":\"%s\",\"size\":%llu,\"cpl\":%u,\"event\":\"%s\",\"period\":%llu,"
		"\"events\":%llu,\"samples\":%llu,\"outside\":%llu,\"unbinned\":%llu,\"offsets\":[",
	    bench, (unsigned long long)run->size, run->cpl, event, (unsigned long long)run->period,
	    (unsigned long long)run->events, (unsigned long long)h->total,
	    (unsigned long long)h->outside, (unsigned long long)h->unbinned);
	for (unsigned i = 0; i < h->n; i++)
		json_put(&o, "%s[%u,%llu]", i ? "," : "", h->bin[i].offset,
		    (unsigned long long)h->bin[i].count);
	json_put(&o, "]}");
	return json_out_end(&o);
}
