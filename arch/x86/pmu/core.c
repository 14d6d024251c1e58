/*
 * What the PMU generations share: the table of descriptors, the counter matcher and the
 * one assignment routine of every event-select generation, free-running slots and checked
 * MSR access. The trace=msr decoder is msr-describe.c.
 */
#include "arch/x86/pmu/core.h"
#include "arch/x86/msr-index.h"
#include "lib/format.h"
#include "lib/str.h"

/* Every generation bareperf drives, one row each: its kind and its descriptor, which
 * lives in a file of its own (docs/adding-a-pmu.md). */
#define PMU_GENERATIONS(X)                              \
	X(PMU_INTEL_NETBURST, pmu_backend_netburst)     \
	X(PMU_INTEL_P6, pmu_backend_intel_p6)           \
	X(PMU_INTEL_ARCH, pmu_backend_intel_arch)       \
	X(PMU_AMD_LEGACY, pmu_backend_amd_legacy)       \
	X(PMU_AMD_CORE, pmu_backend_amd_core)           \
	X(PMU_AMD_PERFMON_V2, pmu_backend_amd_perfmon_v2)

#define PMU_GENERATION_DECLARE(kind, desc) extern const struct pmu_backend desc;
PMU_GENERATIONS(PMU_GENERATION_DECLARE)

static const struct pmu_backend *const backends[PMU_KIND_COUNT] = {
#define PMU_GENERATION_ROW(kind, desc) [kind] = &desc,
	PMU_GENERATIONS(PMU_GENERATION_ROW)
};

const struct pmu_backend *pmu_backend_for(enum pmu_kind kind)
{
	if ((unsigned)kind >= PMU_KIND_COUNT)
		return NULL;
	return backends[kind];
}

const struct ev_generic_map *pmu_generic_map(const struct pmu_backend *be,
					     const struct pmu_model *m)
{
	if (!be || !be->generic)
		return NULL;
	for (const struct ev_generic_map *g = be->generic;; g++)
		if (!g->model_prefix || (m && !str_ncasecmp(m->pfm_name, g->model_prefix,
							    strlen(g->model_prefix))))
			return g;
}

const struct ev_generic_map *pmu_generic_map_for_model(const struct pmu_model *m)
{
	return m ? pmu_generic_map(pmu_backend_for(m->kind), m) : NULL;
}

/* ---------------------------------------------------------------- counter matching */

static unsigned match_column(const struct pmu_match *m, unsigned i)
{
	return m->order ? m->order[i] : i;
}

/* Kuhn's augmenting path from row r; owner[c] is the row holding column c. Every row
 * entered and column tried is recorded, so a failed search leaves the Hall violator. */
static bool match_augment(struct pmu_match *m, unsigned r, int *owner)
{
	unsigned ncols = m->order ? m->norder : PMU_MATCH_MAX;
	m->hall_rows |= 1ull << r;
	for (unsigned i = 0; i < ncols; i++) {
		unsigned c = match_column(m, i);
		uint64_t bit = 1ull << c;
		if (!(m->adj[r] & bit) || (m->hall_cols & bit))
			continue;
		m->hall_cols |= bit;
		if (owner[c] < 0 || match_augment(m, (unsigned)owner[c], owner)) {
			owner[c] = (int)r;
			return true;
		}
	}
	return false;
}

/* The first free column of row r in order, or -1. */
static int match_free_column(const struct pmu_match *m, unsigned r, const int *owner)
{
	unsigned ncols = m->order ? m->norder : PMU_MATCH_MAX;
	for (unsigned i = 0; i < ncols; i++) {
		unsigned c = match_column(m, i);
		if ((m->adj[r] & (1ull << c)) && owner[c] < 0)
			return (int)c;
	}
	return -1;
}

