/* Where the host tests find their data: in the repository, relative to its root (the
 * tests run from there). Nothing outside the repository is read. */
#ifndef TESTS_UNIT_TEST_DATA_H
#define TESTS_UNIT_TEST_DATA_H

#define TEST_DATA_DIR "tests/data/"
#define TEST_CPUID_DIR TEST_DATA_DIR "cpuid/"

#endif
