/*
 * The NetBurst event language: libpfm4-syntax names ("global_power_events:RUNNING:u"),
 * the raw p4/escr=,cccr=/ form, and the ESCR thread bits for a logical processor.
 * SDM Vol. 3B 18.18.6 (setting up a counter), 18.19 (HT), Table 18-29.
 */
#include "lib/p4-events.h"
#include "lib/p4-regs.h"
#include "lib/format.h"
#include "lib/str.h"

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

/* The closest of names[] to the n-char token tok, within 3 edits and closer than the
 * token is long, or NULL. */
static const char *nearest(const char *tok, size_t n, const char *const *names, unsigned count)
{
	char want[EV_NAME_MAX];
	str_copy(want, tok, n + 1 < sizeof(want) ? n + 1 : sizeof(want));
	return str_nearest_in(want, names, count, 3, STR_NEAREST_BELOW_WORD_LEN);
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

/* What the fields after the event name ask for, before libpfm4's defaults. */
struct nb_fields {
	uint32_t evmask, tag, cccr;
	bool have_umask, usr, os, plm_given, both;
};

/* The table index of the event named by the first n chars of text; -1 with err (and a
 * did-you-mean) when there is none. */
static int parse_event_name(const char *text, size_t n, char *err, size_t errlen)
{
	const char *names[64];
	const char *hint;
	int idx;

	if (n == 0)
		return fmt_error(err, errlen, "'%s': missing event name", text);
	idx = find_event(text, n);
	if (idx >= 0)
		return idx;
	event_names(names);
	hint = nearest(text, n, names, nb_event_count);
	if (hint)
		return fmt_error(err, errlen, "unknown event '%.*s' for PMU netburst (did you mean '%s'?)",
				 (int)n, text, hint);
	return fmt_error(err, errlen, "unknown event '%.*s' for PMU netburst", (int)n, text);
}

static int find_modifier(const char *tok, size_t n)
{
	int mod = -1;
	for (int m = 0; m < MOD_COUNT; m++)
		if (token_is(tok, n, nb_mod_name[m]))
			mod = m;
	return mod;
}

/* Add the umask of e named by the tn chars at tok; false when e has none by that name. */
static bool apply_umask(const struct nb_event *e, const char *tok, size_t tn, struct nb_fields *f)
{
	int um = -1;
	for (unsigned i = 0; i < e->numasks; i++)
		if (token_is(tok, tn, e->umask[i].name))
			um = (int)i;
	if (um < 0)
		return false;
	unsigned bit = e->umask[um].bit;
	if (bit >= NB_TAG_BIT0)
		f->tag |= 1u << (bit - NB_TAG_BIT0);
	else
		f->evmask |= 1u << bit;
	f->have_umask = true;
	return true;
}

/* The error for a field that is neither a umask of e nor a modifier: tok is the field
 * (tn chars), its name the first nn of them, has_value when it had "=value". */
static int unknown_field(const struct nb_event *e, const char *tok, size_t tn, size_t nn,
			 bool has_value, char *err, size_t errlen)
{
	const char *names[NB_MAX_UMASKS + MOD_COUNT];
	unsigned count = 0;
	for (unsigned i = 0; i < e->numasks; i++)
		names[count++] = e->umask[i].name;
	for (unsigned m = 0; m < MOD_COUNT; m++)
		names[count++] = nb_mod_name[m];
	const char *hint = nearest(tok, nn, names, count);
	if (has_value)
		return fmt_error(err, errlen, "unknown modifier '%.*s' for event '%s' (modifiers: "
				 "u k cmpl e thr t)", (int)nn, tok, e->name);
	if (hint)
		return fmt_error(err, errlen, "unknown umask or modifier '%.*s' for event '%s' "
				 "(did you mean '%s'?)", (int)tn, tok, e->name, hint);
	return fmt_error(err, errlen, "unknown umask or modifier '%.*s' for event '%s'",
			 (int)tn, tok, e->name);
}

/* thr=N: the CCCR threshold, 0-15. */
static int parse_threshold(const char *val, size_t vn, bool has_value, struct nb_fields *f,
			   char *err, size_t errlen)
{
	uint64_t thr;
	if (!has_value || vn == 0)
		return fmt_error(err, errlen, "thr needs a value: thr=0..15");
	if (str_to_u64(val, vn, &thr) != 0)
		return fmt_error(err, errlen, "thr=%.*s: not a number", (int)vn, val);
	if (thr > 15)
		return fmt_error(err, errlen, "thr=%.*s out of range 0-15", (int)vn, val);
	/* libpfm4: thr=0 leaves the comparison off */
	f->cccr &= ~P4_CCCR_THRESHOLD_MASK;
	if (thr)
		f->cccr |= P4_CCCR_COMPARE | P4_CCCR_THRESHOLD(thr);
	return 0;
}

/* Modifier mod with its value (vn chars at val; empty without "="). */
static int apply_modifier(int mod, const char *val, size_t vn, bool has_value,
			  struct nb_fields *f, char *err, size_t errlen)
{
	bool on;
	if (mod == MOD_THR)
		return parse_threshold(val, vn, has_value, f, err, errlen);
	if (parse_bool(val, vn, &on) != 0)
		return fmt_error(err, errlen, "%s=%.*s: expected 0 or 1", nb_mod_name[mod], (int)vn, val);
	switch (mod) {
	case MOD_U: f->usr = on; f->plm_given = true; break;
	case MOD_K: f->os = on; f->plm_given = true; break;
	/* libpfm4: cmpl and e each also turn the comparison on */
	case MOD_CMPL: if (on) f->cccr |= P4_CCCR_COMPARE | P4_CCCR_COMPLEMENT; break;
	case MOD_E: if (on) f->cccr |= P4_CCCR_COMPARE | P4_CCCR_EDGE; break;
	case MOD_T: f->both = on; break;
	}
	return 0;
}

/* One field after the event name (tn chars at tok): a umask of e, or a modifier with or
 * without "=value". */
static int parse_field(const char *text, const struct nb_event *e, const char *tok, size_t tn,
		       struct nb_fields *f, char *err, size_t errlen)
{
	if (tn == 0)
		return fmt_error(err, errlen, "'%s': empty field after ':'", text);
	const char *eq = find_char(tok, tn, '=');
	const char *val = eq ? eq + 1 : tok + tn;
	size_t vn = eq ? tn - (size_t)(val - tok) : 0;
	size_t nn = eq ? (size_t)(eq - tok) : tn;

	int mod = find_modifier(tok, nn);
	if (mod < 0 && !eq && apply_umask(e, tok, tn, f))
		return 0;
	if (mod < 0)
		return unknown_field(e, tok, tn, nn, eq != NULL, err, errlen);
	return apply_modifier(mod, val, vn, eq != NULL, f, err, errlen);
}

/* libpfm4's defaults for what the fields left out, then the ESCR and CCCR values. */
static int encode_event(const char *text, const struct pmu_caps *pc, unsigned idx,
			struct nb_fields *f, struct ev_encoding *out, char *err, size_t errlen)
{
	const struct nb_event *e = &nb_event_table[idx];

	if (!f->plm_given)
		f->usr = f->os = true;        /* libpfm4's default privilege levels 0 and 3 */
	if (!f->have_umask) {
		unsigned i;
		for (i = 0; i < e->numasks && !e->umask[i].dfl; i++)
			;
		if (i == e->numasks) {
			char list[256];
			list_umasks(e, list, sizeof(list));
			return fmt_error(err, errlen, "event '%s' has no default umask: give one of %s",
					 e->name, list);
		}
		f->evmask = 1u << e->umask[i].bit;
	}
	if (f->both && pc && pc->kind == PMU_INTEL_NETBURST && !pc->netburst_ht)
		return fmt_error(err, errlen, "'%s': t (both logical processors) needs a processor with "
				 "Hyper-Threading", text);

	out->nb.event = (uint16_t)idx;
	out->nb.escr = P4_ESCR_EVENT(e->event_select) | P4_ESCR_EMASK(f->evmask & ~e->virtual_mask) |
		       (f->tag ? P4_ESCR_TAG_ENABLE | P4_ESCR_TAG(f->tag) : 0) |
		       (f->usr ? P4_ESCR_T0_USR : 0) | (f->os ? P4_ESCR_T0_OS : 0);
	out->nb.cccr = f->cccr | P4_CCCR_ENABLE | P4_CCCR_ESEL(e->escr_select) |
		       P4_CCCR_ACTIVE_THREAD(P4_CCCR_THREAD_ANY);
	out->nb.usr = f->usr;
	out->nb.os = f->os;
	out->nb.both_threads = f->both;
	return 0;
}

int netburst_event_parse(const char *text, const struct pmu_caps *pc,
			 struct ev_encoding *out, char *err, size_t errlen)
{
	struct nb_fields f = { 0 };
	const char *colon = strchr(text, ':');
	size_t n = colon ? (size_t)(colon - text) : strlen(text);
	int idx;

	memset(out, 0, sizeof(*out));
	out->cls = EV_CLASS_NETBURST;
	str_copy(out->name, text, sizeof(out->name));

	idx = parse_event_name(text, n, err, errlen);
	if (idx < 0)
		return -1;
	while (colon) {
		const char *tok = colon + 1;
		colon = strchr(tok, ':');
		size_t tn = colon ? (size_t)(colon - tok) : strlen(tok);
		if (parse_field(text, &nb_event_table[idx], tok, tn, &f, err, errlen))
			return -1;
	}
	return encode_event(text, pc, (unsigned)idx, &f, out, err, errlen);
}

#define P4_CCCR_UNSUPPORTED (P4_CCCR_FORCE_OVF | P4_CCCR_OVF_PMI_T0 | P4_CCCR_OVF_PMI_T1 | \
			     P4_CCCR_CASCADE | P4_CCCR_OVF)

