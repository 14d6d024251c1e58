/*
 * NetBurst PMU: counter allocation over ESCRs and counters, the backend, and trace=msr
 * decoding. The event tables and parsers are lib/netburst.h's.
 * SDM Vol. 3B 18.18.6 (setting up a counter), 18.19 (HT), Table 18-29.
 */
#include "arch/x86/pmu/core.h"
#include "arch/x86/pmu/netburst.h"
#include "lib/netburst.h"
#include "lib/p4-regs.h"
#include "lib/format.h"
#include "lib/str.h"

#define MSR_IA32_TIME_STAMP_COUNTER 0x00000010

/* ---------------------------------------------------------------- allocation */

/* Set bits; __builtin_popcount would call libgcc, which the kernel does not link. */
static unsigned bit_count(uint64_t v)
{
	unsigned n = 0;
	for (; v; v &= v - 1)
		n++;
	return n;
}

/* Kuhn's augmenting path over events (rows) and resources (bits of adj). */
struct match {
	unsigned n;
	uint64_t adj[P4_NUM_COUNTERS];
	int owner[64];              /* resource -> row, -1 free */
	uint32_t seen_rows;
	uint64_t seen_cols;
};

static bool augment(struct match *m, unsigned r)
{
	m->seen_rows |= 1u << r;
	for (unsigned c = 0; c < 64; c++) {
		if (!(m->adj[r] & (1ull << c)) || (m->seen_cols & (1ull << c)))
			continue;
		m->seen_cols |= 1ull << c;
		if (m->owner[c] < 0 || augment(m, (unsigned)m->owner[c])) {
			m->owner[c] = (int)r;
			return true;
		}
	}
	return false;
}

/* 0 when every row can be matched; else -1 with the Hall violator in seen_rows/seen_cols. */
static int match_all(struct match *m)
{
	for (unsigned c = 0; c < 64; c++)
		m->owner[c] = -1;
	for (unsigned r = 0; r < m->n; r++) {
		m->seen_rows = 0;
		m->seen_cols = 0;
		if (!augment(m, r))
			return -1;
	}
	return 0;
}

struct nb_alloc {
	const struct ev_encoding *ev;
	unsigned idx[P4_NUM_COUNTERS];      /* events of one group, as indexes into ev */
	unsigned n;
	uint64_t escr_used;
	uint32_t ctr_used;
	uint8_t escr_of[P4_NUM_COUNTERS], ctr_of[P4_NUM_COUNTERS];
};

static const struct nb_event *event_of(const struct ev_encoding *ev)
{
	return &nb_event_table[ev->nb.event];
}

/* Backtracking over (ESCR, counter) pairs; events are ordered fewest choices first. */
static bool place(struct nb_alloc *a, unsigned k)
{
	if (k == a->n)
		return true;
	const struct nb_event *e = event_of(&a->ev[a->idx[k]]);
	for (unsigned i = 0; i < e->nescrs; i++) {
		unsigned s = e->escr[i];
		if (a->escr_used & (1ull << s))
			continue;
		const struct p4_escr_info *x = &p4_escr_table[s];
		for (unsigned j = 0; j < x->ncounters; j++) {
			unsigned c = x->counter[j];
			if (a->ctr_used & (1u << c))
				continue;
			a->escr_used |= 1ull << s;
			a->ctr_used |= 1u << c;
			a->escr_of[k] = (uint8_t)s;
			a->ctr_of[k] = (uint8_t)c;
			if (place(a, k + 1))
				return true;
			a->escr_used &= ~(1ull << s);
			a->ctr_used &= ~(1u << c);
		}
	}
	return false;
}

static unsigned choices(const struct ev_encoding *ev)
{
	const struct nb_event *e = event_of(ev);
	unsigned n = 0;
	for (unsigned i = 0; i < e->nescrs; i++)
		n += p4_escr_table[e->escr[i]].ncounters;
	return n;
}

static uint32_t counters_of(const struct nb_event *e)
{
	uint32_t mask = 0;
	for (unsigned i = 0; i < e->nescrs; i++) {
		const struct p4_escr_info *x = &p4_escr_table[e->escr[i]];
		for (unsigned j = 0; j < x->ncounters; j++)
			mask |= 1u << x->counter[j];
	}
	return mask;
}

