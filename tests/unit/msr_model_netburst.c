/*
 * The NetBurst part of the host MSR model: the 18 counters (40 bits), 18 CCCRs and the
 * ESCRs, each with the bits a write must leave clear (SDM Vol. 3B Figures 18-45/18-46,
 * Table 18-26). The model describes an HT processor of model 3 or later: IQ_ESCR0/1 are
 * absent, so a backend touching them is caught. msr_model_netburst_defs_for() describes
 * the other variants (no HT: ESCR bits 1:0 reserved; models 0-2: IQ_ESCR0/1 present).
 */
#include <stdbool.h>
#include "lib/p4-events.h"
#include "lib/p4-regs.h"
#include "tests/unit/msr_model.h"
#include <string.h>

unsigned msr_model_netburst_defs_for(struct msr_def *out, unsigned max, bool ht, bool iq_escrs)
{
	unsigned n = 0;
	uint64_t escr_reserved = P4_ESCR_RESERVED | (ht ? 0 : P4_ESCR_T1_OS | P4_ESCR_T1_USR);

	for (unsigned c = 0; c < P4_NUM_COUNTERS && n < max; c++)
		out[n++] = (struct msr_def){ .msr = P4_COUNTER_MSR(c), .reserved = P4_COUNTER_RESERVED,
					     .name = p4_counter_name[c], .width = P4_COUNTER_WIDTH,
					     .index = (uint8_t)c };
	for (unsigned c = 0; c < P4_NUM_COUNTERS && n < max; c++)
		out[n++] = (struct msr_def){ .msr = P4_CCCR_MSR(c), .reserved = P4_CCCR_RESERVED,
					     .name = p4_cccr_name[c] };
	for (unsigned s = 0; s < P4_ESCR_COUNT && n < max; s++) {
		if (p4_escr_table[s].early_models_only && !iq_escrs)
			continue;
		out[n++] = (struct msr_def){ .msr = p4_escr_table[s].msr, .reserved = escr_reserved,
					     .name = p4_escr_table[s].name };
	}
	return n;
}

unsigned msr_model_netburst_defs(struct msr_def *out, unsigned max)
{
	return msr_model_netburst_defs_for(out, max, true, false);
}

/* ---- counting (msr_model_run): which ESCR feeds counter c, and what it counts */

/* The ESCR the CCCR of counter c selects: an ESCR of c's group whose event is in
 * nb_event_table with that CCCR ESCR select (Table 18-26). Index into p4_escr_table. */
static int escr_feeding(const struct msr_model *m, unsigned c, uint64_t cccr, uint64_t *escr)
{
	for (unsigned s = 0; s < P4_ESCR_COUNT; s++) {
		const struct p4_escr_info *x = &p4_escr_table[s];
		bool feeds = false;
		for (unsigned k = 0; k < x->ncounters; k++)
			feeds |= x->counter[k] == c;
		if (!feeds || msr_model_find(m, x->msr) < 0)
			continue;
		uint64_t v = msr_model_get(m, x->msr);
		for (unsigned e = 0; e < nb_event_count; e++) {
			const struct nb_event *ev = &nb_event_table[e];
			bool on_s = ev->escr[0] == s || (ev->nescrs > 1 && ev->escr[1] == s);
			if (on_s && ev->event_select == P4_ESCR_GET_EVENT(v) &&
			    ev->escr_select == P4_CCCR_GET_ESEL(cccr)) {
				*escr = v;
				return (int)e;
			}
		}
	}
	return -1;
}

static int quantity_of(const char *event)
{
	static const struct { const char *name; int q; } map[] = {
		{ "instr_retired", MSR_Q_INSTRUCTIONS }, { "global_power_events", MSR_Q_CYCLES },
		{ "branch_retired", MSR_Q_BRANCHES },
	};
	for (unsigned i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(map[i].name, event))
			return map[i].q;
	return -1;
}

uint64_t msr_model_netburst_increment(const struct msr_model *m, unsigned c,
				      const struct msr_model_work *w, bool as_enabled)
{
	uint64_t cccr = msr_model_get(m, P4_CCCR_MSR(c)), escr = 0;
	if (!(cccr & P4_CCCR_ENABLE) && !as_enabled && !(m->broken & MSR_BREAK_ENABLE))
		return 0;
	int e = escr_feeding(m, c, cccr, &escr);
	int q = e < 0 ? -1 : quantity_of(nb_event_table[e].name);
	if (q < 0)
		return 0;
	/* T0 bits 3:2, T1 bits 1:0; OS above USR in each pair (Figure 18-45). */
	unsigned thread = w->thread ^ ((m->broken & MSR_BREAK_THREAD) ? 1 : 0);
	bool os = w->cpl == 0;
	if (m->broken & MSR_BREAK_RING)
		os = !os;
	uint32_t bit = thread ? (os ? P4_ESCR_T1_OS : P4_ESCR_T1_USR) : (os ? P4_ESCR_T0_OS : P4_ESCR_T0_USR);
	if (!(escr & bit))
		return 0;
	bool compare = (cccr & P4_CCCR_COMPARE) && !(m->broken & MSR_BREAK_CMASK);
	if (!compare)
		return w->count[q];
	if ((cccr & P4_CCCR_EDGE) && !(m->broken & MSR_BREAK_EDGE))
		return w->edges[q];
	return (cccr & P4_CCCR_COMPLEMENT) ? w->count[MSR_Q_CYCLES] - w->active[q] : w->active[q];
}
