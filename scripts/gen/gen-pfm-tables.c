/*
 * Writes build/gen/pfm_tables.c: the events and unit masks of every x86 core PMU
 * libpfm4 knows, with what lib/event.c needs to reproduce libpfm4's encodings.
 *
 * Only libpfm4's public API is used. The attribute list gives names, unit-mask codes,
 * default flags and the modifiers each event takes; what the API does not expose
 * (unit-mask groups, exclusivity, modifiers a unit mask hardwires) is measured by
 * encoding probes through pfm_get_os_event_encoding:
 *   - each unit mask alone: accepted? which defaults does libpfm4 add (fully
 *     qualified string)? does the result need a second register?
 *   - each pair of unit masks: accepted together?
 *   - each unit mask with e/i/c set against its hidden value: hardwired?
 * Each PMU is forced with LIBPFM_FORCE_PMU and libpfm4 reinitialised in-process.
 *
 * libpfm4's amd64 build leaves out its i386-only tables, the P6 family
 * (scripts/gen/pfm-p6-family.h). So this program is built twice: natively against the
 * amd64 libpfm4, and -m32 -static against libpfm4:i386, run under qemu-i386. The two
 * runs cooperate:
 *   gen-pfm-tables --p6-dump > p6.dump         (i386) the P6 family's tables, as text
 *   gen-pfm-tables --merge p6.dump > tables.c  (native) every other PMU, plus those
 * The dump holds the same pools and records the C output holds (strings, set words,
 * second-code rules, models, events, unit masks); --merge relocates their offsets into
 * its own pools, so both halves come out through the same put_tables.
 */
#include <perfmon/pfmlib.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "lib/cpuinfo.h"
#include "lib/pfm_tables.h"
#include "lib/pmu-layout.h"
#include "lib/util.h"
#include "scripts/gen/pfm-p6-family.h"

/* Bits pfm_get_os_event_encoding sets from the privilege levels and its defaults,
 * not from the event: dropped before comparing encodings. */
#define EVSEL_IGNORED (ARCH_PERFMON_EVENTSEL_ENABLE | ARCH_PERFMON_EVENTSEL_INT | \
		       ARCH_PERFMON_EVENTSEL_USR | ARCH_PERFMON_EVENTSEL_OS)

/* Models whose tables are written elsewhere or that cannot boot bareperf. */
static const char *const skipped_pmus[] = {
	"netburst", "netburst_p",   /* hand-tabled by lib/p4-event-table.c */
	"knc",                      /* Knights Corner: a coprocessor, no UEFI boot */
	"ix86arch",                 /* filled from the host's CPUID, empty here */
};

static const struct { const char *prefix; enum pmu_kind kind; } amd_kinds[] = {
	{ "amd64_k7", PMU_AMD_LEGACY },
	{ "amd64_k8", PMU_AMD_LEGACY },
	{ "amd64_fam10h", PMU_AMD_LEGACY },
	{ "amd64_fam11h", PMU_AMD_LEGACY },
	{ "amd64_fam12h", PMU_AMD_LEGACY },
	{ "amd64_fam14h", PMU_AMD_LEGACY },
	{ "amd64_fam15h", PMU_AMD_CORE },
	{ "amd64_fam16h", PMU_AMD_CORE },
	{ "amd64_fam17h", PMU_AMD_CORE },
	{ "amd64_fam19h_zen3", PMU_AMD_CORE },
	{ "amd64_fam19h_zen4", PMU_AMD_PERFMON_V2 },
};

static const struct { const char *name; unsigned bit; } mod_names[] = {
	{ "u", PFMT_MOD_U }, { "k", PFMT_MOD_K }, { "e", PFMT_MOD_E }, { "i", PFMT_MOD_I },
	{ "c", PFMT_MOD_C }, { "t", PFMT_MOD_T }, { "h", PFMT_MOD_H }, { "g", PFMT_MOD_G },
	{ "intx", PFMT_MOD_INTX }, { "intxcp", PFMT_MOD_INTXCP },
	{ "ldlat", PFMT_MOD_LDLAT }, { "fe_thres", PFMT_MOD_FETHR },
};

static void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "gen-pfm-tables: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(1);
}

static void *grow(void *p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return p;
	size_t n = *cap ? *cap : 1024;
	while (n < need)
		n *= 2;
	p = realloc(p, n * elem);
	if (!p)
		die("out of memory");
	*cap = n;
	return p;
}

/* ---------------------------------------------------------------- pools */
static char *strpool;
static size_t strpool_len, strpool_cap;
static uint32_t *str_hash;       /* open addressing: offset+1, 0 = empty */
static size_t str_hash_cap;

static uint64_t hash_bytes(const void *p, size_t n)
{
	const unsigned char *s = p;
	uint64_t h = 1469598103934665603ull;
	while (n--)
		h = (h ^ *s++) * 1099511628211ull;
	return h;
}

static uint32_t str_intern(const char *s)
{
	size_t len = strlen(s);
	if (!str_hash) {
		str_hash_cap = 1 << 18;
		str_hash = calloc(str_hash_cap, sizeof(*str_hash));
	}
	size_t i = hash_bytes(s, len) & (str_hash_cap - 1);
	for (; str_hash[i]; i = (i + 1) & (str_hash_cap - 1))
		if (!strcmp(strpool + str_hash[i] - 1, s))
			return str_hash[i] - 1;
	strpool = grow(strpool, &strpool_cap, strpool_len + len + 1, 1);
	uint32_t off = strpool_len;
	memcpy(strpool + off, s, len + 1);
	strpool_len += len + 1;
	str_hash[i] = off + 1;
	return off;
}

static uint32_t *words;
static size_t nwords, words_cap;
static uint32_t *set_hash;
static size_t set_hash_cap;

static uint32_t set_intern(const uint32_t *set, unsigned n)
{
	if (!set_hash) {
		set_hash_cap = 1 << 18;
		set_hash = calloc(set_hash_cap, sizeof(*set_hash));
	}
	size_t i = hash_bytes(set, n * 4) & (set_hash_cap - 1);
	for (; set_hash[i]; i = (i + 1) & (set_hash_cap - 1)) {
		uint32_t off = set_hash[i] - 1;
		if (off + n <= nwords && !memcmp(words + off, set, n * 4))
			return off;
	}
	words = grow(words, &words_cap, nwords + n, 4);
	uint32_t off = nwords;
	memcpy(words + off, set, n * 4);
	nwords += n;
	set_hash[i] = off + 1;
	return off;
}

static struct pfmt_extra *extras;
static size_t nextras, extras_cap;

