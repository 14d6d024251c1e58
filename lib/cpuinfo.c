/*
 * CPU and PMU detection from CPUID (the dump-file reader is cpuid-dump.c).
 * Leaves: SDM Vol. 2A CPUID (Tables 3-8, 3-10, 3-11); PMU: SDM Vol. 3B 20.2 (leaf 0xA),
 * 20.6.4 (NetBurst, 18 counters), 20.6.2 (P6, 2 counters); AMD APM Vol. 2 13.2 and
 * Vol. 3 Appendix E (0x80000001 ECX[23], 0x80000022, 0x8000001E).
 */
#include <stddef.h>
#include "lib/cpuinfo.h"
#include "lib/format.h"
#include "lib/pmu-layout.h"
#include "lib/str.h"
#include "lib/util.h"

enum { EAX, EBX, ECX, EDX };

#define CPUID_LEAF_BASIC_MAX     0x00000000u
#define CPUID_LEAF_SIGNATURE     0x00000001u
#define CPUID_LEAF_CACHE_PARAMS  0x00000004u
#define CPUID_LEAF_POWER         0x00000006u
#define CPUID_LEAF_EXT_FEATURES  0x00000007u
#define CPUID_LEAF_ARCH_PERFMON  0x0000000Au
#define CPUID_LEAF_TOPOLOGY      0x0000000Bu
#define CPUID_LEAF_TSC_CRYSTAL   0x00000015u
#define CPUID_LEAF_FREQUENCY     0x00000016u
#define CPUID_LEAF_HV_BASE       0x40000000u
#define CPUID_LEAF_HV_END        0x4FFFFFFFu
#define CPUID_LEAF_EXT_MAX       0x80000000u
#define CPUID_LEAF_EXT_FEATURES1 0x80000001u
#define CPUID_LEAF_BRAND0        0x80000002u
#define CPUID_LEAF_BRAND2        0x80000004u
#define CPUID_LEAF_APM           0x80000007u
#define CPUID_LEAF_ADDR_SIZES    0x80000008u
#define CPUID_LEAF_AMD_TOPOLOGY  0x8000001Eu
#define CPUID_LEAF_AMD_PERFMON   0x80000022u

/* CPUID.1:EAX signature fields */
#define SIG_STEPPING(eax)    ((eax) & 0xFu)
#define SIG_MODEL(eax)       (((eax) >> 4) & 0xFu)
#define SIG_FAMILY(eax)      (((eax) >> 8) & 0xFu)
#define SIG_EXT_MODEL(eax)   (((eax) >> 16) & 0xFu)
#define SIG_EXT_FAMILY(eax)  (((eax) >> 20) & 0xFFu)

/* CPUID.1:EBX */
#define CPUID1_EBX_CLFLUSH_LINE(ebx)  (((ebx) >> 8) & 0xFFu)    /* in 8-byte units */
#define CPUID1_EBX_LOGICAL_COUNT(ebx) (((ebx) >> 16) & 0xFFu)
#define CPUID1_EBX_APIC_ID(ebx)       (((ebx) >> 24) & 0xFFu)
#define CPUID1_ECX_HYPERVISOR_BIT     31
#define CPUID1_EDX_HTT_BIT            28

/* CPUID.4.0:EAX[31:26] = cores per package - 1 */
#define CPUID4_EAX_CORES(eax)         ((((eax) >> 26) & 0x3Fu) + 1)
/* CPUID.0xB level: EBX[15:0] logical processors at this level, ECX[15:8] level type */
#define CPUIDB_EBX_COUNT(ebx)         ((ebx) & 0xFFFFu)
#define CPUIDB_ECX_TYPE(ecx)          (((ecx) >> 8) & 0xFFu)
#define CPUIDB_TYPE_SMT               1
/* CPUID.0x15: EAX denominator, EBX numerator, ECX crystal Hz; 0x16: EAX/EBX/ECX[15:0] MHz */
#define CPUID16_MHZ(r)                ((r) & 0xFFFFu)
/* AMD CPUID.0x80000008:ECX[7:0] = cores per package - 1; 0x8000001E:EBX[15:8] threads per core - 1 */
#define AMD_80000008_ECX_CORES(ecx)   (((ecx) & 0xFFu) + 1)
#define AMD_8000001E_EBX_THREADS(ebx) ((((ebx) >> 8) & 0xFFu) + 1)
#define AMD_FAMILY_ZEN                0x17