int pmu_match(struct pmu_match *m)
{
	int owner[PMU_MATCH_MAX];
	for (unsigned c = 0; c < PMU_MATCH_MAX; c++)
		owner[c] = -1;
	for (unsigned r = 0; r < m->nrows; r++) {
		m->col[r] = -1;
		m->hall_rows = m->hall_cols = 0;
		if (!m->adj[r])
			continue;
		/* A free column first, so earlier rows keep their places; only when none is
		 * free move earlier rows along an augmenting path. */
		int c = match_free_column(m, r, owner);
		if (c >= 0)
			owner[c] = (int)r;
		else if (!match_augment(m, r, owner))
			return (int)r;
	}
	m->hall_rows = m->hall_cols = 0;
	for (unsigned c = 0; c < PMU_MATCH_MAX; c++)
		if (owner[c] >= 0)
			m->col[owner[c]] = (int)c;
	return -1;
}

/* ---------------------------------------------------------------- shared assignment */

unsigned pmu_gp_count(const struct pmu_state *st)
{
	unsigned max = st->be->max_gp < PMU_MAX_GP ? st->be->max_gp : PMU_MAX_GP;
	unsigned n = st->caps.gp_counters ? st->caps.gp_counters : max;
	return n < max ? n : max;
}

uint32_t pmu_gp_candidates(const struct pmu_state *st, const struct ev_encoding *e,
			   char *err, size_t errlen)
{
	uint32_t all = (1u << pmu_gp_count(st)) - 1;
	if (e->evtsel & st->be->evtsel_reserved) {
		bp_snprintf(err, errlen, "event '%s': event-select bits 0x%llx are reserved on %s",
			    e->name, (unsigned long long)(e->evtsel & st->be->evtsel_reserved),
			    pmu_kind_name(st->be->kind));
		return 0;
	}
	uint32_t cand = e->gp_mask & all;
	if (!cand)
		bp_snprintf(err, errlen, "event '%s' cannot be counted here: it allows counters "
			    "0x%x, %s has 0x%x", e->name, e->gp_mask, pmu_kind_name(st->be->kind), all);
	return cand;
}

/* GP counter i of the generation, by its descriptor's bases and strides. */
static void fill_gp_slot(const struct pmu_state *st, const struct ev_encoding *e, unsigned i,
			 struct pmu_slot *s)
{
	const struct pmu_backend *be = st->be;
	uint32_t ctr_base = st->full_width_writes && be->ctr_base_full_width ?
			    be->ctr_base_full_width : be->ctr_base;
	memset(s, 0, sizeof(*s));
	s->type = SLOT_GP;
	s->index = i;
	s->ctl_msr = be->ctl_base + be->ctl_stride * i;
	s->ctr_msr = ctr_base + be->ctr_stride * i;
	s->ctl_value = e->evtsel | ARCH_PERFMON_EVENTSEL_ENABLE;
	if (e->extra != EV_EXTRA_NONE) {
		s->extra_msr = be->extra_msrs[e->extra];
		s->extra_value = e->extra_value;
	}
	s->rdpmc_index = i;
	s->width = st->caps.gp_width ? st->caps.gp_width : be->width;
}

static unsigned bits_set(uint32_t v)
{
	unsigned n = 0;
	for (; v; v &= v - 1)
		n++;
	return n;
}

/* The candidate set of every event; -1 with err when one has none or is invalid. */
static int collect_candidates(struct pmu_state *st, const struct ev_encoding *ev, unsigned n,
			      uint64_t *cand, char *err, size_t errlen)
{
	for (unsigned k = 0; k < n; k++) {
		cand[k] = 0;
		if (pmu_check_class(pmu_kind_name(st->be->kind), &ev[k], err, errlen))
			return -1;
		if (ev[k].cls != EV_CLASS_GP)
			continue;
		cand[k] = st->be->candidates(st, &ev[k], err, errlen);
		if (!cand[k])
			return -1;
	}
	return 0;
}

/* Second registers: each kind is one MSR, which events may share only with the same
 * value; two that need different values cannot be counted together (the plan then puts
 * them in different groups). -1 with err naming them, or the one the generation lacks. */
