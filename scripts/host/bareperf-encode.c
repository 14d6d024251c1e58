/*
 * bareperf-encode: show how bareperf encodes events for a PMU model.
 *   bareperf-encode --pmu skl 'INST_RETIRED:ANY_P:u' cycles r003c
 *   bareperf-encode --cpuid dump.txt cycles
 *   bareperf-encode --list-pmus
 *   bareperf-encode --pmu skl --list-events [PATTERN]    (or --cpuid FILE: a model is needed)
 * Output, one line per event: "EVENT: evtsel=0x%016llx gp_mask=0x.. fixed_mask=0x.." (EN set,
 * INT clear), NetBurst "escr=... cccr=...", or "EVENT: tsc"/"aperf"/"mperf".
 * An event that cannot be encoded prints "error: EVENT: reason"; the exit status is
 * then 1, after the remaining events.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "arch/x86/pmu/pmu.h"
#include "lib/cpuid-dump.h"
#include "lib/event.h"
#include "lib/p4-events.h"
#include "lib/pfm_tables.h"
#include "lib/str.h"
#include "scripts/host/read-dump.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: bareperf-encode (--pmu NAME | --cpuid FILE) [--group] EVENT...\n"
		   "       bareperf-encode --list-pmus\n"
		   "       bareperf-encode (--pmu NAME | --cpuid FILE) --list-events [PATTERN]\n");
}

static int load_cpuid(const char *path, const struct pmu_model **m, struct pmu_caps *pc)
{
	static struct cpuid_dump dump;
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "error: cannot open %s: %s\n", path, strerror(errno));
		return -1;
	}
	size_t len;
	char *text = read_dump_text(f, &len);
	if (!text) {
		fprintf(stderr, "error: %s: %s\n", path, read_dump_error(errno));
		fclose(f);
		return -1;
	}
	fclose(f);
	char err[200];
	int bad = cpuid_dump_parse(&dump, text, len, err, sizeof(err));
	free(text);
	if (bad < 0) {
		fprintf(stderr, "error: %s: %s\n", path, err);
		return -1;
	}
	struct cpu_info ci;
	cpuinfo_decode(cpuid_dump_read, &dump, &ci, pc);
	*m = pmu_model_for_cpu(&ci, pc);
	return 0;
}

/* --list-events PATTERN: a glob where it has '*' or '?', else any part of the name in any
 * case ("inst" finds INST_RETIRED); no PATTERN, every event. */
static bool event_listed(const char *pattern, const char *name)
{
	if (!pattern)
		return true;
	if (strchr(pattern, '*') || strchr(pattern, '?'))
		return str_glob_match(pattern, name);
	size_t n = strlen(pattern);
	for (const char *p = name; *p; p++)
		if (!str_ncasecmp(p, pattern, n))
			return true;
	return n == 0;
}

/* NetBurst's events come from its own table (lib/p4-events.h), not libpfm4's. Returns the
 * events listed. */
static unsigned list_netburst_events(const char *pattern)
{
	const char *name;
	unsigned listed = 0;
	for (unsigned i = 0; (name = netburst_event_name(i)); i++) {
		const struct nb_event *e = &nb_event_table[i];
		if (!event_listed(pattern, name))
			continue;
		listed++;
		printf("%s", name);
		for (unsigned u = 0; u < e->numasks; u++)
			printf("%s%s%s", u ? " " : " [", e->umask[u].name, e->umask[u].dfl ? "*" : "");
		printf("%s%s\n", e->numasks ? "]" : "",
		       e->prescott_only ? " (Prescott, models 3, 4, 6)" : "");
	}
	return listed;
}

/* A libpfm4 model's events that PATTERN lists; returns how many. */
static unsigned list_pfm_events(const struct pfmt_model *tm, const char *pattern)
{
	unsigned listed = 0;
	for (unsigned e = 0; e < tm->nevents; e++) {
		const struct pfmt_event *ev = &pfmt_events[tm->first_event + e];
		const char *name = pfmt_strings + ev->name;
		if (!event_listed(pattern, name))
			continue;
		listed++;
		printf("%s", name);
		for (unsigned u = 0; u < ev->numasks; u++) {
			const struct pfmt_umask *um = &pfmt_umasks[ev->first_umask + u];
			printf("%s%s%s", u ? " " : " [", pfmt_strings + um->name,
			       um->flags & PFMT_UM_DFL ? "*" : "");
		}
		printf("%s\n", ev->numasks ? "]" : "");
	}
	return listed;
}

