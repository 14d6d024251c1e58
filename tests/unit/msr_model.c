/*
 * Host model of the PMU MSRs of each generation. Addresses, reserved bits and counter
 * write rules are written out here from the manuals (not taken from the backend headers),
 * so a backend and its model disagree when one of them is wrong.
 * Intel: SDM Vol. 3B 20.2 (architectural PMU), 21.6.x (P6), Vol. 4 (MSR tables).
 * AMD: APM Vol. 2 13.2, Athlon optimisation guide (shared/reference, K7 PerfEvtSel).
 */
#include "tests/unit/msr_model.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *const n_evtsel[] = { "PERFEVTSEL0", "PERFEVTSEL1", "PERFEVTSEL2", "PERFEVTSEL3",
					"PERFEVTSEL4", "PERFEVTSEL5", "PERFEVTSEL6", "PERFEVTSEL7" };
static const char *const n_pmc[] = { "PMC0", "PMC1", "PMC2", "PMC3", "PMC4", "PMC5", "PMC6", "PMC7" };
static const char *const n_apmc[] = { "A_PMC0", "A_PMC1", "A_PMC2", "A_PMC3",
				      "A_PMC4", "A_PMC5", "A_PMC6", "A_PMC7" };
static const char *const n_fixed[] = { "FIXED_CTR0", "FIXED_CTR1", "FIXED_CTR2", "FIXED_CTR3" };
static const char *const n_k7sel[] = { "K7_EVNTSEL0", "K7_EVNTSEL1", "K7_EVNTSEL2", "K7_EVNTSEL3" };
static const char *const n_k7ctr[] = { "K7_PERFCTR0", "K7_PERFCTR1", "K7_PERFCTR2", "K7_PERFCTR3" };
static const char *const n_ctl[] = { "PERF_CTL0", "PERF_CTL1", "PERF_CTL2", "PERF_CTL3",
				     "PERF_CTL4", "PERF_CTL5", "PERF_CTL6", "PERF_CTL7" };
static const char *const n_ctr[] = { "PERF_CTR0", "PERF_CTR1", "PERF_CTR2", "PERF_CTR3",
				     "PERF_CTR4", "PERF_CTR5", "PERF_CTR6", "PERF_CTR7" };

#define MODEL_MAX_GP 8
#define BIT(n) (1ULL << (n))

static uint64_t width_mask(unsigned width)
{
	return width == 0 || width >= 64 ? ~0ULL : (1ULL << width) - 1;
}

static struct msr_def *add(struct msr_model *m, uint32_t msr, const char *name, uint64_t reserved)
{
	if (m->ndefs >= MSR_MODEL_MAX) {
		m->faults++;
		snprintf(m->first_fault, sizeof(m->first_fault), "model full adding %s", name);
		return &m->defs[MSR_MODEL_MAX - 1];
	}
	struct msr_def *d = &m->defs[m->ndefs++];
	memset(d, 0, sizeof(*d));
	d->msr = msr;
	d->name = name;
	d->reserved = reserved;
	return d;
}

static struct msr_def *add_counter(struct msr_model *m, uint32_t msr, const char *name,
				   unsigned width, enum msr_write_mode mode, enum msr_role role,
				   unsigned index)
{
	struct msr_def *d = add(m, msr, name, 0);
	d->width = (uint8_t)width;
	d->write_mode = (uint8_t)mode;
	d->role = (uint8_t)role;
	d->index = (uint8_t)index;
	return d;
}

static void add_free_running(struct msr_model *m, bool aperf)
{
	add(m, 0x10, "TSC", 0);
	if (aperf) {
		add(m, 0xe7, "MPERF", 0);
		add(m, 0xe8, "APERF", 0);
	}
}

/* Second registers of model-specific events (SDM Vol. 4 MSR tables): MSR_OFFCORE_RSP_0
 * 1A6H from Nehalem, MSR_OFFCORE_RSP_1 1A7H from Westmere, bits 63:38 reserved (SDM
 * Vol. 3B off-core response layout, Sandy Bridge on); MSR_PEBS_FRONTEND 3F7H from
 * Skylake, bits 63:23 reserved. */
