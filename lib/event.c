/*
 * The event language: perf generic names, libpfm4 names with modifiers (tables from
 * build/gen/pfm_tables.c, models from pmu-models.c), raw rXXXX and cpu/.../ forms; NetBurst goes to
 * lib/p4-event-parse.c. Event-select layout: SDM Vol. 3B 20.2.1.1 Figure 20-6
 * (Intel), AMD APM Vol. 2 13.2.1 Figure 13-7 (PerfEvtSeln, bits 35:32, 41:40).
 */
#include <stdarg.h>
#include "lib/event.h"
#include "lib/format.h"
#include "lib/pfm_tables.h"
#include "lib/pmu-layout.h"
#include "lib/str.h"
#include "lib/util.h"
#include "lib/p4-events.h"

/* ---------------------------------------------------------------- encodings */
static bool is_amd(const struct pmu_model *m)
{
	return m->kind == PMU_AMD_LEGACY || m->kind == PMU_AMD_CORE || m->kind == PMU_AMD_PERFMON_V2;
}

static uint32_t gp_all(const struct pmu_caps *pc)
{
	unsigned n = pc->gp_counters > 32 ? 32 : pc->gp_counters;
	return n == 32 ? ~0u : (1u << n) - 1;
}

static bool fixed_present(const struct pmu_caps *pc, unsigned i)
{
	return i < pc->fixed_counters || (pc->fixed_counter_mask >> i & 1);
}

/* Fill the class-GP fields: EN set, INT clear, counters that can take it. */
static int finish_gp(const struct pmu_model *m, const struct pmu_caps *pc, uint64_t sel,
		     struct ev_encoding *out, char *err, size_t errlen)
{
	out->cls = EV_CLASS_GP;
	out->evtsel = (sel | ARCH_PERFMON_EVENTSEL_ENABLE) & ~ARCH_PERFMON_EVENTSEL_INT;
	out->gp_mask = gp_all(pc);
	out->fixed_mask = 0;
	if (m->kind != PMU_INTEL_ARCH)
		return 0;
	/* Fixed counters count exactly one event each and take no edge/inv/cmask
	 * (SDM Vol. 3B 20.2.2, Table 20-2). */
	uint64_t filter = sel & ~(ARCH_PERFMON_EVENTSEL_USR | ARCH_PERFMON_EVENTSEL_OS | ARCH_PERFMON_EVENTSEL_ENABLE | ARCH_PERFMON_EVENTSEL_INT | ARCH_PERFMON_EVENTSEL_ANY);
	int fixed = -1;
	if (filter == 0x00c0)
		fixed = 0;
	else if (filter == 0x003c)
		fixed = 1;
	else if (filter == 0x0300)
		fixed = 2;
	if (fixed == 2)
		out->gp_mask = 0;   /* 0x0300 is a pseudo-encoding: fixed counter 2 only */
	if (fixed >= 0 && fixed_present(pc, (unsigned)fixed))
		out->fixed_mask = 1u << fixed;
	if (!out->gp_mask && !out->fixed_mask) {
		if (fixed == 2)
			return fmt_error(err, errlen, "%s needs fixed counter 2 (reference cycles), "
				    "which this CPU lacks", out->name);
		return fmt_error(err, errlen, "%s: this CPU reports no counter that can count it "
			    "(%u general-purpose, %u fixed)", out->name, pc->gp_counters,
			    pc->fixed_counters);
	}
	return 0;
}

/* Privilege modifiers shared by generic names and raw forms: ":u", ":k", ":uk"... */
static int parse_plm_suffix(const char *s, uint64_t *plm, const char *what, char *err, size_t errlen)
{
	*plm = 0;
	if (!*s) {
		*plm = ARCH_PERFMON_EVENTSEL_USR | ARCH_PERFMON_EVENTSEL_OS;
		return 0;
	}
	while (*s == ':') {
		s++;
		const char *start = s;
		while (*s && *s != ':')
			s++;
		size_t n = (size_t)(s - start);
		if (n == 0)
			return fmt_error(err, errlen, "%s: empty modifier after ':'", what);
		for (size_t i = 0; i < n; i++) {
			if (start[i] == 'u')
				*plm |= ARCH_PERFMON_EVENTSEL_USR;
			else if (start[i] == 'k')
				*plm |= ARCH_PERFMON_EVENTSEL_OS;
			else
				return fmt_error(err, errlen, "%s: unknown modifier '%.*s' (this form takes u and k)",
					    what, (int)n, start);
		}
	}
	if (*s)
		return fmt_error(err, errlen, "%s: unexpected '%s' (modifiers follow ':')", what, s);
	return 0;
}

/* ---------------------------------------------------------------- generic names */
/* The maps themselves belong to the PMU generations (their descriptors in arch/x86/pmu/). */
static const char *const generic_names[EV_GEN_COUNT] = {
	[EV_GEN_CYCLES] = "cycles", [EV_GEN_INSTRUCTIONS] = "instructions",
	[EV_GEN_REF_CYCLES] = "ref-cycles", [EV_GEN_BRANCHES] = "branches",
	[EV_GEN_BRANCH_MISSES] = "branch-misses", [EV_GEN_CACHE_REFS] = "cache-references",
	[EV_GEN_CACHE_MISSES] = "cache-misses",
};