/* The escr= and cccr= values of body ("escr=0x...,cccr=0x...", either order). */
static int parse_raw_pairs(const char *body, uint64_t *escr, uint64_t *cccr,
			   char *err, size_t errlen)
{
	bool have_escr = false, have_cccr = false;
	const char *p = body;

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
			*escr = v;
			have_escr = true;
		} else if (token_is(p, kn, "cccr")) {
			*cccr = v;
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
	return 0;
}

/* Bits bareperf will not write: reserved ones, T1 without HT, overflow and interrupts. */
static int check_raw_bits(uint64_t escr, uint64_t cccr, bool ht, char *err, size_t errlen)
{
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
	return 0;
}

/* The one table event with the ESCR's event select and the CCCR's ESCR select; -1 with
 * err when there is none, or two (then only the name tells them apart). */
static int find_raw_event(uint64_t escr, uint64_t cccr, char *err, size_t errlen)
{
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
	return match;
}

int netburst_event_parse_raw(const char *body, const struct pmu_caps *pc,
			     struct ev_encoding *out, char *err, size_t errlen)
{
	uint64_t escr = 0, cccr = 0;
	bool ht = !pc || pc->netburst_ht;
	int match;

	memset(out, 0, sizeof(*out));
	out->cls = EV_CLASS_NETBURST;
	str_copy(out->name, body, sizeof(out->name));

	if (parse_raw_pairs(body, &escr, &cccr, err, errlen) ||
	    check_raw_bits(escr, cccr, ht, err, errlen))
		return -1;
	match = find_raw_event(escr, cccr, err, errlen);
	if (match < 0)
		return -1;

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

unsigned netburst_thread_of(uint32_t apic_id, unsigned threads_per_core)
{
	uint32_t span = 1;
	while (span < threads_per_core)
		span <<= 1;
	return (apic_id & (span - 1)) ? 1 : 0;
}

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
