/* lib/bootinfo.c: what the kernel accepts from a loader, and what it refuses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/bootinfo.h"

static struct boot_info *good(void)
{
	struct boot_info *bi = calloc(1, sizeof(*bi));
	assert_non_null(bi);
	bi->magic = BOOTINFO_MAGIC;
	bi->version = BOOTINFO_VERSION;
	bi->size = sizeof(*bi);
	bi->firmware = BI_FIRMWARE_BIOS;
	bi->kernel_phys = 0x200000;
	bi->kernel_size = 0x100000;
	bi->mmap_count = 3;
	bi->mmap[0] = (struct bi_mem_range){ .base = 0, .pages = 0x9f, .type = BI_MEM_USABLE };
	bi->mmap[1] = (struct bi_mem_range){ .base = 0x100000, .pages = 0x1000, .type = BI_MEM_USABLE };
	bi->mmap[2] = (struct bi_mem_range){ .base = 0x200000, .pages = 0x100, .type = BI_MEM_LOADER };
	return bi;
}

static void expect_refused(struct boot_info *bi, const char *why)
{
	char err[160] = "";
	assert_int_equal(bootinfo_validate(bi, err, sizeof(err)), -1);
	if (!strstr(err, why))
		fail_msg("message '%s' does not say '%s'", err, why);
	free(bi);
}

static void test_accepts_good(void **state)
{
	(void)state;
	struct boot_info *bi = good();
	char err[160] = "";
	assert_int_equal(bootinfo_validate(bi, err, sizeof(err)), 0);
	assert_string_equal(err, "");
	memset(bi->menu, 'x', BI_MENU_MAX - 1);       /* the longest choice that fits */
	assert_int_equal(bootinfo_validate(bi, err, sizeof(err)), 0);
	/* usable: 0x9f + 0x1000 pages; the loader's range does not count */
	assert_int_equal(bootinfo_usable_bytes(bi), (0x9full + 0x1000) * 4096);
	free(bi);
}

static void test_refuses_bad(void **state)
{
	(void)state;
	struct boot_info *bi;
	char err[160];

	assert_int_equal(bootinfo_validate(NULL, err, sizeof(err)), -1);
	bi = good(); bi->magic ^= 1;                  expect_refused(bi, "bad magic");
	bi = good(); bi->version = 1;                 expect_refused(bi, "boot-info version 1");
	bi = good(); bi->version = 3;                 expect_refused(bi, "boot-info version 3, kernel understands 4");
	bi = good(); memset(bi->menu, 'x', BI_MENU_MAX);
	expect_refused(bi, "boot menu choice not NUL-terminated within 64 bytes");
	bi = good(); bi->firmware = 0;                expect_refused(bi, "unknown firmware 0");
	bi = good(); bi->firmware = 3;                expect_refused(bi, "unknown firmware 3");
	bi = good(); bi->medium = BI_MEDIUM_LAST + 1; expect_refused(bi, "unknown boot medium 3");
	bi = good(); bi->size -= 8;                   expect_refused(bi, "kernel expects");
	bi = good(); bi->mmap_count = 0;              expect_refused(bi, "memory map has 0 entries");
	bi = good(); bi->mmap_count = BI_MMAP_MAX + 1; expect_refused(bi, "memory map has 513");
	bi = good(); bi->cmdline_len = BI_CMDLINE_MAX; expect_refused(bi, "longer than its buffer");
	bi = good(); bi->config_len = BI_CONFIG_MAX;  expect_refused(bi, "longer than its buffer");
	bi = good(); bi->identity_len = BI_IDENTITY_MAX + 1;
	expect_refused(bi, "identity (513 bytes) longer than its buffer (512)");
	bi = good(); bi->mmap[1].type = 9;            expect_refused(bi, "entry 1 has unknown type 9");
	bi = good(); bi->mmap[2].base = 0x200010;     expect_refused(bi, "entry 2 base 0x200010 not page aligned");
	bi = good(); bi->mmap[1].pages = 1ull << 41;  expect_refused(bi, "entry 1 wraps");
	bi = good(); bi->mmap[1].base = 0xfffffffffff00000ull; bi->mmap[1].pages = 0x1000;
	expect_refused(bi, "entry 1 wraps");
	bi = good(); bi->kernel_phys = 0x200800;      expect_refused(bi, "unaligned");
	/* a source the loader refused for its length must come with no text */
	bi = good(); bi->config_size = BI_CONFIG_MAX; bi->config_len = 5;
	expect_refused(bi, "refused command line (0 characters) or config (8192 bytes) still has text");
	bi = good(); bi->cmdline_size = BI_CMDLINE_MAX; bi->cmdline_len = 1;
	expect_refused(bi, "refused command line (1024 characters)");
}

/* Sources too long for their buffers: refused whole, their sizes handed over. */
static void test_refused_sources(void **state)
{
	(void)state;
	struct boot_info *bi = good();
	char err[160] = "";
	bi->config_size = BI_CONFIG_MAX - 1;
	bi->config_len = BI_CONFIG_MAX - 1;            /* the longest that fits: kept */
	assert_int_equal(bootinfo_validate(bi, err, sizeof(err)), 0);
	assert_false(BI_CONFIG_REFUSED(bi));
	bi->config_size = 1u << 20;                   /* 1 MiB on the ESP: refused, no text */
	bi->config_len = 0;
	bi->cmdline_size = BI_CMDLINE_MAX;
	assert_int_equal(bootinfo_validate(bi, err, sizeof(err)), 0);
	assert_true(BI_CONFIG_REFUSED(bi));
	assert_true(BI_CMDLINE_REFUSED(bi));
	free(bi);
}

/* The layout is shared with every loader: fixed offsets, checked at compile time too. */
static void test_layout(void **state)
{
	(void)state;
	assert_int_equal(offsetof(struct boot_info, kernel_phys), 16);
	assert_int_equal(offsetof(struct boot_info, rsdp), 32);
	assert_int_equal(offsetof(struct boot_info, fb), 48);
	assert_int_equal(offsetof(struct boot_info, mmap), 80);
	assert_int_equal(offsetof(struct boot_info, cmdline_len), 80 + 24 * BI_MMAP_MAX);
	size_t tail = 80 + 24 * BI_MMAP_MAX + 8 + BI_CMDLINE_MAX + BI_CONFIG_MAX + BI_NOTE_MAX;
	assert_int_equal(offsetof(struct boot_info, exit_tries), tail);
	assert_int_equal(offsetof(struct boot_info, cmdline_size), tail + 4);
	assert_int_equal(offsetof(struct boot_info, config_size), tail + 8);
	assert_int_equal(offsetof(struct boot_info, firmware), tail + 16);
	assert_int_equal(offsetof(struct boot_info, menu), tail + 24);
	assert_int_equal(offsetof(struct boot_info, fb_layout), tail + 24 + BI_MENU_MAX);
	assert_int_equal(offsetof(struct boot_info, identity_len), tail + 24 + BI_MENU_MAX + 792);
	assert_int_equal(offsetof(struct boot_info, identity), tail + 32 + BI_MENU_MAX + 792);
	assert_int_equal(offsetof(struct boot_info, medium), tail + 32 + BI_MENU_MAX + 792 + BI_IDENTITY_MAX);
	assert_int_equal(sizeof(struct boot_info), tail + 40 + BI_MENU_MAX + 792 + BI_IDENTITY_MAX);
	assert_int_equal(BOOTINFO_VERSION, 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_accepts_good),
		cmocka_unit_test(test_refuses_bad),
		cmocka_unit_test(test_refused_sources),
		cmocka_unit_test(test_layout),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
