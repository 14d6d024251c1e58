/*
 * libFuzzer target: results_area_find, results_identity_parse and results_header_parse
 * (lib/results-area.c), what the kernel runs on a medium's MBR, FAT32 volume and results
 * area before it writes anything. The input is a sparse medium:
 *   byte 0        bit 0: 4096-byte sectors, else 512
 *   bytes 1..4    the medium's size in sectors (little-endian; at most 1 << 24)
 *   then chunks   lba (le32), length (le16, at most a sector), that many bytes from the
 *                 start of that sector; the first chunk for a sector counts
 * Sectors no chunk names read as zeros; a read past the medium's end fails, as a read
 * past a disk's end does. The whole input is also parsed as IDENTITY text and its first
 * RESULTS_HEADER_BYTES as a slot header. Checks: a failure always says why; a found area
 * has every slot inside the medium, of RESULTS_SLOT_BYTES, none overlapping another or
 * IDENTITY; a header that parses formats back to the same header.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/results-area.h"

#define MAX_SECTORS (1u << 24)

struct medium {
	const uint8_t *data;
	size_t size;
	uint32_t ss;
	uint64_t sectors;
};

static void fail(const char *what, const char *detail)
{
	fprintf(stderr, "fuzz_results: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
	abort();
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static bool medium_read(void *ctx, uint64_t lba, uint32_t count, void *buf)
{
	const struct medium *m = ctx;

	if (lba >= m->sectors || count > m->sectors - lba)
		return false;
	memset(buf, 0, (size_t)count * m->ss);
	for (uint32_t k = 0; k < count; k++) {
		for (size_t p = 5; p + 6 <= m->size;) {
			uint32_t at = le32(m->data + p), len = m->data[p + 4] | m->data[p + 5] << 8;
			p += 6;
			if (len > m->ss || len > m->size - p)
				break;
			if (at == lba + k) {
				memcpy((uint8_t *)buf + (size_t)k * m->ss, m->data + p, len);
				break;
			}
			p += len;
		}
	}
	return true;
}

static bool overlap(const struct results_extent *a, const struct results_extent *b)
{
	return a->lba < b->lba + b->sectors && b->lba < a->lba + a->sectors;
}

static void check_area(const struct medium *m, const struct results_area *a)
{
	for (unsigned i = 0; i < RESULTS_SLOTS; i++) {
		const struct results_extent *s = &a->slot[i];
		if (s->sectors != RESULTS_SLOT_BYTES / m->ss)
			fail("a slot of the wrong size was accepted", NULL);
		if (s->lba == 0 || s->lba + s->sectors > m->sectors)
			fail("a slot outside the medium was accepted", NULL);
		if (overlap(s, &a->identity))
			fail("a slot overlapping IDENTITY was accepted", NULL);
		for (unsigned j = 0; j < i; j++)
			if (overlap(s, &a->slot[j]))
				fail("two overlapping slots were accepted", NULL);
	}
}

static void check_header(const uint8_t *data, size_t size)
{
	static uint8_t buf[RESULTS_HEADER_BYTES], again[RESULTS_HEADER_BYTES];
	struct results_header h, back;
	char err[160] = "";

	memset(buf, 0, sizeof(buf));
	memcpy(buf, data, size < sizeof(buf) ? size : sizeof(buf));
	enum results_state st = results_header_parse(buf, &h, err, sizeof(err));
	if (st == RESULTS_DAMAGED && err[0] == '\0')
		fail("a damaged header without a reason", NULL);
	if (st != RESULTS_WRITING && st != RESULTS_COMPLETE)
		return;
	results_header_format(again, &h);
	if (results_header_parse(again, &back, err, sizeof(err)) != st || memcmp(&back, &h, sizeof(h)) != 0)
		fail("a parsed header does not format back to itself", err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t scratch[RESULTS_SCRATCH_BYTES];
	struct results_identity ident;
	struct results_area area;
	char err[160] = "";

	check_header(data, size);
	if (results_identity_parse((const char *)data, size, &ident, err, sizeof(err)) != 0 && err[0] == '\0')
		fail("IDENTITY refused without a reason", NULL);
	if (size < 5)
		return 0;
	struct medium m = { data, size, data[0] & 1 ? 4096 : 512, le32(data + 1) };
	if (m.sectors > MAX_SECTORS)
		return 0;
	err[0] = '\0';
	if (results_area_find(medium_read, &m, m.ss, m.sectors, scratch, &area, err, sizeof(err)) == 0)
		check_area(&m, &area);
	else if (err[0] == '\0')
		fail("the area refused without a reason", NULL);
	return 0;
}
