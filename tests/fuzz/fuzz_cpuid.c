/*
 * libFuzzer target: the CPUID dump reader (cpuid_dump_parse, lib/cpuinfo.c) and what
 * scripts/host/bareperf-cpuid does with its result: decode through cpuid_dump_read,
 * print the report, and pick the PMU model as the kernel does. The input is the file's
 * bytes, not NUL-terminated. Checks: the entry count stays within CPUID_DUMP_MAX and
 * matches the return value, a failure says why, report lines are key=value, and a
 * PMU model is always found (pmu_model_for_cpu never returns NULL).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/cpuid-dump.h"
#include "lib/cpuinfo.h"
#include "lib/event.h"

static void fail(const char *what, const char *detail)
{
	fprintf(stderr, "fuzz_cpuid: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
	abort();
}

static void check_line(void *ctx, const char *line)
{
	const char *eq = strchr(line, '=');

	(void)ctx;
	if (eq == NULL || eq == line || strchr(line, '\n'))
		fail("report line is not key=value", line);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct cpuid_dump dump;
	struct cpu_info ci;
	struct pmu_caps pc;
	char err[160];

	err[0] = '\0';
	int n = cpuid_dump_parse(&dump, (const char *)data, size, err, sizeof(err));
	if (n < 0) {
		if (err[0] == '\0')
			fail("rejected without a message", NULL);
		return 0;
	}
	if (n == 0 || (unsigned)n != dump.count || dump.count > CPUID_DUMP_MAX)
		fail("entry count wrong", NULL);
	for (unsigned i = 1; i < dump.count; i++)
		if (dump.e[i].leaf == 0)
			fail("a second leaf 0 did not end the first CPU", NULL);

	cpuinfo_decode(cpuid_dump_read, &dump, &ci, &pc);
	if (!memchr(ci.vendor_id, '\0', sizeof(ci.vendor_id)) ||
	    !memchr(ci.brand, '\0', sizeof(ci.brand)) ||
	    !memchr(ci.hv_vendor, '\0', sizeof(ci.hv_vendor)))
		fail("decoded string not terminated", NULL);
	if (pc.kind >= PMU_KIND_COUNT || ci.threads_per_core < 1)
		fail("PMU kind or threads per core out of range", NULL);
	cpuinfo_report(&ci, &pc, check_line, NULL);

	const struct pmu_model *m = pmu_model_for_cpu(&ci, &pc);
	if (m == NULL || m->pfm_name == NULL)
		fail("no PMU model for this CPU", NULL);
	return 0;
}