/* CPUID.0xA (SDM Vol. 3B 20.2.1-20.2.5) */
#define ARCH_PERFMON_EAX_VERSION(eax)     ((eax) & 0xFFu)
#define ARCH_PERFMON_EAX_GP_COUNT(eax)    (((eax) >> 8) & 0xFFu)
#define ARCH_PERFMON_EAX_GP_WIDTH(eax)    (((eax) >> 16) & 0xFFu)
#define ARCH_PERFMON_EAX_EVENTS_LEN(eax)  (((eax) >> 24) & 0xFFu)
#define ARCH_PERFMON_EDX_FIXED_COUNT(edx) ((edx) & 0x1Fu)
#define ARCH_PERFMON_EDX_FIXED_WIDTH(edx) (((edx) >> 5) & 0xFFu)
#define ARCH_PERFMON_EDX_ANYTHREAD_DEPRECATED_BIT 15
/* Linux arch/x86/events/intel/core.c: versions 2-4 have at least 3 fixed counters on
 * bare metal even where EDX says 0 (Core 2). */
#define ARCH_PERFMON_QUIRK_FIXED  3

/* AMD CPUID.0x80000001:ECX[23] PerfCtrExtCore; 0x80000022 EAX[0] PerfMonV2,
 * EAX[1] LbrAndPmcFreeze (LBR v2), EBX[3:0] NumPerfCtrCore. */
#define AMD_EXT1_ECX_PERFCTR_CORE_BIT  23
#define AMD_PERFMON_EAX_V2_BIT         0
#define AMD_PERFMON_EAX_LBR_V2_BIT     1
#define AMD_PERFMON_EBX_CORE_COUNT(ebx) ((ebx) & 0xFu)

/* Counter counts and widths that no CPUID leaf gives are in lib/pmu-layout.h. */
#define P6_LAST_MODEL      0xE     /* Yonah; later family 6 parts have leaf 0xA */
#define AMD_FIRST_PMU_FAMILY 6     /* K7 */
#define INTEL_NETBURST_FAMILY 15

#define BIT_SET(v, bit) ((((v) >> (bit)) & 1u) != 0)

/* One feature flag: where it lives and which bool of struct cpu_info it sets. */
struct feature_bit {
	uint32_t leaf;
	uint8_t reg, bit;
	size_t field;
	const char *name;
};

#define FEATURE(l, r, b, f) { .leaf = (l), .reg = (r), .bit = (b), \
	.field = offsetof(struct cpu_info, f), .name = #f }

/* Leaf 7 is read at subleaf 0; every other leaf here has no subleaves. */
static const struct feature_bit feature_bits[] = {
	FEATURE(CPUID_LEAF_SIGNATURE, EDX, 4, tsc),
	FEATURE(CPUID_LEAF_SIGNATURE, EDX, 5, msr),
	FEATURE(CPUID_LEAF_SIGNATURE, EDX, 9, apic),
	FEATURE(CPUID_LEAF_SIGNATURE, EDX, 11, sysenter),
	FEATURE(CPUID_LEAF_SIGNATURE, EDX, 6, pae),
	FEATURE(CPUID_LEAF_SIGNATURE, EDX, 13, pge),
	FEATURE(CPUID_LEAF_SIGNATURE, EDX, 21, ds),
	FEATURE(CPUID_LEAF_SIGNATURE, EDX, 24, fxsr),
	FEATURE(CPUID_LEAF_SIGNATURE, EDX, 25, sse),
	FEATURE(CPUID_LEAF_SIGNATURE, EDX, 26, sse2),
	FEATURE(CPUID_LEAF_SIGNATURE, EDX, CPUID1_EDX_HTT_BIT, htt),
	FEATURE(CPUID_LEAF_SIGNATURE, ECX, 2, dtes64),
	FEATURE(CPUID_LEAF_SIGNATURE, ECX, 15, pdcm),
	FEATURE(CPUID_LEAF_SIGNATURE, ECX, 21, x2apic),
	FEATURE(CPUID_LEAF_SIGNATURE, ECX, 23, popcnt),
	FEATURE(CPUID_LEAF_SIGNATURE, ECX, CPUID1_ECX_HYPERVISOR_BIT, hypervisor),
	FEATURE(CPUID_LEAF_POWER, ECX, 0, aperfmperf),
	FEATURE(CPUID_LEAF_EXT_FEATURES, EBX, 7, smep),
	FEATURE(CPUID_LEAF_EXT_FEATURES, EBX, 20, smap),
	FEATURE(CPUID_LEAF_EXT_FEATURES, ECX, 2, umip),
	FEATURE(CPUID_LEAF_EXT_FEATURES1, EDX, 11, syscall),
	FEATURE(CPUID_LEAF_EXT_FEATURES1, EDX, 20, nx),
	FEATURE(CPUID_LEAF_EXT_FEATURES1, EDX, 27, rdtscp),
	FEATURE(CPUID_LEAF_EXT_FEATURES1, EDX, 29, lm),
	FEATURE(CPUID_LEAF_APM, EDX, 8, invariant_tsc),
	FEATURE(CPUID_LEAF_APM, EDX, 14, rapl),         /* AMD: RAPL; reserved (0) on Intel */
};

