/* lib/ata-identify.c: IDENTIFY DEVICE data as QEMU's disks and real ones give it, and the
 * nonsense a broken device can answer (ACS-3, Table 45). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "lib/ata-identify.h"

static uint16_t id[ATA_IDENTIFY_WORDS];

/* A 64 MiB LBA48 disk named "QEMU HARDDISK", 512-byte sectors. */
static void qemu_disk(void)
{
	static const char model[] = "QEMU HARDDISK                           ";
	memset(id, 0, sizeof(id));
	for (int i = 0; i < 20; i++)
		id[27 + i] = (uint16_t)(model[2 * i] << 8 | model[2 * i + 1]);
	id[49] = 1u << 9;
	id[60] = 0x0000; id[61] = 0x0002;      /* 131072 */
	id[83] = 1u << 10;
	id[100] = 0x0000; id[101] = 0x0002;
}

static void test_qemu_disk(void **state)
{
	struct ata_disk d;
	char err[120];
	(void)state;

	qemu_disk();
	assert_int_equal(ata_identify_parse(id, &d, err, sizeof(err)), 0);
	assert_int_equal(d.sectors, 131072);
	assert_int_equal(d.sector_size, 512);
	assert_true(d.lba48);
	assert_string_equal(d.model, "QEMU HARDDISK");
	/* Without LBA48 the 28-bit count counts. */
	id[83] = 0;
	id[60] = 0x1234; id[61] = 0x0001;
	assert_int_equal(ata_identify_parse(id, &d, err, sizeof(err)), 0);
	assert_int_equal(d.sectors, 0x11234);
	assert_false(d.lba48);
	/* A 48-bit count past 32 bits. */
	qemu_disk();
	id[100] = 0; id[101] = 0; id[102] = 0x0003; id[103] = 0;
	assert_int_equal(ata_identify_parse(id, &d, err, sizeof(err)), 0);
	assert_int_equal(d.sectors, 0x300000000ull);
}

static void test_4k_logical_sectors(void **state)
{
	struct ata_disk d;
	char err[120];
	(void)state;

	qemu_disk();
	id[106] = 0x4000 | 1u << 12;
	id[117] = 2048; id[118] = 0;
	assert_int_equal(ata_identify_parse(id, &d, err, sizeof(err)), 0);
	assert_int_equal(d.sector_size, 4096);
	/* Bit 12 in a word that is not valid (bit 15 set) is ignored. */
	id[106] = 0xC000 | 1u << 12;
	assert_int_equal(ata_identify_parse(id, &d, err, sizeof(err)), 0);
	assert_int_equal(d.sector_size, 512);
}

static void test_nonsense(void **state)
{
	struct ata_disk d;
	char err[120];
	(void)state;

	qemu_disk();
	id[106] = 0x4000 | 1u << 12;
	id[117] = 500; id[118] = 0;
	assert_int_equal(ata_identify_parse(id, &d, err, sizeof(err)), -1);
	assert_string_equal(err, "the disk's logical sector of 1000 bytes is neither 512 nor 4096");
	qemu_disk();
	id[100] = id[101] = 0;
	assert_int_equal(ata_identify_parse(id, &d, err, sizeof(err)), -1);
	assert_string_equal(err, "the disk reports a capacity of 0 sectors");
	qemu_disk();
	id[49] = 0;
	assert_int_equal(ata_identify_parse(id, &d, err, sizeof(err)), -1);
	assert_string_equal(err, "the disk has no LBA addressing");
	/* An all-0xFFFF answer (nothing there) is no disk either. */
	memset(id, 0xFF, sizeof(id));
	assert_int_equal(ata_identify_parse(id, &d, err, sizeof(err)), -1);
	assert_string_equal(err, "the disk reports 18446744073709551615 sectors, more than 48-bit LBA addresses");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_qemu_disk),
		cmocka_unit_test(test_4k_logical_sectors),
		cmocka_unit_test(test_nonsense),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