static int parse_generic(const struct pmu_model *m, const struct pmu_caps *pc,
			 const struct ev_generic_map *gm, unsigned id, const char *mods,
			 struct ev_encoding *out, char *err, size_t errlen)
{
	if (!gm)
		return fmt_error(err, errlen, "%s: no PMU to count it on (PMU kind %s)", generic_names[id],
			    pmu_kind_name(m->kind));
	if (m->kind == PMU_INTEL_NETBURST) {
		if (!gm->pfm[id])
			return fmt_error(err, errlen, "%s is not available on NetBurst", generic_names[id]);
		char buf[EV_NAME_MAX * 2];
		bp_snprintf(buf, sizeof(buf), "%s%s", gm->pfm[id], mods);
		int r = netburst_event_parse(buf, pc, out, err, errlen);
		str_copy(out->name, generic_names[id], sizeof(out->name));
		return r;
	}
	uint64_t plm;
	if (parse_plm_suffix(mods, &plm, generic_names[id], err, errlen))
		return -1;
	if (!gm->code[id])
		return fmt_error(err, errlen, "%s is not available on PMU %s", generic_names[id], m->pfm_name);
	if (gm->cpuid_0a && gm->cpuid_0a_bit[id] >= 0 && pc->arch_events_len) {
		unsigned bit = (unsigned)gm->cpuid_0a_bit[id];
		if (bit >= pc->arch_events_len || (pc->arch_events_unavail >> bit & 1))
			return fmt_error(err, errlen, "%s: architectural event %u not available on this CPU "
				    "(CPUID.0AH:EBX bit %u)", generic_names[id], bit, bit);
	}
	/* The maps hold event-select values (AMD event bits 11:8 already at 35:32). */
	return finish_gp(m, pc, gm->code[id] | plm, out, err, errlen);
}

/* ---------------------------------------------------------------- raw forms */
static uint64_t raw_allowed(const struct pmu_model *m)
{
	uint64_t ok = ARCH_PERFMON_EVENTSEL_EVENT_MASK | ARCH_PERFMON_EVENTSEL_UMASK_MASK | ARCH_PERFMON_EVENTSEL_EDGE | ARCH_PERFMON_EVENTSEL_INV | ARCH_PERFMON_EVENTSEL_CMASK_MASK;
	if (m->kind == PMU_INTEL_ARCH)
		ok |= ARCH_PERFMON_EVENTSEL_ANY | ARCH_PERFMON_EVENTSEL_IN_TX | ARCH_PERFMON_EVENTSEL_IN_TXCP;
	if (is_amd(m)) {
		ok |= AMD64_EVENTSEL_EVENT_HI_MASK;
		if (m->kind != PMU_AMD_LEGACY || str_ncasecmp(m->pfm_name, "amd64_k", 7))
			ok |= AMD64_EVENTSEL_HOSTONLY | AMD64_EVENTSEL_GUESTONLY;
	}
	return ok;
}

static int parse_rXXXX(const struct pmu_model *m, const struct pmu_caps *pc, const char *text,
		       struct ev_encoding *out, char *err, size_t errlen)
{
	const char *colon = strchr(text, ':');
	size_t n = colon ? (size_t)(colon - text) : strlen(text);
	uint64_t v = 0;
	if (n < 2 || n > 17)
		return fmt_error(err, errlen, "raw event '%s': expected r followed by 1-16 hex digits", text);
	for (size_t i = 1; i < n; i++) {
		char c = text[i];
		unsigned d;
		if (c >= '0' && c <= '9') d = c - '0';
		else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
		else
			return fmt_error(err, errlen, "raw event '%.*s': '%c' is not a hex digit", (int)n, text, c);
		v = v << 4 | d;
	}
	uint64_t plm;
	if (parse_plm_suffix(colon ? colon : "", &plm, text, err, errlen))
		return -1;
	uint64_t bad = v & ~raw_allowed(m);
	if (bad)
		return fmt_error(err, errlen, "raw event '%.*s': reserved bits 0x%llx set for PMU %s "
			    "(USR/OS come from :u/:k)", (int)n, text, (unsigned long long)bad, m->pfm_name);
	return finish_gp(m, pc, v | plm, out, err, errlen);
}

/* cpu/event=0x3c,umask=0,cmask=1,inv,edge,any/ with optional :u/:k after */
static int parse_cpu_raw(const struct pmu_model *m, const struct pmu_caps *pc, const char *text,
			 struct ev_encoding *out, char *err, size_t errlen)
{
	const char *body = text + 4;
	const char *end = strchr(body, '/');
	if (!end)
		return fmt_error(err, errlen, "'%s': missing closing '/'", text);
	uint64_t sel = 0;
	const char *p = body;
	while (p < end) {
		const char *comma = p;
		while (comma < end && *comma != ',')
			comma++;
		const char *eq = p;
		while (eq < comma && *eq != '=')
			eq++;
		size_t klen = (size_t)(eq - p);
		uint64_t v = 1;
		if (klen == 0)
			return fmt_error(err, errlen, "'%s': empty key", text);
		if (eq < comma && str_to_u64(eq + 1, (size_t)(comma - eq - 1), &v))
			return fmt_error(err, errlen, "'%s': bad number '%.*s' for %.*s", text,
				    (int)(comma - eq - 1), eq + 1, (int)klen, p);
		struct { const char *key; uint64_t max; unsigned shift; uint64_t flag; } keys[] = {
			{ "event", is_amd(m) ? 0xfff : 0xff, 0, 0 },
			{ "umask", 0xff, 8, 0 },
			{ "cmask", 0xff, ARCH_PERFMON_EVENTSEL_CMASK_SHIFT, 0 },
			{ "inv", 1, 0, ARCH_PERFMON_EVENTSEL_INV },
			{ "edge", 1, 0, ARCH_PERFMON_EVENTSEL_EDGE },
			{ "any", 1, 0, ARCH_PERFMON_EVENTSEL_ANY },
		};
		unsigned k;
		for (k = 0; k < ARRAY_SIZE(keys); k++)
			if (strlen(keys[k].key) == klen && !strncmp(keys[k].key, p, klen))
				break;
		if (k == ARRAY_SIZE(keys))
			return fmt_error(err, errlen, "'%s': unknown key '%.*s' (keys: event, umask, cmask, inv, edge, any)",
				    text, (int)klen, p);
		if (v > keys[k].max)
			return fmt_error(err, errlen, "'%s': %s=%llu out of range 0-%llu", text, keys[k].key,
				    (unsigned long long)v, (unsigned long long)keys[k].max);
		if (keys[k].flag == ARCH_PERFMON_EVENTSEL_ANY && m->kind != PMU_INTEL_ARCH)
			return fmt_error(err, errlen, "'%s': 'any' (AnyThread) is Intel architectural only", text);
		if (keys[k].flag)
			sel = v ? sel | keys[k].flag : sel & ~keys[k].flag;
		else if (k == 0)
			sel = (sel & ~(ARCH_PERFMON_EVENTSEL_EVENT_MASK | AMD64_EVENTSEL_EVENT_HI_MASK)) | (v & 0xff) |
			      ((v >> 8) << AMD64_EVENTSEL_EVENT_HI_SHIFT);
		else
			sel = (sel & ~(0xffull << keys[k].shift)) | v << keys[k].shift;
		p = comma < end ? comma + 1 : end;
	}
	uint64_t plm;
	if (parse_plm_suffix(end + 1, &plm, text, err, errlen))
		return -1;
	return finish_gp(m, pc, sel | plm, out, err, errlen);
}