static int check_extra_regs(const struct pmu_state *st, const struct ev_encoding *ev,
			    unsigned n, char *err, size_t errlen)
{
	const uint32_t *msrs = st->be->extra_msrs;
	for (unsigned k = 0; k < n; k++) {
		if (ev[k].cls != EV_CLASS_GP || ev[k].extra == EV_EXTRA_NONE)
			continue;
		char name[48];
		if ((unsigned)ev[k].extra >= EV_EXTRA_COUNT || !msrs || !msrs[ev[k].extra]) {
			bp_snprintf(err, errlen, "event '%s' needs a second register (kind %d) that %s "
				    "does not have", ev[k].name, (int)ev[k].extra,
				    pmu_kind_name(st->be->kind));
			return -1;
		}
		for (unsigned j = 0; j < k; j++) {
			if (ev[j].cls != EV_CLASS_GP || ev[j].extra != ev[k].extra ||
			    ev[j].extra_value == ev[k].extra_value)
				continue;
			pmu_msr_describe_kind(st->be->kind, msrs[ev[k].extra], 0, name, sizeof(name));
			for (char *c = name; *c; c++)
				if (*c == ' ')
					*c = 0;
			bp_snprintf(err, errlen, "events '%s' and '%s' both need %s (MSR 0x%x), with "
				    "different values (0x%llx, 0x%llx)", ev[j].name, ev[k].name, name,
				    msrs[ev[k].extra], (unsigned long long)ev[j].extra_value,
				    (unsigned long long)ev[k].extra_value);
			return -1;
		}
	}
	return 0;
}

int pmu_assign_shared(struct pmu_state *st, const struct ev_encoding *ev, unsigned n,
		      char *err, size_t errlen)
{
	/* Fixed counters first, so that an event that fits one leaves GP counters free. */
	_Static_assert(PMU_CAND_FIXED_SHIFT == 16, "fixed_then_gp lists fixed counters at bit 16");
	static const uint8_t fixed_then_gp[32] = {
		16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31,
		0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
	};
	uint64_t cand[PMU_MAX_SLOTS] = { 0 };
	int counter[PMU_MAX_SLOTS] = { 0 };
	struct pmu_match m = { .nrows = n, .adj = cand, .order = fixed_then_gp,
			       .norder = sizeof(fixed_then_gp), .col = counter };

	st->nslots = 0;
	if (n > PMU_MAX_SLOTS) {
		bp_snprintf(err, errlen, "%u events given, at most %u", n, PMU_MAX_SLOTS);
		return -1;
	}
	if (collect_candidates(st, ev, n, cand, err, errlen) ||
	    check_extra_regs(st, ev, n, err, errlen))
		return -1;
	int bad = pmu_match(&m);
	if (bad >= 0) {
		unsigned nfixed = st->be->fixed_ctr_base ? bits_set(st->caps.fixed_counter_mask) : 0;
		bp_snprintf(err, errlen, "event '%s' does not fit: no free counter among its "
			    "candidates (GP 0x%x, fixed 0x%x); %u events for %u GP and %u fixed "
			    "counters of %s", ev[bad].name, (unsigned)(cand[bad] & PMU_CAND_GP_MASK),
			    (unsigned)(cand[bad] >> PMU_CAND_FIXED_SHIFT), n, pmu_gp_count(st), nfixed, pmu_kind_name(st->be->kind));
		return -1;
	}
	for (unsigned k = 0; k < n; k++) {
		struct pmu_slot *s = &st->slot[k];
		if (pmu_slot_free_running(s, &ev[k]))
			continue;
		unsigned c = (unsigned)counter[k];
		if (c < PMU_CAND_FIXED_SHIFT)
			fill_gp_slot(st, &ev[k], c, s);
		if (st->be->fill_slot)
			st->be->fill_slot(st, &ev[k], c, s);
	}
	st->nslots = n;
	return 0;
}

