/* Reading the host tests' data files (declared in tests/unit/test_data.h). */
#include "tests/unit/test_data.h"
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

char *test_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (f == NULL)
		fail_msg("cannot open %s (tests run from the repository root)", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc(n > 0 ? (size_t)n : 1);
	assert_non_null(buf);
	if (n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n)
		fail_msg("short read on %s", path);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

struct cpuid_dump *test_parse_dump(const char *what, const char *text, size_t len)
{
	struct cpuid_dump *d = malloc(sizeof(*d));
	char err[128];

	assert_non_null(d);
	if (cpuid_dump_parse(d, text, len, err, sizeof(err)) <= 0)
		fail_msg("%s: %s", what, err);
	return d;
}

struct cpuid_dump *test_load_dump(const char *path)
{
	size_t len;
	char *text = test_slurp(path, &len);
	struct cpuid_dump *d = test_parse_dump(path, text, len);
	free(text);
	return d;
}