/* ---------------------------------------------------------------- libpfm4 names */
/* Integer modifiers take min..max (libpfm4's ranges); the others 0 or 1. */
static const struct { const char *name; unsigned bit; bool integer; unsigned min, max; } pfm_mods[] = {
	{ "u", PFMT_MOD_U, false, 0, 1 }, { "k", PFMT_MOD_K, false, 0, 1 },
	{ "e", PFMT_MOD_E, false, 0, 1 }, { "i", PFMT_MOD_I, false, 0, 1 },
	{ "c", PFMT_MOD_C, true, 0, 255 }, { "t", PFMT_MOD_T, false, 0, 1 },
	{ "h", PFMT_MOD_H, false, 0, 1 }, { "g", PFMT_MOD_G, false, 0, 1 },
	{ "intx", PFMT_MOD_INTX, false, 0, 1 }, { "intxcp", PFMT_MOD_INTXCP, false, 0, 1 },
	{ "ldlat", PFMT_MOD_LDLAT, true, 1, 65535 },
	{ "fe_thres", PFMT_MOD_FETHR, true, 1, PEBS_FRONTEND_IDQ_BUBBLE_LENGTH_MAX },
};
#define NPFM_MODS (ARRAY_SIZE(pfm_mods))

static bool set_has(uint32_t off, unsigned i) { return pfmt_words[off + i / 32] >> (i % 32) & 1; }

static const char *umask_name(const struct pfmt_umask *u) { return pfmt_strings + u->name; }

static const char *pfmt_event_name_at(const void *model, size_t i)
{
	const struct pfmt_model *tm = model;
	return i < tm->nevents ? pfmt_strings + pfmt_events[tm->first_event + i].name : NULL;
}

static const char *pfmt_umask_name_at(const void *event, size_t i)
{
	const struct pfmt_event *ev = event;
	return i < ev->numasks ? umask_name(&pfmt_umasks[ev->first_umask + i]) : NULL;
}

/* "Did you mean" for event names: within a third of a long name, else 3 edits,
 * case-insensitive; "" when nothing is close. */
static const char *closest(const char *want, const struct pfmt_model *tm)
{
	size_t len = strlen(want);
	const char *hint = str_nearest(want, pfmt_event_name_at, tm, len > 9 ? len / 3 : 3,
				       STR_NEAREST_FOLD_CASE | STR_NEAREST_BELOW_WORD_LEN);
	return hint ? hint : "";
}

/* The same for the unit masks of ev, within 2 edits of a short name. */
static const char *closest_umask(const char *tok, size_t n, const struct pfmt_event *ev)
{
	char want[EV_NAME_MAX];
	str_copy(want, tok, n + 1 < sizeof(want) ? n + 1 : sizeof(want));
	const char *hint = str_nearest(want, pfmt_umask_name_at, ev, n > 9 ? n / 3 : 2,
				       STR_NEAREST_FOLD_CASE | STR_NEAREST_BELOW_WORD_LEN);
	return hint ? hint : "";
}

/* For an unknown PMU name: up to PMU_HINTS model names 1, then 2, edits away, in the
 * form "'a', 'b'". Returns the length written, 0 when none is close. */
static size_t list_close_pmus(const char *name, size_t len, char *list, size_t size)
{
	enum { PMU_HINTS = 3 };
	char want[64];
	size_t used = 0;
	unsigned listed = 0;

	str_copy(want, name, len + 1 < sizeof(want) ? len + 1 : sizeof(want));
	for (unsigned pass = 1; pass <= 2 && listed < PMU_HINTS; pass++)
		for (unsigned i = 0; i < pmu_model_count() && listed < PMU_HINTS; i++) {
			const char *model = pmu_model_at(i)->pfm_name;
			/* a name as far from the word as it is long is no hint */
			if (pass >= strlen(want) || str_case_edit_distance(want, model) != pass)
				continue;
			used += bp_snprintf(list + used, size - used, "%s'%s'", used ? ", " : "", model);
			listed++;
		}
	return used;
}

/* An optional "pmu::" prefix must name the PMU in use; *rest is set past it. */
static int check_pmu_prefix(const struct pmu_model *m, const char *text, const char **rest,
			    char *err, size_t errlen)
{
	const char *sep = strchr(text, ':');
	*rest = text;
	if (!sep || sep[1] != ':')
		return 0;
	const struct pmu_model *pm = pmu_model_by_name_n(text, (size_t)(sep - text));
	if (!pm) {
		char list[160] = "";
		size_t used = list_close_pmus(text, (size_t)(sep - text), list, sizeof(list));
		return fmt_error(err, errlen, "unknown PMU '%.*s'%s%s%s", (int)(sep - text), text,
			    used ? " (close: " : " (see bareperf-encode --list-pmus)", list, used ? ")" : "");
	}
	/* netburst and netburst_p share the hand table */
	if (pm != m && !(pm->kind == PMU_INTEL_NETBURST && m->kind == PMU_INTEL_NETBURST))
		return fmt_error(err, errlen, "'%s' is for PMU %s, but the PMU in use is %s", text,
			    pm->pfm_name, m->pfm_name);
	*rest = sep + 2;
	return 0;
}