bool pmu_slot_free_running(struct pmu_slot *s, const struct ev_encoding *e)
{
	static const struct { enum ev_class cls; enum pmu_slot_type type; uint32_t msr; } map[] = {
		{ EV_CLASS_TSC,   SLOT_TSC,   MSR_IA32_TSC },
		{ EV_CLASS_APERF, SLOT_APERF, MSR_IA32_APERF },
		{ EV_CLASS_MPERF, SLOT_MPERF, MSR_IA32_MPERF },
	};
	if (e->cls == EV_CLASS_ENERGY) {
		memset(s, 0, sizeof(*s));
		s->type = SLOT_ENERGY;
		s->ctr_msr = rapl_status_msr((enum rapl_domain)e->energy.domain, e->energy.amd);
		s->rdpmc_index = ~0u;
		s->width = RAPL_ENERGY_WIDTH;
		return s->ctr_msr != 0;
	}
	for (unsigned i = 0; i < ARRAY_SIZE(map); i++) {
		if (map[i].cls != e->cls)
			continue;
		memset(s, 0, sizeof(*s));
		s->type = map[i].type;
		s->ctr_msr = map[i].msr;
		s->rdpmc_index = ~0u;
		s->width = 64;
		return true;
	}
	return false;
}

int pmu_check_class(const char *pmu_name, const struct ev_encoding *e,
		    char *err, size_t errlen)
{
	if (e->cls == EV_CLASS_NETBURST) {
		bp_snprintf(err, errlen, "event '%s' is a NetBurst ESCR/CCCR event; this PMU is %s",
			    e->name, pmu_name);
		return -1;
	}
	if (e->cls != EV_CLASS_GP && e->cls != EV_CLASS_TSC && e->cls != EV_CLASS_APERF &&
	    e->cls != EV_CLASS_MPERF) {
		bp_snprintf(err, errlen, "event '%s' has unknown class %d", e->name, (int)e->cls);
		return -1;
	}
	/* INT is bit 20 in Intel's and AMD's event-select layouts alike. */
	if (e->cls == EV_CLASS_GP && (e->evtsel & ARCH_PERFMON_EVENTSEL_INT)) {
		bp_snprintf(err, errlen, "event '%s': INT (bit 20) is set; counters interrupt "
			    "only when the kernel arms them (sample.event=)", e->name);
		return -1;
	}
	return 0;
}

int pmu_wrmsr(struct pmu_state *st, uint32_t msr, uint64_t val)
{
	int vec = st->io.write(st->io.ctx, msr, val);
	if (vec)
		st->last_fault = (uint64_t)vec;
	return vec ? -1 : 0;
}

int pmu_rdmsr(struct pmu_state *st, uint32_t msr, uint64_t *val)
{
	int vec = st->io.read(st->io.ctx, msr, val);
	if (vec)
		st->last_fault = (uint64_t)vec;
	return vec ? -1 : 0;
}

int pmu_write_gp_enables(struct pmu_state *st, bool enable)
{
	for (unsigned k = 0; k < st->nslots; k++) {
		const struct pmu_slot *s = &st->slot[k];
		if (s->type != SLOT_GP)
			continue;
		uint64_t v = enable ? s->ctl_value : s->ctl_value & ~ARCH_PERFMON_EVENTSEL_ENABLE;
		if (pmu_wrmsr(st, s->ctl_msr, v))
			return -1;
	}
	return 0;
}

int pmu_zero_counters(struct pmu_state *st)
{
	for (unsigned k = 0; k < st->nslots; k++) {
		struct pmu_slot *s = &st->slot[k];
		if ((s->type == SLOT_GP || s->type == SLOT_FIXED) && pmu_wrmsr(st, s->ctr_msr, s->start))
			return -1;
		s->banked = s->overflows = 0;
	}
	return 0;
}

int pmu_read_slot(struct pmu_state *st, unsigned i, uint64_t *val)
{
	if (i >= st->nslots)
		return -1;
	return pmu_rdmsr(st, st->slot[i].ctr_msr, val);
}

/* ---------------------------------------------------------------- counter overflow */