static const char *const pmu_kind_names[PMU_KIND_COUNT] = {
#define PMU_KIND_NAME(kind, name) [kind] = name,
	PMU_KINDS(PMU_KIND_NAME)
#undef PMU_KIND_NAME
};

const char *pmu_kind_name(enum pmu_kind kind)
{
	if ((unsigned)kind >= PMU_KIND_COUNT)
		return "unknown";
	return pmu_kind_names[kind];
}

/* The callback, fenced by the maximum leaves: a leaf beyond them reads as zero
 * without being asked for, since CPUs return another leaf's data there. */
struct leaf_reader {
	cpuid_read_fn read;
	void *ctx;
	uint32_t max_leaf, max_ext_leaf;
	bool hypervisor;
};

static bool leaf_valid(const struct leaf_reader *r, uint32_t leaf)
{
	if (leaf == CPUID_LEAF_BASIC_MAX || leaf == CPUID_LEAF_EXT_MAX)
		return true;
	if (leaf < CPUID_LEAF_HV_BASE)
		return leaf <= r->max_leaf;
	if (leaf <= CPUID_LEAF_HV_END)
		return r->hypervisor && leaf == CPUID_LEAF_HV_BASE;
	return leaf <= r->max_ext_leaf;
}

static void leaf_read(const struct leaf_reader *r, uint32_t leaf, uint32_t subleaf,
		      uint32_t regs[4])
{
	regs[EAX] = regs[EBX] = regs[ECX] = regs[EDX] = 0;
	if (!leaf_valid(r, leaf) || !r->read(r->ctx, leaf, subleaf, regs))
		regs[EAX] = regs[EBX] = regs[ECX] = regs[EDX] = 0;
}

/* Copies register bytes as characters, replacing anything unprintable so that a
 * garbage leaf cannot put control characters into the report. */
static void regs_to_string(char *dst, const uint32_t *words, unsigned nwords)
{
	unsigned i;

	for (i = 0; i < nwords * 4; i++) {
		char c = (char)(words[i / 4] >> (8 * (i % 4)));
		dst[i] = (c == 0 || (c >= 0x20 && c < 0x7F)) ? c : '?';
	}
	dst[nwords * 4] = 0;
}

/* Removes leading and trailing spaces in place; stops at the first NUL. */
static void trim_spaces(char *s)
{
	size_t start = 0, len = strlen(s);

	while (start < len && s[start] == ' ')
		start++;
	while (len > start && s[len - 1] == ' ')
		len--;
	memmove(s, s + start, len - start);
	s[len - start] = 0;
}

static void decode_identity(const struct leaf_reader *r, struct cpu_info *ci,
			    const uint32_t leaf1[4])
{
	unsigned base_family = SIG_FAMILY(leaf1[EAX]);
	bool ext_model;

	ci->signature = leaf1[EAX];
	ci->stepping = SIG_STEPPING(leaf1[EAX]);
	ci->family = base_family;
	if (base_family == 0xF)
		ci->family += SIG_EXT_FAMILY(leaf1[EAX]);
	/* AMD documents the extended model for base family 0xF only; Intel for 6 and 0xF. */
	if (ci->vendor == VENDOR_AMD || ci->vendor == VENDOR_HYGON)
		ext_model = base_family == 0xF;
	else
		ext_model = base_family == 0x6 || base_family == 0xF;
	ci->model = SIG_MODEL(leaf1[EAX]);
	if (ext_model)
		ci->model += SIG_EXT_MODEL(leaf1[EAX]) << 4;

	ci->brand[0] = 0;
	if (r->max_ext_leaf >= CPUID_LEAF_BRAND2) {
		uint32_t words[12];
		unsigned i;

		for (i = 0; i < 3; i++)
			leaf_read(r, CPUID_LEAF_BRAND0 + i, 0, &words[4 * i]);
		regs_to_string(ci->brand, words, 12);
		trim_spaces(ci->brand);
	}
}