static struct pfmt_model models[128];
static unsigned nmodels;
static struct pfmt_event *events;
static size_t nevents, events_cap;
static struct pfmt_umask *umasks;
static size_t numasks, umasks_cap;

/* ---------------------------------------------------------------- probes */
struct probe {
	int ok;
	int count;            /* codes libpfm4 produced */
	uint64_t val;         /* codes[0] without EN/INT/USR/OS */
	uint64_t val1;        /* codes[1], the second register's value (0 when none) */
	char fstr[1024];
};

static void probe(struct probe *p, const char *fmt, ...)
{
	char text[1024];
	va_list ap;
	va_start(ap, fmt);
	int len = vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (len < 0 || (size_t)len >= sizeof(text))
		die("event string too long: %s", text);
	uint64_t codes[4] = { 0 };
	char *fstr = NULL;
	pfm_pmu_encode_arg_t arg;
	memset(&arg, 0, sizeof(arg));
	arg.size = sizeof(arg);
	arg.codes = codes;
	arg.count = 4;
	arg.fstr = &fstr;
	int r = pfm_get_os_event_encoding(text, PFM_PLM0 | PFM_PLM3, PFM_OS_NONE, &arg);
	p->ok = r == PFM_SUCCESS;
	p->count = p->ok ? arg.count : 0;
	p->val = p->ok ? codes[0] & ~EVSEL_IGNORED : 0;
	p->val1 = p->ok && arg.count > 1 ? codes[1] : 0;
	snprintf(p->fstr, sizeof(p->fstr), "%s", fstr ? fstr : "");
	free(fstr);
}

/* Whether the fully qualified string names unit mask um (a field between colons
 * with no '='), after the "pmu::EVENT" part. */
static int fstr_has_umask(const char *fstr, const char *um)
{
	const char *p = strstr(fstr, "::");
	p = p ? p + 2 : fstr;
	p = strchr(p, ':');
	size_t n = strlen(um);
	while (p) {
		p++;
		const char *end = strchr(p, ':');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len == n && !strncasecmp(p, um, n))
			return 1;
		p = end;
	}
	return 0;
}

/* ---------------------------------------------------------------- one model */
#define MAX_UMASKS 256          /* unit masks per event; read_attrs refuses more */

struct um_info {
	char name[128];
	uint64_t code;
	int dfl;
	char equiv[256];        /* "" or the unit masks and modifiers this one stands for */
};

static void set_bit(uint32_t *set, unsigned i) { set[i / 32] |= 1u << (i % 32); }

static unsigned evsel_cmask(uint64_t val)
{
	return (val & ARCH_PERFMON_EVENTSEL_CMASK_MASK) >> ARCH_PERFMON_EVENTSEL_CMASK_SHIFT;
}

/* Event-select bits of an AMD event number: bits 11:8 go to 35:32. */
static uint64_t event_sel(enum pfmt_vendor vendor, uint64_t code)
{
	if (vendor == PFMT_AMD)
		return AMD64_EVENTSEL_EVENT(code);
	return code;
}

/* Modifiers e/i/c that the accepted string `base` (encoded as val) fixes: libpfm4
 * refuses another value for them ("attribute value already set"). */
static unsigned probe_hardwired(const char *base, uint64_t val, unsigned mods)
{
	unsigned cm = evsel_cmask(val), hw = 0;
	struct probe p;
	if (mods & PFMT_MOD_C) {
		probe(&p, "%s:c=%u", base, (cm + 1) & 0xff);
		if (!p.ok)
			hw |= PFMT_MOD_C;
	}
	if (mods & PFMT_MOD_I) {
		probe(&p, "%s:i=%u", base, !(val & ARCH_PERFMON_EVENTSEL_INV));
		if (!p.ok)
			hw |= PFMT_MOD_I;
	}
	/* edge alone is refused without a cmask, so probe it with one when none is set */
	if ((mods & PFMT_MOD_E) && (cm || !(hw & PFMT_MOD_C))) {
		probe(&p, "%s:e=%u%s", base, !(val & ARCH_PERFMON_EVENTSEL_EDGE), cm ? "" : ":c=1");
		if (!p.ok)
			hw |= PFMT_MOD_E;
	}
	return hw;
}

/* Event-select bits of an aliased unit mask: libpfm4 replaces it by its target
 * string, so OR the targets' bits and the modifiers the string sets. */
static uint64_t equiv_bits(const char *pmu, const char *ev, const struct um_info *um, unsigned nu,
			   const uint64_t *bits, const char *equiv, unsigned depth)
{
	uint64_t v = 0;
	if (depth > 4)
		die("%s::%s: alias '%s' nests too deep", pmu, ev, equiv);
	char buf[256];
	snprintf(buf, sizeof(buf), "%s", equiv);
	for (char *save = NULL, *t = strtok_r(buf, ":", &save); t; t = strtok_r(NULL, ":", &save)) {
		unsigned j, n;
		for (j = 0; j < nu; j++)
			if (!strcasecmp(um[j].name, t))
				break;
		if (j < nu && um[j].equiv[0])   /* an alias of an alias (snb L1D_PEND_MISS:EDGE) */
			v |= equiv_bits(pmu, ev, um, nu, bits, um[j].equiv, depth + 1);
		else if (j < nu)
			v |= bits[j];
		else if (!strcmp(t, "e") || !strcmp(t, "e=1"))
			v |= ARCH_PERFMON_EVENTSEL_EDGE;
		else if (!strcmp(t, "i") || !strcmp(t, "i=1"))
			v |= ARCH_PERFMON_EVENTSEL_INV;
		else if (!strcmp(t, "t") || !strcmp(t, "t=1"))
			v |= ARCH_PERFMON_EVENTSEL_ANY;
		else if (sscanf(t, "c=%u", &n) == 1 && n < 256)
			v |= ARCH_PERFMON_EVENTSEL_CMASK(n);
		else
			die("%s::%s: alias target '%s' in '%s' not understood", pmu, ev, t, equiv);
	}
	return v;
}

/* One event while it is generated: its attributes, the probes made and what they
 * showed, filled step by step by the functions below. */
