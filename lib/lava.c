/* LAVA test-case signal lines and their ids (lib/lava.h, docs/lava.md). */
#include "lib/lava.h"
#include <stdbool.h>
#include "lib/format.h"
#include "lib/str.h"

/* A character LAVA's monitor keeps in an id (Python's \w, ASCII). */
static bool id_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

static char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

size_t lava_id_add(char id[LAVA_ID_MAX + 1], const char *text)
{
	size_t n = strnlen(id, LAVA_ID_MAX);
	bool gap = n > 0;           /* an "_" is owed before the next kept character */

	for (const unsigned char *p = (const unsigned char *)text; *p && n < LAVA_ID_MAX; p++) {
		if (!id_char(*p)) {
			gap = n > 0;
			continue;
		}
		if (gap)
			id[n++] = '_';
		gap = false;
		if (n < LAVA_ID_MAX)
			id[n++] = lower((char)*p);
	}
	id[n] = '\0';
	return n;
}

void lava_ids_init(struct lava_ids *ids, uint64_t *slots, unsigned nslots)
{
	ids->slots = slots;
	ids->nslots = nslots;
	ids->used = 0;
	memset(slots, 0, nslots * sizeof(*slots));
}

unsigned lava_ids_capacity(const struct lava_ids *ids)
{
	return ids->nslots / 4 * 3;
}

/* FNV-1a, 64 bits; 0 marks an empty slot, so it is never a hash. */
static uint64_t id_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;
	while (*s)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ull;
	return h ? h : 1;
}

/* Whether hash h is in the table; when not, *slot is where it goes (linear probing). */
static bool ids_find(const struct lava_ids *ids, uint64_t h, unsigned *slot)
{
	unsigned mask = ids->nslots - 1;
	for (unsigned i = (unsigned)h & mask;; i = (i + 1) & mask) {
		if (ids->slots[i] == h)
			return true;
		if (ids->slots[i] == 0) {
			*slot = i;
			return false;
		}
	}
}

int lava_id_claim(struct lava_ids *ids, char id[LAVA_ID_MAX + 1])
{
	char base[LAVA_ID_MAX + 1], suffix[16];
	unsigned slot;

	if (ids->used >= lava_ids_capacity(ids))
		return -1;
	str_copy(base, id, sizeof(base));
	/* The table holds fewer ids than "_N" can number: one of them is free. */
	for (unsigned n = 2; ids_find(ids, id_hash(id), &slot); n++) {
		size_t slen = (size_t)bp_snprintf(suffix, sizeof(suffix), "_%u", n);
		size_t keep = strnlen(base, LAVA_ID_MAX);
		if (keep > LAVA_ID_MAX - slen)
			keep = LAVA_ID_MAX - slen;
		memcpy(id, base, keep);
		memcpy(id + keep, suffix, slen + 1);
	}
	ids->slots[slot] = id_hash(id);
	ids->used++;
	return 0;
}

/* A measurement or unit made safe for the line: the characters of an id, '.', '/', '-'
 * and '+' kept, others '_'; at most max characters. */
static void safe_value(char *dst, size_t max, const char *src)
{
	size_t n = 0;
	for (const unsigned char *p = (const unsigned char *)src; *p && n < max; p++)
		dst[n++] = id_char(*p) || *p == '.' || *p == '/' || *p == '-' || *p == '+'
				   ? (char)*p : '_';
	dst[n] = '\0';
}

int lava_testcase_line(char *buf, size_t len, const char *id, enum lava_result result,
		       const char *measurement, const char *units)
{
	static const char *const names[] = { [LAVA_PASS] = "pass", [LAVA_FAIL] = "fail",
					     [LAVA_SKIP] = "skip" };
	char safe_id[LAVA_ID_MAX + 1] = "", m[40], u[40];
	int n;

	/* Ids come made already: this only guards the line, which an empty field breaks. */
	if (!lava_id_add(safe_id, id))
		str_copy(safe_id, "unnamed", sizeof(safe_id));
	if (measurement && *measurement) {
		safe_value(m, sizeof(m) - 1, measurement);
		safe_value(u, sizeof(u) - 1, units && *units ? units : "none");
		n = bp_snprintf(buf, len, "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=%s RESULT=%s "
				"MEASUREMENT=%s UNITS=%s>\n", safe_id, names[result], m, u);
	} else {
		n = bp_snprintf(buf, len, "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=%s RESULT=%s>\n",
				safe_id, names[result]);
	}
	if (n < 0 || (size_t)n >= len) {
		if (len)
			buf[0] = '\0';
		return -1;
	}
	return n;
}
