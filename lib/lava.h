/*
 * LAVA's test-case signal lines (docs/lava.md): "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=id
 * RESULT=pass|fail|skip [MEASUREMENT=m UNITS=u]>", one per result, check and self-test
 * case, for a LAVA monitor to turn into test cases. Pure: formatting and the ids alone.
 *
 * An id is in the form LAVA's monitor stores anyway (lava_dispatcher/actions/test/
 * monitor.py lowercases it and turns each run of non-word characters into "_"): lower
 * case letters, digits and "_", at most LAVA_ID_MAX characters. So it has no space and no
 * '>' whatever a name holds, and two ids that differ here differ in LAVA too.
 */
#ifndef LIB_LAVA_H
#define LIB_LAVA_H
#include <stddef.h>
#include <stdint.h>

#define LAVA_ID_MAX 100         /* characters of an id, its "_N" suffix included */
/* The longest line lava_testcase_line writes, its newline and NUL included. */
#define LAVA_LINE_MAX (LAVA_ID_MAX + 160)

enum lava_result { LAVA_PASS, LAVA_FAIL, LAVA_SKIP };

/*
 * Appends text to the id in id[] (NUL-terminated, at most LAVA_ID_MAX characters):
 * ASCII letters lowered, digits and '_' kept, every run of other bytes one '_'; an "_"
 * between it and what id[] held, unless either side is empty. What does not fit is cut.
 * Returns the id's length.
 */
size_t lava_id_add(char id[LAVA_ID_MAX + 1], const char *text);

/*
 * The ids given out in one run, as 64-bit hashes in a table the caller owns (nslots
 * slots, a power of two). Hashes only: two ids with one hash make the second take a
 * suffix it did not need, never two equal ids.
 */
struct lava_ids {
	uint64_t *slots;
	unsigned nslots, used;
};
void lava_ids_init(struct lava_ids *ids, uint64_t *slots, unsigned nslots);
/* How many ids the table takes: three quarters of its slots. */
unsigned lava_ids_capacity(const struct lava_ids *ids);

/*
 * Makes id[] unique within the run and records it: unchanged when new, else with the
 * first of "_2", "_3", ... that is (cutting the id to keep LAVA_ID_MAX). 0, or -1 when the
 * table is full (id[] is then not to be used).
 */
int lava_id_claim(struct lava_ids *ids, char id[LAVA_ID_MAX + 1]);

/*
 * The signal line for one case, newline included, into buf: MEASUREMENT and UNITS only
 * when measurement is given (not NULL or ""); both made safe as an id is, '.', '/', '-'
 * and '+' kept; no units reads "none". An id that comes out empty reads "unnamed". Returns the length, or -1 when buf is too small (then "").
 */
int lava_testcase_line(char *buf, size_t len, const char *id, enum lava_result result,
		       const char *measurement, const char *units);

/* The opening and closing lines of a run's cases, the monitor's start and end. */
#define LAVA_START_LINE "<LAVA_SIGNAL_STARTRUN bareperf>"
#define LAVA_END_LINE   "<LAVA_SIGNAL_ENDRUN bareperf>"

#endif
