/*
 * lib/results-area.c: the results area found and checked on images made by
 * scripts/mkimage and damaged with mtools (tests/unit/results-images, built into
 * RESULTS_IMG_DIR by the Makefile), the slot header and the slot choice.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "lib/results-area.h"

#ifndef RESULTS_IMG_DIR
#error "RESULTS_IMG_DIR: the folder tests/unit/results-images fills"
#endif

struct disk {
	FILE *f;
	uint32_t ss;
	uint64_t sectors;
	unsigned reads;
	unsigned fail_at;           /* the read number that fails, 0 = none */
	uint64_t sector[128];       /* the first sectors read, in order */
	unsigned nsectors;
	unsigned rereads;           /* reads of a sector read before */
};

static bool disk_read(void *ctx, uint64_t lba, uint32_t count, void *buf)
{
	struct disk *d = ctx;

	for (uint64_t s = lba; s - lba < count; s++) {
		for (unsigned i = 0; i < d->nsectors; i++)
			d->rereads += d->sector[i] == s;
		if (d->nsectors < sizeof(d->sector) / sizeof(d->sector[0]))
			d->sector[d->nsectors++] = s;
	}
	if (++d->reads == d->fail_at || lba >= d->sectors || count > d->sectors - lba)
		return false;
	if (fseek(d->f, (long)(lba * d->ss), SEEK_SET) != 0)
		return false;
	return fread(buf, d->ss, count, d->f) == count;
}

static void disk_open(struct disk *d, const char *name, uint32_t ss)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", RESULTS_IMG_DIR, name);
	memset(d, 0, sizeof(*d));
	d->f = fopen(path, "rb");
	if (!d->f)
		fail_msg("cannot open %s (make the test's images: tests/unit/results-images)", path);
	fseek(d->f, 0, SEEK_END);
	d->ss = ss;
	d->sectors = (uint64_t)ftell(d->f) / ss;
}

/* results_area_find on the image; returns its result, err holds the reason. */
static int find(const char *name, uint32_t ss, struct results_area *a, char *err, size_t errlen)
{
	static uint8_t scratch[RESULTS_SCRATCH_BYTES];
	struct disk d;

	disk_open(&d, name, ss);
	err[0] = '\0';
	int r = results_area_find(disk_read, &d, d.ss, d.sectors, scratch, a, err, errlen);
	fclose(d.f);
	return r;
}

static void expect_refused(const char *name, uint32_t ss, const char *why)
{
	struct results_area a;
	char err[160];

	if (find(name, ss, &a, err, sizeof(err)) == 0)
		fail_msg("%s was accepted; want refused with '%s'", name, why);
	if (!strstr(err, why))
		fail_msg("%s refused with '%s'; want '%s'", name, err, why);
}

/* The slots as mkimage lays them out: one after another, each SLOT_BYTES, and IDENTITY's
 * bytes as written. */
static void test_base_image(void **state)
{
	struct results_area a;
	char err[160];
	(void)state;

	assert_int_equal(find("base.img", 512, &a, err, sizeof(err)), 0);
	assert_int_equal(a.sector_size, 512);
	for (unsigned i = 0; i < RESULTS_SLOTS; i++) {
		assert_int_equal(a.slot[i].sectors, RESULTS_SLOT_BYTES / 512);
		assert_true(a.slot[i].lba >= 2048 && a.slot[i].lba + a.slot[i].sectors <= 64 * 2048);
		if (i)
			assert_true(a.slot[i].lba >= a.slot[i - 1].lba + a.slot[i - 1].sectors);
	}
	/* The identity read from IDENTITY's sectors equals what a plain search finds. */
	struct disk d;
	disk_open(&d, "base.img", 512);
	char text[RESULTS_IDENTITY_BYTES];
	fseek(d.f, (long)(a.identity.lba * 512), SEEK_SET);
	assert_int_equal(fread(text, 1, sizeof(text), d.f), sizeof(text));
	fclose(d.f);
	assert_memory_equal(text, "bareperf results area 1\nimage: ", 31);
	char hex[33];
	for (unsigned i = 0; i < RESULTS_ID_BYTES; i++)
		snprintf(hex + 2 * i, 3, "%02x", a.id[i]);
	assert_memory_equal(text + 31, hex, 32);
}

