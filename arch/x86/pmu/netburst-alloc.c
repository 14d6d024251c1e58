/*
 * NetBurst counter allocation: each event needs one of its ESCRs and one counter that
 * ESCR feeds, all within the event's group (BPU, MS, FLAME, IQ), and when a group's
 * events cannot all be placed, an error that names the ESCRs or counters that are short.
 * SDM Vol. 3B 18.18.2-18.18.3 (Table 18-26), 18.19 (HT), Table 18-29.
 */
#include "arch/x86/pmu/core.h"
#include "arch/x86/pmu/netburst.h"
#include "lib/p4-events.h"
#include "lib/p4-regs.h"
#include "lib/bits.h"
#include "lib/format.h"
#include "lib/str.h"


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

/* "events 'a' and 'b' both" / "events 'a', 'b' and 'c' all" for the rows in mask. */
static size_t name_events(char *err, size_t len, size_t off, const struct nb_alloc *a,
			  uint32_t rows)
{
	unsigned total = bit_count(rows), k = 0;
	off = netburst_append(err, len, off, total == 1 ? "event " : "events ");
	for (unsigned r = 0; r < a->n; r++) {
		if (!(rows & (1u << r)))
			continue;
		k++;
		off = netburst_append(err, len, off, "%s'%s'", k == 1 ? "" : k == total ? " and " : ", ",
				      a->ev[a->idx[r]].name);
	}
	return netburst_append(err, len, off, total == 1 ? "" : total == 2 ? " both" : " all");
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
			return netburst_append(err, len, off, "MSR_%s/%c", n0, n1[l - 1]);
	}
	unsigned k = 0;
	for (unsigned s = 0; s < P4_ESCR_COUNT; s++)
		if (cols & (1ull << s))
			off = netburst_append(err, len, off, "%sMSR_%s", k++ ? ", " : "", p4_escr_table[s].name);
	return off;
}

static int explain_group(const struct nb_alloc *a, enum p4_group g, char *err, size_t len)
{
	const struct p4_group_info *gi = &p4_group_table[g];
	uint64_t adj[P4_NUM_COUNTERS];
	int col[P4_NUM_COUNTERS];
	struct pmu_match m = { .nrows = a->n, .adj = adj, .col = col };
	size_t off = 0;

	if (a->n > gi->count) {
		off = name_events(err, len, off, a, (uint32_t)((1ull << a->n) - 1));
		netburst_append(err, len, off, " need a counter of the %s group (only %u exist)", gi->name,
				gi->count);
		return -1;
	}
	/* One ESCR per event. */
	for (unsigned r = 0; r < a->n; r++) {
		const struct nb_event *e = event_of(&a->ev[a->idx[r]]);
		adj[r] = 0;
		for (unsigned i = 0; i < e->nescrs; i++)
			adj[r] |= 1ull << e->escr[i];
	}
	if (pmu_match(&m) >= 0) {
		unsigned avail = bit_count(m.hall_cols);
		off = name_events(err, len, off, a, (uint32_t)m.hall_rows);
		off = netburst_append(err, len, off, " need ESCR ");
		off = name_escrs(err, len, off, m.hall_cols);
		netburst_append(err, len, off, avail == 1 ? " (only 1 exists)" : " (only %u exist)", avail);
		return -1;
	}
	/* One counter per event, among those its ESCRs feed. */
	for (unsigned r = 0; r < a->n; r++)
		adj[r] = counters_of(event_of(&a->ev[a->idx[r]]));
	if (pmu_match(&m) >= 0) {
		unsigned avail = bit_count(m.hall_cols), k = 0;
		off = name_events(err, len, off, a, (uint32_t)m.hall_rows);
		off = netburst_append(err, len, off, " need counters ");
		for (unsigned c = 0; c < P4_NUM_COUNTERS; c++)
			if (m.hall_cols & (1ull << c))
				off = netburst_append(err, len, off, "%s%s", k++ ? ", " : "", p4_counter_name[c]);
		netburst_append(err, len, off, " (only %u exist%s)", avail, avail == 1 ? "s" : "");
		return -1;
	}
	off = name_events(err, len, off, a, (uint32_t)((1ull << a->n) - 1));
	netburst_append(err, len, off, " cannot be placed together in the %s group: each ESCR feeds "
			"only some of its counters", gi->name);
	return -1;
}

/* Every event is a NetBurst event (in the table) or the TSC, and the NetBurst events
 * are no more than the counters; -1 with err naming the first that is not. */
static int check_events(const struct ev_encoding *ev, unsigned n, char *err, size_t errlen)
{
	unsigned ncounted = 0;
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
	return 0;
}

/* Fill the slot of the group's k-th event with the ESCR and counter place() chose. */
static void fill_slot(struct pmu_state *st, const struct nb_alloc *a, unsigned k)
{
	const struct ev_encoding *x = &a->ev[a->idx[k]];
	const struct nb_event *e = event_of(x);
	struct pmu_slot *s = &st->slot[a->idx[k]];
	unsigned c = a->ctr_of[k];
	s->type = SLOT_GP;
	s->index = c;
	s->ctr_msr = P4_COUNTER_MSR(c);
	s->ctl_msr = P4_CCCR_MSR(c);
	s->extra_msr = p4_escr_table[a->escr_of[k]].msr;
	s->extra_value = netburst_escr_for_thread(x->nb.escr, x->nb.usr, x->nb.os, st->logical_cpu,
						  x->nb.both_threads, st->caps.netburst_ht);
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

/* Place the NetBurst events of group g, fewest choices first, and fill their slots;
 * -1 with err explaining what is short when they do not all fit. */
static int place_group(struct pmu_state *st, const struct ev_encoding *ev, unsigned n,
		       enum p4_group g, char *err, size_t errlen)
{
	struct nb_alloc a = { .ev = ev };
	for (unsigned i = 0; i < n; i++)
		if (ev[i].cls == EV_CLASS_NETBURST && p4_escr_table[event_of(&ev[i])->escr[0]].group == g)
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
			explain_group(&a, g, err, errlen);
		return -1;
	}
	for (unsigned k = 0; k < a.n; k++)
		fill_slot(st, &a, k);
	return 0;
}

int netburst_assign(struct pmu_state *st, const struct ev_encoding *ev, unsigned n,
		    char *err, size_t errlen)
{
	bool ht = st->caps.netburst_ht;
	unsigned lp = st->logical_cpu;

	st->nslots = 0;
	if (n > PMU_MAX_SLOTS)
		return fmt_error(err, errlen, "%u events, at most %u fit one plan", n, PMU_MAX_SLOTS);
	if (lp > 1 || (lp == 1 && !ht))
		return fmt_error(err, errlen, "logical processor %u does not exist on this processor%s", lp,
				 ht ? "" : " (no Hyper-Threading)");
	if (check_events(ev, n, err, errlen))
		return -1;
	for (unsigned g = 0; g < P4_GROUP_COUNT; g++)
		if (place_group(st, ev, n, (enum p4_group)g, err, errlen))
			return -1;
	for (unsigned i = 0; i < n; i++)
		if (ev[i].cls == EV_CLASS_TSC)
			pmu_slot_free_running(&st->slot[i], &ev[i]);
	st->nslots = n;
	return 0;
}