/* The model's events that PATTERN lists; exit status 0, or 1 when PATTERN lists none. */
static int list_events(const struct pmu_model *m, const char *pattern)
{
	unsigned listed = 0;
	if (m->kind == PMU_INTEL_NETBURST) {
		listed = list_netburst_events(pattern);
	} else if (m->table == ~0u) {
		printf("PMU %s has no libpfm4 table: generic names and raw forms only\n", m->pfm_name);
		return 0;
	} else {
		listed = list_pfm_events(&pfmt_models[m->table], pattern);
	}
	if (pattern && !listed) {
		fprintf(stderr, "error: no event of PMU %s matches '%s' (a glob with * or ?, else any part "
			"of a name, in any case)\n", m->pfm_name, pattern);
		return 1;
	}
	return 0;
}

/* The event select, then the second register when the event has one: its MSR from the
 * generation's descriptor be (0 when be has none: the kernel would refuse the event). */
static void print_gp(const struct ev_encoding *ev, const struct pmu_backend *be)
{
	printf("%s: evtsel=0x%016llx", ev->name, (unsigned long long)ev->evtsel);
	if (ev->extra != EV_EXTRA_NONE) {
		uint32_t msr = be && be->extra_msrs ? be->extra_msrs[ev->extra] : 0;
		printf(" extra_msr=0x%x extra=0x%llx", msr, (unsigned long long)ev->extra_value);
	}
	printf(" gp_mask=0x%x fixed_mask=0x%x\n", ev->gp_mask, ev->fixed_mask);
}

static void print_one(const struct ev_encoding *ev, const struct pmu_state *st, unsigned slot,
		      const struct pmu_backend *be)
{
	switch (ev->cls) {
	case EV_CLASS_TSC: printf("%s: tsc (time-stamp counter)\n", ev->name); break;
	case EV_CLASS_APERF: printf("%s: aperf (IA32_APERF)\n", ev->name); break;
	case EV_CLASS_MPERF: printf("%s: mperf (IA32_MPERF)\n", ev->name); break;
	case EV_CLASS_ENERGY: printf("%s: RAPL energy-%s\n", ev->name,
				     rapl_domain_name((enum rapl_domain)ev->energy.domain)); break;
	case EV_CLASS_GP:
		print_gp(ev, be);
		break;
	case EV_CLASS_NETBURST: {
		const struct pmu_slot *s = &st->slot[slot];
		printf("%s: escr=0x%08llx escr_msr=0x%x cccr=0x%08llx cccr_msr=0x%x counter=%u\n",
		       ev->name, (unsigned long long)s->extra_value, s->extra_msr,
		       (unsigned long long)s->ctl_value, s->ctl_msr, s->index);
		break;
	}
	}
}

struct options {
	const struct pmu_model *m;      /* from --pmu or --cpuid */
	struct pmu_caps pc;
	bool group, list_pmus, list_events;
};

/* Reads the options before the operands. Returns the index of the first operand, or
 * -1 when the program should end now with *exit_code. */
static int parse_options(int argc, char **argv, struct options *o, int *exit_code)
{
	int i;
	*exit_code = 2;
	for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1] == '-'; i++) {
		if (!strcmp(argv[i], "--help")) {
			usage(stdout);
			*exit_code = 0;
			return -1;
		} else if (!strcmp(argv[i], "--pmu") && i + 1 < argc) {
			o->m = pmu_model_by_name(argv[++i]);
			if (!o->m) {
				fprintf(stderr, "error: unknown PMU '%s' (see --list-pmus)\n", argv[i]);
				return -1;
			}
			pmu_model_default_caps(o->m, &o->pc);
		} else if (!strcmp(argv[i], "--cpuid") && i + 1 < argc) {
			if (load_cpuid(argv[++i], &o->m, &o->pc)) {
				*exit_code = 1;         /* a bad file, not bad usage */
				return -1;
			}
		} else if (!strcmp(argv[i], "--group")) {
			o->group = true;
		} else if (!strcmp(argv[i], "--list-pmus")) {
			o->list_pmus = true;
		} else if (!strcmp(argv[i], "--list-events")) {
			o->list_events = true;
		} else {
			fprintf(stderr, "error: unknown option '%s'\n", argv[i]);
			usage(stderr);
			return -1;
		}
	}
	return i;
}