static void test_4k_sectors(void **state)
{
	struct results_area a;
	char err[160];
	static const uint8_t id[RESULTS_ID_BYTES] = { 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
						      0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff };
	(void)state;

	if (find("4k.img", 4096, &a, err, sizeof(err)))
		fail_msg("4k.img refused: %s", err);
	assert_int_equal(a.sector_size, 4096);
	assert_memory_equal(a.id, id, sizeof(id));
	for (unsigned i = 0; i < RESULTS_SLOTS; i++)
		assert_int_equal(a.slot[i].sectors, RESULTS_SLOT_BYTES / 4096);
	/* The same medium read as 512-byte sectors: the MBR's LBAs miss the FAT. */
	expect_refused("4k.img", 512, "partition 1 has no FAT boot sector");
	expect_refused("base.img", 4096, "does not fit the medium's 16384 sectors");
}

/* Each sector is read once, the results folder's too, though the search goes through it
 * once per file, and the FAT, 64 sectors of it here, in a few reads (a read is a USB
 * transfer on a stick). */
static void test_each_sector_read_once(void **state)
{
	static uint8_t scratch[RESULTS_SCRATCH_BYTES];
	static const struct { const char *name; uint32_t ss; } media[] = { { "base.img", 512 }, { "4k.img", 4096 } };
	struct results_area a;
	char err[160];
	(void)state;

	for (unsigned i = 0; i < sizeof(media) / sizeof(media[0]); i++) {
		struct disk d;
		disk_open(&d, media[i].name, media[i].ss);
		if (results_area_find(disk_read, &d, d.ss, d.sectors, scratch, &a, err, sizeof(err)))
			fail_msg("%s refused: %s", media[i].name, err);
		fclose(d.f);
		if (d.reads > 16 || d.rereads)
			fail_msg("%s: %u reads, %u of a sector read before", media[i].name, d.reads, d.rereads);
	}
}

static void test_damaged_images(void **state)
{
	(void)state;
	expect_refused("moved.img", 512, "/bareperf/results/run05.log was moved");
	expect_refused("fragmented.img", 512, "/bareperf/results/run02.log is not one contiguous run");
	expect_refused("resized.img", 512, "/bareperf/results/run06.log is 4096 bytes, not 524288");
	expect_refused("deleted.img", 512, "no file /bareperf/results/run07.log");
	expect_refused("nofolder.img", 512, "no folder /bareperf");
	expect_refused("truncated.img", 512, "does not fit the medium's 65536 sectors");
}

/* Each nonsense BPB field is named with its value, not reported as a size that does not fit. */
static void test_bpb_fields(void **state)
{
	(void)state;
	expect_refused("fatcount.img", 512, "FAT count 255 (1 or 2 expected)");
	expect_refused("fatsize.img", 512, "FAT32 FAT size 4294967295 sectors (2 FATs after 32 reserved sectors) "
		       "leaves no data sectors in the volume's");
	expect_refused("spc.img", 512, "FAT sectors per cluster 3 (a power of 2 from 1 to 128)");
	expect_refused("rsvd.img", 512, "FAT reserved sector count 0");
	expect_refused("totsec.img", 512, "FAT32 total sector count 0");
}

/* Two slots on one cluster run, or a slot on a folder's cluster: writing one would overwrite
 * the other. */
static void test_shared_clusters(void **state)
{
	(void)state;
	expect_refused("shared.img", 512, "shares clusters with /bareperf/results/run01.log (");
	expect_refused("shared.img", 512, "/bareperf/results/run02.log (clusters ");
	expect_refused("dirshare.img", 512, "/bareperf/results/run08.log (clusters ");
	expect_refused("dirshare.img", 512, "shares clusters with the folder /bareperf/results (");
}

/* A medium too small for the area is refused as such, whatever its size (a 1-sector stick). */
static void test_tiny_medium(void **state)
{
	static uint8_t scratch[RESULTS_SCRATCH_BYTES];
	static const struct { uint64_t sectors; uint32_t ss; const char *why; } tiny[] = {
		{ 1, 512, "the medium's 1 sector of 512 bytes cannot hold a results area (4198912 bytes at least)" },
		{ 2, 512, "the medium's 2 sectors of 512 bytes cannot hold" },
		{ 8000, 512, "the medium's 8000 sectors of 512 bytes cannot hold" },
		{ 1, 4096, "the medium's 1 sector of 4096 bytes cannot hold" },
	};
	struct results_area a;
	char err[160];
	(void)state;

	for (size_t i = 0; i < sizeof(tiny) / sizeof(tiny[0]); i++) {
		struct disk d;
		disk_open(&d, tiny[i].ss == 512 ? "base.img" : "4k.img", tiny[i].ss);
		d.sectors = tiny[i].sectors;
		err[0] = '\0';
		assert_int_equal(results_area_find(disk_read, &d, d.ss, d.sectors, scratch, &a, err, sizeof(err)), -1);
		fclose(d.f);
		if (!strstr(err, tiny[i].why))
			fail_msg("%llu sectors: '%s', want '%s'", (unsigned long long)tiny[i].sectors, err, tiny[i].why);
		assert_int_equal(d.reads, 0);
	}
}