struct event_gen {
	const char *pmu;
	const pfm_event_info_t *ei;
	enum pfmt_vendor vendor;
	char base_str[512];                     /* "pmu::EVENT" */
	struct um_info um[MAX_UMASKS];
	unsigned nu;
	unsigned mods;                          /* PFMT_MOD_* the event takes */
	struct pfmt_event ev;
	struct probe base;                      /* the event without unit masks */
	struct probe solo[MAX_UMASKS];          /* each unit mask alone */
	uint64_t bits[MAX_UMASKS];
	uint8_t uflags[MAX_UMASKS];
	uint32_t compat[MAX_UMASKS][PFMT_SET_WORDS(MAX_UMASKS)];
	/* events whose second code comes from the unit masks (PFMT_EV_EXTRA_CODE) */
	struct pfmt_extra xtra[MAX_UMASKS];
	uint32_t xkeep[MAX_UMASKS][PFMT_SET_WORDS(MAX_UMASKS)];
	uint32_t xblocks[MAX_UMASKS][PFMT_SET_WORDS(MAX_UMASKS)];
};

/* Sorts the event's attributes into unit masks and modifiers. */
static void read_attrs(struct event_gen *g)
{
	for (int a = 0; a < g->ei->nattrs; a++) {
		pfm_event_attr_info_t ai;
		memset(&ai, 0, sizeof(ai));
		ai.size = sizeof(ai);
		if (pfm_get_event_attr_info(g->ei->idx, a, PFM_OS_NONE, &ai) != PFM_SUCCESS)
			die("%s::%s: attribute %d unreadable", g->pmu, g->ei->name, a);
		if (ai.type == PFM_ATTR_UMASK) {
			if (g->nu == MAX_UMASKS)
				die("%s::%s: too many unit masks", g->pmu, g->ei->name);
			struct um_info *u = &g->um[g->nu++];
			snprintf(u->name, sizeof(u->name), "%s", ai.name);
			snprintf(u->equiv, sizeof(u->equiv), "%s", ai.equiv ? ai.equiv : "");
			u->code = ai.code;
			u->dfl = ai.is_dfl;
			continue;
		}
		unsigned m;
		for (m = 0; m < ARRAY_SIZE(mod_names); m++)
			if (!strcmp(ai.name, mod_names[m].name))
				break;
		if (m == ARRAY_SIZE(mod_names))
			die("%s::%s: unknown modifier '%s'", g->pmu, g->ei->name, ai.name);
		g->mods |= mod_names[m].bit;
	}
}

/* An alias event without unit masks of its own takes the whole target encoding:
 * probe which modifiers the target accepts and which its string fixes. */
static void probe_alias_event(struct event_gen *g)
{
	struct probe p;
	g->ev.code = (uint32_t)g->base.val;
	g->ev.mods = 0;
	unsigned cm = evsel_cmask(g->base.val);
	for (unsigned m = 0; m < ARRAY_SIZE(mod_names); m++) {
		unsigned tries[3] = { 0, 1, cm };
		for (unsigned t = 0; t < 3 && !(g->ev.mods & mod_names[m].bit); t++) {
			probe(&p, "%s:%s=%u", g->base_str, mod_names[m].name, tries[t]);
			if (p.ok)
				g->ev.mods |= mod_names[m].bit;
		}
	}
	g->ev.modhw = probe_hardwired(g->base_str, g->base.val, g->ev.mods);
}

/* Encodes the event without unit masks. libpfm4 encodes an alias event ("equiv")
 * through its target string; with unit masks, the alias carries the target's event
 * code and unit masks, so only one without them needs probe_alias_event. */
static void probe_base_event(struct event_gen *g)
{
	probe(&g->base, "%s", g->base_str);
	if (!g->base.ok)
		g->ev.flags |= PFMT_EV_NEEDS_UMASK;
	if (g->ei->equiv && g->base.ok && !g->nu)
		probe_alias_event(g);
	if (g->base.ok && (event_sel(g->vendor, g->ev.code) & ~g->base.val))
		die("%s: code 0x%x sets bits libpfm4's encoding 0x%llx lacks", g->base_str, g->ev.code,
		    (unsigned long long)g->base.val);
	if (g->base.count > 1)
		g->ev.flags |= PFMT_EV_EXTRA_REG;
}

/* Whether libpfm4 refuses edge detection unless a cmask comes with it. */
static void probe_edge_cmask(struct event_gen *g)
{
	if (!(g->ev.mods & PFMT_MOD_E))
		return;
	struct probe p, with_c;
	const char *um0 = g->base.ok || !g->nu ? "" : g->um[0].name;
	probe(&p, "%s%s%s:e", g->base_str, *um0 ? ":" : "", um0);
	probe(&with_c, "%s%s%s:e:c=1", g->base_str, *um0 ? ":" : "", um0);
	if (!p.ok && with_c.ok)
		g->ev.flags |= PFMT_EV_EDGE_CMASK;
}

/* Which unit masks libpfm4 accepts together, pair by pair. */
static void probe_umask_pairs(struct event_gen *g)
{
	struct probe p;
	for (unsigned i = 0; i < g->nu; i++) {
		for (unsigned j = i + 1; j < g->nu; j++) {
			probe(&p, "%s:%s:%s", g->base_str, g->um[i].name, g->um[j].name);
			if (p.ok) {
				set_bit(g->compat[i], j);
				set_bit(g->compat[j], i);
			}
		}
	}
}

/* Each unit mask alone; then whether the event's second code comes from its unit masks:
 * libpfm4 gives two codes for the event or a unit mask alone, and it is no load-latency
 * event (whose second code is the ldlat threshold, counted with PEBS only). */
static void probe_solos(struct event_gen *g)
{
	bool two = g->base.count > 1;
	for (unsigned i = 0; i < g->nu; i++) {
		probe(&g->solo[i], "%s:%s", g->base_str, g->um[i].name);
		two |= g->solo[i].count > 1;
	}
	if (two && !(g->mods & PFMT_MOD_LDLAT))
		g->ev.flags = (g->ev.flags & ~PFMT_EV_EXTRA_REG) | PFMT_EV_EXTRA_CODE;
}

static bool set_get(const uint32_t *set, unsigned i) { return set[i / 32] >> (i % 32) & 1; }

/* The second code lib/event.c computes for the chosen unit masks (bit set ch), by the
 * rules struct pfmt_extra describes; checks the tables against libpfm4's probes. */
static uint64_t predict_extra(const struct event_gen *g, const uint32_t *ch)
{
	uint32_t added[PFMT_SET_WORDS(MAX_UMASKS)] = { 0 };
	uint64_t v = 0;
	for (unsigned i = 0; i < g->nu; i++)
		if (set_get(ch, i))
			v |= g->xtra[i].chosen;
	/* defaults in table order; a blocker always comes before what it blocks in libpfm4's
	 * group order, so repeat until nothing changes */
	for (bool changed = true; changed;) {
		changed = false;
		for (unsigned d = 0; d < g->nu; d++) {
			bool ok = g->um[d].dfl && !set_get(ch, d);
			for (unsigned u = 0; u < g->nu && ok; u++)
				if (set_get(ch, u) && !set_get(g->xkeep[u], d))
					ok = false;
			for (unsigned e = 0; e < g->nu && ok; e++)
				if (set_get(added, e) && set_get(g->xblocks[e], d))
					ok = false;
			if (ok != set_get(added, d)) {
				added[d / 32] ^= 1u << (d % 32);
				changed = true;
			}
		}
	}
	for (unsigned d = 0; d < g->nu; d++)
		if (set_get(added, d))
			v |= g->xtra[d].dfl;
	return v;
}

