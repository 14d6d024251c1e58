/*
 * bareperf-cpuid FILE: decode a CPUID dump (AIDA64/InstLatx64 text) and print the
 * same key=value detection lines the kernel prints at boot. FILE "-" reads stdin.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/cpuid-dump.h"
#include "lib/cpuinfo.h"
#include "scripts/host/read-dump.h"

#define PROG "bareperf-cpuid"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: " PROG " FILE\n"
		"Decodes a CPUID dump in the AIDA64/InstLatx64 format (lines such as\n"
		"'CPUID 0000000A: 07300804-00000000-00000000-00000603 [SL 00]'; the first\n"
		"logical CPU's block is used) and prints bareperf's CPU and PMU detection as\n"
		"key=value lines. FILE '-' reads standard input.\n");
}

static void print_line(void *ctx, const char *line)
{
	fprintf(ctx, "%s\n", line);
}

int main(int argc, char **argv)
{
	static struct cpuid_dump dump;
	struct cpu_info ci;
	struct pmu_caps pc;
	const char *path;
	char err[160];
	size_t len;
	char *text;
	FILE *f;

	if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		usage(stdout);
		return 0;
	}
	if (argc != 2) {
		if (argc > 2)
			fprintf(stderr, PROG ": expected one FILE, got %d arguments\n", argc - 1);
		usage(stderr);
		return 2;
	}
	path = argv[1];

	errno = 0;
	f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
	if (f == NULL) {
		fprintf(stderr, PROG ": %s: %s\n", path, strerror(errno));
		return 1;
	}
	text = read_dump_text(f, &len);
	if (text == NULL) {
		fprintf(stderr, PROG ": %s: %s\n", path, read_dump_error(errno));
		if (f != stdin)
			fclose(f);
		return 1;
	}
	if (f != stdin)
		fclose(f);

	if (cpuid_dump_parse(&dump, text, len, err, sizeof(err)) < 0) {
		fprintf(stderr, PROG ": %s: %s\n", path, err);
		free(text);
		return 1;
	}
	free(text);

	cpuinfo_decode(cpuid_dump_read, &dump, &ci, &pc);
	cpuinfo_report(&ci, &pc, print_line, stdout);
	if (fflush(stdout) != 0) {
		fprintf(stderr, PROG ": writing output: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}
