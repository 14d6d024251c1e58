/* The libFuzzer targets in one binary (build/fuzz/fuzzers): one link, where a binary per
 * target took seven. Each tests/fuzz/fuzz_NAME.c is compiled with its LLVMFuzzerTestOneInput
 * renamed fuzz_NAME_one (Makefile), and build/fuzz/fuzz_NAME is a symbolic link to this
 * binary, which runs the target that its name (argv[0]) says. libFuzzer's flags are as for a
 * binary of its own: build/fuzz/fuzz_config -runs=1000 DIR.
 * The Makefile generates the list, build/gen/tests/fuzz/target-list.h: TARGET(NAME) lines. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TARGET(name) int fuzz_##name##_one(const uint8_t *data, size_t size);
#include "tests/fuzz/target-list.h"
#undef TARGET

static const struct {
	const char *name;
	int (*one)(const uint8_t *data, size_t size);
} targets[] = {
#define TARGET(name) { "fuzz_" #name, fuzz_##name##_one },
#include "tests/fuzz/target-list.h"
#undef TARGET
};

static int (*chosen)(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *name = *argc > 0 ? (*argv)[0] : "";
	const char *slash = strrchr(name, '/');
	size_t n = sizeof targets / sizeof targets[0];

	if (slash)
		name = slash + 1;
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(name, targets[i].name)) {
			chosen = targets[i].one;
			return 0;
		}
	}
	fprintf(stderr, "fuzzers: no target named '%s'; run it by a target's link, one of:", name);
	for (size_t i = 0; i < n; i++)
		fprintf(stderr, " build/fuzz/%s", targets[i].name);
	fprintf(stderr, "\n");
	exit(2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return chosen(data, size);
}