/* Frontend events: a unit mask whose second code takes fe_thres in its latency field. */
static void probe_fethr(struct event_gen *g, unsigned i)
{
	const struct probe *solo = &g->solo[i];
	struct probe p;
	if (!(g->mods & PFMT_MOD_FETHR) || !solo->ok)
		return;
	probe(&p, "%s:%s:fe_thres=7", g->base_str, g->um[i].name);
	if (!p.ok) {
		/* the unit mask fixes the latency; libpfm4 takes only that value again */
		unsigned thr = (unsigned)((solo->val1 & PEBS_FRONTEND_IDQ_BUBBLE_LENGTH_MASK) >>
					  PEBS_FRONTEND_IDQ_BUBBLE_LENGTH_SHIFT);
		probe(&p, "%s:%s:fe_thres=%u", g->base_str, g->um[i].name, thr);
		if (!thr || !p.ok || p.val1 != solo->val1)
			die("%s:%s: fe_thres refused, but not as a fixed latency", g->base_str,
			    g->um[i].name);
		g->uflags[i] |= PFMT_UM_FETHR_FIXED;
		return;
	}
	if (p.val1 == solo->val1)
		return;
	uint64_t want = (solo->val1 & ~PEBS_FRONTEND_IDQ_BUBBLE_LENGTH_MASK) |
			PEBS_FRONTEND_IDQ_BUBBLE_LENGTH(7);
	if (p.val1 != want || (g->um[i].code & PEBS_FRONTEND_IDQ_BUBBLE_LENGTH_MASK))
		die("%s:%s: fe_thres encoding 0x%llx not understood", g->base_str, g->um[i].name,
		    (unsigned long long)p.val1);
	g->uflags[i] |= PFMT_UM_FETHR;
	g->xtra[i].chosen = solo->val1;         /* libpfm4's default threshold included */
}

/*
 * The second-code rules of a PFMT_EV_EXTRA_CODE event, from the solo probes and the pairs:
 * which defaults each unit mask alone lets libpfm4 add (ks), which defaults a default
 * keeps out (it is refused together with them: libpfm4's "exclude higher groups"), and
 * so which defaults a unit mask rules out itself rather than through such a default.
 */
static void extra_code_rules(struct event_gen *g)
{
	static uint32_t ks[MAX_UMASKS][PFMT_SET_WORDS(MAX_UMASKS)];
	uint64_t code[MAX_UMASKS];
	memset(ks, 0, sizeof(ks));
	for (unsigned i = 0; i < g->nu; i++)
		code[i] = g->um[i].code;
	for (unsigned i = 0; i < g->nu; i++) {
		const struct um_info *u = &g->um[i];
		g->xtra[i].dfl = code[i];
		g->xtra[i].chosen = u->equiv[0] ? equiv_bits(g->pmu, g->ei->name, g->um, g->nu, code,
							      u->equiv, 0) : code[i];
		probe_fethr(g, i);
		for (unsigned d = 0; d < g->nu; d++)
			if (d != i && g->um[d].dfl && g->solo[i].ok &&
			    fstr_has_umask(g->solo[i].fstr, g->um[d].name))
				set_bit(ks[i], d);
	}
	for (unsigned e = 0; e < g->nu; e++)
		for (unsigned d = 0; d < g->nu; d++)
			if (g->um[e].dfl && g->um[d].dfl && e != d && g->solo[e].ok &&
			    !set_get(ks[e], d) && !set_get(g->compat[e], d))
				set_bit(g->xblocks[e], d);
	for (unsigned u = 0; u < g->nu; u++)
		for (unsigned d = 0; d < g->nu; d++) {
			bool keep = set_get(ks[u], d);
			for (unsigned e = 0; e < g->nu && !keep; e++)
				keep = set_get(ks[u], e) && set_get(g->xblocks[e], d) &&
				       set_get(g->compat[u], e);
			if (keep && g->um[d].dfl && d != u)
				set_bit(g->xkeep[u], d);
		}
}

/* The event-select part of a unit mask's solo encoding must be the event's own (or an
 * override of its event byte), and the second codes must come out as libpfm4's. */
static void check_extra_code(struct event_gen *g)
{
	uint32_t none[PFMT_SET_WORDS(MAX_UMASKS)] = { 0 };
	if (g->base.ok && predict_extra(g, none) != g->base.val1)
		die("%s: second code 0x%llx, rules give 0x%llx", g->base_str,
		    (unsigned long long)g->base.val1, (unsigned long long)predict_extra(g, none));
	for (unsigned i = 0; i < g->nu; i++) {
		const struct probe *solo = &g->solo[i];
		uint32_t ch[PFMT_SET_WORDS(MAX_UMASKS)] = { 0 };
		set_bit(ch, i);
		if (!solo->ok)
			continue;
		if (predict_extra(g, ch) != solo->val1)
			die("%s:%s: second code 0x%llx, rules give 0x%llx", g->base_str, g->um[i].name,
			    (unsigned long long)solo->val1, (unsigned long long)predict_extra(g, ch));
		uint64_t sel = (g->uflags[i] & PFMT_UM_OVERRIDE) ?
			       (g->ev.code & ~ARCH_PERFMON_EVENTSEL_EVENT_MASK) |
			       (solo->val & ARCH_PERFMON_EVENTSEL_EVENT_MASK) : g->ev.code;
		if (solo->val != sel)
			die("%s:%s: event select 0x%llx, expected 0x%llx", g->base_str, g->um[i].name,
			    (unsigned long long)solo->val, (unsigned long long)sel);
	}
}

/* Unit-mask bits: plain ones first (aliases are built from them). Intel attribute
 * codes are the unit mask shifted right by 8 with hidden cmask/inv/edge bits above
 * it; a code-override unit mask keeps the event select in bits 7:0, which the solo
 * encoding shows. AMD unit masks are 8 bits: libpfm4 drops higher code bits. */
