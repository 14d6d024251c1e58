/* Where the host tests find their data: in the repository, relative to its root (the
 * tests run from there). Nothing outside the repository is read. */
#ifndef TESTS_UNIT_TEST_DATA_H
#define TESTS_UNIT_TEST_DATA_H

#define TEST_DATA_DIR "tests/data/"
#define TEST_CPUID_DIR TEST_DATA_DIR "cpuid/"

#include <stddef.h>
#include "lib/cpuid-dump.h"
#include "lib/cpuinfo.h"

/* A file's bytes in an exactly sized buffer (so ASan sees any read past its end), to free;
 * the test fails when it cannot be read. */
char *test_slurp(const char *path, size_t *len);
/* A parsed CPUID dump, to free; the test fails (naming what) when it does not parse. */
struct cpuid_dump *test_parse_dump(const char *what, const char *text, size_t len);
struct cpuid_dump *test_load_dump(const char *path);

#endif