/* The event named by the first nlen characters of p, case-insensitive. */
static int find_pfm_event(const struct pmu_model *m, const struct pfmt_model *tm, const char *p,
			  size_t nlen, const struct pfmt_event **ev, char *err, size_t errlen)
{
	const struct pfmt_event *evs = &pfmt_events[tm->first_event];
	for (unsigned i = 0; i < tm->nevents; i++) {
		const char *name = pfmt_strings + evs[i].name;
		/* Most names differ in their first letter, and two letters equal but for case are
		 * equal with bit 5 set: a quick filter that never turns a match away. */
		if ((name[0] | 0x20) == (p[0] | 0x20) && strlen(name) == nlen && !str_ncasecmp(name, p, nlen)) {
			*ev = &evs[i];
			return 0;
		}
	}
	char want[EV_NAME_MAX];
	str_copy(want, p, nlen + 1 < sizeof(want) ? nlen + 1 : sizeof(want));
	const char *hint = closest(want, tm);
	return fmt_error(err, errlen, "unknown event '%s' for PMU %s%s%s%s", want, m->pfm_name,
		    *hint ? " (did you mean '" : "", hint, *hint ? "'?)" : "");
}

/* What follows a libpfm4 event name: the unit masks and modifiers the user chose. */
struct pfm_choice {
	uint32_t chosen[8];             /* bit set over the event's unit masks */
	unsigned nchosen, first_um;
	unsigned given;                 /* PFMT_MOD_* the user set */
	uint64_t modval[NPFM_MODS];
};

static bool umask_chosen(const struct pfm_choice *c, unsigned u)
{
	return c->chosen[u / 32] >> (u % 32) & 1;
}

/* Index of the unit mask of ev named tok[0..tlen), ev->numasks when none. */
static unsigned find_umask(const struct pfmt_event *ev, const char *tok, size_t tlen)
{
	const struct pfmt_umask *ums = &pfmt_umasks[ev->first_umask];
	unsigned u;
	for (u = 0; u < ev->numasks; u++)
		if (strlen(umask_name(&ums[u])) == tlen && !str_ncasecmp(umask_name(&ums[u]), tok, tlen))
			break;
	return u;
}

static int choose_umask(const struct pfmt_event *ev, unsigned u, struct pfm_choice *c,
			char *err, size_t errlen)
{
	const struct pfmt_umask *um = &pfmt_umasks[ev->first_umask + u];
	if (um->flags & PFMT_UM_EXTRA_REG)
		return fmt_error(err, errlen, "unit mask %s of %s is a PEBS load-latency event "
			    "(MSR_PEBS_LD_LAT): it counts only with PEBS, which bareperf does not use",
			    umask_name(um), pfmt_strings + ev->name);
	if (!umask_chosen(c, u)) {
		c->chosen[u / 32] |= 1u << (u % 32);
		if (!c->nchosen++)
			c->first_um = u;
	}
	return 0;
}

/* A modifier token, "name" or "name=value" (eq points at the '=' or is NULL). */
static int parse_pfm_modifier(const struct pmu_model *m, const struct pmu_caps *pc,
			      const struct pfmt_event *ev, const char *tok, size_t tlen,
			      const char *eq, struct pfm_choice *c, char *err, size_t errlen)
{
	const char *evname = pfmt_strings + ev->name;
	size_t klen = eq ? (size_t)(eq - tok) : tlen;
	unsigned k;
	for (k = 0; k < NPFM_MODS; k++)
		if (strlen(pfm_mods[k].name) == klen && !str_ncasecmp(pfm_mods[k].name, tok, klen))
			break;
	if (k == NPFM_MODS) {
		const char *hint = eq ? "" : closest_umask(tok, tlen, ev);
		return fmt_error(err, errlen, "unknown unit mask or modifier '%.*s' for event %s%s%s%s",
			    (int)tlen, tok, evname, *hint ? " (did you mean '" : "", hint,
			    *hint ? "'?)" : "");
	}
	if (!(ev->mods & pfm_mods[k].bit))
		return fmt_error(err, errlen, "modifier '%s' is not valid for PMU %s event %s",
			    pfm_mods[k].name, m->pfm_name, evname);
	if (pfm_mods[k].bit & PFMT_MOD_LDLAT)
		return fmt_error(err, errlen, "modifier 'ldlat' sets the PEBS load-latency threshold "
			    "(MSR_PEBS_LD_LAT), which counts only with PEBS; bareperf does not use PEBS");
	uint64_t v = 1;
	if (eq && str_to_u64(eq + 1, tlen - klen - 1, &v))
		return fmt_error(err, errlen, "'%.*s': '%.*s' is not a number", (int)tlen, tok,
			    (int)(tlen - klen - 1), eq + 1);
	if (pfm_mods[k].integer && !eq)
		return fmt_error(err, errlen, "modifier '%s' needs a value (%s=N)", pfm_mods[k].name,
			    pfm_mods[k].name);
	if (pfm_mods[k].integer && (v < pfm_mods[k].min || v > pfm_mods[k].max))
		return fmt_error(err, errlen, "%s=%llu out of range %u-%u", pfm_mods[k].name,
			    (unsigned long long)v, pfm_mods[k].min, pfm_mods[k].max);
	if (!pfm_mods[k].integer && v > 1)
		return fmt_error(err, errlen, "%s=%llu: modifier '%s' takes 0 or 1", pfm_mods[k].name,
			    (unsigned long long)v, pfm_mods[k].name);
	if (pfm_mods[k].bit == PFMT_MOD_T && v && pc->any_thread_deprecated)
		return fmt_error(err, errlen, "modifier 't' (AnyThread) is deprecated on this CPU "
			    "(CPUID.0AH:EDX[15])");
	/* libpfm4 drops a repeat with the same value and refuses another value */
	if ((c->given & pfm_mods[k].bit) && c->modval[k] != v)
		return fmt_error(err, errlen, "modifier '%s' given twice with different values (%llu, %llu)",
			    pfm_mods[k].name, (unsigned long long)c->modval[k], (unsigned long long)v);
	c->given |= pfm_mods[k].bit;
	c->modval[k] = v;
	return 0;
}