static uint64_t width_mask(unsigned width)
{
	return width >= 64 ? ~0ull : (1ull << width) - 1;
}

static bool slot_counts(const struct pmu_slot *s)
{
	return s->type == SLOT_GP || s->type == SLOT_FIXED;
}

uint64_t pmu_max_period(const struct pmu_state *st, unsigned i)
{
	const struct pmu_slot *s = &st->slot[i];
	if (i >= st->nslots || !slot_counts(s) || s->width < 2 || s->width > 64)
		return 0;
	/* The preset must have the top bit set: the overflow is the step from 2^width - 1
	 * to 0, and the generations without a status register see it as that bit clearing. */
	uint64_t max = 1ull << (s->width - 1);
	bool sext32 = st->be->ctr_write_sext32 && s->type == SLOT_GP &&
		      !(st->full_width_writes && st->be->ctr_base_full_width);
	if (sext32 && max > PMU_SEXT32_MAX_PERIOD)
		max = PMU_SEXT32_MAX_PERIOD;
	return max;
}

int pmu_arm_overflow(struct pmu_state *st, unsigned i, uint64_t period, char *err, size_t errlen)
{
	const char *name = pmu_kind_name(st->be->kind);
	if (!st->pmi_handler_installed)
		return fmt_error(err, errlen, "%s: no PMI handler is installed, so no counter may "
				 "interrupt on overflow", name);
	if (!st->be->enable_pmi || !st->be->overflowed)
		return fmt_error(err, errlen, "%s: overflow interrupts are not supported", name);
	uint64_t max = pmu_max_period(st, i);
	if (!max)
		return fmt_error(err, errlen, "%s: slot %u is not a counter that can overflow", name, i);
	if (period == 0)
		period = max;
	if (period > max)
		return fmt_error(err, errlen, "%s: period %llu is more than counter %u takes (at "
				 "most %llu)", name, (unsigned long long)period, i,
				 (unsigned long long)max);
	struct pmu_slot *s = &st->slot[i];
	st->be->enable_pmi(st, s);
	s->period = period;
	s->start = (0 - period) & width_mask(s->width);
	s->banked = s->overflows = 0;
	return 0;
}

int pmu_overflow_bank(struct pmu_state *st, uint32_t mask)
{
	for (unsigned i = 0; i < st->nslots; i++) {
		struct pmu_slot *s = &st->slot[i];
		if (!(mask & (1u << i)) || !s->period)
			continue;
		uint64_t raw;
		if (st->be->read(st, i, &raw))
			return -1;
		s->banked += (raw - s->start) & width_mask(s->width);
		s->overflows++;
		if (pmu_wrmsr(st, s->ctr_msr, s->start))
			return -1;
	}
	return 0;
}

int pmu_read_wide(struct pmu_state *st, unsigned i, uint64_t *val)
{
	uint64_t raw;
	if (i >= st->nslots || st->be->read(st, i, &raw))
		return -1;
	const struct pmu_slot *s = &st->slot[i];
	*val = s->period ? s->banked + ((raw - s->start) & width_mask(s->width)) : raw;
	return 0;
}

void pmu_enable_pmi_evtsel(const struct pmu_state *st, struct pmu_slot *s)
{
	(void)st;
	if (s->type == SLOT_FIXED)
		s->ctl_value |= FIXED_CTR_CTRL_PMI;
	else if (s->type == SLOT_GP)
		s->ctl_value |= ARCH_PERFMON_EVENTSEL_INT;   /* bit 20: Intel, P6 and AMD alike */
}

int pmu_overflowed_sign(struct pmu_state *st, uint32_t *mask)
{
	*mask = 0;
	for (unsigned i = 0; i < st->nslots; i++) {
		const struct pmu_slot *s = &st->slot[i];
		uint64_t raw;
		if (!s->period)
			continue;
		if (st->be->read(st, i, &raw))
			return -1;
		if (!(raw & (1ull << (s->width - 1))))
			*mask |= 1u << i;
	}
	return 0;
}
