/*
 * NetBurst PMU: libpfm4-syntax event parsing, the raw p4/escr=,cccr=/ form, counter
 * allocation over ESCRs and counters, the backend, and trace=msr decoding.
 * SDM Vol. 3B 18.18.6 (setting up a counter), 18.19 (HT), Table 18-29.
 */
#include "arch/x86/pmu/netburst.h"
#include "arch/x86/pmu/p4-regs.h"
#include "arch/x86/pmu/core.h"
#include "lib/format.h"
#include "lib/str.h"

#define MSR_IA32_TIME_STAMP_COUNTER 0x00000010

const char *netburst_event_name(unsigned i)
{
	return i < nb_event_count ? nb_event_table[i].name : NULL;
}

/* ---------------------------------------------------------------- parsing */

/* First c in the n chars at s, or NULL (memchr is not in the freestanding set). */
static const char *find_char(const char *s, size_t n, char c)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] == c)
			return s + i;
	return NULL;
}

/* Case-insensitive compare of the n-char token tok with the NUL-terminated s. */
static int token_is(const char *tok, size_t n, const char *s)
{
	return strlen(s) == n && str_ncasecmp(tok, s, n) == 0;
}

static int find_event(const char *tok, size_t n)
{
	for (unsigned i = 0; i < nb_event_count; i++)
		if (token_is(tok, n, nb_event_table[i].name))
			return (int)i;
	return -1;
}

/* The closest of names[] to tok (tok copied to a terminated buffer first). */
static const char *nearest(const char *tok, size_t n, const char *const *names, unsigned count)
{
	char want[EV_NAME_MAX];
	const char *best = NULL;
	unsigned best_d = 4;     /* suggest only within 3 edits */

	str_copy(want, tok, n + 1 < sizeof(want) ? n + 1 : sizeof(want));
	for (unsigned i = 0; i < count; i++) {
		unsigned d = str_edit_distance(want, names[i]);
		if (d < best_d) {
			best_d = d;
			best = names[i];
		}
	}
	return best;
}

static void event_names(const char **out)
{
	for (unsigned i = 0; i < nb_event_count; i++)
		out[i] = nb_event_table[i].name;
}

enum nb_mod { MOD_U, MOD_K, MOD_CMPL, MOD_E, MOD_THR, MOD_T, MOD_COUNT };
static const char *const nb_mod_name[MOD_COUNT] = {
	[MOD_U] = "u", [MOD_K] = "k", [MOD_CMPL] = "cmpl", [MOD_E] = "e", [MOD_THR] = "thr",
	[MOD_T] = "t",
};

/* libpfm4's boolean values: empty (= 1), 0, 1, y, n. */
static int parse_bool(const char *v, size_t n, bool *out)
{
	if (n == 0 || token_is(v, n, "1") || token_is(v, n, "y")) {
		*out = true;
		return 0;
	}
	if (token_is(v, n, "0") || token_is(v, n, "n")) {
		*out = false;
		return 0;
	}
	return -1;
}

/* Append the umask names of e to buf, comma separated. */
static void list_umasks(const struct nb_event *e, char *buf, size_t len)
{
	size_t off = 0;
	buf[0] = '\0';
	for (unsigned i = 0; i < e->numasks && off < len; i++)
		off += (size_t)bp_snprintf(buf + off, len - off, "%s%s", i ? ", " : "",
					   e->umask[i].name);
}

int netburst_event_parse(const char *text, const struct pmu_caps *pc,
			 struct ev_encoding *out, char *err, size_t errlen)
{
	const char *p = text, *colon;
	size_t n;
	int idx;
	uint32_t evmask = 0, tag = 0, cccr = 0;
	bool have_umask = false, usr = false, os = false, plm_given = false, both = false;

	memset(out, 0, sizeof(*out));
	out->cls = EV_CLASS_NETBURST;
	str_copy(out->name, text, sizeof(out->name));