static void decode_features(const struct leaf_reader *r, struct cpu_info *ci)
{
	uint32_t regs[4], cached_leaf = ~0u;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(feature_bits); i++) {
		const struct feature_bit *f = &feature_bits[i];

		if (f->leaf != cached_leaf) {
			leaf_read(r, f->leaf, 0, regs);
			cached_leaf = f->leaf;
		}
		*(bool *)((char *)ci + f->field) = BIT_SET(regs[f->reg], f->bit);
	}
}

static void decode_clock(const struct leaf_reader *r, struct cpu_info *ci)
{
	uint32_t regs[4];

	leaf_read(r, CPUID_LEAF_TSC_CRYSTAL, 0, regs);
	ci->tsc_ratio_den = regs[EAX];
	ci->tsc_ratio_num = regs[EBX];
	ci->crystal_hz = regs[ECX];
	if (regs[EAX] != 0 && regs[EBX] != 0 && regs[ECX] != 0)
		ci->tsc_hz = (uint64_t)regs[ECX] * regs[EBX] / regs[EAX];

	leaf_read(r, CPUID_LEAF_FREQUENCY, 0, regs);
	ci->base_mhz = CPUID16_MHZ(regs[EAX]);
	ci->max_mhz = CPUID16_MHZ(regs[EBX]);
	ci->bus_mhz = CPUID16_MHZ(regs[ECX]);
}

static void decode_topology(const struct leaf_reader *r, struct cpu_info *ci,
			    const uint32_t leaf1[4])
{
	uint32_t regs[4];
	unsigned cores = 1;

	ci->initial_apic_id = (uint8_t)CPUID1_EBX_APIC_ID(leaf1[EBX]);
	ci->clflush_size = CPUID1_EBX_CLFLUSH_LINE(leaf1[EBX]) * 8;
	ci->logical_per_package = 1;
	if (ci->htt && CPUID1_EBX_LOGICAL_COUNT(leaf1[EBX]) != 0)
		ci->logical_per_package = CPUID1_EBX_LOGICAL_COUNT(leaf1[EBX]);
	ci->threads_per_core = 0;

	if (ci->vendor == VENDOR_INTEL && r->max_leaf >= CPUID_LEAF_TOPOLOGY) {
		leaf_read(r, CPUID_LEAF_TOPOLOGY, 0, regs);
		if (CPUIDB_ECX_TYPE(regs[ECX]) == CPUIDB_TYPE_SMT && CPUIDB_EBX_COUNT(regs[EBX]) != 0)
			ci->threads_per_core = CPUIDB_EBX_COUNT(regs[EBX]);
	}
	if ((ci->vendor == VENDOR_AMD || ci->vendor == VENDOR_HYGON) &&
	    ci->family >= AMD_FAMILY_ZEN && r->max_ext_leaf >= CPUID_LEAF_AMD_TOPOLOGY) {
		leaf_read(r, CPUID_LEAF_AMD_TOPOLOGY, 0, regs);
		ci->threads_per_core = AMD_8000001E_EBX_THREADS(regs[EBX]);
	}
	if (ci->threads_per_core != 0)
		return;

	/* No topology leaf: logical processors per package over cores per package. */
	if (ci->vendor == VENDOR_INTEL && r->max_leaf >= CPUID_LEAF_CACHE_PARAMS) {
		leaf_read(r, CPUID_LEAF_CACHE_PARAMS, 0, regs);
		cores = CPUID4_EAX_CORES(regs[EAX]);
	} else if ((ci->vendor == VENDOR_AMD || ci->vendor == VENDOR_HYGON) &&
		   r->max_ext_leaf >= CPUID_LEAF_ADDR_SIZES) {
		leaf_read(r, CPUID_LEAF_ADDR_SIZES, 0, regs);
		cores = AMD_80000008_ECX_CORES(regs[ECX]);
	}
	ci->threads_per_core = ci->logical_per_package / cores;
	if (ci->threads_per_core == 0)
		ci->threads_per_core = 1;
}