static void umask_bits(struct event_gen *g)
{
	for (unsigned i = 0; i < g->nu; i++) {
		const struct um_info *u = &g->um[i];
		struct probe *solo = &g->solo[i];
		if (g->vendor == PFMT_AMD)
			g->bits[i] = (u->code << AMD64_EVENTSEL_UMASK_SHIFT) & AMD64_EVENTSEL_UMASK_MASK;
		else
			g->bits[i] = u->code << ARCH_PERFMON_EVENTSEL_UMASK_SHIFT;
		if (g->vendor == PFMT_INTEL && solo->ok &&
		    (solo->val & ARCH_PERFMON_EVENTSEL_EVENT_MASK) !=
		    (g->ev.code & ARCH_PERFMON_EVENTSEL_EVENT_MASK)) {
			g->bits[i] = u->code;
			g->uflags[i] |= PFMT_UM_OVERRIDE;
		}
		/* Offcore-response unit masks select bits of a second MSR. */
		if (g->ev.flags & PFMT_EV_EXTRA_CODE) {
			g->uflags[i] |= PFMT_UM_EXTRA_CODE;
			g->bits[i] = 0;
		} else if (g->bits[i] >> 32) {
			g->uflags[i] |= PFMT_UM_EXTRA_REG;
			g->bits[i] = 0;
		}
	}
	for (unsigned i = 0; i < g->nu; i++)
		if (g->um[i].equiv[0])
			g->bits[i] = equiv_bits(g->pmu, g->ei->name, g->um, g->nu, g->bits,
						g->um[i].equiv, 0);
}

/* Unit mask i as the table stores it: bits, flags, the defaults libpfm4 keeps with
 * it, the unit masks it combines with and the modifiers it hardwires. */
static struct pfmt_umask umask_entry(const struct event_gen *g, unsigned i)
{
	const struct um_info *um = &g->um[i];
	const struct probe *solo = &g->solo[i];
	struct pfmt_umask u = {
		.name = str_intern(um->name),
		.bits = (uint32_t)g->bits[i],
		.flags = g->uflags[i],
	};
	uint32_t keep[PFMT_SET_WORDS(MAX_UMASKS)] = { 0 };
	if (um->dfl)
		u.flags |= PFMT_UM_DFL;
	if (!solo->ok)
		u.flags |= PFMT_UM_SOLO_BAD;
	if (solo->count > 1 && !(u.flags & PFMT_UM_EXTRA_CODE))
		u.flags |= PFMT_UM_EXTRA_REG;
	for (unsigned j = 0; j < g->nu; j++)
		if (j != i && g->um[j].dfl && solo->ok && fstr_has_umask(solo->fstr, g->um[j].name))
			set_bit(keep, j);
	if (u.flags & PFMT_UM_EXTRA_CODE) {
		struct pfmt_extra x = g->xtra[i];
		x.blocks = set_intern(g->xblocks[i], PFMT_SET_WORDS(g->nu));
		x.evtsel = (u.flags & PFMT_UM_OVERRIDE) ? (uint32_t)(solo->val & ARCH_PERFMON_EVENTSEL_EVENT_MASK) : 0;
		extras = grow(extras, &extras_cap, nextras + 1, sizeof(*extras));
		u.bits = (uint32_t)nextras;
		extras[nextras++] = x;
		memcpy(keep, g->xkeep[i], sizeof(keep));
	}
	if (solo->ok && !(u.flags & PFMT_UM_EXTRA_REG) &&
	    ((g->bits[i] & ~ARCH_PERFMON_EVENTSEL_EVENT_MASK) & ~solo->val))
		die("%s:%s: unit-mask bits 0x%llx not all in libpfm4's encoding 0x%llx", g->base_str,
		    um->name, (unsigned long long)g->bits[i], (unsigned long long)solo->val);
	if (solo->ok) {
		char s[1024];
		if (snprintf(s, sizeof(s), "%s:%s", g->base_str, um->name) >= (int)sizeof(s))
			die("%s:%s: name too long", g->base_str, um->name);
		u.modhw = probe_hardwired(s, solo->val, g->mods);
	}
	unsigned sw = PFMT_SET_WORDS(g->nu);
	u.keep = set_intern(keep, sw);
	u.compat = set_intern(g->compat[i], sw);
	return u;
}

static void gen_event(const char *pmu, const pfm_event_info_t *ei, enum pfmt_vendor vendor)
{
	struct event_gen g = { .pmu = pmu, .ei = ei, .vendor = vendor };
	snprintf(g.base_str, sizeof(g.base_str), "%s::%s", pmu, ei->name);

	read_attrs(&g);
	g.ev = (struct pfmt_event){
		.name = str_intern(ei->name),
		.code = (uint32_t)ei->code,
		.first_umask = numasks,
		.numasks = g.nu,
		.mods = g.mods,
	};
	probe_base_event(&g);
	probe_solos(&g);
	probe_edge_cmask(&g);
	probe_umask_pairs(&g);
	umask_bits(&g);
	if (g.ev.flags & PFMT_EV_EXTRA_CODE) {
		extra_code_rules(&g);
		check_extra_code(&g);
	}

	umasks = grow(umasks, &umasks_cap, numasks + g.nu, sizeof(*umasks));
	for (unsigned i = 0; i < g.nu; i++)
		umasks[numasks + i] = umask_entry(&g, i);
	numasks += g.nu;
	events = grow(events, &events_cap, nevents + 1, sizeof(*events));
	events[nevents++] = g.ev;
}

static int same_event(const struct pfmt_event *a, const struct pfmt_event *b)
{
	if (a->name != b->name || a->code != b->code || a->numasks != b->numasks ||
	    a->mods != b->mods || a->flags != b->flags || a->modhw != b->modhw)
		return 0;
	for (unsigned i = 0; i < a->numasks; i++) {
		const struct pfmt_umask *x = &umasks[a->first_umask + i];
		const struct pfmt_umask *y = &umasks[b->first_umask + i];
		if (x->name != y->name || x->keep != y->keep ||
		    x->compat != y->compat || x->flags != y->flags || x->modhw != y->modhw)
			return 0;
		if (!(x->flags & PFMT_UM_EXTRA_CODE) ? x->bits != y->bits :
		    memcmp(&extras[x->bits], &extras[y->bits], sizeof(extras[0])))
			return 0;
	}
	return 1;
}

static enum pmu_kind amd_kind(const char *pmu)
{
	enum pmu_kind kind = PMU_NONE;
	for (unsigned i = 0; i < ARRAY_SIZE(amd_kinds); i++)
		if (!strncmp(pmu, amd_kinds[i].prefix, strlen(amd_kinds[i].prefix)))
			kind = amd_kinds[i].kind;
	if (kind == PMU_NONE)
		die("AMD PMU %s has no kind in amd_kinds[]", pmu);
	return kind;
}