/* The ':'-separated unit masks and modifiers from colon on (NULL: none). */
static int collect_pfm_choices(const struct pmu_model *m, const struct pmu_caps *pc,
			       const struct pfmt_event *ev, const char *colon, const char *text,
			       struct pfm_choice *c, char *err, size_t errlen)
{
	const char *tok = colon;
	while (tok) {
		tok++;
		const char *tend = strchr(tok, ':');
		size_t tlen = tend ? (size_t)(tend - tok) : strlen(tok);
		const char *eq = NULL;
		for (size_t i = 0; i < tlen && !eq; i++)
			if (tok[i] == '=')
				eq = tok + i;
		if (tlen == 0)
			return fmt_error(err, errlen, "'%s': empty unit mask or modifier after ':'", text);
		unsigned u = eq ? ev->numasks : find_umask(ev, tok, tlen);
		int r = u < ev->numasks ? choose_umask(ev, u, c, err, errlen)
					: parse_pfm_modifier(m, pc, ev, tok, tlen, eq, c, err, errlen);
		if (r)
			return r;
		tok = tend;
	}
	return 0;
}

/* Unit-mask rules as libpfm4 applies them (probed by the generator); fills keep[],
 * the unit masks the chosen ones bring along. */
static int check_umask_rules(const struct pfmt_event *ev, const struct pfm_choice *c,
			     uint32_t keep[8], char *err, size_t errlen)
{
	const char *evname = pfmt_strings + ev->name;
	const struct pfmt_umask *ums = &pfmt_umasks[ev->first_umask];

	if (ev->flags & PFMT_EV_EXTRA_REG && !c->nchosen)
		return fmt_error(err, errlen, "event %s is a PEBS load-latency event (MSR_PEBS_LD_LAT): "
			    "it counts only with PEBS, which bareperf does not use", evname);
	if (!c->nchosen && (ev->flags & PFMT_EV_NEEDS_UMASK)) {
		char list[96] = "";
		size_t used = 0;
		for (unsigned u = 0; u < ev->numasks && used < 80; u++)
			used += bp_snprintf(list + used, sizeof(list) - used, "%s%s", u ? ", " : "",
					    umask_name(&ums[u]));
		return fmt_error(err, errlen, "event %s needs a unit mask (one of: %s%s)", evname, list,
			    used >= 80 ? ", ..." : "");
	}
	if (c->nchosen == 1 && (ums[c->first_um].flags & PFMT_UM_SOLO_BAD))
		return fmt_error(err, errlen, "unit mask %s of event %s cannot be used alone",
			    umask_name(&ums[c->first_um]), evname);
	unsigned words = PFMT_SET_WORDS(ev->numasks);
	for (unsigned w = 0; w < words; w++)
		keep[w] = ~0u;
	for (unsigned a = 0; a < ev->numasks; a++) {
		if (!umask_chosen(c, a))
			continue;
		for (unsigned b = a + 1; b < ev->numasks; b++)
			if (umask_chosen(c, b) && !set_has(ums[a].compat, b))
				return fmt_error(err, errlen, "unit masks %s and %s cannot be combined on event %s",
					    umask_name(&ums[a]), umask_name(&ums[b]), evname);
		for (unsigned w = 0; w < words; w++)
			keep[w] &= pfmt_words[ums[a].keep + w];
	}
	return 0;
}

/* The event-select bits of a unit mask: a second-code unit mask keeps them in its
 * pfmt_extras entry (an override's event byte, else none). */
static uint64_t umask_evtsel_bits(const struct pfmt_umask *um)
{
	return um->flags & PFMT_UM_EXTRA_CODE ? pfmt_extras[um->bits].evtsel : um->bits;
}

/* The event select from the event code and the unit masks in use (chosen, kept, or
 * the defaults when none was chosen). *modhw and *hwbits say which modifier fields
 * the code or a chosen unit mask fixes, and to what. */
static uint64_t pfm_evsel(const struct pmu_model *m, const struct pfmt_event *ev,
			  const struct pfm_choice *c, const uint32_t keep[8], unsigned *modhw,
			  uint64_t *hwbits)
{
	const struct pfmt_umask *ums = &pfmt_umasks[ev->first_umask];
	uint64_t sel;
	if (is_amd(m))
		sel = (ev->code & 0xff) | ((uint64_t)(ev->code >> 8 & 0xf) << AMD64_EVENTSEL_EVENT_HI_SHIFT);
	else
		sel = ev->code;
	/* Modifiers fixed by the event code (alias events) or by a chosen unit mask. */
	*modhw = ev->modhw;
	*hwbits = ev->modhw ? sel : 0;
	for (unsigned a = 0; a < ev->numasks; a++) {
		bool use = c->nchosen ? (umask_chosen(c, a) || (keep[a / 32] >> (a % 32) & 1))
				      : (ums[a].flags & PFMT_UM_DFL);
		if (!use)
			continue;
		uint64_t bits = umask_evtsel_bits(&ums[a]);
		if (ums[a].flags & PFMT_UM_OVERRIDE)
			sel = (sel & ~ARCH_PERFMON_EVENTSEL_EVENT_MASK) | (bits & 0xff) | (bits & ~0xffull);
		else
			sel |= bits;
		if (umask_chosen(c, a)) {
			*modhw |= ums[a].modhw;
			*hwbits |= bits;
		}
	}
	return sel;
}