static void pmu_set(struct pmu_caps *pc, enum pmu_kind kind, unsigned version,
		    unsigned gp_counters, unsigned gp_width)
{
	pc->kind = kind;
	pc->version = version;
	pc->gp_counters = gp_counters;
	pc->gp_width = gp_width;
}

static void decode_pmu_intel_arch(struct pmu_caps *pc, const struct cpu_info *ci,
				  const uint32_t regs[4])
{
	unsigned version = ARCH_PERFMON_EAX_VERSION(regs[EAX]);
	unsigned fixed = 0, fixed_width = 0;

	pmu_set(pc, PMU_INTEL_ARCH, version, ARCH_PERFMON_EAX_GP_COUNT(regs[EAX]),
		ARCH_PERFMON_EAX_GP_WIDTH(regs[EAX]));
	pc->arch_events_len = ARCH_PERFMON_EAX_EVENTS_LEN(regs[EAX]);
	pc->arch_events_unavail = regs[EBX];
	if (version >= 2) {
		fixed = ARCH_PERFMON_EDX_FIXED_COUNT(regs[EDX]);
		fixed_width = ARCH_PERFMON_EDX_FIXED_WIDTH(regs[EDX]);
		pc->any_thread_deprecated = BIT_SET(regs[EDX], ARCH_PERFMON_EDX_ANYTHREAD_DEPRECATED_BIT);
	}
	if (version >= 2 && version <= 4 && !ci->hypervisor && fixed < ARCH_PERFMON_QUIRK_FIXED) {
		fixed = ARCH_PERFMON_QUIRK_FIXED;
		pc->fixed_count_quirk = true;
	}
	pc->fixed_counter_mask = fixed >= 32 ? ~0u : (1u << fixed) - 1;
	if (version >= 5) {
		/* SDM 20.2.5: fixed counter i exists when ECX[i] is set or i < EDX[4:0]. */
		pc->fixed_counter_mask |= regs[ECX];
		fixed = 0;
		while (fixed < 32 && (pc->fixed_counter_mask >> fixed) != 0)
			fixed++;
	}
	if (fixed != 0 && fixed_width == 0)
		fixed_width = pc->gp_width;
	pc->fixed_counters = fixed;
	pc->fixed_width = fixed != 0 ? fixed_width : 0;
}

static void decode_pmu_intel(const struct leaf_reader *r, const struct cpu_info *ci,
			     struct pmu_caps *pc)
{
	uint32_t regs[4];

	if (ci->family == INTEL_NETBURST_FAMILY) {
		pmu_set(pc, PMU_INTEL_NETBURST, 0, P4_NUM_COUNTERS, P4_COUNTER_WIDTH);
		/* Hyper-Threading is two threads per core, not HTT with two logical
		 * processors per package: a Pentium D has that with one thread per core. */
		pc->netburst_ht = ci->threads_per_core > 1;
		return;
	}
	leaf_read(r, CPUID_LEAF_ARCH_PERFMON, 0, regs);
	if (ARCH_PERFMON_EAX_VERSION(regs[EAX]) >= 1) {
		decode_pmu_intel_arch(pc, ci, regs);
		return;
	}
	/* A hypervisor may hide leaf 0xA on purpose: no PMU is the only safe answer. */
	if (ci->family == 6 && ci->model <= P6_LAST_MODEL && !ci->hypervisor)
		pmu_set(pc, PMU_INTEL_P6, 0, P6_COUNTERS, P6_COUNTER_WIDTH);
}

static void decode_pmu_amd(const struct leaf_reader *r, const struct cpu_info *ci,
			   struct pmu_caps *pc)
{
	uint32_t regs[4];

	if (ci->family < AMD_FIRST_PMU_FAMILY)
		return;
	leaf_read(r, CPUID_LEAF_EXT_FEATURES1, 0, regs);
	pc->amd_perfctr_core = BIT_SET(regs[ECX], AMD_EXT1_ECX_PERFCTR_CORE_BIT);
	leaf_read(r, CPUID_LEAF_AMD_PERFMON, 0, regs);
	pc->amd_perfmon_v2 = BIT_SET(regs[EAX], AMD_PERFMON_EAX_V2_BIT);
	pc->amd_lbr_v2 = BIT_SET(regs[EAX], AMD_PERFMON_EAX_LBR_V2_BIT);