static size_t append(char *buf, size_t len, size_t off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static size_t append(char *buf, size_t len, size_t off, const char *fmt, ...)
{
	va_list ap;
	if (off >= len)
		return off;
	va_start(ap, fmt);
	off += (size_t)bp_vsnprintf(buf + off, len - off, fmt, ap);
	va_end(ap);
	return off;
}

/* "events 'a' and 'b' both" / "events 'a', 'b' and 'c' all" for the rows in mask. */
static size_t name_events(char *err, size_t len, size_t off, const struct nb_alloc *a,
			  uint32_t rows)
{
	unsigned total = bit_count(rows), k = 0;
	off = append(err, len, off, total == 1 ? "event " : "events ");
	for (unsigned r = 0; r < a->n; r++) {
		if (!(rows & (1u << r)))
			continue;
		k++;
		off = append(err, len, off, "%s'%s'", k == 1 ? "" : k == total ? " and " : ", ",
			     a->ev[a->idx[r]].name);
	}
	return append(err, len, off, total == 1 ? "" : total == 2 ? " both" : " all");
}

/* "MSR_FSB_ESCR0/1" for a unit's pair, else a list. */
static size_t name_escrs(char *err, size_t len, size_t off, uint64_t cols)
{
	unsigned total = bit_count(cols), first = (unsigned)__builtin_ctzll(cols);
	const char *n0 = p4_escr_table[first].name;
	if (total == 2 && first + 1 < P4_ESCR_COUNT && (cols & (1ull << (first + 1)))) {
		const char *n1 = p4_escr_table[first + 1].name;
		size_t l = strlen(n0);
		if (l == strlen(n1) && strncmp(n0, n1, l - 1) == 0)
			return append(err, len, off, "MSR_%s/%c", n0, n1[l - 1]);
	}
	unsigned k = 0;
	for (unsigned s = 0; s < P4_ESCR_COUNT; s++)
		if (cols & (1ull << s))
			off = append(err, len, off, "%sMSR_%s", k++ ? ", " : "", p4_escr_table[s].name);
	return off;
}

static int explain_group(const struct nb_alloc *a, enum p4_group g, char *err, size_t len)
{
	const struct p4_group_info *gi = &p4_group_table[g];
	struct match m;
	size_t off = 0;

	if (a->n > gi->count) {
		off = name_events(err, len, off, a, (uint32_t)((1ull << a->n) - 1));
		append(err, len, off, " need a counter of the %s group (only %u exist)", gi->name,
		       gi->count);
		return -1;
	}
	/* One ESCR per event. */
	m.n = a->n;
	for (unsigned r = 0; r < a->n; r++) {
		const struct nb_event *e = event_of(&a->ev[a->idx[r]]);
		m.adj[r] = 0;
		for (unsigned i = 0; i < e->nescrs; i++)
			m.adj[r] |= 1ull << e->escr[i];
	}
	if (match_all(&m) != 0) {
		unsigned avail = bit_count(m.seen_cols);
		off = name_events(err, len, off, a, m.seen_rows);
		off = append(err, len, off, " need ESCR ");
		off = name_escrs(err, len, off, m.seen_cols);
		append(err, len, off, avail == 1 ? " (only 1 exists)" : " (only %u exist)", avail);
		return -1;
	}
	/* One counter per event, among those its ESCRs feed. */
	for (unsigned r = 0; r < a->n; r++)
		m.adj[r] = counters_of(event_of(&a->ev[a->idx[r]]));
	if (match_all(&m) != 0) {
		unsigned avail = bit_count(m.seen_cols), k = 0;
		off = name_events(err, len, off, a, m.seen_rows);
		off = append(err, len, off, " need counters ");
		for (unsigned c = 0; c < P4_NUM_COUNTERS; c++)
			if (m.seen_cols & (1ull << c))
				off = append(err, len, off, "%s%s", k++ ? ", " : "", p4_counter_name[c]);
		append(err, len, off, " (only %u exist%s)", avail, avail == 1 ? "s" : "");
		return -1;
	}
	off = name_events(err, len, off, a, (uint32_t)((1ull << a->n) - 1));
	append(err, len, off, " cannot be placed together in the %s group: each ESCR feeds "
	       "only some of its counters", gi->name);
	return -1;
}

static int nb_assign(struct pmu_state *st, const struct ev_encoding *ev, unsigned n,
		     char *err, size_t errlen)
{
	bool ht = st->caps.netburst_ht;
	unsigned lp = st->logical_cpu, ncounted = 0;

	st->nslots = 0;
	if (n > PMU_MAX_SLOTS)
		return fmt_error(err, errlen, "%u events, at most %u fit one plan", n, PMU_MAX_SLOTS);
	if (lp > 1 || (lp == 1 && !ht))
		return fmt_error(err, errlen, "logical processor %u does not exist on this processor%s", lp,
			    ht ? "" : " (no Hyper-Threading)");
	for (unsigned i = 0; i < n; i++) {
		if (ev[i].cls == EV_CLASS_APERF || ev[i].cls == EV_CLASS_MPERF)
			return fmt_error(err, errlen, "event '%s': NetBurst processors have no APERF/MPERF",
				    ev[i].name);
		if (ev[i].cls == EV_CLASS_NETBURST && ev[i].nb.event >= nb_event_count)
			return fmt_error(err, errlen, "event '%s': NetBurst event index %u out of range",
				    ev[i].name, ev[i].nb.event);
		if (ev[i].cls != EV_CLASS_NETBURST && ev[i].cls != EV_CLASS_TSC)
			return fmt_error(err, errlen, "event '%s' is not a NetBurst event", ev[i].name);
		if (ev[i].cls == EV_CLASS_NETBURST)
			ncounted++;
	}
	if (ncounted > P4_NUM_COUNTERS)
		return fmt_error(err, errlen, "%u NetBurst events, but there are only %u counters",
			    ncounted, P4_NUM_COUNTERS);

	for (unsigned g = 0; g < P4_GROUP_COUNT; g++) {
		struct nb_alloc a = { .ev = ev };
		for (unsigned i = 0; i < n; i++)
			if (ev[i].cls == EV_CLASS_NETBURST &&
			    p4_escr_table[event_of(&ev[i])->escr[0]].group == g)
				a.idx[a.n++] = i;
		/* fewest choices first (insertion sort, stable) */
		for (unsigned i = 1; i < a.n; i++)
			for (unsigned j = i; j > 0 && choices(&ev[a.idx[j]]) < choices(&ev[a.idx[j - 1]]); j--) {
				unsigned t = a.idx[j];
				a.idx[j] = a.idx[j - 1];
				a.idx[j - 1] = t;
			}
		if (a.n > p4_group_table[g].count || !place(&a, 0)) {
			if (err && errlen)
				explain_group(&a, (enum p4_group)g, err, errlen);
			return -1;
		}
		for (unsigned k = 0; k < a.n; k++) {
			const struct ev_encoding *x = &ev[a.idx[k]];
			const struct nb_event *e = event_of(x);
			struct pmu_slot *s = &st->slot[a.idx[k]];
			unsigned c = a.ctr_of[k];
			s->type = SLOT_GP;
			s->index = c;
			s->ctr_msr = P4_COUNTER_MSR(c);
			s->ctl_msr = P4_CCCR_MSR(c);
			s->extra_msr = p4_escr_table[a.escr_of[k]].msr;
			s->extra_value = netburst_escr_for_thread(x->nb.escr, x->nb.usr, x->nb.os, lp,
								 x->nb.both_threads, ht);
			/* Active thread 11b: required without HT (Figure 18-42); with HT it counts
			 * whenever either logical processor runs, leaving thread selection to the
			 * ESCR's T0/T1 bits (Table 18-29). 01b/10b would filter on how many
			 * logical processors are active, not which one. */
			s->ctl_value = (x->nb.cccr & ~(P4_CCCR_ESCR_SELECT_MASK | P4_CCCR_ACTIVE_THREAD_MASK)) |
				       P4_CCCR_ENABLE | P4_CCCR_ESEL(e->escr_select) |
				       P4_CCCR_ACTIVE_THREAD(P4_CCCR_THREAD_ANY);
			s->rdpmc_index = c;
			s->width = P4_COUNTER_WIDTH;
		}
	}
	for (unsigned i = 0; i < n; i++) {
		if (ev[i].cls != EV_CLASS_TSC)
			continue;
		st->slot[i] = (struct pmu_slot){
			.type = SLOT_TSC, .ctr_msr = MSR_IA32_TIME_STAMP_COUNTER,
			.rdpmc_index = ~0u, .width = 64,
		};
	}
	st->nslots = n;
	return 0;
}

/* ---------------------------------------------------------------- backend */

/* Every access goes through st->io; a fault's vector is returned and kept. */
static int wr(struct pmu_state *st, uint32_t msr, uint64_t val)
{
	int vec = st->io.write(st->io.ctx, msr, val);
	if (vec)
		st->last_fault = (uint64_t)vec;
	return vec;
}

static int nb_probe(struct pmu_state *st, char *err, size_t errlen)
{
	if (st->caps.kind != PMU_INTEL_NETBURST)
		return fmt_error(err, errlen, "the NetBurst backend needs a family 15 Intel PMU, this is %s",
			    pmu_kind_name(st->caps.kind));
	if (st->logical_cpu > 1)
		return fmt_error(err, errlen, "logical processor %u: NetBurst has at most 2",
			    st->logical_cpu);
	return 0;
}

/* 18.18.6.1: ESCR first, then the CCCR (counting still off), then the counter. */
static int nb_program(struct pmu_state *st)
{
	int vec;
	for (unsigned i = 0; i < st->nslots; i++) {
		const struct pmu_slot *s = &st->slot[i];
		if (s->type != SLOT_GP)
			continue;
		if ((vec = wr(st, s->extra_msr, s->extra_value)) ||
		    (vec = wr(st, s->ctl_msr, s->ctl_value & ~(uint64_t)P4_CCCR_ENABLE)) ||
		    (vec = wr(st, s->ctr_msr, 0)))
			return vec;
	}
	return 0;
}

static int set_enable(struct pmu_state *st, bool on)
{
	int vec;
	for (unsigned i = 0; i < st->nslots; i++) {
		const struct pmu_slot *s = &st->slot[i];
		if (s->type != SLOT_GP)
			continue;
		uint64_t v = on ? s->ctl_value | P4_CCCR_ENABLE : s->ctl_value & ~(uint64_t)P4_CCCR_ENABLE;
		if ((vec = wr(st, s->ctl_msr, v)))
			return vec;
	}
	return 0;
}

static int nb_start(struct pmu_state *st) { return set_enable(st, true); }
static int nb_stop(struct pmu_state *st) { return set_enable(st, false); }

static int nb_read(struct pmu_state *st, unsigned i, uint64_t *val)
{
	int vec;
	if (i >= st->nslots)
		return -1;
	vec = st->io.read(st->io.ctx, st->slot[i].ctr_msr, val);
	if (vec) {
		st->last_fault = (uint64_t)vec;
		return vec;
	}
	if (st->slot[i].type == SLOT_GP)
		*val &= P4_COUNTER_MASK;
	return 0;
}

static int nb_reset(struct pmu_state *st)
{
	int vec;
	for (unsigned i = 0; i < st->nslots; i++)
		if (st->slot[i].type == SLOT_GP && (vec = wr(st, st->slot[i].ctr_msr, 0)))
			return vec;
	return 0;
}

/* Every CCCR to "disabled, any thread" (11b is required without HT), every ESCR to 0.
 * IQ_ESCR0/1 are skipped: they exist only on models 0-2, pmu_caps does not carry the
 * model, and no event in the table uses them. */
static int nb_disable_all(struct pmu_state *st)
{
	int vec;
	for (unsigned c = 0; c < P4_NUM_COUNTERS; c++)
		if ((vec = wr(st, P4_CCCR_MSR(c), P4_CCCR_ACTIVE_THREAD(P4_CCCR_THREAD_ANY))))
			return vec;
	for (unsigned s = 0; s < P4_ESCR_COUNT; s++)
		if (!p4_escr_table[s].early_models_only && (vec = wr(st, p4_escr_table[s].msr, 0)))
			return vec;
	return 0;
}

/* Linux p4_general_events in libpfm4's names: mispred_branch_retired's bit 0 (the SDM's
 * NBOGUS) is libpfm4's BOGUS. instructions and branches count the non-bogus retired
 * instructions and all four retired-branch kinds, where Linux takes untagged bogus
 * ones too and retired_branch_type. */
static const struct ev_generic_map nb_generic[] = { { .pfm = {
	[EV_GEN_CYCLES] = "global_power_events:RUNNING",
	[EV_GEN_INSTRUCTIONS] = "instr_retired:NBOGUSNTAG:NBOGUSTAG",
	[EV_GEN_BRANCHES] = "branch_retired:MMNP:MMNM:MMTP:MMTM",
	[EV_GEN_BRANCH_MISSES] = "mispred_branch_retired:BOGUS",
	[EV_GEN_CACHE_REFS] = "bsq_cache_reference:RD_2ndL_HITS:RD_2ndL_HITE:RD_2ndL_HITM:"
			      "RD_3rdL_HITS:RD_3rdL_HITE:RD_3rdL_HITM",
	[EV_GEN_CACHE_MISSES] = "bsq_cache_reference:RD_2ndL_MISS:RD_3rdL_MISS:WR_2ndL_MISS",
} } };

const struct pmu_backend pmu_backend_netburst = {
	.max_gp = P4_NUM_COUNTERS,
	.width = P4_COUNTER_WIDTH,
	.name = "intel-netburst",
	.kind = PMU_INTEL_NETBURST,
	.probe = nb_probe,
	.assign = nb_assign,
	.program = nb_program,
	.start = nb_start,
	.stop = nb_stop,
	.read = nb_read,
	.reset = nb_reset,
	.disable_all = nb_disable_all,
	.describe = netburst_msr_describe,
	.trace_last = true,
	.generic = nb_generic,
};

/* ---------------------------------------------------------------- trace=msr */

static const char *const thread_name[4] = { "none", "single", "both", "any" };

int netburst_msr_describe(uint32_t msr, uint64_t val, char *buf, size_t len)
{
	size_t off = 0;
	int s;

	if (msr >= P4_COUNTER_MSR(0) && msr < P4_COUNTER_MSR(P4_NUM_COUNTERS)) {
		return (int)append(buf, len, 0, "%s %#x <- %#llx", p4_counter_name[msr - P4_COUNTER_MSR(0)],
				   msr, (unsigned long long)val);
	}
	if (msr >= P4_CCCR_MSR(0) && msr < P4_CCCR_MSR(P4_NUM_COUNTERS)) {
		static const struct { uint32_t bit; const char *name; } flags[] = {
			{ P4_CCCR_COMPARE, "compare" }, { P4_CCCR_COMPLEMENT, "complement" },
			{ P4_CCCR_EDGE, "edge" }, { P4_CCCR_FORCE_OVF, "force_ovf" },
			{ P4_CCCR_OVF_PMI_T0, "ovf_pmi_t0" }, { P4_CCCR_OVF_PMI_T1, "ovf_pmi_t1" },
			{ P4_CCCR_CASCADE, "cascade" }, { P4_CCCR_OVF, "ovf" },
		};
		off = append(buf, len, off, "%s %#x <- 0x%08llx", p4_cccr_name[msr - P4_CCCR_MSR(0)],
			     msr, (unsigned long long)val);
		if (val & P4_CCCR_ENABLE)
			off = append(buf, len, off, " enable");
		off = append(buf, len, off, " esel=%u active=%s", (unsigned)P4_CCCR_GET_ESEL(val),
			     thread_name[P4_CCCR_GET_THREAD(val)]);
		if (P4_CCCR_GET_THRESHOLD(val))
			off = append(buf, len, off, " thr=%u", (unsigned)P4_CCCR_GET_THRESHOLD(val));
		for (unsigned i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
			if (val & flags[i].bit)
				off = append(buf, len, off, " %s", flags[i].name);
		if (val & P4_CCCR_RESERVED)
			off = append(buf, len, off, " reserved=%#llx",
				     (unsigned long long)(val & P4_CCCR_RESERVED));
		return (int)off;
	}
	if ((s = p4_escr_by_msr(msr)) >= 0) {
		unsigned evsel = P4_ESCR_GET_EVENT(val);
		off = append(buf, len, off, "%s %#x <- 0x%08llx evsel=%#x emask=%#x", p4_escr_table[s].name,
			     msr, (unsigned long long)val, evsel, (unsigned)P4_ESCR_GET_EMASK(val));
		if (val & P4_ESCR_TAG_ENABLE)
			off = append(buf, len, off, " tag=%#x", (unsigned)P4_ESCR_GET_TAG(val));
		if (val & P4_ESCR_T0_OS)
			off = append(buf, len, off, " t0_os");
		if (val & P4_ESCR_T0_USR)
			off = append(buf, len, off, " t0_usr");
		if (val & P4_ESCR_T1_OS)
			off = append(buf, len, off, " t1_os");
		if (val & P4_ESCR_T1_USR)
			off = append(buf, len, off, " t1_usr");
		if (val & P4_ESCR_RESERVED)
			off = append(buf, len, off, " reserved=%#llx",
				     (unsigned long long)(val & P4_ESCR_RESERVED));
		for (unsigned i = 0; i < nb_event_count && val; i++) {
			const struct nb_event *e = &nb_event_table[i];
			if (e->event_select == evsel &&
			    (e->escr[0] == (unsigned)s || (e->nescrs > 1 && e->escr[1] == (unsigned)s))) {
				off = append(buf, len, off, " (%s)", e->name);
				break;
			}
		}
		return (int)off;
	}
	return -1;
}