/* Applies the modifiers to *sel, privilege-level bits included. */
static int apply_pfm_modifiers(const struct pfmt_event *ev, const struct pfm_choice *c,
			       unsigned modhw, uint64_t hwbits, uint64_t *sel, char *err,
			       size_t errlen)
{
	const char *evname = pfmt_strings + ev->name;
	uint64_t plm = 0;
	for (unsigned k = 0; k < NPFM_MODS; k++) {
		if (!(c->given & pfm_mods[k].bit))
			continue;
		uint64_t v = c->modval[k];
		uint64_t field = 0, fv = 0;
		switch (pfm_mods[k].bit) {
		case PFMT_MOD_U: plm |= v ? ARCH_PERFMON_EVENTSEL_USR : 0; continue;
		case PFMT_MOD_K: plm |= v ? ARCH_PERFMON_EVENTSEL_OS : 0; continue;
		case PFMT_MOD_E: field = ARCH_PERFMON_EVENTSEL_EDGE; fv = v ? field : 0; break;
		case PFMT_MOD_I: field = ARCH_PERFMON_EVENTSEL_INV; fv = v ? field : 0; break;
		case PFMT_MOD_C: field = ARCH_PERFMON_EVENTSEL_CMASK_MASK; fv = ARCH_PERFMON_EVENTSEL_CMASK(v); break;
		case PFMT_MOD_T: field = ARCH_PERFMON_EVENTSEL_ANY; fv = v ? field : 0; break;
		case PFMT_MOD_H: field = AMD64_EVENTSEL_HOSTONLY; fv = v ? field : 0; break;
		case PFMT_MOD_G: field = AMD64_EVENTSEL_GUESTONLY; fv = v ? field : 0; break;
		case PFMT_MOD_INTX: field = ARCH_PERFMON_EVENTSEL_IN_TX; fv = v ? field : 0; break;
		case PFMT_MOD_INTXCP: field = ARCH_PERFMON_EVENTSEL_IN_TXCP; fv = v ? field : 0; break;
		}
		if ((modhw & pfm_mods[k].bit) && (hwbits & field) != fv)
			return fmt_error(err, errlen, "%s=%llu conflicts with a unit mask of %s that fixes it",
				    pfm_mods[k].name, (unsigned long long)v, evname);
		*sel = (*sel & ~field) | fv;
	}
	/* libpfm4 refuses edge detection without a counter mask. */
	if ((ev->flags & PFMT_EV_EDGE_CMASK) && (c->given & PFMT_MOD_E) && (*sel & ARCH_PERFMON_EVENTSEL_EDGE) &&
	    !(*sel & ARCH_PERFMON_EVENTSEL_CMASK_MASK))
		return fmt_error(err, errlen, "e (edge) needs a counter mask: add c=N (event %s)", evname);
	/* Both rings unless a privilege filter was given; libpfm4 counts AMD's host-only
	 * h as one, guest-only g not. */
	if (!(c->given & (PFMT_MOD_U | PFMT_MOD_K | PFMT_MOD_H)))
		plm = ARCH_PERFMON_EVENTSEL_USR | ARCH_PERFMON_EVENTSEL_OS;
	*sel |= plm;
	return 0;
}

/* ---------------------------------------------------------------- second registers */
/*
 * Which register an event's second code goes to, by its event select (unit mask and
 * event bytes, bits 15:0). SDM Vol. 3B ch. 20: the off-core response events of each
 * generation (event B7H umask 01H uses MSR_OFFCORE_RSP_0; BBH, or B7H umask 02H on the
 * Atom cores, MSR_OFFCORE_RSP_1; Golden Cove moved them to 2AH/2BH) and FRONTEND_RETIRED
 * (C6H umask 01H, MSR_PEBS_FRONTEND, Skylake on). The first row matching wins.
 */
static const struct { const char *model; uint16_t evsel; enum ev_extra_reg reg; } extra_regs[] = {
	/* Sapphire Rapids EXE.AMX_BUSY (B7H/02H) is a plain event; libpfm4 4.13 gives it a
	 * second code only because its table marks the event as off-core response. */
	{ "spr", 0x02b7, EV_EXTRA_NONE },
	{ NULL, 0x01b7, EV_EXTRA_OFFCORE_RSP_0 },       /* OFFCORE_RESPONSE_0, OCR (Nehalem on) */
	{ NULL, 0x01bb, EV_EXTRA_OFFCORE_RSP_1 },       /* OFFCORE_RESPONSE_1 (Westmere on) */
	{ NULL, 0x02b7, EV_EXTRA_OFFCORE_RSP_1 },       /* OFFCORE_RESPONSE_1, Silvermont to Tremont */
	{ NULL, 0x012a, EV_EXTRA_OFFCORE_RSP_0 },       /* OCR, Golden Cove */
	{ NULL, 0x012b, EV_EXTRA_OFFCORE_RSP_1 },       /* (no libpfm4 4.13 name encodes it) */
	{ NULL, 0x01c6, EV_EXTRA_FRONTEND },            /* FRONTEND_RETIRED */
};

static uint64_t pfm_mod_value(const struct pfm_choice *c, unsigned bit)
{
	for (unsigned k = 0; k < NPFM_MODS; k++)
		if (pfm_mods[k].bit == bit)
			return c->modval[k];
	return 0;
}

static bool bit_in(const uint32_t *set, unsigned i) { return set[i / 32] >> (i % 32) & 1; }

/* libpfm4's second code (lib/pfm_tables.h, struct pfmt_extra): the chosen unit masks'
 * codes, then the defaults of the groups left open, a default kept out by one added
 * before it; fe_thres replaces the latency of a frontend unit mask that takes it. */