	if (pc->amd_perfmon_v2)
		pmu_set(pc, PMU_AMD_PERFMON_V2, 2, AMD_PERFMON_EBX_CORE_COUNT(regs[EBX]), AMD64_COUNTER_WIDTH);
	else if (pc->amd_perfctr_core)
		pmu_set(pc, PMU_AMD_CORE, 0, AMD_CORE_COUNTERS, AMD64_COUNTER_WIDTH);
	else
		pmu_set(pc, PMU_AMD_LEGACY, 0, AMD_LEGACY_COUNTERS, AMD64_COUNTER_WIDTH);
}

static enum cpu_vendor vendor_from_id(const char *id)
{
	if (strcmp(id, "GenuineIntel") == 0)
		return VENDOR_INTEL;
	if (strcmp(id, "AuthenticAMD") == 0)
		return VENDOR_AMD;
	if (strcmp(id, "HygonGenuine") == 0)
		return VENDOR_HYGON;
	return VENDOR_OTHER;
}

/* RAPL: AMD and Hygon say so in CPUID (AMD PPR, CPUID_Fn80000007_EDX[14] RAPL); Intel
 * does not, so the family 6 model list decides. The boot probe then reads the MSRs. */
static void decode_rapl(struct cpu_info *ci, struct pmu_caps *pc)
{
	bool dram_fixed = false;
	if (ci->vendor == VENDOR_INTEL)
		ci->rapl = ci->family == 6 && rapl_intel_model(ci->model, &dram_fixed);
	else if (ci->vendor != VENDOR_AMD && ci->vendor != VENDOR_HYGON)
		ci->rapl = false;
	pc->rapl = (struct rapl_caps){
		.vendor = !ci->rapl ? RAPL_VENDOR_NONE
			: ci->vendor == VENDOR_INTEL ? RAPL_VENDOR_INTEL : RAPL_VENDOR_AMD,
		.dram_fixed_unit = dram_fixed,
		.state = ci->rapl ? RAPL_UNPROBED : RAPL_ABSENT,
	};
}

void cpuinfo_decode(cpuid_read_fn read, void *ctx, struct cpu_info *ci, struct pmu_caps *pc)
{
	struct leaf_reader r = { .read = read, .ctx = ctx };
	uint32_t regs[4], leaf1[4], vendor_words[3];

	memset(ci, 0, sizeof(*ci));
	memset(pc, 0, sizeof(*pc));

	leaf_read(&r, CPUID_LEAF_BASIC_MAX, 0, regs);
	r.max_leaf = ci->max_leaf = regs[EAX];
	vendor_words[0] = regs[EBX];
	vendor_words[1] = regs[EDX];
	vendor_words[2] = regs[ECX];
	regs_to_string(ci->vendor_id, vendor_words, 3);
	ci->vendor = vendor_from_id(ci->vendor_id);

	/* Linux's test: without 0x8000xxxx in EAX the extended range does not exist. */
	leaf_read(&r, CPUID_LEAF_EXT_MAX, 0, regs);
	if ((regs[EAX] & 0xFFFF0000u) == CPUID_LEAF_EXT_MAX)
		r.max_ext_leaf = ci->max_ext_leaf = regs[EAX];

	decode_features(&r, ci);
	r.hypervisor = ci->hypervisor;
	leaf_read(&r, CPUID_LEAF_SIGNATURE, 0, leaf1);
	decode_identity(&r, ci, leaf1);
	decode_topology(&r, ci, leaf1);
	decode_clock(&r, ci);

	if (ci->hypervisor) {
		leaf_read(&r, CPUID_LEAF_HV_BASE, 0, regs);
		regs_to_string(ci->hv_vendor, &regs[EBX], 3);
	}

	if (ci->vendor == VENDOR_INTEL)
		decode_pmu_intel(&r, ci, pc);
	else if (ci->vendor == VENDOR_AMD || ci->vendor == VENDOR_HYGON)
		decode_pmu_amd(&r, ci, pc);
	pc->aperfmperf = ci->aperfmperf;
	decode_rapl(ci, pc);
}

/* ------------------------------------------------------------------ report */

#define REPORT_LINE_MAX 256

static const char *yes_no(bool b)
{
	return b ? "yes" : "no";
}