/* Many models share a table (hsw/hsw_ep, K8 revisions): when the last model's events,
 * just appended, equal an earlier model's, point at the first copy and drop them. */
static void share_earlier_table(struct pfmt_model *m, size_t first_um, size_t first_extra)
{
	size_t first = m->first_event;
	for (unsigned k = 0; k + 1 < nmodels; k++) {
		const struct pfmt_model *o = &models[k];
		if (o->nevents != m->nevents)
			continue;
		unsigned i;
		for (i = 0; i < m->nevents; i++)
			if (!same_event(&events[o->first_event + i], &events[first + i]))
				break;
		if (i == m->nevents) {
			m->first_event = o->first_event;
			nevents = first;
			numasks = first_um;
			nextras = first_extra;
			return;
		}
	}
}

/* Index of pmu in p6_family[], or -1. */
static int p6_family_index(const char *pmu)
{
	for (unsigned i = 0; i < ARRAY_SIZE(p6_family); i++)
		if (!strcmp(pmu, p6_family[i].name))
			return (int)i;
	return -1;
}

static enum pmu_kind intel_kind(const char *pmu)
{
	int i = p6_family_index(pmu);
	return i < 0 ? PMU_INTEL_ARCH : p6_family[i].kind;
}

static void gen_model(int pmu_id, const pfm_pmu_info_t *pi)
{
	setenv("LIBPFM_FORCE_PMU", pi->name, 1);
	pfm_terminate();
	if (pfm_initialize() != PFM_SUCCESS)
		die("pfm_initialize with LIBPFM_FORCE_PMU=%s failed", pi->name);
	pfm_pmu_info_t info;
	memset(&info, 0, sizeof(info));
	info.size = sizeof(info);
	if (pfm_get_pmu_info(pmu_id, &info) != PFM_SUCCESS || !info.is_present)
		die("could not force PMU %s", pi->name);

	enum pfmt_vendor vendor = strncmp(pi->name, "amd64", 5) ? PFMT_INTEL : PFMT_AMD;
	enum pmu_kind kind = vendor == PFMT_AMD ? amd_kind(pi->name) : intel_kind(pi->name);
	size_t first = nevents, first_um = numasks, first_extra = nextras;
	for (int e = info.first_event; e != -1; e = pfm_get_event_next(e)) {
		pfm_event_info_t ei;
		memset(&ei, 0, sizeof(ei));
		ei.size = sizeof(ei);
		if (pfm_get_event_info(e, PFM_OS_NONE, &ei) != PFM_SUCCESS)
			die("%s: event %d unreadable", pi->name, e);
		gen_event(pi->name, &ei, vendor);
	}
	struct pfmt_model *m = &models[nmodels++];
	*m = (struct pfmt_model){
		.name = str_intern(pi->name),
		.desc = str_intern(pi->desc),
		.vendor = vendor,
		.kind = kind,
		.gp_counters = info.num_cntrs,
		.fixed_counters = info.num_fixed_cntrs,
		.first_event = first,
		.nevents = nevents - first,
	};
	share_earlier_table(m, first_um, first_extra);
	fprintf(stderr, "gen-pfm-tables: %-26s %4u events%s\n", pi->name, m->nevents,
		m->first_event != first ? " (shared table)" : "");
}

/* ---------------------------------------------------------------- output */
static void put_string_pool(void)
{
	printf("const char pfmt_strings[] =\n\t\"");
	unsigned col = 0;
	for (size_t i = 0; i < strpool_len; i++) {
		unsigned char c = strpool[i];
		if (c == 0)
			col += printf("\\000");
		else if (c == '"' || c == '\\')
			col += printf("\\%c", c);
		else if (c < 32 || c > 126)
			col += printf("\\%03o", c);
		else
			col += printf("%c", c);
		/* break after a NUL so no hex/octal escape runs into the next line */
		if (c == 0 && col > 90 && i + 1 < strpool_len) {
			printf("\"\n\t\"");
			col = 0;
		}
	}
	printf("\";\n\n");
}

/* The core PMUs libpfm4 knows, less skipped_pmus[]: their ids and descriptions; with
 * p6, those of p6_family[] only (all of them, or it dies), else all but those. */
static unsigned list_core_pmus(int *ids, pfm_pmu_info_t *infos, bool p6)
{
	unsigned n = 0;
	for (int p = 0; p < PFM_PMU_MAX; p++) {
		pfm_pmu_info_t pi;
		memset(&pi, 0, sizeof(pi));
		pi.size = sizeof(pi);
		if (pfm_get_pmu_info(p, &pi) != PFM_SUCCESS || pi.type != PFM_PMU_TYPE_CORE)
			continue;
		unsigned s;
		for (s = 0; s < ARRAY_SIZE(skipped_pmus); s++)
			if (!strcmp(pi.name, skipped_pmus[s]))
				break;
		if (s < ARRAY_SIZE(skipped_pmus) || p6 != (p6_family_index(pi.name) >= 0))
			continue;
		ids[n] = p;
		infos[n++] = pi;
	}
	if (p6 && n != ARRAY_SIZE(p6_family))
		die("libpfm4 here has %u of the %zu P6-family PMUs: build against libpfm4:i386 "
		    "(scripts/install-deps)", n, ARRAY_SIZE(p6_family));
	return n;
}