static uint64_t pfm_extra_value(const struct pfmt_event *ev, const struct pfm_choice *c)
{
	const struct pfmt_umask *ums = &pfmt_umasks[ev->first_umask];
	uint32_t added[8] = { 0 };
	uint64_t v = 0;
	for (unsigned u = 0; u < ev->numasks; u++) {
		if (!umask_chosen(c, u))
			continue;
		uint64_t x = pfmt_extras[ums[u].bits].chosen;
		if ((ums[u].flags & PFMT_UM_FETHR) && (c->given & PFMT_MOD_FETHR))
			x = (x & ~PEBS_FRONTEND_IDQ_BUBBLE_LENGTH_MASK) |
			    PEBS_FRONTEND_IDQ_BUBBLE_LENGTH(pfm_mod_value(c, PFMT_MOD_FETHR));
		v |= x;
	}
	for (bool changed = true; changed;) {
		changed = false;
		for (unsigned d = 0; d < ev->numasks; d++) {
			bool ok = (ums[d].flags & PFMT_UM_DFL) && !umask_chosen(c, d);
			for (unsigned u = 0; u < ev->numasks && ok; u++)
				if (umask_chosen(c, u) && !set_has(ums[u].keep, d))
					ok = false;
			for (unsigned e = 0; e < ev->numasks && ok; e++)
				if (bit_in(added, e) && set_has(pfmt_extras[ums[e].bits].blocks, d))
					ok = false;
			if (ok != bit_in(added, d)) {
				added[d / 32] ^= 1u << (d % 32);
				changed = true;
			}
		}
	}
	for (unsigned d = 0; d < ev->numasks; d++)
		if (bit_in(added, d))
			v |= pfmt_extras[ums[d].bits].dfl;
	return v;
}

/* The second register of an event whose second code comes from its unit masks. */
static int pfm_extra_reg(const struct pmu_model *m, const struct pfmt_event *ev,
			 const struct pfm_choice *c, struct ev_encoding *out, char *err, size_t errlen)
{
	uint16_t key = (uint16_t)(out->evtsel & (ARCH_PERFMON_EVENTSEL_EVENT_MASK |
						 ARCH_PERFMON_EVENTSEL_UMASK_MASK));
	const struct pfmt_umask *ums = &pfmt_umasks[ev->first_umask];
	for (unsigned u = 0; u < ev->numasks && (c->given & PFMT_MOD_FETHR); u++) {
		uint64_t fixed = pfmt_extras[ums[u].bits].chosen & PEBS_FRONTEND_IDQ_BUBBLE_LENGTH_MASK;
		uint64_t v = pfm_mod_value(c, PFMT_MOD_FETHR);
		if (umask_chosen(c, u) && (ums[u].flags & PFMT_UM_FETHR_FIXED) &&
		    PEBS_FRONTEND_IDQ_BUBBLE_LENGTH(v) != fixed)
			return fmt_error(err, errlen, "fe_thres=%llu conflicts with unit mask %s of %s, "
				    "which fixes it at %llu", (unsigned long long)v, umask_name(&ums[u]),
				    pfmt_strings + ev->name,
				    (unsigned long long)(fixed >> PEBS_FRONTEND_IDQ_BUBBLE_LENGTH_SHIFT));
	}
	for (unsigned i = 0; i < ARRAY_SIZE(extra_regs); i++) {
		if (extra_regs[i].evsel != key ||
		    (extra_regs[i].model && strcmp(extra_regs[i].model, m->pfm_name)))
			continue;
		out->extra = extra_regs[i].reg;
		out->extra_value = out->extra != EV_EXTRA_NONE ? pfm_extra_value(ev, c) : 0;
		return 0;
	}
	return fmt_error(err, errlen, "event %s (select 0x%04x) needs a second register that "
		    "bareperf does not know on PMU %s", pfmt_strings + ev->name, key, m->pfm_name);
}

/* A libpfm4 name, [pmu::]EVENT[:UMASK|:MOD[=N]]..., for the PMU in use. */
static int parse_pfm(const struct pmu_model *m, const struct pmu_caps *pc, const char *text,
		     struct ev_encoding *out, char *err, size_t errlen)
{
	const char *p;
	if (check_pmu_prefix(m, text, &p, err, errlen))
		return -1;
	if (m->kind == PMU_INTEL_NETBURST)
		return netburst_event_parse(p, pc, out, err, errlen);
	if (m->table == ~0u)
		return fmt_error(err, errlen, "unknown event '%s': PMU %s has no libpfm4 event table here "
			    "(use generic names or raw rXXXX)", text, m->pfm_name);

	const struct pfmt_model *tm = &pfmt_models[m->table];
	const char *colon = strchr(p, ':');
	size_t nlen = colon ? (size_t)(colon - p) : strlen(p);
	if (nlen == 0)
		return fmt_error(err, errlen, "'%s': missing event name", text);
	const struct pfmt_event *ev = NULL;
	if (find_pfm_event(m, tm, p, nlen, &ev, err, errlen))
		return -1;

	struct pfm_choice c = { .nchosen = 0 };
	uint32_t keep[8];
	unsigned modhw;
	uint64_t hwbits;
	if (collect_pfm_choices(m, pc, ev, colon, text, &c, err, errlen) ||
	    check_umask_rules(ev, &c, keep, err, errlen))
		return -1;
	uint64_t sel = pfm_evsel(m, ev, &c, keep, &modhw, &hwbits);
	if (apply_pfm_modifiers(ev, &c, modhw, hwbits, &sel, err, errlen) ||
	    finish_gp(m, pc, sel, out, err, errlen))
		return -1;
	if (ev->flags & PFMT_EV_EXTRA_CODE)
		return pfm_extra_reg(m, ev, &c, out, err, errlen);
	return 0;
}

/* ---------------------------------------------------------------- entry points */
/* tsc, aperf, mperf and the RAPL energy names: registers read by RDMSR. 1 when text
 * names none of them. */