static void emitf(cpuinfo_line_fn emit, void *ctx, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void emitf(cpuinfo_line_fn emit, void *ctx, const char *fmt, ...)
{
	char line[REPORT_LINE_MAX];
	va_list ap;

	va_start(ap, fmt);
	bp_vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	emit(ctx, line);
}

static void report_features(const struct cpu_info *ci, cpuinfo_line_fn emit, void *ctx)
{
	char line[REPORT_LINE_MAX];
	size_t len, i;
	bool first = true;

	len = (size_t)bp_snprintf(line, sizeof(line), "cpu.features=");
	for (i = 0; i < ARRAY_SIZE(feature_bits); i++) {
		const struct feature_bit *f = &feature_bits[i];

		if (!*(const bool *)((const char *)ci + f->field))
			continue;
		if (len < sizeof(line))
			len += (size_t)bp_snprintf(line + len, sizeof(line) - len, "%s%s",
						   first ? "" : ",", f->name);
		first = false;
	}
	emit(ctx, line);
}

void cpuinfo_report(const struct cpu_info *ci, const struct pmu_caps *pc,
		    cpuinfo_line_fn emit, void *ctx)
{
	const char *hv = "none";

	if (ci->hypervisor)
		hv = ci->hv_vendor[0] != 0 ? ci->hv_vendor : "unknown";

	emitf(emit, ctx, "cpu.vendor=%s", ci->vendor_id);
	emitf(emit, ctx, "cpu.family=%u", ci->family);
	emitf(emit, ctx, "cpu.model=%u", ci->model);
	emitf(emit, ctx, "cpu.stepping=%u", ci->stepping);
	emitf(emit, ctx, "cpu.brand=%s", ci->brand);
	emitf(emit, ctx, "cpu.hypervisor=%s", hv);
	emitf(emit, ctx, "cpu.invariant_tsc=%s", yes_no(ci->invariant_tsc));
	emitf(emit, ctx, "cpu.tsc_hz=%llu", (unsigned long long)ci->tsc_hz);
	emitf(emit, ctx, "cpu.base_mhz=%u", (unsigned)ci->base_mhz);
	emitf(emit, ctx, "cpu.threads_per_core=%u", ci->threads_per_core);
	emitf(emit, ctx, "cpu.logical_per_package=%u", ci->logical_per_package);
	emitf(emit, ctx, "cpu.signature=0x%08x", (unsigned)ci->signature);
	emitf(emit, ctx, "cpu.max_leaf=0x%x", (unsigned)ci->max_leaf);
	emitf(emit, ctx, "cpu.max_ext_leaf=0x%x", (unsigned)ci->max_ext_leaf);
	report_features(ci, emit, ctx);

	emitf(emit, ctx, "pmu.kind=%s", pmu_kind_name(pc->kind));
	emitf(emit, ctx, "pmu.version=%u", pc->version);
	emitf(emit, ctx, "pmu.gp_counters=%u", pc->gp_counters);
	emitf(emit, ctx, "pmu.gp_width=%u", pc->gp_width);
	emitf(emit, ctx, "pmu.fixed_counters=%u", pc->fixed_counters);
	emitf(emit, ctx, "pmu.fixed_width=%u", pc->fixed_width);

	switch (pc->kind) {
	case PMU_INTEL_ARCH:
		emitf(emit, ctx, "pmu.arch_events_len=%u", (unsigned)pc->arch_events_len);
		emitf(emit, ctx, "pmu.arch_events_unavail=0x%x", (unsigned)pc->arch_events_unavail);
		emitf(emit, ctx, "pmu.fixed_counter_mask=0x%x", (unsigned)pc->fixed_counter_mask);
		emitf(emit, ctx, "pmu.fixed_quirk=%s", yes_no(pc->fixed_count_quirk));
		emitf(emit, ctx, "pmu.any_thread_deprecated=%s", yes_no(pc->any_thread_deprecated));
		break;
	case PMU_INTEL_NETBURST:
		emitf(emit, ctx, "pmu.netburst_ht=%s", yes_no(pc->netburst_ht));
		break;
	case PMU_AMD_LEGACY:
	case PMU_AMD_CORE:
	case PMU_AMD_PERFMON_V2:
		emitf(emit, ctx, "pmu.amd_perfctr_core=%s", yes_no(pc->amd_perfctr_core));
		emitf(emit, ctx, "pmu.amd_perfmon_v2=%s", yes_no(pc->amd_perfmon_v2));
		emitf(emit, ctx, "pmu.amd_lbr_v2=%s", yes_no(pc->amd_lbr_v2));
		break;
	default:
		break;
	}
}