static void add_extra_regs(struct msr_model *m, const struct msr_model_opts *o)
{
	static const char *const n_rsp[] = { "OFFCORE_RSP_0", "OFFCORE_RSP_1" };
	for (unsigned i = 0; i < o->offcore_rsp && i < 2; i++)
		add(m, 0x1a6 + i, n_rsp[i], 0xffffffc000000000ULL);
	if (o->pebs_frontend)
		add(m, 0x3f7, "PEBS_FRONTEND", 0xffffffffff800000ULL);
}

static void init_intel_arch(struct msr_model *m, const struct pmu_caps *pc,
			    const struct msr_model_opts *o)
{
	unsigned v = pc->version;
	unsigned gp = pc->gp_counters < MODEL_MAX_GP ? pc->gp_counters : MODEL_MAX_GP;
	bool any_ok = v >= 3 && !pc->any_thread_deprecated;
	/* Fixed counters: v2-4 the first fixed_counters; v5 the CPUID.0AH:ECX|EDX union the
	 * caps carry as a bitmap (SDM 20.2.5). */
	uint32_t fixed = 0;
	if (v >= 2)
		fixed = v >= 5 ? pc->fixed_counter_mask : (1u << (pc->fixed_counters < 4 ? pc->fixed_counters : 4)) - 1;
	fixed &= 0xf;
	uint64_t gp_bits = (1ULL << gp) - 1, fixed_bits = (uint64_t)fixed << 32;

	add_free_running(m, true);
	add_extra_regs(m, o);
	for (unsigned i = 0; i < gp; i++) {
		/* IA32_PERFEVTSELx: 63:32 reserved; AnyThread (21) reserved before v3 or when
		 * deprecated (CPUID.0AH:EDX[15]). */
		struct msr_def *d = add(m, 0x186 + i, n_evtsel[i],
					0xffffffff00000000ULL | (any_ok ? 0 : BIT(21)));
		d->role = MSR_ROLE_EVTSEL;
		d->index = (uint8_t)i;
		add_counter(m, 0xc1 + i, n_pmc[i], pc->gp_width, MSR_WRITE_SEXT32, MSR_ROLE_GP_CTR, i);
		if (o->full_width) {
			/* IA32_A_PMCx: bits above the counter width #GP (SDM 20.2.6). */
			struct msr_def *a = add_counter(m, 0x4c1 + i, n_apmc[i], pc->gp_width,
							MSR_WRITE_PLAIN, MSR_ROLE_NONE, i);
			a->reserved = ~width_mask(pc->gp_width);
			a->alias_of = 0xc1 + i;
		}
	}
	if (o->pdcm) {
		struct msr_def *d = add(m, 0x345, "PERF_CAPABILITIES", 0);
		d->read_only = true;
		m->value[m->ndefs - 1] = o->full_width ? BIT(13) : 0;
	}
	if (v < 2)
		return;
	uint64_t fixed_ctrl_ok = 0;
	for (unsigned j = 0; j < 4; j++) {
		if (!(fixed & (1u << j)))
			continue;
		add_counter(m, 0x309 + j, n_fixed[j], pc->fixed_width, MSR_WRITE_PLAIN,
			    MSR_ROLE_FIXED_CTR, j);
		/* OS, USR, AnyThread (v3+), PMI per counter (SDM Figure 20-8). */
		fixed_ctrl_ok |= (uint64_t)(any_ok ? 0xf : 0xb) << (4 * j);
	}
	if (fixed)
		add(m, 0x38d, "FIXED_CTR_CTRL", ~fixed_ctrl_ok);
	struct msr_def *st = add(m, 0x38e, "PERF_GLOBAL_STATUS", 0);
	st->read_only = true;
	add(m, 0x38f, "PERF_GLOBAL_CTRL", ~(gp_bits | fixed_bits));
	/* Power-up value: one enable bit per GP counter, so v1 software still counts. */
	m->value[m->ndefs - 1] = gp_bits;
	/* OVF_CTRL clear bits: counters, CondChgd 63, OvfBuf 62; Ovf_Uncore 61 from v3;
	 * v4 (STATUS_RESET) adds ToPA 55, LBR_Frz 58, CTR_Frz 59. */
	uint64_t ovf_ok = gp_bits | fixed_bits | BIT(62) | BIT(63);
	if (v >= 3)
		ovf_ok |= BIT(61);
	if (v >= 4)
		ovf_ok |= BIT(55) | BIT(58) | BIT(59);
	add(m, 0x390, "PERF_GLOBAL_OVF_CTRL", ~ovf_ok);
	if (v >= 4) {
		add(m, 0x391, "PERF_GLOBAL_STATUS_SET", ~ovf_ok);
		struct msr_def *in = add(m, 0x392, "PERF_GLOBAL_INUSE", 0);
		in->read_only = true;
	}
}