static int parse_msr_event(const struct pmu_caps *pc, const char *text, struct ev_encoding *out,
			   char *err, size_t errlen)
{
	static const struct { const char *name; enum ev_class cls; } fixed_classes[] = {
		{ "tsc", EV_CLASS_TSC }, { "aperf", EV_CLASS_APERF }, { "mperf", EV_CLASS_MPERF },
	};
	for (unsigned i = 0; i < ARRAY_SIZE(fixed_classes); i++)
		if (!str_casecmp(text, fixed_classes[i].name)) {
			out->cls = fixed_classes[i].cls;
			if (out->cls != EV_CLASS_TSC && !pc->aperfmperf)
				return fmt_error(err, errlen, "%s: this CPU has no APERF/MPERF "
						 "(CPUID.06H:ECX bit 0 is clear)", text);
			return 0;
		}

	int domain = rapl_event_domain(text);
	if (domain >= 0) {
		const char *why = rapl_unavailable(&pc->rapl, (enum rapl_domain)domain);
		if (why)
			return fmt_error(err, errlen, "%s: %s", text, why);
		out->cls = EV_CLASS_ENERGY;
		out->energy.domain = (uint8_t)domain;
		out->energy.esu = pc->rapl.esu[domain];
		out->energy.amd = pc->rapl.vendor == RAPL_VENDOR_AMD;
		return 0;
	}

	return 1;
}

/* p4/escr=...,cccr=.../: a NetBurst raw event. */
static int parse_p4_raw(const struct pmu_model *m, const struct pmu_caps *pc, const char *text,
			struct ev_encoding *out, char *err, size_t errlen)
{
	if (m->kind != PMU_INTEL_NETBURST)
		return fmt_error(err, errlen, "'%s': p4/.../ raw events need the netburst PMU (this is %s)",
				 text, m->pfm_name);
	const char *end = strchr(text + 3, '/');
	if (!end)
		return fmt_error(err, errlen, "'%s': missing closing '/'", text);
	if (end[1])
		return fmt_error(err, errlen, "'%s': unexpected '%s' after the closing '/'", text, end + 1);
	char body[EV_NAME_MAX];
	str_copy(body, text + 3, (size_t)(end - text - 3) + 1);
	int r = netburst_event_parse_raw(body, pc, out, err, errlen);
	str_copy(out->name, text, sizeof(out->name));
	return r;
}

/* rXXXX: 'r' and hex digits up to the first ':'. */
static bool is_raw_hex(const char *text, size_t len)
{
	if (text[0] != 'r' || len < 2)
		return false;
	for (size_t i = 1; i < len && text[i] != ':'; i++)
		if (!((text[i] >= '0' && text[i] <= '9') || (text[i] >= 'a' && text[i] <= 'f') ||
		      (text[i] >= 'A' && text[i] <= 'F')))
			return false;
	return true;
}

int event_parse(const struct pmu_model *m, const struct pmu_caps *pc,
		const struct ev_generic_map *gm, const char *text, struct ev_encoding *out,
		char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	if (err && errlen)
		err[0] = 0;
	size_t len = strlen(text);
	if (len == 0)
		return fmt_error(err, errlen, "empty event");
	if (len >= EV_NAME_MAX)
		return fmt_error(err, errlen, "event '%.20s...' longer than %d characters", text, EV_NAME_MAX - 1);
	str_copy(out->name, text, sizeof(out->name));
	for (size_t i = 0; i < len; i++)
		if (text[i] <= ' ' || text[i] > '~')
			return fmt_error(err, errlen, "'%s': unexpected character at offset %zu", text, i);

	int r = parse_msr_event(pc, text, out, err, errlen);
	if (r <= 0)
		return r;
	if (!strncmp(text, "cpu/", 4)) {
		if (m->kind == PMU_INTEL_NETBURST)
			return fmt_error(err, errlen, "'%s': NetBurst raw events are p4/escr=...,cccr=.../", text);
		return parse_cpu_raw(m, pc, text, out, err, errlen);
	}
	if (!strncmp(text, "p4/", 3))
		return parse_p4_raw(m, pc, text, out, err, errlen);
	if (is_raw_hex(text, len)) {
		if (m->kind == PMU_INTEL_NETBURST)
			return fmt_error(err, errlen, "'%s': NetBurst raw events are p4/escr=...,cccr=.../", text);
		return parse_rXXXX(m, pc, text, out, err, errlen);
	}
	const char *colon = strchr(text, ':');
	size_t nlen = colon ? (size_t)(colon - text) : len;
	for (unsigned id = 0; id < EV_GEN_COUNT; id++)
		if (strlen(generic_names[id]) == nlen && !strncmp(generic_names[id], text, nlen) &&
		    !(colon && colon[1] == ':')) {
			r = parse_generic(m, pc, gm, id, colon ? colon : "", out, err, errlen);
			if (r == 0)
				str_copy(out->name, text, sizeof(out->name));
			return r;
		}
	r = parse_pfm(m, pc, text, out, err, errlen);
	if (r == 0)
		str_copy(out->name, text, sizeof(out->name));
	return r;
}

int event_split_list(const char *list, char names[][EV_NAME_MAX], unsigned max,
		     char *err, size_t errlen)
{
	unsigned n = 0;
	const char *p = list;
	while (*p) {
		while (*p == ' ' || *p == '\t')
			p++;
		const char *start = p;
		bool inside = false;
		while (*p && (inside || *p != ',')) {
			if (p == start && (!strncmp(p, "cpu/", 4) || !strncmp(p, "p4/", 3))) {
				p = strchr(p, '/') + 1;
				inside = true;
				continue;
			}
			if (inside && *p == '/')
				inside = false;
			p++;
		}
		if (inside)
			return fmt_error(err, errlen, "unbalanced '/' in event '%s'", start);
		const char *end = p;
		while (end > start && (end[-1] == ' ' || end[-1] == '\t'))
			end--;
		size_t len = (size_t)(end - start);
		if (len == 0)
			return fmt_error(err, errlen, "empty event in list at position %u", n + 1);
		if (len >= EV_NAME_MAX)
			return fmt_error(err, errlen, "event %u is longer than %d characters", n + 1, EV_NAME_MAX - 1);
		if (n == max)
			return fmt_error(err, errlen, "more than %u events in the list", max);
		memcpy(names[n], start, len);
		names[n][len] = 0;
		n++;
		if (*p == ',') {
			p++;
			if (!*p)
				return fmt_error(err, errlen, "empty event in list at position %u", n + 1);
		}
	}
	return (int)n;
}