/* The C file; merged_from is the libpfm4:i386 version of the merged P6 tables, or "". */
static void put_tables(const char *merged_from)
{
	printf("/* Generated by scripts/gen/gen-pfm-tables.c from libpfm4 %d.%d", PFM_MAJ_VERSION(pfm_get_version()),
	       PFM_MIN_VERSION(pfm_get_version()));
	if (*merged_from)
		printf(", the P6 family from libpfm4:i386 %s", merged_from);
	printf(". Do not edit. */\n");
	printf("#include \"lib/pfm_tables.h\"\n\n");
	put_string_pool();

	printf("const uint32_t pfmt_words[] = {");
	for (size_t i = 0; i < nwords; i++)
		printf("%s0x%x,", i % 10 ? " " : "\n\t", words[i]);
	printf("\n\t0\n};\n\n");

	printf("const struct pfmt_extra pfmt_extras[] = {\n");
	for (size_t i = 0; i < nextras; i++)
		printf("\t{0x%llxull,0x%llxull,%u,0x%x},\n", (unsigned long long)extras[i].chosen,
		       (unsigned long long)extras[i].dfl, extras[i].blocks, extras[i].evtsel);
	printf("\t{0,0,0,0}\n};\n\n");

	printf("const struct pfmt_model pfmt_models[] = {\n");
	for (unsigned i = 0; i < nmodels; i++) {
		const struct pfmt_model *m = &models[i];
		printf("\t{ .name = %u, .desc = %u, .vendor = %u, .kind = %u, .gp_counters = %u, "
		       ".fixed_counters = %u, .first_event = %u, .nevents = %u }, /* %s */\n",
		       m->name, m->desc, m->vendor, m->kind, m->gp_counters, m->fixed_counters,
		       m->first_event, m->nevents, strpool + m->name);
	}
	printf("};\nconst unsigned pfmt_nmodels = %u;\n\n", nmodels);

	/* Positional initializers keep the file small; field order is struct pfmt_event's. */
	printf("const struct pfmt_event pfmt_events[] = {\n");
	for (size_t i = 0; i < nevents; i++) {
		const struct pfmt_event *e = &events[i];
		printf("\t{%u,0x%x,%u,%u,0x%x,%u,%u},\n", e->name, e->code, e->first_umask,
		       e->numasks, e->mods, e->flags, e->modhw);
	}
	printf("};\n\n");
	printf("const struct pfmt_umask pfmt_umasks[] = {\n");
	for (size_t i = 0; i < numasks; i++) {
		const struct pfmt_umask *u = &umasks[i];
		printf("\t{%u,0x%x,%u,%u,%u,%u},\n", u->name, u->bits, u->keep, u->compat,
		       u->flags, u->modhw);
	}
	printf("\t{0,0,0,0,0,0}\n};\n");
}

/* ---------------------------------------------------------------- dump and merge */
#define DUMP_MAGIC "bareperf-pfm-tables-dump"
#define DUMP_VERSION 1

/* The tables as text (--p6-dump): each pool and record array after a "NAME COUNT" line,
 * one record a line, the string pool in hex. */
static void put_dump(void)
{
	printf("%s %d libpfm4 %d.%d\n", DUMP_MAGIC, DUMP_VERSION, PFM_MAJ_VERSION(pfm_get_version()),
	       PFM_MIN_VERSION(pfm_get_version()));
	printf("strings %zu\n", strpool_len);
	for (size_t i = 0; i < strpool_len; i++)
		printf("%02x%s", (unsigned char)strpool[i], i % 32 == 31 || i + 1 == strpool_len ? "\n" : "");
	printf("words %zu\n", nwords);
	for (size_t i = 0; i < nwords; i++)
		printf("%x\n", words[i]);
	printf("extras %zu\n", nextras);
	for (size_t i = 0; i < nextras; i++)
		printf("%llx %llx %u %x\n", (unsigned long long)extras[i].chosen,
		       (unsigned long long)extras[i].dfl, extras[i].blocks, extras[i].evtsel);
	printf("models %u\n", nmodels);
	for (unsigned i = 0; i < nmodels; i++) {
		const struct pfmt_model *m = &models[i];
		printf("%u %u %u %u %u %u %u %u\n", m->name, m->desc, m->vendor, m->kind,
		       m->gp_counters, m->fixed_counters, m->first_event, m->nevents);
	}
	printf("events %zu\n", nevents);
	for (size_t i = 0; i < nevents; i++) {
		const struct pfmt_event *e = &events[i];
		printf("%u %x %u %u %x %u %u\n", e->name, e->code, e->first_umask, e->numasks,
		       e->mods, e->flags, e->modhw);
	}
	printf("umasks %zu\n", numasks);
	for (size_t i = 0; i < numasks; i++) {
		const struct pfmt_umask *u = &umasks[i];
		printf("%u %x %u %u %u %u\n", u->name, u->bits, u->keep, u->compat, u->flags, u->modhw);
	}
	printf("end\n");
}

/* A dump read back: its own pools, offsets not yet relocated. */
struct dump {
	const char *path;
	char libpfm[32];
	char *strings;
	size_t nstrings, nwords, nextras, nmodels, nevents, numasks;
	uint32_t *words;
	struct pfmt_extra *extras;
	struct pfmt_model *models;
	struct pfmt_event *events;
	struct pfmt_umask *umasks;
};

/* Reads "NAME COUNT" and returns an array of COUNT elements of size elem. */
static void *dump_section(FILE *f, const struct dump *d, const char *name, size_t elem, size_t *count)
{
	char got[32];
	if (fscanf(f, "%31s %zu", got, count) != 2 || strcmp(got, name))
		die("%s: section '%s' expected", d->path, name);
	void *p = calloc(*count + 1, elem);
	if (!p)
		die("out of memory");
	return p;
}

static void dump_field(const struct dump *d, const char *what, int got, int want)
{
	if (got != want)
		die("%s: bad %s record", d->path, what);
}

static void read_dump(FILE *f, struct dump *d)
{
	int version;
	unsigned maj, min;
	if (fscanf(f, DUMP_MAGIC " %d libpfm4 %u.%u", &version, &maj, &min) != 3 || version != DUMP_VERSION)
		die("%s: not a version %d table dump", d->path, DUMP_VERSION);
	snprintf(d->libpfm, sizeof(d->libpfm), "%u.%u", maj, min);
	d->strings = dump_section(f, d, "strings", 1, &d->nstrings);
	for (size_t i = 0; i < d->nstrings; i++)
		dump_field(d, "string", fscanf(f, "%2hhx", (unsigned char *)&d->strings[i]), 1);
	d->words = dump_section(f, d, "words", sizeof(*d->words), &d->nwords);
	for (size_t i = 0; i < d->nwords; i++)
		dump_field(d, "word", fscanf(f, "%" SCNx32, &d->words[i]), 1);
	d->extras = dump_section(f, d, "extras", sizeof(*d->extras), &d->nextras);
	for (size_t i = 0; i < d->nextras; i++) {
		struct pfmt_extra *x = &d->extras[i];
		dump_field(d, "extras", fscanf(f, "%" SCNx64 " %" SCNx64 " %" SCNu32 " %" SCNx32,
						  &x->chosen, &x->dfl, &x->blocks, &x->evtsel), 4);
	}
	d->models = dump_section(f, d, "models", sizeof(*d->models), &d->nmodels);
	for (size_t i = 0; i < d->nmodels; i++) {
		struct pfmt_model *m = &d->models[i];
		dump_field(d, "model", fscanf(f, "%" SCNu32 " %" SCNu32 " %hhu %hhu %hhu %hhu %" SCNu32 " %hu",
						 &m->name, &m->desc, &m->vendor, &m->kind, &m->gp_counters,
						 &m->fixed_counters, &m->first_event, &m->nevents), 8);
	}
	d->events = dump_section(f, d, "events", sizeof(*d->events), &d->nevents);
	for (size_t i = 0; i < d->nevents; i++) {
		struct pfmt_event *e = &d->events[i];
		dump_field(d, "event", fscanf(f, "%" SCNu32 " %" SCNx32 " %" SCNu32 " %hu %hx %hhu %hhu",
						 &e->name, &e->code, &e->first_umask, &e->numasks, &e->mods,
						 &e->flags, &e->modhw), 7);
	}
	d->umasks = dump_section(f, d, "umasks", sizeof(*d->umasks), &d->numasks);
	for (size_t i = 0; i < d->numasks; i++) {
		struct pfmt_umask *u = &d->umasks[i];
		dump_field(d, "unit mask", fscanf(f, "%" SCNu32 " %" SCNx32 " %" SCNu32 " %" SCNu32 " %hhu %hhu",
						     &u->name, &u->bits, &u->keep, &u->compat, &u->flags,
						     &u->modhw), 6);
	}
	char end[8];
	if (fscanf(f, "%7s", end) != 1 || strcmp(end, "end"))
		die("%s: truncated (no 'end')", d->path);
}