	colon = strchr(p, ':');
	n = colon ? (size_t)(colon - p) : strlen(p);
	if (n == 0)
		return fmt_error(err, errlen, "'%s': missing event name", text);
	idx = find_event(p, n);
	if (idx < 0) {
		const char *names[64];
		const char *hint;
		event_names(names);
		hint = nearest(p, n, names, nb_event_count);
		if (hint)
			return fmt_error(err, errlen, "unknown event '%.*s' for PMU netburst (did you mean '%s'?)",
				    (int)n, p, hint);
		return fmt_error(err, errlen, "unknown event '%.*s' for PMU netburst", (int)n, p);
	}
	const struct nb_event *e = &nb_event_table[idx];

	while (colon) {
		const char *tok = colon + 1, *eq, *val;
		size_t tn, vn;
		colon = strchr(tok, ':');
		tn = colon ? (size_t)(colon - tok) : strlen(tok);
		if (tn == 0)
			return fmt_error(err, errlen, "'%s': empty field after ':'", text);
		eq = find_char(tok, tn, '=');
		val = eq ? eq + 1 : tok + tn;
		vn = eq ? tn - (size_t)(val - tok) : 0;
		size_t nn = eq ? (size_t)(eq - tok) : tn;

		int mod = -1;
		for (int m = 0; m < MOD_COUNT; m++)
			if (token_is(tok, nn, nb_mod_name[m]))
				mod = m;
		if (mod < 0 && !eq) {
			int um = -1;
			for (unsigned i = 0; i < e->numasks; i++)
				if (token_is(tok, tn, e->umask[i].name))
					um = (int)i;
			if (um >= 0) {
				unsigned bit = e->umask[um].bit;
				if (bit >= NB_TAG_BIT0)
					tag |= 1u << (bit - NB_TAG_BIT0);
				else
					evmask |= 1u << bit;
				have_umask = true;
				continue;
			}
		}
		if (mod < 0) {
			const char *names[NB_MAX_UMASKS + MOD_COUNT];
			unsigned count = 0;
			for (unsigned i = 0; i < e->numasks; i++)
				names[count++] = e->umask[i].name;
			for (unsigned m = 0; m < MOD_COUNT; m++)
				names[count++] = nb_mod_name[m];
			const char *hint = nearest(tok, nn, names, count);
			if (eq)
				return fmt_error(err, errlen, "unknown modifier '%.*s' for event '%s' (modifiers: "
					    "u k cmpl e thr t)", (int)nn, tok, e->name);
			if (hint)
				return fmt_error(err, errlen, "unknown umask or modifier '%.*s' for event '%s' "
					    "(did you mean '%s'?)", (int)tn, tok, e->name, hint);
			return fmt_error(err, errlen, "unknown umask or modifier '%.*s' for event '%s'",
				    (int)tn, tok, e->name);
		}
		if (mod == MOD_THR) {
			uint64_t thr;
			if (!eq || vn == 0)
				return fmt_error(err, errlen, "thr needs a value: thr=0..15");
			if (str_to_u64(val, vn, &thr) != 0)
				return fmt_error(err, errlen, "thr=%.*s: not a number", (int)vn, val);
			if (thr > 15)
				return fmt_error(err, errlen, "thr=%.*s out of range 0-15", (int)vn, val);
			/* libpfm4: thr=0 leaves the comparison off */
			cccr &= ~P4_CCCR_THRESHOLD_MASK;
			if (thr)
				cccr |= P4_CCCR_COMPARE | P4_CCCR_THRESHOLD(thr);
			continue;
		}
		bool on;
		if (parse_bool(val, vn, &on) != 0)
			return fmt_error(err, errlen, "%s=%.*s: expected 0 or 1", nb_mod_name[mod], (int)vn, val);
		switch (mod) {
		case MOD_U: usr = on; plm_given = true; break;
		case MOD_K: os = on; plm_given = true; break;
		/* libpfm4: cmpl and e each also turn the comparison on */
		case MOD_CMPL: if (on) cccr |= P4_CCCR_COMPARE | P4_CCCR_COMPLEMENT; break;
		case MOD_E: if (on) cccr |= P4_CCCR_COMPARE | P4_CCCR_EDGE; break;
		case MOD_T: both = on; break;
		}
	}

