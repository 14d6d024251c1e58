/*
 * pfm-p6-reference: libpfm4:i386's own answers for the P6-family PMUs
 * (scripts/gen/pfm-p6-family.h), which tests/unit/test_encode_pfm.c holds bareperf's
 * against. Built -m32 -static against libpfm4:i386 and run under qemu-i386 (Makefile),
 * as libpfm4's amd64 build has no P6 tables to ask.
 *   pfm-p6-reference encodings   each event with every set of up to three of its unit
 *                                masks, each set with every form of modifier_forms[];
 *                                and per event the strings of bad_forms[]
 *   pfm-p6-reference detect      the CPUID family and model this runs on (qemu-i386's
 *                                -cpu sets them) and the core PMUs libpfm4 detects there
 * Output, one line each: "STRING COUNT CODE0 CODE1" (libpfm4's codes in hex, COUNT 0
 * when it rejects the string), or "detect FAMILY MODEL PMU..." ("-" for none).
 * The strings come from libpfm4's attribute lists, never from bareperf's tables.
 */
#include <cpuid.h>
#include <perfmon/pfmlib.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/util.h"
#include "scripts/gen/pfm-p6-family.h"

#define MAX_UMASKS 32
#define MAX_STRING 512

/* Modifiers in and out of range, alone and together; the P6 family takes u, k, e, i, c. */
static const char *const modifier_forms[] = {
	"", ":u", ":k", ":u=0", ":k=0", ":u=1:k=0", ":u=0:k=1", ":u:k", ":e", ":e=0", ":e:c=1",
	":i", ":i=0", ":i:c=1", ":c=1", ":c=3", ":c=255", ":e:i:c=2", ":u:e:c=4", ":k:i=1:c=7",
	":t", ":c=256", ":u=2",
};

/* Strings libpfm4 should reject, after the event alone. */
static const char *const bad_forms[] = {
	":NO_SUCH_UMASK", ":c", ":e=2", ":i=2", ":h", ":g", ":ldlat=3", "::",
};

static unsigned nstrings, naccepted;

static void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "pfm-p6-reference: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(1);
}

/* One reference line: the string and libpfm4's encoding of it. */
static void put(const char *fmt, ...)
{
	char s[MAX_STRING];
	va_list ap;
	va_start(ap, fmt);
	int len = vsnprintf(s, sizeof(s), fmt, ap);
	va_end(ap);
	if (len < 0 || (size_t)len >= sizeof(s))
		die("string too long: %s", s);
	uint64_t codes[4] = { 0 };
	pfm_pmu_encode_arg_t arg;
	memset(&arg, 0, sizeof(arg));
	arg.size = sizeof(arg);
	arg.codes = codes;
	arg.count = 4;
	int ok = pfm_get_os_event_encoding(s, PFM_PLM0 | PFM_PLM3, PFM_OS_NONE, &arg) == PFM_SUCCESS;
	int count = ok ? arg.count : 0;
	printf("%s %d %llx %llx\n", s, count, (unsigned long long)codes[0],
	       (unsigned long long)(count > 1 ? codes[1] : 0));
	nstrings++;
	naccepted += ok;
}

static void put_forms(const char *base)
{
	for (unsigned f = 0; f < ARRAY_SIZE(modifier_forms); f++)
		put("%s%s", base, modifier_forms[f]);
}

/* The event's unit-mask names, in libpfm4's order. */
static unsigned umask_names(const char *pmu, const pfm_event_info_t *ei, char names[][128])
{
	unsigned n = 0;
	for (int a = 0; a < ei->nattrs; a++) {
		pfm_event_attr_info_t ai;
		memset(&ai, 0, sizeof(ai));
		ai.size = sizeof(ai);
		if (pfm_get_event_attr_info(ei->idx, a, PFM_OS_NONE, &ai) != PFM_SUCCESS)
			die("%s::%s: attribute %d unreadable", pmu, ei->name, a);
		if (ai.type != PFM_ATTR_UMASK)
			continue;
		if (n == MAX_UMASKS)
			die("%s::%s: more than %d unit masks", pmu, ei->name, MAX_UMASKS);
		snprintf(names[n++], 128, "%s", ai.name);
	}
	return n;
}

/* base with the unit masks um[pick[0..k-1]], each set in every modifier form. */
static void put_umask_set(const char *base, char um[][128], const unsigned *pick, unsigned k)
{
	char s[MAX_STRING];
	size_t len = (size_t)snprintf(s, sizeof(s), "%s", base);
	for (unsigned i = 0; i < k && len < sizeof(s); i++)
		len += (size_t)snprintf(s + len, sizeof(s) - len, ":%s", um[pick[i]]);
	if (len >= sizeof(s))
		die("string too long: %s", s);
	put_forms(s);
}