/* The dump's string at off, interned into this run's pool. */
static uint32_t dump_str(const struct dump *d, uint32_t off)
{
	if (off >= d->nstrings || !memchr(d->strings + off, 0, d->nstrings - off))
		die("%s: string offset %u out of range", d->path, off);
	return str_intern(d->strings + off);
}

/* The dump's bit set of n words at off, interned into this run's words. */
static uint32_t dump_set(const struct dump *d, uint32_t off, unsigned n)
{
	if (off > d->nwords || n > d->nwords - off)
		die("%s: set offset %u out of range", d->path, off);
	return set_intern(d->words + off, n);
}

static struct pfmt_umask merge_umask(const struct dump *d, const struct pfmt_event *de, unsigned i)
{
	struct pfmt_umask u = d->umasks[de->first_umask + i];
	unsigned sw = PFMT_SET_WORDS(de->numasks);
	u.name = dump_str(d, u.name);
	u.keep = dump_set(d, u.keep, sw);
	u.compat = dump_set(d, u.compat, sw);
	if (u.flags & PFMT_UM_EXTRA_CODE) {
		if (u.bits >= d->nextras)
			die("%s: second-code rule %u out of range", d->path, u.bits);
		struct pfmt_extra x = d->extras[u.bits];
		x.blocks = dump_set(d, x.blocks, sw);
		extras = grow(extras, &extras_cap, nextras + 1, sizeof(*extras));
		u.bits = (uint32_t)nextras;
		extras[nextras++] = x;
	}
	return u;
}

/* One dumped model appended to this run's tables, as gen_model appends a forced PMU. */
static void merge_model(const struct dump *d, const struct pfmt_model *dm)
{
	size_t first = nevents, first_um = numasks, first_extra = nextras;
	const char *name = d->strings + dm->name;
	if ((size_t)dm->first_event + dm->nevents > d->nevents)
		die("%s: events of model %u out of range", d->path, dm->name);
	for (unsigned k = 0; k < nmodels; k++)
		if (!strcmp(strpool + models[k].name, name))
			die("%s: PMU %s is already in the native tables", d->path, name);
	for (unsigned e = 0; e < dm->nevents; e++) {
		struct pfmt_event ev = d->events[dm->first_event + e];
		if ((size_t)ev.first_umask + ev.numasks > d->numasks)
			die("%s: unit masks of event %u out of range", d->path, ev.name);
		umasks = grow(umasks, &umasks_cap, numasks + ev.numasks, sizeof(*umasks));
		for (unsigned i = 0; i < ev.numasks; i++)
			umasks[numasks + i] = merge_umask(d, &d->events[dm->first_event + e], i);
		ev.name = dump_str(d, ev.name);
		ev.first_umask = numasks;
		numasks += ev.numasks;
		events = grow(events, &events_cap, nevents + 1, sizeof(*events));
		events[nevents++] = ev;
	}
	if (nmodels == ARRAY_SIZE(models))
		die("too many models");
	struct pfmt_model *m = &models[nmodels++];
	*m = *dm;
	m->name = dump_str(d, dm->name);
	m->desc = dump_str(d, dm->desc);
	m->first_event = first;
	share_earlier_table(m, first_um, first_extra);
	fprintf(stderr, "gen-pfm-tables: %-26s %4u events (from %s)%s\n", name, m->nevents, d->path,
		m->first_event != first ? " (shared table)" : "");
}

/* --merge: the dump's models after this run's own (libpfm4 version returned). */
static void merge_dump(const char *path, char *libpfm, size_t len)
{
	struct dump d = { .path = path };
	FILE *f = fopen(path, "r");
	if (!f)
		die("cannot open %s", path);
	read_dump(f, &d);
	fclose(f);
	for (size_t i = 0; i < d.nmodels; i++)
		merge_model(&d, &d.models[i]);
	snprintf(libpfm, len, "%s", d.libpfm);
	free(d.strings);
	free(d.words);
	free(d.extras);
	free(d.models);
	free(d.events);
	free(d.umasks);
}

static void usage(void)
{
	fprintf(stderr, "usage: gen-pfm-tables [--merge DUMP] > pfm_tables.c\n"
			"       gen-pfm-tables --p6-dump > DUMP   (built against libpfm4:i386)\n");
	exit(2);
}

int main(int argc, char **argv)
{
	bool p6_dump = argc == 2 && !strcmp(argv[1], "--p6-dump");
	const char *merge = argc == 3 && !strcmp(argv[1], "--merge") ? argv[2] : NULL;
	if (argc > 1 && !p6_dump && !merge)
		usage();
	if (pfm_initialize() != PFM_SUCCESS)
		die("pfm_initialize failed");
	if (PFM_MAJ_VERSION(pfm_get_version()) != 4)
		die("libpfm4 expected, found version 0x%x", pfm_get_version());

	int ids[PFM_PMU_MAX];
	pfm_pmu_info_t infos[PFM_PMU_MAX];
	unsigned n = list_core_pmus(ids, infos, p6_dump);
	for (unsigned i = 0; i < n; i++)
		gen_model(ids[i], &infos[i]);
	char merged_from[32] = "";
	if (merge)
		merge_dump(merge, merged_from, sizeof(merged_from));

	if (p6_dump)
		put_dump();
	else
		put_tables(merged_from);
	fprintf(stderr, "gen-pfm-tables: %u models, %zu events, %zu unit masks, %zu strings bytes, %zu set words\n",
		nmodels, nevents, numasks, strpool_len, nwords);
	return 0;
}