/* Another identity parses: telling it from this image's is the caller's comparison. */
static void test_other_identity(void **state)
{
	struct results_area a, b;
	char err[160];
	(void)state;

	assert_int_equal(find("otherid.img", 512, &a, err, sizeof(err)), 0);
	assert_int_equal(find("base.img", 512, &b, err, sizeof(err)), 0);
	assert_memory_not_equal(a.id, b.id, RESULTS_ID_BYTES);
	assert_memory_equal(a.id, "\x01\x23\x45\x67\x89\xab\xcd\xef\x01\x23\x45\x67\x89\xab\xcd\xef", 16);
}

/* Every read failing in turn gives an error naming what was read, never a crash. */
static void test_read_errors(void **state)
{
	static uint8_t scratch[RESULTS_SCRATCH_BYTES];
	struct results_area a;
	struct disk d;
	char err[160];
	(void)state;

	disk_open(&d, "base.img", 512);
	assert_int_equal(results_area_find(disk_read, &d, 512, d.sectors, scratch, &a, err, sizeof(err)), 0);
	unsigned total = d.reads;
	assert_true(total > 10);
	for (unsigned k = 1; k <= total; k++) {
		d.reads = 0;
		d.fail_at = k;
		err[0] = '\0';
		assert_int_equal(results_area_find(disk_read, &d, 512, d.sectors, scratch, &a, err, sizeof(err)), -1);
		if (!strstr(err, "cannot read sector"))
			fail_msg("read %u failing: '%s'", k, err);
	}
	fclose(d.f);
	assert_int_equal(results_area_find(disk_read, &d, 1000, 100, scratch, &a, err, sizeof(err)), -1);
	assert_string_equal(err, "sector size 1000 is neither 512 nor 4096");
}