	if (!plm_given)
		usr = os = true;        /* libpfm4's default privilege levels 0 and 3 */
	if (!have_umask) {
		unsigned i;
		for (i = 0; i < e->numasks && !e->umask[i].dfl; i++)
			;
		if (i == e->numasks) {
			char list[256];
			list_umasks(e, list, sizeof(list));
			return fmt_error(err, errlen, "event '%s' has no default umask: give one of %s",
				    e->name, list);
		}
		evmask = 1u << e->umask[i].bit;
	}
	if (both && pc && pc->kind == PMU_INTEL_NETBURST && !pc->netburst_ht)
		return fmt_error(err, errlen, "'%s': t (both logical processors) needs a processor with "
			    "Hyper-Threading", text);

	out->nb.event = (uint16_t)idx;
	out->nb.escr = P4_ESCR_EVENT(e->event_select) | P4_ESCR_EMASK(evmask & ~e->virtual_mask) |
		       (tag ? P4_ESCR_TAG_ENABLE | P4_ESCR_TAG(tag) : 0) |
		       (usr ? P4_ESCR_T0_USR : 0) | (os ? P4_ESCR_T0_OS : 0);
	out->nb.cccr = cccr | P4_CCCR_ENABLE | P4_CCCR_ESEL(e->escr_select) |
		       P4_CCCR_ACTIVE_THREAD(P4_CCCR_THREAD_ANY);
	out->nb.usr = usr;
	out->nb.os = os;
	out->nb.both_threads = both;
	return 0;
}

#define P4_CCCR_UNSUPPORTED (P4_CCCR_FORCE_OVF | P4_CCCR_OVF_PMI_T0 | P4_CCCR_OVF_PMI_T1 | \
			     P4_CCCR_CASCADE | P4_CCCR_OVF)

int netburst_event_parse_raw(const char *body, const struct pmu_caps *pc,
			     struct ev_encoding *out, char *err, size_t errlen)
{
	uint64_t escr = 0, cccr = 0;
	bool have_escr = false, have_cccr = false;
	const char *p = body;
	bool ht = !pc || pc->netburst_ht;

	memset(out, 0, sizeof(*out));
	out->cls = EV_CLASS_NETBURST;
	str_copy(out->name, body, sizeof(out->name));

