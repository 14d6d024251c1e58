/* The one unit-test binary (build/host/tests/unit-suites): every suite of tests/unit that
 * is not a binary of its own, each compiled with its main renamed <suite>_main (Makefile).
 *   unit-suites SUITE   runs that suite (tests/run-all: one job per suite)
 *   unit-suites --list  names them, one a line
 * The Makefile generates their list, build/gen/tests/unit/suite-list.h: SUITE(name) lines. */
#include <stdio.h>
#include <string.h>

#define SUITE(name) int name##_main(void);
#include "tests/unit/suite-list.h"
#undef SUITE

static const struct {
	const char *name;
	int (*main)(void);
} suites[] = {
#define SUITE(name) { #name, name##_main },
#include "tests/unit/suite-list.h"
#undef SUITE
};

int main(int argc, char **argv)
{
	size_t n = sizeof suites / sizeof suites[0];

	if (argc == 2 && !strcmp(argv[1], "--list")) {
		for (size_t i = 0; i < n; i++)
			puts(suites[i].name);
		return 0;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: %s SUITE | --list\n", argv[0]);
		return 2;
	}
	for (size_t i = 0; i < n; i++)
		if (!strcmp(argv[1], suites[i].name))
			return suites[i].main();
	fprintf(stderr, "%s: no suite %s (--list names them)\n", argv[0], argv[1]);
	return 2;
}