static void test_identity_text(void **state)
{
	struct results_identity id;
	char err[160];
	(void)state;
	static const char good[] = "bareperf results area 1\nimage: 00112233445566778899aabbccddeeff\n"
		"slots: 8\nslot-bytes: 524288\nclusters: 2 3 4 5 6 7 8 9\n";

	assert_int_equal(results_identity_parse(good, sizeof(good), &id, err, sizeof(err)), 0);
	assert_int_equal(id.cluster[7], 9);
	static const struct { const char *text, *why; } bad[] = {
		{ "bareperf results area 2\n", "does not start with" },
		{ "bareperf results area 1\nimage: 0011\n", "image is not 32 hex digits" },
		{ "bareperf results area 1\nimage: 00112233445566778899aabbccddeeff\nslots: 9\n", "slots '9'" },
		{ "bareperf results area 1\nimage: 00112233445566778899aabbccddeeff\nslots: 8\n"
		  "slot-bytes: 4096\n", "slot-bytes '4096'" },
		{ "bareperf results area 1\nimage: 00112233445566778899aabbccddeeff\nslots: 8\n"
		  "slot-bytes: 524288\nclusters: 2 3\n", "no number for slot 3" },
		{ "bareperf results area 1\nimage: 00112233445566778899aabbccddeeff\nslots: 8\n"
		  "slot-bytes: 524288\nclusters: 2 3 4 5 6 7 8 9 10\n", "more than 8" },
		{ "bareperf results area 1\nimage: 00112233445566778899aabbccddeeff\nslots: 8\n"
		  "slot-bytes: 524288\nclusters: 0 3 4 5 6 7 8 9\n", "no number for slot 1" },
		{ "bareperf results area 1\nimage: 00112233445566778899aabbccddeeff\n", "no 'slots:' line" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(results_identity_parse(bad[i].text, strlen(bad[i].text), &id, err, sizeof(err)), -1);
		if (!strstr(err, bad[i].why))
			fail_msg("'%s': '%s', want '%s'", bad[i].text, err, bad[i].why);
	}
}

static struct results_header sample_header(void)
{
	struct results_header h = { .state = RESULTS_COMPLETE, .run = 3, .length = 68123, .crc32 = 0x1a2b3c4d };

	for (unsigned i = 0; i < RESULTS_ID_BYTES; i++)
		h.id[i] = (uint8_t)(0x10 * i + i);
	strcpy(h.rtc, "2026-11-26 06:50:16");
	strcpy(h.cpu, "Intel(R) Core(TM) i7-8700 CPU @ 3.20GHz");
	return h;
}

static void test_header_round_trip(void **state)
{
	static uint8_t buf[RESULTS_HEADER_BYTES];
	struct results_header h = sample_header(), back;
	char err[160];
	(void)state;

	results_header_format(buf, &h);
	assert_string_equal((char *)buf, "bareperf run 1\nimage: 00112233445566778899aabbccddeeff\nrun: 3\n"
			    "state: complete\nrtc: 2026-11-26 06:50:16\ncpu: Intel(R) Core(TM) i7-8700 CPU @ 3.20GHz\n"
			    "length: 68123\ncrc32: 1a2b3c4d\nend\n");
	assert_int_equal(results_header_parse(buf, &back, err, sizeof(err)), RESULTS_COMPLETE);
	assert_memory_equal(&back, &h, sizeof(h));
	h.state = RESULTS_WRITING;
	results_header_format(buf, &h);
	assert_int_equal(results_header_parse(buf, &back, err, sizeof(err)), RESULTS_WRITING);
	/* A line break in the CPU name cannot forge a field. */
	strcpy(h.cpu, "x\nlength: 1");
	results_header_format(buf, &h);
	assert_int_equal(results_header_parse(buf, &back, err, sizeof(err)), RESULTS_WRITING);
	assert_string_equal(back.cpu, "x?length: 1");
	assert_int_equal(back.length, 68123);
}

static void test_header_damage(void **state)
{
	static uint8_t buf[RESULTS_HEADER_BYTES];
	struct results_header h = sample_header(), back;
	char err[160];
	(void)state;

	memset(buf, 0, sizeof(buf));
	assert_int_equal(results_header_parse(buf, &back, err, sizeof(err)), RESULTS_EMPTY);
	static const struct { const char *from, *to, *why; } edits[] = {
		{ "bareperf run 1", "bareperf run 2", "not a bareperf run header" },
		{ "run: 3", "run: 0", "run is not a number" },
		{ "run: 3", "run: x", "run is not a number" },
		{ "run: 3", "run: 1000000000", "run is not a number from 1 to 999999999" },
		{ "state: complete", "state: finished", "neither complete nor writing" },
		{ "length: 68123", "length: 999999", "length is not a number up to 520192" },
		{ "crc32: 1a2b3c4d", "crc32: 1a2b3c4z", "crc32 is not 8 hex digits" },
		{ "\nend\n", "\nens\n", "no 'end' line" },
		{ "rtc: ", "rtx: ", "where 'rtc:' belongs" },
		{ "(TM) i7", "(TM)\xcbi7", "cpu is not up to 63 printable characters" },
	};
	for (size_t i = 0; i < sizeof(edits) / sizeof(edits[0]); i++) {
		results_header_format(buf, &h);
		char *at = strstr((char *)buf, edits[i].from);
		assert_non_null(at);
		memcpy(at, edits[i].to, strlen(edits[i].to));
		err[0] = '\0';
		assert_int_equal(results_header_parse(buf, &back, err, sizeof(err)), RESULTS_DAMAGED);
		if (!strstr(err, edits[i].why))
			fail_msg("'%s' -> '%s': '%s', want '%s'", edits[i].from, edits[i].to, err, edits[i].why);
	}
	/* Torn by a cut: the header's end is gone. */
	results_header_format(buf, &h);
	memset(strstr((char *)buf, "crc32"), 0, 20);
	assert_int_equal(results_header_parse(buf, &back, err, sizeof(err)), RESULTS_DAMAGED);
}

static void test_crc32(void **state)
{
	(void)state;
	/* The check value of CRC-32/ISO-HDLC (zlib's crc32): "123456789" -> cbf43926. */
	assert_int_equal(results_crc32(0, "123456789", 9), 0xcbf43926u);
	assert_int_equal(results_crc32(results_crc32(0, "1234", 4), "56789", 5), 0xcbf43926u);
	assert_int_equal(results_crc32(0, "", 0), 0);
}

static void test_pick_slot(void **state)
{
	struct results_header hdr[RESULTS_SLOTS];
	struct results_choice c;
	(void)state;

	memset(hdr, 0, sizeof(hdr));
	assert_int_equal(results_pick_slot(hdr, &c), 0);
	assert_int_equal(c.slot, 0);
	assert_int_equal(c.run, 1);
	assert_int_equal(c.replaced_run, 0);

	/* Runs 1..3 in slots 0..2, slot 3 damaged: run 4 goes there. */
	for (unsigned i = 0; i < 3; i++)
		hdr[i] = (struct results_header){ .state = RESULTS_COMPLETE, .run = i + 1 };
	hdr[3].state = RESULTS_DAMAGED;
	results_pick_slot(hdr, &c);
	assert_int_equal(c.slot, 3);
	assert_int_equal(c.run, 4);
	assert_int_equal(c.replaced_run, 0);

	/* All used (one torn): the oldest goes, wherever it is; the number goes on. */
	static const uint32_t runs[RESULTS_SLOTS] = { 9, 10, 11, 12, 5, 6, 7, 8 };
	for (unsigned i = 0; i < RESULTS_SLOTS; i++)
		hdr[i] = (struct results_header){ .state = i == 6 ? RESULTS_WRITING : RESULTS_COMPLETE,
						  .run = runs[i] };
	results_pick_slot(hdr, &c);
	assert_int_equal(c.slot, 4);
	assert_int_equal(c.run, 13);
	assert_int_equal(c.replaced_run, 5);
	hdr[4].run = 13;
	results_pick_slot(hdr, &c);
	assert_int_equal(c.slot, 5);
	assert_int_equal(c.run, 14);
	assert_int_equal(c.replaced_run, 6);
}

/* At the highest run number a header holds the numbers stop, never wrap: the last one is
 * given out, then nothing (whether slots are free or all used). */
static void test_pick_slot_run_max(void **state)
{
	struct results_header hdr[RESULTS_SLOTS];
	struct results_choice c;
	static uint8_t buf[RESULTS_HEADER_BYTES];
	struct results_header back;
	char err[160];
	(void)state;

	memset(hdr, 0, sizeof(hdr));
	hdr[2] = (struct results_header){ .state = RESULTS_COMPLETE, .run = RESULTS_RUN_MAX - 1 };
	assert_int_equal(results_pick_slot(hdr, &c), 0);
	assert_int_equal(c.run, RESULTS_RUN_MAX);
	assert_int_equal(c.slot, 0);
	/* the last number round-trips through a header */
	hdr[0] = (struct results_header){ .state = RESULTS_WRITING, .run = c.run };
	results_header_format(buf, &hdr[0]);
	assert_int_equal(results_header_parse(buf, &back, err, sizeof(err)), RESULTS_WRITING);
	assert_int_equal(back.run, RESULTS_RUN_MAX);
	/* then none is left: the slot holding it is named */
	c.run = 12345;
	assert_int_equal(results_pick_slot(hdr, &c), -1);
	assert_int_equal(c.run, 0);
	assert_int_equal(c.slot, 0);
	for (unsigned i = 0; i < RESULTS_SLOTS; i++)
		hdr[i] = (struct results_header){ .state = RESULTS_COMPLETE, .run = i == 5 ? RESULTS_RUN_MAX : i + 1 };
	assert_int_equal(results_pick_slot(hdr, &c), -1);
	assert_int_equal(c.slot, 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_base_image),
		cmocka_unit_test(test_4k_sectors),
		cmocka_unit_test(test_each_sector_read_once),
		cmocka_unit_test(test_damaged_images),
		cmocka_unit_test(test_bpb_fields),
		cmocka_unit_test(test_shared_clusters),
		cmocka_unit_test(test_tiny_medium),
		cmocka_unit_test(test_other_identity),
		cmocka_unit_test(test_read_errors),
		cmocka_unit_test(test_identity_text),
		cmocka_unit_test(test_header_round_trip),
		cmocka_unit_test(test_header_damage),
		cmocka_unit_test(test_crc32),
		cmocka_unit_test(test_pick_slot),
		cmocka_unit_test(test_pick_slot_run_max),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