static void list_pmus(void)
{
	for (unsigned k = 0; k < pmu_model_count(); k++) {
		const struct pmu_model *pm = pmu_model_at(k);
		printf("%-26s %-18s %s\n", pm->pfm_name, pmu_kind_name(pm->kind), pm->desc);
	}
}

/* A NetBurst event on its own: the backend picks its ESCR, CCCR and counter. */
static int encode_netburst_alone(const struct pmu_caps *pc, const char *text,
				 const struct ev_encoding *ev)
{
	char err[256];
	struct pmu_state st;
	memset(&st, 0, sizeof(st));
	st.caps = *pc;
	st.be = pmu_backend_for(PMU_INTEL_NETBURST);
	if (!st.be || st.be->assign(&st, ev, 1, err, sizeof(err))) {
		printf("error: %s: %s\n", text, st.be ? err : "no NetBurst backend");
		return 1;
	}
	print_one(ev, &st, 0, st.be);
	return 0;
}

/* --group: the events on the counters together, as the engine would place them. */
static int encode_group(const struct pmu_model *m, const struct pmu_caps *pc,
			const struct ev_encoding *evs, unsigned n)
{
	char err[256];
	struct pmu_state st;
	memset(&st, 0, sizeof(st));
	st.caps = *pc;
	st.be = pmu_backend_for(m->kind);
	if (!st.be || st.be->assign(&st, evs, n, err, sizeof(err))) {
		printf("error: group: %s\n", st.be ? err : "no backend for this PMU kind");
		return 1;
	}
	for (unsigned k = 0; k < n; k++)
		print_one(&evs[k], &st, k, st.be);
	return 0;
}

/* One line per event; the exit status is 1 if any of them failed. */
static int encode_events(const struct options *o, char **texts, int count)
{
	int status = 0;
	static struct ev_encoding evs[EV_MAX_EVENTS];
	unsigned n = 0;
	/* A group is one measurement plan: all of it is encoded together or none is. */
	if (o->group && count > EV_MAX_EVENTS) {
		printf("error: group: %d events, but a group holds at most %d\n", count, EV_MAX_EVENTS);
		return 1;
	}
	for (int i = 0; i < count; i++) {
		char err[256];
		struct ev_encoding ev;
		if (event_parse(o->m, &o->pc, pmu_generic_map_for_model(o->m), texts[i], &ev, err, sizeof(err))) {
			printf("error: %s: %s\n", texts[i], err);
			status = 1;
			continue;
		}
		if (ev.cls == EV_CLASS_NETBURST && !o->group) {
			if (encode_netburst_alone(&o->pc, texts[i], &ev))
				status = 1;
			continue;
		}
		if (o->group) {
			evs[n++] = ev;
			continue;
		}
		print_one(&ev, NULL, 0, pmu_backend_for(o->m->kind));
	}
	if (o->group && n && encode_group(o->m, &o->pc, evs, n))
		return 1;
	return status;
}

int main(int argc, char **argv)
{
	struct options o = { .m = NULL };
	int exit_code;
	int i = parse_options(argc, argv, &o, &exit_code);
	if (i < 0)
		return exit_code;
	if (o.list_pmus) {
		list_pmus();
		return 0;
	}
	if (!o.m) {
		fprintf(stderr, "error: give --pmu NAME or --cpuid FILE\n");
		usage(stderr);
		return 2;
	}
	if (o.list_events)
		return list_events(o.m, i < argc ? argv[i] : NULL);
	if (i == argc) {
		usage(stderr);
		return 2;
	}
	return encode_events(&o, argv + i, argc - i);
}