	while (*p) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);
		const char *eq = find_char(p, n, '=');
		if (!eq)
			return fmt_error(err, errlen, "p4/%s/: '%.*s' is not key=value (keys: escr, cccr)",
				    body, (int)n, p);
		size_t kn = (size_t)(eq - p), vn = n - kn - 1;
		uint64_t v;
		if (str_to_u64(eq + 1, vn, &v) != 0)
			return fmt_error(err, errlen, "p4/%s/: %.*s is not a number", body, (int)n, p);
		if (token_is(p, kn, "escr")) {
			escr = v;
			have_escr = true;
		} else if (token_is(p, kn, "cccr")) {
			cccr = v;
			have_cccr = true;
		} else {
			return fmt_error(err, errlen, "p4/%s/: unknown key '%.*s' (keys: escr, cccr)",
				    body, (int)kn, p);
		}
		p += n;
		if (*p == ',')
			p++;
	}
	if (!have_escr || !have_cccr)
		return fmt_error(err, errlen, "p4/%s/: both escr= and cccr= are needed", body);
	if (escr & P4_ESCR_RESERVED)
		return fmt_error(err, errlen, "escr=%#llx sets reserved bits %#llx (bits 63:31 must be 0)",
			    (unsigned long long)escr, (unsigned long long)(escr & P4_ESCR_RESERVED));
	if (!ht && (escr & (P4_ESCR_T1_OS | P4_ESCR_T1_USR)))
		return fmt_error(err, errlen, "escr=%#llx sets T1_OS/T1_USR (bits 1:0), reserved without "
			    "Hyper-Threading", (unsigned long long)escr);
	if (cccr & P4_CCCR_RESERVED)
		return fmt_error(err, errlen, "cccr=%#llx sets reserved bits %#llx (bits 11:0, 29:28, "
			    "63:32 must be 0)", (unsigned long long)cccr,
			    (unsigned long long)(cccr & P4_CCCR_RESERVED));
	if (cccr & P4_CCCR_UNSUPPORTED)
		return fmt_error(err, errlen, "cccr=%#llx sets overflow/interrupt/cascade bits %#llx, "
			    "which bareperf does not use", (unsigned long long)cccr,
			    (unsigned long long)(cccr & P4_CCCR_UNSUPPORTED));
	if (P4_CCCR_GET_THREAD(cccr) != P4_CCCR_THREAD_ANY)
		return fmt_error(err, errlen, "cccr=%#llx: active thread (bits 17:16) must be 11b (any)",
			    (unsigned long long)cccr);

	unsigned evsel = P4_ESCR_GET_EVENT(escr), esel = P4_CCCR_GET_ESEL(cccr);
	int match = -1, other = -1;
	for (unsigned i = 0; i < nb_event_count; i++) {
		if (nb_event_table[i].event_select != evsel || nb_event_table[i].escr_select != esel)
			continue;
		if (match < 0)
			match = (int)i;
		else if (other < 0)
			other = (int)i;
	}
	if (match < 0)
		return fmt_error(err, errlen, "escr event select %#x with cccr ESCR select %u is no "
			    "NetBurst event (SDM Tables A-9/A-10)", evsel, esel);
	if (other >= 0)
		return fmt_error(err, errlen, "escr event select %#x with cccr ESCR select %u is both "
			    "%s (%s) and %s (%s): use the event name",
			    evsel, esel, nb_event_table[match].name,
			    p4_escr_table[nb_event_table[match].escr[0]].name,
			    nb_event_table[other].name, p4_escr_table[nb_event_table[other].escr[0]].name);

	bool t0 = escr & (P4_ESCR_T0_OS | P4_ESCR_T0_USR);
	bool t1 = escr & (P4_ESCR_T1_OS | P4_ESCR_T1_USR);
	out->nb.event = (uint16_t)match;
	out->nb.usr = escr & (P4_ESCR_T0_USR | P4_ESCR_T1_USR);
	out->nb.os = escr & (P4_ESCR_T0_OS | P4_ESCR_T1_OS);
	out->nb.both_threads = t0 && t1;
	out->nb.escr = ((uint32_t)escr & ~P4_ESCR_THREAD_BITS) |
		       (out->nb.usr ? P4_ESCR_T0_USR : 0) | (out->nb.os ? P4_ESCR_T0_OS : 0);
	out->nb.cccr = (uint32_t)cccr | P4_CCCR_ENABLE;
	return 0;
}

/* ---------------------------------------------------------------- threads */

uint32_t netburst_escr_for_thread(uint32_t escr, bool usr, bool os, unsigned lp, bool both,
				  bool ht)
{
	uint32_t t0 = (usr ? P4_ESCR_T0_USR : 0) | (os ? P4_ESCR_T0_OS : 0);
	uint32_t t1 = (usr ? P4_ESCR_T1_USR : 0) | (os ? P4_ESCR_T1_OS : 0);

	escr &= ~P4_ESCR_THREAD_BITS;
	/* Table 18-29: for a thread-specific event, T0_* qualify what logical processor 0
	 * does and T1_* what logical processor 1 does; without HT only T0_* exist. */
	if (!ht)
		return escr | t0;
	if (both)
		return escr | t0 | t1;
	return escr | (lp ? t1 : t0);
}

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