static void init_intel_p6(struct msr_model *m)
{
	add_free_running(m, false);
	/* EN (22) only in PERFEVTSEL0; bit 21 and 63:32 reserved in both. */
	struct msr_def *d = add(m, 0x186, "PERFEVTSEL0", 0xffffffff00000000ULL | BIT(21));
	d->role = MSR_ROLE_EVTSEL;
	d = add(m, 0x187, "PERFEVTSEL1", 0xffffffff00000000ULL | BIT(21) | BIT(22));
	d->role = MSR_ROLE_EVTSEL;
	d->index = 1;
	add_counter(m, 0xc1, "PERFCTR0", 40, MSR_WRITE_SEXT32, MSR_ROLE_GP_CTR, 0);
	add_counter(m, 0xc2, "PERFCTR1", 40, MSR_WRITE_SEXT32, MSR_ROLE_GP_CTR, 1);
}

/* AMD PerfEvtSel: bit 21 always reserved; K7/K8 nothing above 31; family 10h on has
 * EventSelect[11:8] at 35:32 and GuestOnly/HostOnly at 40/41, 39:36 and 63:42 reserved. */
#define AMD_RSVD_K7  (0xffffffff00000000ULL | BIT(21))
#define AMD_RSVD_F10 (0xfffffc0000000000ULL | 0x000000f000000000ULL | BIT(21))

static void init_amd(struct msr_model *m, enum pmu_kind kind, const struct pmu_caps *pc,
		     const struct msr_model_opts *o)
{
	unsigned width = pc->gp_width ? pc->gp_width : 48;
	if (kind == PMU_AMD_LEGACY) {
		add_free_running(m, false);
		for (unsigned i = 0; i < 4; i++) {
			struct msr_def *d = add(m, 0xc0010000 + i, n_k7sel[i],
						o->amd_fam10h ? AMD_RSVD_F10 : AMD_RSVD_K7);
			d->role = MSR_ROLE_EVTSEL;
			d->index = (uint8_t)i;
			add_counter(m, 0xc0010004 + i, n_k7ctr[i], width, MSR_WRITE_PLAIN,
				    MSR_ROLE_GP_CTR, i);
		}
		return;
	}
	add_free_running(m, true);
	unsigned n = 6;
	if (kind == PMU_AMD_PERFMON_V2)
		n = pc->gp_counters < MODEL_MAX_GP ? pc->gp_counters : MODEL_MAX_GP;
	for (unsigned i = 0; i < n; i++) {
		struct msr_def *d = add(m, 0xc0010200 + 2 * i, n_ctl[i], AMD_RSVD_F10);
		d->role = MSR_ROLE_EVTSEL;
		d->index = (uint8_t)i;
		add_counter(m, 0xc0010201 + 2 * i, n_ctr[i], width, MSR_WRITE_PLAIN, MSR_ROLE_GP_CTR, i);
	}
	/* APM Vol. 2 13.2.1: the legacy PerfEvtSel0-3/PerfCtr0-3 stay, as aliases of the
	 * first four PERF_CTL/PERF_CTR. */
	for (unsigned i = 0; i < 4 && i < n; i++) {
		add(m, 0xc0010000 + i, n_k7sel[i], AMD_RSVD_F10)->alias_of = 0xc0010200 + 2 * i;
		add_counter(m, 0xc0010004 + i, n_k7ctr[i], width, MSR_WRITE_PLAIN, MSR_ROLE_NONE,
			    i)->alias_of = 0xc0010201 + 2 * i;
	}
	if (kind != PMU_AMD_PERFMON_V2)
		return;
	uint64_t bits = (1ULL << n) - 1;
	struct msr_def *st = add(m, 0xc0000300, "PERF_CNTR_GLOBAL_STATUS", 0);
	st->read_only = true;
	add(m, 0xc0000301, "PERF_CNTR_GLOBAL_CTL", ~bits);
	m->value[m->ndefs - 1] = bits;   /* resets with every counter enabled */
	add(m, 0xc0000302, "PERF_CNTR_GLOBAL_STATUS_CLR", ~(bits | BIT(58) | BIT(59)));
}

