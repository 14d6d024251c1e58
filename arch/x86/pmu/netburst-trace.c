/*
 * trace=msr decoding of NetBurst's counters, CCCRs and ESCRs: the fields of each write
 * and, for an ESCR, the event its event select means there.
 * SDM Vol. 3B 18.18.2-18.18.3, Figures 18-45/18-46.
 */
#include "arch/x86/pmu/netburst.h"
#include "lib/p4-events.h"
#include "lib/p4-regs.h"
#include "lib/util.h"

static const char *const thread_name[4] = { "none", "single", "both", "any" };

static size_t describe_cccr(uint32_t msr, uint64_t val, char *buf, size_t len)
{
	static const struct { uint32_t bit; const char *name; } flags[] = {
		{ P4_CCCR_COMPARE, "compare" }, { P4_CCCR_COMPLEMENT, "complement" },
		{ P4_CCCR_EDGE, "edge" }, { P4_CCCR_FORCE_OVF, "force_ovf" },
		{ P4_CCCR_OVF_PMI_T0, "ovf_pmi_t0" }, { P4_CCCR_OVF_PMI_T1, "ovf_pmi_t1" },
		{ P4_CCCR_CASCADE, "cascade" }, { P4_CCCR_OVF, "ovf" },
	};
	size_t off = netburst_append(buf, len, 0, "%s %#x <- 0x%08llx",
				     p4_cccr_name[msr - P4_CCCR_MSR(0)], msr, (unsigned long long)val);
	if (val & P4_CCCR_ENABLE)
		off = netburst_append(buf, len, off, " enable");
	off = netburst_append(buf, len, off, " esel=%u active=%s", (unsigned)P4_CCCR_GET_ESEL(val),
			      thread_name[P4_CCCR_GET_THREAD(val)]);
	if (P4_CCCR_GET_THRESHOLD(val))
		off = netburst_append(buf, len, off, " thr=%u", (unsigned)P4_CCCR_GET_THRESHOLD(val));
	for (unsigned i = 0; i < ARRAY_SIZE(flags); i++)
		if (val & flags[i].bit)
			off = netburst_append(buf, len, off, " %s", flags[i].name);
	if (val & P4_CCCR_RESERVED)
		off = netburst_append(buf, len, off, " reserved=%#llx",
				      (unsigned long long)(val & P4_CCCR_RESERVED));
	return off;
}

/* ESCR s: its fields, and the event its event select means on it (when val is set). */
static size_t describe_escr(unsigned s, uint32_t msr, uint64_t val, char *buf, size_t len)
{
	static const struct { uint32_t bit; const char *name; } threads[] = {
		{ P4_ESCR_T0_OS, "t0_os" }, { P4_ESCR_T0_USR, "t0_usr" },
		{ P4_ESCR_T1_OS, "t1_os" }, { P4_ESCR_T1_USR, "t1_usr" },
	};
	unsigned evsel = P4_ESCR_GET_EVENT(val);
	size_t off = netburst_append(buf, len, 0, "%s %#x <- 0x%08llx evsel=%#x emask=%#x",
				     p4_escr_table[s].name, msr, (unsigned long long)val, evsel,
				     (unsigned)P4_ESCR_GET_EMASK(val));
	if (val & P4_ESCR_TAG_ENABLE)
		off = netburst_append(buf, len, off, " tag=%#x", (unsigned)P4_ESCR_GET_TAG(val));
	for (unsigned i = 0; i < ARRAY_SIZE(threads); i++)
		if (val & threads[i].bit)
			off = netburst_append(buf, len, off, " %s", threads[i].name);
	if (val & P4_ESCR_RESERVED)
		off = netburst_append(buf, len, off, " reserved=%#llx",
				      (unsigned long long)(val & P4_ESCR_RESERVED));
	for (unsigned i = 0; i < nb_event_count && val; i++) {
		const struct nb_event *e = &nb_event_table[i];
		if (e->event_select == evsel &&
		    (e->escr[0] == s || (e->nescrs > 1 && e->escr[1] == s))) {
			off = netburst_append(buf, len, off, " (%s)", e->name);
			break;
		}
	}
	return off;
}

int netburst_msr_describe(uint32_t msr, uint64_t val, char *buf, size_t len)
{
	int s;

	if (msr >= P4_COUNTER_MSR(0) && msr < P4_COUNTER_MSR(P4_NUM_COUNTERS))
		return (int)netburst_append(buf, len, 0, "%s %#x <- %#llx",
					    p4_counter_name[msr - P4_COUNTER_MSR(0)], msr,
					    (unsigned long long)val);
	if (msr >= P4_CCCR_MSR(0) && msr < P4_CCCR_MSR(P4_NUM_COUNTERS))
		return (int)describe_cccr(msr, val, buf, len);
	if ((s = p4_escr_by_msr(msr)) >= 0)
		return (int)describe_escr((unsigned)s, msr, val, buf, len);
	return -1;
}