static void event_strings(const char *pmu, const pfm_event_info_t *ei)
{
	char um[MAX_UMASKS][128], base[MAX_STRING];
	unsigned n = umask_names(pmu, ei, um);
	snprintf(base, sizeof(base), "%s::%s", pmu, ei->name);
	put_forms(base);
	for (unsigned a = 0; a < n; a++) {
		put_umask_set(base, um, (unsigned[]){ a }, 1);
		for (unsigned b = a + 1; b < n; b++) {
			put_umask_set(base, um, (unsigned[]){ a, b }, 2);
			for (unsigned c = b + 1; c < n; c++)
				put_umask_set(base, um, (unsigned[]){ a, b, c }, 3);
		}
	}
	for (unsigned f = 0; f < ARRAY_SIZE(bad_forms); f++)
		put("%s%s", base, bad_forms[f]);
}

/* libpfm4's id of the core PMU called name, or -1. */
static int pmu_id(const char *name, pfm_pmu_info_t *pi)
{
	for (int p = 0; p < PFM_PMU_MAX; p++) {
		memset(pi, 0, sizeof(*pi));
		pi->size = sizeof(*pi);
		if (pfm_get_pmu_info(p, pi) == PFM_SUCCESS && pi->type == PFM_PMU_TYPE_CORE &&
		    !strcmp(pi->name, name))
			return p;
	}
	return -1;
}

static void encodings(void)
{
	for (unsigned i = 0; i < ARRAY_SIZE(p6_family); i++) {
		const char *pmu = p6_family[i].name;
		setenv("LIBPFM_FORCE_PMU", pmu, 1);
		pfm_terminate();
		pfm_pmu_info_t pi;
		if (pfm_initialize() != PFM_SUCCESS || pmu_id(pmu, &pi) < 0 || !pi.is_present)
			die("libpfm4 here has no PMU %s: build against libpfm4:i386 (scripts/install-deps)", pmu);
		unsigned before = nstrings, nev = 0;
		for (int e = pi.first_event; e != -1; e = pfm_get_event_next(e)) {
			pfm_event_info_t ei;
			memset(&ei, 0, sizeof(ei));
			ei.size = sizeof(ei);
			if (pfm_get_event_info(e, PFM_OS_NONE, &ei) != PFM_SUCCESS)
				die("%s: event %d unreadable", pmu, e);
			event_strings(pmu, &ei);
			nev++;
		}
		put("%s::NO_SUCH_EVENT_XYZ", pmu);
		fprintf(stderr, "pfm-p6-reference: %-8s %3u events, %6u strings\n", pmu, nev,
			nstrings - before);
	}
	fprintf(stderr, "pfm-p6-reference: %u strings, %u accepted by libpfm4\n", nstrings, naccepted);
}

/* CPUID leaf 1's display family and model (SDM Vol. 2A, CPUID, Figure 3-6). */
static void detect(void)
{
	unsigned eax, ebx, ecx, edx;
	if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx))
		die("no CPUID leaf 1");
	unsigned family = eax >> 8 & 0xf, model = eax >> 4 & 0xf;
	if (family == 0xf)
		family += eax >> 20 & 0xff;
	if (family == 0x6 || family >= 0xf)
		model |= (eax >> 16 & 0xf) << 4;
	unsetenv("LIBPFM_FORCE_PMU");
	if (pfm_initialize() != PFM_SUCCESS)
		die("pfm_initialize failed");
	printf("detect %u %u", family, model);
	unsigned found = 0;
	for (int p = 0; p < PFM_PMU_MAX; p++) {
		pfm_pmu_info_t pi;
		memset(&pi, 0, sizeof(pi));
		pi.size = sizeof(pi);
		if (pfm_get_pmu_info(p, &pi) == PFM_SUCCESS && pi.type == PFM_PMU_TYPE_CORE && pi.is_present) {
			printf(" %s", pi.name);
			found++;
		}
	}
	printf("%s\n", found ? "" : " -");
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "encodings"))
		encodings();
	else if (argc == 2 && !strcmp(argv[1], "detect"))
		detect();
	else {
		fprintf(stderr, "usage: pfm-p6-reference encodings|detect\n");
		return 2;
	}
	return 0;
}