void msr_model_init_opts(struct msr_model *m, enum pmu_kind kind, const struct pmu_caps *pc,
			 const struct msr_model_opts *opts)
{
	memset(m, 0, sizeof(*m));
	m->kind = kind;
	switch (kind) {
	case PMU_INTEL_ARCH: init_intel_arch(m, pc, opts); break;
	case PMU_INTEL_P6: init_intel_p6(m); break;
	case PMU_AMD_LEGACY:
	case PMU_AMD_CORE:
	case PMU_AMD_PERFMON_V2: init_amd(m, kind, pc, opts); break;
	case PMU_INTEL_NETBURST:
		m->ndefs = msr_model_netburst_defs(m->defs, MSR_MODEL_MAX - 1);
		add_free_running(m, false);
		break;
	case PMU_NONE:
	case PMU_KIND_COUNT:
		break;
	}
}

void msr_model_init(struct msr_model *m, enum pmu_kind kind, const struct pmu_caps *pc)
{
	struct msr_model_opts o = { .pdcm = kind == PMU_INTEL_ARCH && pc->version >= 2 };
	msr_model_init_opts(m, kind, pc, &o);
}

int msr_model_find(const struct msr_model *m, uint32_t msr)
{
	for (unsigned i = 0; i < m->ndefs; i++)
		if (m->defs[i].msr == msr)
			return (int)i;
	return -1;
}

/* Index whose value[] holds msr's contents (itself, or what it aliases). */
static int storage_of(const struct msr_model *m, int i)
{
	if (i >= 0 && m->defs[i].alias_of) {
		int a = msr_model_find(m, m->defs[i].alias_of);
		return a >= 0 ? a : i;
	}
	return i;
}

static const char *kind_label(enum pmu_kind k)
{
	static const char *const names[PMU_KIND_COUNT] = {
		[PMU_NONE] = "none", [PMU_INTEL_NETBURST] = "intel-netburst",
		[PMU_INTEL_P6] = "intel-p6", [PMU_INTEL_ARCH] = "intel-arch",
		[PMU_AMD_LEGACY] = "amd-legacy", [PMU_AMD_CORE] = "amd-core",
		[PMU_AMD_PERFMON_V2] = "amd-perfmon-v2",
	};
	return (unsigned)k < PMU_KIND_COUNT ? names[k] : "?";
}

static int fault(struct msr_model *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fault(struct msr_model *m, const char *fmt, ...)
{
	if (m->faults++ == 0) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(m->first_fault, sizeof(m->first_fault), fmt, ap);
		va_end(ap);
	}
	return 13;   /* #GP */
}

static int model_read(void *ctx, uint32_t msr, uint64_t *val)
{
	struct msr_model *m = ctx;
	int i = msr_model_find(m, msr);
	if (i < 0)
		return fault(m, "RDMSR 0x%x: not in the %s model", msr, kind_label(m->kind));
	*val = m->value[storage_of(m, i)];
	return 0;
}

static uint64_t counter_value(const struct msr_def *d, uint64_t val)
{
	if (d->write_mode == MSR_WRITE_SEXT32)
		val = (uint64_t)(int64_t)(int32_t)(uint32_t)val;
	return val & width_mask(d->width);
}

static int model_write(void *ctx, uint32_t msr, uint64_t val)
{
	struct msr_model *m = ctx;
	int i = msr_model_find(m, msr);
	if (i < 0)
		return fault(m, "WRMSR 0x%x <- 0x%llx: not in the %s model", msr,
			     (unsigned long long)val, kind_label(m->kind));
	const struct msr_def *d = &m->defs[i];
	if (d->read_only)
		return fault(m, "WRMSR 0x%x (%s) <- 0x%llx: read-only", msr, d->name,
			     (unsigned long long)val);
	if (val & d->reserved)
		return fault(m, "WRMSR 0x%x (%s) <- 0x%llx: reserved bits 0x%llx set", msr, d->name,
			     (unsigned long long)val, (unsigned long long)(val & d->reserved));
	m->value[storage_of(m, i)] = counter_value(d, val);
	/* Writing 1s to the overflow-clear registers clears those status bits. */
	uint32_t status = msr == 0x390 ? 0x38e : msr == 0xc0000302 ? 0xc0000300 : 0;
	int s = status ? msr_model_find(m, status) : -1;
	if (s >= 0)
		m->value[s] &= ~val;
	if (status == 0 && msr == 0x391 && (s = msr_model_find(m, 0x38e)) >= 0)
		m->value[s] |= val;
	if (m->nlog < MSR_MODEL_LOG_MAX)
		m->log[m->nlog++] = (struct msr_model_write){ msr, val };
	return 0;
}

