/*
 * The NetBurst part of the host MSR model: the 18 counters (40 bits), 18 CCCRs and the
 * ESCRs, each with the bits a write must leave clear (SDM Vol. 3B Figures 18-45/18-46,
 * Table 18-26). The model describes an HT processor of model 3 or later: IQ_ESCR0/1 are
 * absent, so a backend touching them is caught. msr_model_netburst_defs_for() describes
 * the other variants (no HT: ESCR bits 1:0 reserved; models 0-2: IQ_ESCR0/1 present).
 */
#include <stdbool.h>
#include "lib/netburst.h"
#include "lib/p4-regs.h"
#include "tests/unit/msr_model.h"

unsigned msr_model_netburst_defs_for(struct msr_def *out, unsigned max, bool ht, bool iq_escrs);

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
