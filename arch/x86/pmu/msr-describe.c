/*
 * trace=msr: each MSR write said in words, from each generation's register names and
 * decoders (the pmu_backend descriptors' msr_names), the free-running registers, and the
 * event-select, fixed-counter and global-control layouts (lib/pmu-layout.h).
 */
#include <stdarg.h>
#include "arch/x86/pmu/core.h"
#include "arch/x86/msr-index.h"
#include "lib/format.h"
#include "lib/str.h"

struct sink { char *buf; size_t len, pos; };

static void put(struct sink *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct sink *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	size_t room = s->pos < s->len ? s->len - s->pos : 0;
	int n = bp_vsnprintf(room ? s->buf + s->pos : NULL, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		s->pos += (size_t)n;
}

/* The free-running registers every generation may read. */
static const struct pmu_msr_name free_running_names[] = {
	{ .first = MSR_IA32_TSC, .count = 1, .stride = 1, .name = "TSC", .dec = DEC_NONE },
	{ .first = MSR_IA32_MPERF, .count = 1, .stride = 1, .name = "MPERF", .dec = DEC_NONE },
	{ .first = MSR_IA32_APERF, .count = 1, .stride = 1, .name = "APERF", .dec = DEC_NONE },
};

/* Flag bits shared by Intel and AMD event selects, in bit order. */
static const struct { uint64_t bit; const char *name; } evtsel_flags[] = {
	{ ARCH_PERFMON_EVENTSEL_USR, "usr" },   { ARCH_PERFMON_EVENTSEL_OS, "os" },
	{ ARCH_PERFMON_EVENTSEL_EDGE, "edge" }, { ARCH_PERFMON_EVENTSEL_PC, "pc" },
	{ ARCH_PERFMON_EVENTSEL_INT, "int" },   { ARCH_PERFMON_EVENTSEL_ANY, "any" },
	{ ARCH_PERFMON_EVENTSEL_ENABLE, "en" }, { ARCH_PERFMON_EVENTSEL_INV, "inv" },
};

static void decode_evtsel(struct sink *s, uint64_t v, bool amd)
{
	uint64_t known = 0xffffffffULL;
	if (amd) {
		put(s, " event=0x%03llx", (unsigned long long)AMD64_EVENTSEL_EVENT_GET(v));
		known |= AMD64_EVENTSEL_EVENT_HI_MASK | AMD64_EVENTSEL_GUESTONLY | AMD64_EVENTSEL_HOSTONLY;
	} else {
		put(s, " event=0x%02llx", (unsigned long long)(v & ARCH_PERFMON_EVENTSEL_EVENT_MASK));
	}
	put(s, " umask=0x%02llx", (unsigned long long)((v & ARCH_PERFMON_EVENTSEL_UMASK_MASK) >>
						     ARCH_PERFMON_EVENTSEL_UMASK_SHIFT));
	for (unsigned i = 0; i < ARRAY_SIZE(evtsel_flags); i++)
		if (v & evtsel_flags[i].bit)
			put(s, " %s", evtsel_flags[i].name);
	if (v & ARCH_PERFMON_EVENTSEL_CMASK_MASK)
		put(s, " cmask=%llu", (unsigned long long)((v & ARCH_PERFMON_EVENTSEL_CMASK_MASK) >>
							   ARCH_PERFMON_EVENTSEL_CMASK_SHIFT));
	if (amd && (v & AMD64_EVENTSEL_GUESTONLY))
		put(s, " guestonly");
	if (amd && (v & AMD64_EVENTSEL_HOSTONLY))
		put(s, " hostonly");
	if (v & ~known)
		put(s, " reserved=0x%llx", (unsigned long long)(v & ~known));
}

static void decode_fixed_ctrl(struct sink *s, uint64_t v)
{
	static const char *const bit_names[FIXED_CTR_CTRL_BITS] = { "os", "usr", "any", "pmi" };
	if (!v) {
		put(s, " all off");
		return;
	}
	for (unsigned i = 0; i < 16 && (v >> (i * FIXED_CTR_CTRL_BITS)); i++) {
		uint64_t f = FIXED_CTR_CTRL_GET(v, i);
		put(s, " fixed%u=", i);
		if (!f)
			put(s, "off");
		for (unsigned b = 0, first = 1; b < FIXED_CTR_CTRL_BITS; b++) {
			if (!(f & (1ULL << b)))
				continue;
			put(s, "%s%s", first ? "" : ",", bit_names[b]);
			first = 0;
		}
	}
}

static void decode_global(struct sink *s, uint64_t v, bool amd)
{
	static const struct { unsigned bit; const char *name; } intel_bits[] = {
		{ 55, "trace_topa_pmi" }, { 58, "lbr_frz" }, { 59, "ctr_frz" }, { 60, "asci" },
		{ 61, "ovf_uncore" }, { 62, "ovf_buf" }, { 63, "cond_chgd" },
	};
	static const struct { unsigned bit; const char *name; } amd_bits[] = {
		{ 58, "lbrs_frozen" }, { 59, "pmc_frozen" },
	};
	if (!v) {
		put(s, " none");
		return;
	}
	for (unsigned b = 0; b < 32; b++)
		if (v & (1ULL << b))
			put(s, " pmc%u", b);
	for (unsigned b = 32; b < 64; b++) {
		if (!(v & (1ULL << b)))
			continue;
		const char *name = NULL;
		if (amd) {
			for (unsigned i = 0; i < ARRAY_SIZE(amd_bits); i++)
				if (amd_bits[i].bit == b)
					name = amd_bits[i].name;
		} else if (b < 48) {
			put(s, " fixed%u", b - GLOBAL_CTRL_FIXED_SHIFT);
			continue;
		} else {
			for (unsigned i = 0; i < ARRAY_SIZE(intel_bits); i++)
				if (intel_bits[i].bit == b)
					name = intel_bits[i].name;
		}
		if (name)
			put(s, " %s", name);
		else
			put(s, " bit%u", b);
	}
}

static const struct pmu_msr_name *msr_lookup(const struct pmu_msr_name *names, unsigned count,
					    uint32_t msr, unsigned *index)
{
	for (unsigned i = 0; i < count; i++) {
		const struct pmu_msr_name *n = &names[i];
		if (msr < n->first || (msr - n->first) % n->stride)
			continue;
		uint32_t k = (msr - n->first) / n->stride;
		if (k < n->count) {
			*index = k;
			return n;
		}
	}
	return NULL;
}

static int describe_named(const struct pmu_msr_name *names, unsigned count, uint32_t msr,
			  uint64_t val, char *buf, size_t len)
{
	unsigned index;
	const struct pmu_msr_name *n = msr_lookup(names, count, msr, &index);
	if (!n)
		return -1;
	struct sink s = { buf, len, 0 };
	if (n->count > 1)
		put(&s, "%s%u", n->name, index);
	else
		put(&s, "%s", n->name);
	put(&s, " 0x%x <- 0x%08llx", msr, (unsigned long long)val);
	switch (n->dec) {
	case DEC_NONE: break;
	case DEC_INTEL_EVTSEL: decode_evtsel(&s, val, false); break;
	case DEC_AMD_EVTSEL: decode_evtsel(&s, val, true); break;
	case DEC_FIXED_CTRL: decode_fixed_ctrl(&s, val); break;
	case DEC_INTEL_GLOBAL: decode_global(&s, val, false); break;
	case DEC_AMD_GLOBAL: decode_global(&s, val, true); break;
	case DEC_PERF_CAP:
		if (val & PERF_CAP_FW_WRITE)
			put(&s, " fw_write");
		break;
	}
	return (int)s.pos;
}

static int describe_by(const struct pmu_backend *be, uint32_t msr, uint64_t val, char *buf,
		       size_t len)
{
	int n = describe_named(be->msr_names, be->n_msr_names, msr, val, buf, len);
	if (n < 0 && be->describe)
		n = be->describe(msr, val, buf, len);
	return n;
}

/* The traced kind's own registers first, then the free-running ones, then every other
 * generation's, those whose numbers overlap others' (trace_last) at the end. */
int pmu_msr_describe_kind(enum pmu_kind kind, uint32_t msr, uint64_t val, char *buf, size_t len)
{
	const struct pmu_backend *own = pmu_backend_for(kind);
	int n;
	if (own && (n = describe_by(own, msr, val, buf, len)) >= 0)
		return n;
	if ((n = describe_named(free_running_names, ARRAY_SIZE(free_running_names), msr, val,
				buf, len)) >= 0)
		return n;
	for (int last = 0; last < 2; last++)
		for (unsigned k = 0; k < PMU_KIND_COUNT; k++) {
			const struct pmu_backend *be = pmu_backend_for((enum pmu_kind)k);
			if (be && be != own && be->trace_last == last &&
			    (n = describe_by(be, msr, val, buf, len)) >= 0)
				return n;
		}
	return bp_snprintf(buf, len, "MSR 0x%x <- 0x%08llx", msr, (unsigned long long)val);
}

/* Without a kind, the architectural meaning wins for the MSRs NetBurst also uses. */
int pmu_msr_describe(uint32_t msr, uint64_t val, char *buf, size_t len)
{
	return pmu_msr_describe_kind(PMU_NONE, msr, val, buf, len);
}