struct msr_io msr_model_io(struct msr_model *m)
{
	return (struct msr_io){ .read = model_read, .write = model_write, .ctx = m };
}

uint64_t msr_model_get(const struct msr_model *m, uint32_t msr)
{
	int i = msr_model_find(m, msr);
	return i < 0 ? 0 : m->value[storage_of(m, i)];
}

void msr_model_set(struct msr_model *m, uint32_t msr, uint64_t val)
{
	int i = msr_model_find(m, msr);
	if (i < 0) {
		fault(m, "msr_model_set 0x%x: not in the %s model", msr, kind_label(m->kind));
		return;
	}
	m->value[storage_of(m, i)] = val & width_mask(m->defs[i].width);
}

/* Value of the control register of role/index, 0 when absent. */
static uint64_t evtsel_of(const struct msr_model *m, unsigned index)
{
	for (unsigned i = 0; i < m->ndefs; i++)
		if (m->defs[i].role == MSR_ROLE_EVTSEL && m->defs[i].index == index)
			return m->value[i];
	return 0;
}

bool msr_model_counting(const struct msr_model *m, uint32_t msr)
{
	int i = msr_model_find(m, msr);
	if (i < 0)
		return false;
	const struct msr_def *d = &m->defs[i];
	const uint64_t en = BIT(22), ring = BIT(16) | BIT(17);
	bool has_global = msr_model_find(m, m->kind == PMU_AMD_PERFMON_V2 ? 0xc0000301 : 0x38f) >= 0 &&
			  (m->kind == PMU_INTEL_ARCH || m->kind == PMU_AMD_PERFMON_V2);
	uint64_t global = has_global ? msr_model_get(m, m->kind == PMU_AMD_PERFMON_V2 ? 0xc0000301 : 0x38f)
				     : ~0ULL;
	switch (d->role) {
	case MSR_ROLE_GP_CTR: {
		uint64_t sel = evtsel_of(m, d->index);
		bool enabled = m->kind == PMU_INTEL_P6 ? (evtsel_of(m, 0) & en) != 0 : (sel & en) != 0;
		return enabled && (sel & ring) && (global & BIT(d->index));
	}
	case MSR_ROLE_FIXED_CTR: {
		uint64_t field = (msr_model_get(m, 0x38d) >> (4 * d->index)) & 0x3;
		return field && (global & BIT(32 + d->index));
	}
	default:
		return false;
	}
}

/* A counter that wraps sets its bit in the global overflow status, where the generation
 * has one: Intel IA32_PERF_GLOBAL_STATUS (GP i -> bit i, fixed j -> bit 32 + j, SDM
 * 20.2.2), AMD PerfMonV2 PerfCntrGlobalStatus (GP i -> bit i, APM 13.2.2). */
static void set_overflow(struct msr_model *m, const struct msr_def *d)
{
	uint32_t status = m->kind == PMU_INTEL_ARCH ? 0x38e : m->kind == PMU_AMD_PERFMON_V2 ? 0xc0000300 : 0;
	int s = status ? msr_model_find(m, status) : -1;
	if (s >= 0)
		m->value[s] |= BIT(d->index + (d->role == MSR_ROLE_FIXED_CTR ? 32 : 0));
}

void msr_model_advance(struct msr_model *m, uint64_t n)
{
	for (unsigned i = 0; i < m->ndefs; i++) {
		if (!msr_model_counting(m, m->defs[i].msr))
			continue;
		uint64_t mask = width_mask(m->defs[i].width), old = m->value[i];
		m->value[i] = (old + n) & mask;
		if (n > mask - old)     /* passed the top: at least one wrap */
			set_overflow(m, &m->defs[i]);
	}
}

/* ---------------------------------------------------------------- the counting model */

/* What an event select counts: the generation's instructions, cycles, branches codes
 * (event 7:0, unit mask 15:8), from SDM Table 20-1, the P6 event list and the APM. */
static int quantity_of_select(enum pmu_kind kind, uint64_t sel)
{
	static const struct { enum pmu_kind kind; uint16_t code; int q; } map[] = {
		{ PMU_INTEL_ARCH, 0x00c0, MSR_Q_INSTRUCTIONS }, { PMU_INTEL_ARCH, 0x003c, MSR_Q_CYCLES },
		{ PMU_INTEL_ARCH, 0x00c4, MSR_Q_BRANCHES },
		{ PMU_INTEL_P6, 0x00c0, MSR_Q_INSTRUCTIONS }, { PMU_INTEL_P6, 0x0079, MSR_Q_CYCLES },
		{ PMU_INTEL_P6, 0x00c4, MSR_Q_BRANCHES },
		{ PMU_AMD_LEGACY, 0x00c0, MSR_Q_INSTRUCTIONS }, { PMU_AMD_LEGACY, 0x0076, MSR_Q_CYCLES },
		{ PMU_AMD_LEGACY, 0x00c2, MSR_Q_BRANCHES },
	};
	enum pmu_kind k = kind == PMU_AMD_CORE || kind == PMU_AMD_PERFMON_V2 ? PMU_AMD_LEGACY : kind;
	if ((kind == PMU_AMD_CORE || kind == PMU_AMD_PERFMON_V2 || kind == PMU_AMD_LEGACY) &&
	    (sel & 0x0000000f00000000ULL))
		return -1;   /* EventSelect[11:8] set: another event */
	for (unsigned i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (map[i].kind == k && map[i].code == (sel & 0xffff))
			return map[i].q;
	return -1;
}

/* Increment of an event-select counter: ring filter, then CMASK/INV/E. */
static uint64_t select_increment(const struct msr_model *m, uint64_t sel, const struct msr_model_work *w)
{
	int q = quantity_of_select(m->kind, sel);
	bool os = w->cpl == 0;
	if (m->broken & MSR_BREAK_RING)
		os = !os;
	if (q < 0 || !(sel & (os ? BIT(17) : BIT(16))))
		return 0;
	unsigned cmask = (unsigned)(sel >> 24) & 0xff;
	if (cmask == 0 || (m->broken & MSR_BREAK_CMASK))
		return w->count[q];
	if ((sel & BIT(18)) && !(m->broken & MSR_BREAK_EDGE))
		return w->edges[q];
	return (sel & BIT(23)) ? w->count[MSR_Q_CYCLES] - w->active[q] : w->active[q];
}

/* Whether GP counter `index` / fixed counter `index` is on by its enables (EN, global). */
static bool enabled(const struct msr_model *m, const struct msr_def *d)
{
	if (m->broken & MSR_BREAK_ENABLE)
		return true;
	bool has_global = (m->kind == PMU_INTEL_ARCH && msr_model_find(m, 0x38f) >= 0) ||
			  m->kind == PMU_AMD_PERFMON_V2;
	uint64_t global = has_global ? msr_model_get(m, m->kind == PMU_AMD_PERFMON_V2 ? 0xc0000301 : 0x38f)
				     : ~0ULL;
	if (d->role == MSR_ROLE_FIXED_CTR)
		return global & BIT(32 + d->index);
	uint64_t en_sel = m->kind == PMU_INTEL_P6 ? evtsel_of(m, 0) : evtsel_of(m, d->index);
	return (en_sel & BIT(22)) && (global & BIT(d->index));
}

static uint64_t fixed_increment(const struct msr_model *m, const struct msr_def *d,
				const struct msr_model_work *w)
{
	uint64_t field = (msr_model_get(m, 0x38d) >> (4 * d->index)) & 0x3;
	bool os = w->cpl == 0;
	if (m->broken & MSR_BREAK_RING)
		os = !os;
	if (!(field & (os ? 1 : 2)))
		return 0;
	return w->count[d->index == 0 ? MSR_Q_INSTRUCTIONS : MSR_Q_CYCLES];
}

/* NetBurst: counter i of defs[] (a counter 0-15) overflowed `over` events before the end of
 * work w; a cascaded alternate that waits (cascade set, enable clear) starts now. */
static void start_cascaded(struct msr_model *m, unsigned i, uint64_t over, const struct msr_model_work *w)
{
	unsigned c = m->defs[i].index, alt = c ^ 2;
	int ccr = msr_model_find(m, 0x360 + alt), ctr = msr_model_find(m, 0x300 + alt);
	if (c >= 16 || ccr < 0 || ctr < 0 || (m->broken & MSR_BREAK_CASCADE))
		return;
	if (!(m->value[ccr] & BIT(30)) || (m->value[ccr] & BIT(12)))
		return;
	uint64_t all = msr_model_netburst_increment(m, alt, w, true);
	m->value[ccr] |= BIT(12);
	m->value[ctr] = (m->value[ctr] + (all < over ? all : over)) & width_mask(m->defs[ctr].width);
}

static void add_to_counter(struct msr_model *m, unsigned i, uint64_t n, const struct msr_model_work *w)
{
	uint64_t mask = width_mask(m->defs[i].width), old = m->value[i];
	m->value[i] = (old + n) & mask;
	if (n <= mask - old || (m->broken & MSR_BREAK_OVF))
		return;
	if (m->kind == PMU_INTEL_NETBURST) {
		int c = msr_model_find(m, 0x360 + m->defs[i].index);   /* its CCCR */
		if (c >= 0)
			m->value[c] |= BIT(31);
		start_cascaded(m, i, n - (mask - old) - 1, w);
		return;
	}
	set_overflow(m, &m->defs[i]);
}

/* Every counter's increment is decided before any is applied, so that a counter a
 * cascade starts during this work is not also counted as enabled for all of it. */
void msr_model_run(struct msr_model *m, const struct msr_model_work *w)
{
	uint64_t inc[MSR_MODEL_MAX] = { 0 };
	for (unsigned i = 0; i < m->ndefs; i++) {
		const struct msr_def *d = &m->defs[i];
		if (m->kind == PMU_INTEL_NETBURST && d->width && d->msr >= 0x300 && d->msr <= 0x311)
			inc[i] = msr_model_netburst_increment(m, d->index, w, false);
		else if (d->role == MSR_ROLE_GP_CTR && enabled(m, d))
			inc[i] = select_increment(m, evtsel_of(m, d->index), w);
		else if (d->role == MSR_ROLE_FIXED_CTR && enabled(m, d))
			inc[i] = fixed_increment(m, d, w);
	}
	for (unsigned i = 0; i < m->ndefs; i++)
		if (inc[i])
			add_to_counter(m, i, inc[i], w);
}

int msr_model_rdpmc(struct msr_model *m, uint32_t index, uint64_t *val)
{
	uint32_t msr;
	switch (m->kind) {
	case PMU_INTEL_ARCH:
		msr = index & (1u << 30) ? 0x309 + (index & 0xffff) : 0xc1 + index;
		break;
	case PMU_INTEL_P6: msr = 0xc1 + index; break;
	case PMU_AMD_LEGACY: msr = 0xc0010004 + index; break;
	case PMU_AMD_CORE:
	case PMU_AMD_PERFMON_V2: msr = 0xc0010201 + 2 * index; break;
	case PMU_INTEL_NETBURST: msr = 0x300 + (index & 0x1f); break;
	default: return 13;
	}
	int i = msr_model_find(m, msr);
	if (i < 0 || !m->defs[i].width)
		return 13;
	*val = m->value[storage_of(m, i)] ^ ((m->broken & MSR_BREAK_RDPMC) ? 1 : 0);
	return 0;
}

void msr_model_break(struct msr_model *m, unsigned flags)
{
	m->broken = flags;
	for (unsigned i = 0; i < m->ndefs; i++) {
		struct msr_def *d = &m->defs[i];
		if ((flags & MSR_BREAK_WIDTH) && d->width && d->width < 64) {
			d->width = (uint8_t)(d->width + 8 > 64 ? 64 : d->width + 8);
			if (d->reserved)
				d->reserved = ~width_mask(d->width);
		}
		if ((flags & MSR_BREAK_ALIAS) && d->msr >= 0xc0010000 && d->msr <= 0xc0010007)
			d->alias_of = 0;
	}
}
