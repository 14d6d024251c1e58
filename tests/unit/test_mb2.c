/* lib/mb2.c: boot_info from Multiboot2 tag lists, good and malformed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/bootinfo.h"
#include "lib/mb2.h"

#define FAKE_PHYS   0x10000u        /* where the tests pretend the information lies */
#define KERNEL_PHYS 0x200000u
#define KERNEL_SIZE 0x250000u

/* A tag list and module contents in one block, so both get 32-bit "physical" addresses. */
static struct {
	_Alignas(8) uint8_t info[64 * 1024];
	_Alignas(4096) uint8_t module[16 * 1024];
} mem;
static uint32_t used;
static struct boot_info bi;

static uint32_t phys_of(const void *p)
{
	return FAKE_PHYS + (uint32_t)((const uint8_t *)p - mem.info);
}

static void begin(void)
{
	memset(&mem, 0, sizeof(mem));
	used = 8;
}

static uint8_t *tag(uint32_t type, uint32_t size)
{
	uint8_t *t = mem.info + used;
	memcpy(t, &type, 4);
	memcpy(t + 4, &size, 4);
	used += (size + 7) & ~7u;
	assert_true(used <= sizeof(mem.info));
	return t;
}

static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

struct e820 { uint64_t base, len; uint32_t type; };

static void mmap_tag(const struct e820 *e, unsigned n, uint32_t entry_size)
{
	uint8_t *t = tag(MB2_TAG_MMAP, 16 + n * entry_size);
	put32(t + 8, entry_size);
	for (unsigned i = 0; i < n; i++) {
		uint8_t *p = t + 16 + i * entry_size;
		put64(p, e[i].base);
		put64(p + 8, e[i].len);
		put32(p + 16, e[i].type);
	}
}

static void string_tag(uint32_t type, const char *s)
{
	uint8_t *t = tag(type, 8 + strlen(s) + 1);
	memcpy(t + 8, s, strlen(s) + 1);
}

static void module_tag(const char *name, const char *text, size_t len)
{
	uint8_t *t = tag(MB2_TAG_MODULE, 16 + strlen(name) + 1);
	memcpy(mem.module, text, len);
	put32(t + 8, phys_of(mem.module));
	put32(t + 12, phys_of(mem.module) + len);
	memcpy(t + 16, name, strlen(name) + 1);
}

static void end(void)
{
	tag(MB2_TAG_END, 8);
	put32(mem.info, used);
}

static int fill(char *err, size_t len)
{
	struct boot_source src = {
		.info_phys = FAKE_PHYS, .phys_to_virt = (uintptr_t)mem.info - FAKE_PHYS,
		.kernel_phys = KERNEL_PHYS, .kernel_size = KERNEL_SIZE, .firmware = BI_FIRMWARE_BIOS,
	};
	err[0] = 0;
	return mb2_fill_boot_info(&src, &bi, err, len);
}

/* SeaBIOS's E820 for 512 MiB under QEMU q35. */
static const struct e820 seabios[] = {
	{ 0x0, 0x9fc00, 1 }, { 0x9fc00, 0x400, 2 }, { 0xf0000, 0x10000, 2 },
	{ 0x100000, 0x1fee0000, 1 }, { 0x1ffe0000, 0x20000, 2 }, { 0xb0000000, 0x10000000, 2 },
	{ 0xfed1c000, 0x4000, 2 }, { 0xfffc0000, 0x40000, 2 },
};

static const struct bi_mem_range *find(uint64_t addr)
{
	for (uint32_t i = 0; i < bi.mmap_count; i++)
		if (bi.mmap[i].base <= addr && addr < bi.mmap[i].base + bi.mmap[i].pages * BI_PAGE_SIZE)
			return &bi.mmap[i];
	return NULL;
}

static uint32_t type_at(uint64_t addr)
{
	const struct bi_mem_range *r = find(addr);
	return r ? r->type : 0;
}

static uint8_t *acpi_tag;

static void good_list(void)
{
	begin();
	string_tag(MB2_TAG_CMDLINE, "reps=3 mode=selftest");
	string_tag(2, "GRUB 2.06");                         /* boot loader name: ignored */
	mmap_tag(seabios, sizeof(seabios) / sizeof(seabios[0]), 24);
	module_tag(BIB_CONFIG_MODULE, "mode=detect\n", 12);
	acpi_tag = tag(MB2_TAG_ACPI_OLD, 8 + 20);
	memcpy(acpi_tag + 8, "RSD PTR ", 8);
	end();
}

static void test_good(void **state)
{
	(void)state;
	char err[160];
	good_list();
	assert_int_equal(fill(err, sizeof(err)), 0);
	assert_string_equal(err, "");
	assert_int_equal(bootinfo_validate(&bi, err, sizeof(err)), 0);
	assert_int_equal(bi.firmware, BI_FIRMWARE_BIOS);
	assert_string_equal(bootinfo_firmware_name(&bi), "bios");
	assert_int_equal(bi.kernel_phys, KERNEL_PHYS);
	assert_int_equal(bi.kernel_size, KERNEL_SIZE);
	assert_string_equal(bi.cmdline, "reps=3 mode=selftest");
	assert_int_equal(bi.cmdline_len, 20);
	assert_string_equal(bi.config, "mode=detect\n");
	assert_int_equal(bi.config_len, 12);
	assert_string_equal(bi.note, "");
	/* The RSDP is the copy in the tag, which stays reserved with the information. */
	assert_int_equal(bi.rsdp, phys_of(acpi_tag) + 8);
	assert_int_equal(bi.rsdp_revision, 0);
	assert_int_equal(type_at(bi.rsdp), BI_MEM_LOADER);
}

static void test_map_sorted_and_carved(void **state)
{
	(void)state;
	char err[160];
	good_list();
	assert_int_equal(fill(err, sizeof(err)), 0);
	for (uint32_t i = 1; i < bi.mmap_count; i++) {
		const struct bi_mem_range *a = &bi.mmap[i - 1], *b = &bi.mmap[i];
		assert_true(a->base + a->pages * BI_PAGE_SIZE <= b->base);
		if (a->base + a->pages * BI_PAGE_SIZE == b->base)
			assert_int_not_equal(a->type, b->type);
	}
	/* Partial pages: free RAM shrinks, the reserved piece grows. */
	assert_int_equal(bi.mmap[0].base, 0);
	assert_int_equal(bi.mmap[0].pages, FAKE_PHYS / BI_PAGE_SIZE);     /* up to the information */
	assert_int_equal(bi.mmap[0].type, BI_MEM_USABLE);
	assert_int_equal(type_at(0x9e000), BI_MEM_USABLE);
	assert_int_equal(type_at(0x9f000), BI_MEM_RESERVED);
	assert_int_equal(type_at(0xa0000), 0);                  /* a hole stays a hole */
	/* In use by the loader: kernel, information, module. */
	assert_int_equal(type_at(KERNEL_PHYS - 1), BI_MEM_USABLE);
	assert_int_equal(type_at(KERNEL_PHYS), BI_MEM_LOADER);
	assert_int_equal(type_at(KERNEL_PHYS + KERNEL_SIZE - 1), BI_MEM_LOADER);
	assert_int_equal(type_at(KERNEL_PHYS + KERNEL_SIZE), BI_MEM_USABLE);
	assert_int_equal(type_at(FAKE_PHYS), BI_MEM_LOADER);
	assert_int_equal(type_at(phys_of(mem.module)), BI_MEM_LOADER);
	assert_int_equal(type_at(FAKE_PHYS + sizeof(mem.info) + sizeof(mem.module)), BI_MEM_USABLE);
	assert_int_equal(type_at(0x1ffe0000), BI_MEM_RESERVED);
	assert_int_equal(type_at(0xfffff000), BI_MEM_RESERVED);
	/* Usable: all of the two free ranges in whole pages, less what is in use. */
	uint64_t in_use = KERNEL_SIZE + 4096 /* information */ + 4096 /* 12-byte module */;
	assert_int_equal(bootinfo_usable_bytes(&bi), 0x9f000 + 0x1fee0000 - in_use);
}

static void test_acpi_new_preferred(void **state)
{
	(void)state;
	char err[160];
	begin();
	mmap_tag(seabios, 4, 24);
	uint8_t *t = tag(MB2_TAG_ACPI_NEW, 8 + 36);
	tag(MB2_TAG_ACPI_OLD, 8 + 20);
	end();
	assert_int_equal(fill(err, sizeof(err)), 0);
	assert_int_equal(bi.rsdp, phys_of(t) + 8);
	assert_int_equal(bi.rsdp_revision, 2);
}

static uint8_t *fb_tag(uint32_t size, uint64_t addr, uint32_t pitch, uint32_t w, uint32_t h,
		       uint8_t bpp, uint8_t type)
{
	uint8_t *t = tag(MB2_TAG_FRAMEBUFFER, size);   /* spec 3.6.12 */
	put64(t + 8, addr);
	put32(t + 16, pitch);
	put32(t + 20, w);
	put32(t + 24, h);
	t[28] = bpp;
	t[29] = type;
	return t;
}

static void test_framebuffer(void **state)
{
	(void)state;
	char err[160];
	begin();
	mmap_tag(seabios, 4, 24);
	uint8_t *t = fb_tag(8 + 24 + 6, 0xfd000000, 1024 * 4, 1024, 768, 32, MB2_FB_TYPE_RGB);
	t[32] = 16; t[33] = 8; t[34] = 8; t[35] = 8; t[36] = 0; t[37] = 8;
	end();
	assert_int_equal(fill(err, sizeof(err)), 0);
	assert_int_equal(bi.fb.base, 0xfd000000);
	assert_int_equal(bi.fb.size, 1024 * 4 * 768);
	assert_int_equal(bi.fb.width, 1024);
	assert_int_equal(bi.fb.pixels_per_line, 1024);
	assert_int_equal(bi.fb_layout.kind, BI_FB_RGB);
	assert_int_equal(bi.fb_layout.pitch, 4096);
	assert_int_equal(bi.fb_layout.bpp, 32);
	assert_int_equal(bi.fb_layout.red_pos, 16);
	assert_int_equal(bi.fb_layout.blue_size, 8);
	assert_string_equal(bi.note, "");

	/* 16 bits, 565, and 24 bits, with a pitch longer than the line. */
	t[28] = 16; t[32] = 11; t[33] = 5; t[34] = 5; t[35] = 6; t[36] = 0; t[37] = 5;
	put32(t + 16, 1024 * 2 + 64);
	assert_int_equal(fill(err, sizeof(err)), 0);
	assert_int_equal(bi.fb_layout.bpp, 16);
	assert_int_equal(bi.fb_layout.green_size, 6);
	assert_int_equal(bi.fb.size, (1024 * 2 + 64) * 768);
	t[28] = 24; t[32] = 16; t[33] = 8; t[34] = 8; t[35] = 8; t[36] = 0; t[37] = 8;
	put32(t + 16, 1024 * 3);
	assert_int_equal(fill(err, sizeof(err)), 0);
	assert_int_equal(bi.fb_layout.kind, BI_FB_RGB);
	assert_int_equal(bi.fb_layout.bpp, 24);

	/* EGA text (what GRUB reports where no mode was set): 80x25 cells at 0xb8000. */
	begin();
	mmap_tag(seabios, 4, 24);
	fb_tag(8 + 24, 0xb8000, 160, 80, 25, 16, MB2_FB_TYPE_EGA_TEXT);
	end();
	assert_int_equal(fill(err, sizeof(err)), 0);
	assert_int_equal(bi.fb_layout.kind, BI_FB_EGA_TEXT);
	assert_int_equal(bi.fb.base, 0xb8000);
	assert_int_equal(bi.fb.width, 80);
	assert_int_equal(bi.fb.size, 160 * 25);
}

static void test_framebuffer_indexed(void **state)
{
	(void)state;
	char err[160];
	begin();
	mmap_tag(seabios, 4, 24);
	uint8_t *t = fb_tag(8 + 24 + 2 + 3 * 16, 0xa0000, 320, 320, 200, 8, MB2_FB_TYPE_INDEXED);
	uint16_t n = 16;
	memcpy(t + 32, &n, 2);
	for (unsigned i = 0; i < 16; i++)
		t[34 + 3 * i] = t[35 + 3 * i] = t[36 + 3 * i] = (uint8_t)(i * 17);
	end();
	assert_int_equal(fill(err, sizeof(err)), 0);
	assert_int_equal(bi.fb_layout.kind, BI_FB_INDEXED);
	assert_int_equal(bi.fb_layout.palette_count, 16);
	assert_int_equal(bi.fb_layout.palette[15][2], 255);
	assert_int_equal(bi.fb_layout.palette[16][0], 0);
}

/* A framebuffer tag that cannot be drawn on leaves no framebuffer and says why in the
 * notes; the boot goes on. */
static void test_framebuffer_malformed(void **state)
{
	(void)state;
	static const struct {
		uint32_t size; uint64_t addr; uint32_t pitch, w, h; uint8_t bpp, type;
		uint16_t palette; const char *says;
	} bad[] = {
		{ 8 + 24 + 6, 0xfd000000, 0, 1024, 768, 32, MB2_FB_TYPE_RGB, 0, "pitch of 0" },
		{ 8 + 24 + 6, 0xfd000000, 1000, 1024, 768, 32, MB2_FB_TYPE_RGB, 0, "shorter than a line" },
		{ 8 + 20, 0xfd000000, 4096, 1024, 768, 32, MB2_FB_TYPE_RGB, 0, "tag of 28 bytes" },
		{ 8 + 24 + 2, 0xfd000000, 4096, 1024, 768, 32, MB2_FB_TYPE_RGB, 0, "direct-colour tag of 34" },
		{ 8 + 24 + 2 + 3 * 4, 0xa0000, 320, 320, 200, 8, MB2_FB_TYPE_INDEXED, 16,
		  "palette of 16 colours runs past" },
		{ 8 + 24 + 6, 0xfd000000, 4096, 1024, 768, 32, 3, 0, "unknown type 3" },
		{ 8 + 24 + 6, 0xfd000000, 4096, 1024, 768, 12, MB2_FB_TYPE_RGB, 0, "12 bits per pixel" },
		{ 8 + 24 + 6, 0xfff00000, 4096, 1024, 768, 32, MB2_FB_TYPE_RGB, 0, "not below 4 GiB" },
		{ 8 + 24 + 6, 0, 4096, 1024, 768, 32, MB2_FB_TYPE_RGB, 0, "not below 4 GiB" },
	};
	char err[160];
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		begin();
		mmap_tag(seabios, 4, 24);
		uint8_t *t = fb_tag(bad[i].size, bad[i].addr, bad[i].pitch, bad[i].w, bad[i].h,
				    bad[i].bpp, bad[i].type);
		if (bad[i].type == MB2_FB_TYPE_INDEXED)
			memcpy(t + 32, &bad[i].palette, 2);
		else if (bad[i].size >= 8 + 24 + 6) {
			t[32] = 16; t[33] = 8; t[34] = 8; t[35] = 8; t[36] = 0; t[37] = 8;
		}
		end();
		assert_int_equal(fill(err, sizeof(err)), 0);
		assert_int_equal(bi.fb.base, 0);
		assert_int_equal(bi.fb_layout.kind, BI_FB_NONE);
		if (!strstr(bi.note, "framebuffer tag unusable") || !strstr(bi.note, bad[i].says))
			fail_msg("case %u: note '%s' does not say '%s'", i, bi.note, bad[i].says);
	}
}

/* Sources too long for their buffers are refused whole, never cut (as the UEFI loader
 * does): empty text, the real size for the kernel to report. */
static void test_oversized_sources_refused(void **state)
{
	(void)state;
	char err[160];
	static char big[BI_CONFIG_MAX + 100], line[BI_CMDLINE_MAX + 10];
	memset(big, 'x', sizeof(big));
	memset(line, 'y', sizeof(line) - 1);
	line[sizeof(line) - 1] = 0;
	begin();
	mmap_tag(seabios, 4, 24);
	module_tag(BIB_CONFIG_MODULE, big, sizeof(big));
	module_tag("initrd", "zz", 2);
	string_tag(MB2_TAG_CMDLINE, line);
	end();
	assert_int_equal(fill(err, sizeof(err)), 0);
	assert_int_equal(bi.config_len, 0);
	assert_int_equal(bi.config_size, sizeof(big));
	assert_true(BI_CONFIG_REFUSED(&bi));
	assert_int_equal(bi.cmdline_len, 0);
	assert_int_equal(bi.cmdline_size, sizeof(line) - 1);
	assert_true(BI_CMDLINE_REFUSED(&bi));
	assert_string_equal(bi.note, "module 'initrd' ignored");
	assert_int_equal(bootinfo_validate(&bi, err, sizeof(err)), 0);
}

/* /bareperf/results/IDENTITY as GRUB's module "bareperf.identity": copied whole; one
 * longer than BI_IDENTITY_MAX is not this image's and is dropped with a note. */
static void test_identity_module(void **state)
{
	(void)state;
	char err[160];
	static char text[BI_IDENTITY_MAX + 1] = "bareperf results area 1\nimage: 00112233445566778899aabbccddeeff\n";

	begin();
	mmap_tag(seabios, 4, 24);
	module_tag(BIB_IDENTITY_MODULE, text, BI_IDENTITY_MAX);
	end();
	assert_int_equal(fill(err, sizeof(err)), 0);
	assert_int_equal(bi.identity_len, BI_IDENTITY_MAX);
	assert_memory_equal(bi.identity, text, BI_IDENTITY_MAX);
	assert_string_equal(bi.note, "");
	assert_int_equal(bootinfo_validate(&bi, err, sizeof(err)), 0);

	begin();
	mmap_tag(seabios, 4, 24);
	module_tag(BIB_IDENTITY_MODULE, text, BI_IDENTITY_MAX + 1);
	end();
	assert_int_equal(fill(err, sizeof(err)), 0);
	assert_int_equal(bi.identity_len, 0);
	assert_string_equal(bi.note, "module 'bareperf.identity' too long: ignored");
}

/* GRUB's network and CD trees name the medium ("bareperf.medium") and pass a note
 * ("bareperf.note"); a medium the kernel does not know is a disk, with a note. */
static void test_medium_and_note_modules(void **state)
{
	(void)state;
	char err[160];
	static const struct { const char *text; uint32_t medium; const char *note; } cases[] = {
		{ "network\n", BI_MEDIUM_NETWORK, "" },
		{ "  cd\r\n", BI_MEDIUM_CD, "" },
		{ "disk", BI_MEDIUM_DISK, "" },
		{ "floppy\n", BI_MEDIUM_DISK,
		  "module 'bareperf.medium' names no medium (network, cd or disk): taken as a disk" },
		{ "", BI_MEDIUM_DISK,
		  "module 'bareperf.medium' names no medium (network, cd or disk): taken as a disk" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		begin();
		mmap_tag(seabios, 4, 24);
		module_tag(BIB_MEDIUM_MODULE, cases[i].text, strlen(cases[i].text));
		end();
		assert_int_equal(fill(err, sizeof(err)), 0);
		assert_int_equal(bi.medium, cases[i].medium);
		assert_string_equal(bi.note, cases[i].note);
		assert_int_equal(bootinfo_validate(&bi, err, sizeof(err)), 0);
	}

	/* A note's text, trimmed, each byte that is not printable ASCII shown as '?'. */
	begin();
	mmap_tag(seabios, 4, 24);
	module_tag(BIB_NOTE_MODULE, "no bareperf.cfg\a on the server\n", 31);
	end();
	assert_int_equal(fill(err, sizeof(err)), 0);
	assert_string_equal(bi.note, "no bareperf.cfg? on the server");
	assert_int_equal(bi.medium, BI_MEDIUM_DISK);

	begin();                /* a blank note adds nothing */
	mmap_tag(seabios, 4, 24);
	module_tag(BIB_NOTE_MODULE, " \n", 2);
	end();
	assert_int_equal(fill(err, sizeof(err)), 0);
	assert_string_equal(bi.note, "");
}

static void expect_error(const char *why)
{
	char err[160];
	assert_int_equal(fill(err, sizeof(err)), -1);
	if (!strstr(err, why))
		fail_msg("message '%s' does not say '%s'", err, why);
}

static void test_malformed(void **state)
{
	(void)state;
	/* Free RAM holding the kernel, then pages of alternating type with holes between. */
	struct e820 many[BI_MMAP_MAX + 1];
	many[0] = (struct e820){ 0x100000, 0xf00000, 1 };
	for (unsigned i = 1; i < BI_MMAP_MAX + 1; i++)
		many[i] = (struct e820){ 0x1000000 + i * 0x2000ull, 0x1000, 1 + (i & 1) };

	begin(); end(); put32(mem.info, 8);                 expect_error("claims 8 bytes");
	begin(); end(); put32(mem.info, 20);                expect_error("claims 20 bytes");
	begin(); end(); put32(mem.info, 0x7fffffff);        expect_error("claims 2147483647 bytes");
	begin(); mmap_tag(seabios, 4, 24); put32(mem.info, used);
	expect_error("has no end tag");
	begin(); mmap_tag(seabios, 4, 24); put32(mem.info + 12, 4); end();
	expect_error("has size 4");
	begin(); mmap_tag(seabios, 4, 24); put32(mem.info + 12, 0x10000); end();
	expect_error("has size 65536");
	begin(); string_tag(MB2_TAG_CMDLINE, "x"); end();   expect_error("no memory map");
	begin(); mmap_tag(seabios, 4, 20); end();           expect_error("entry size 20");
	begin(); mmap_tag(seabios, 0, 24); end();           expect_error("no entries");
	begin(); mmap_tag(seabios, 4, 24); mmap_tag(seabios, 4, 24); end();
	expect_error("two memory map tags");
	begin(); mmap_tag(many, BI_MMAP_MAX + 1, 24); end(); expect_error("has 513 entries");
	/* 512 entries, but the kernel splits the first and the information adds one. */
	begin(); mmap_tag(many, BI_MMAP_MAX, 24); end();    expect_error("needs more than 512 entries");
	struct e820 wrap = { 0xfffffffffffff000ull, 0x2000, 1 };
	begin(); mmap_tag(&wrap, 1, 24); end();             expect_error("entry 0 (0xfffffffffffff000+0x2000) wraps");
	begin(); mmap_tag(seabios, 4, 24); module_tag("m", "abc", 3);
	put32(mem.info + used - 16 - 8 + 12, phys_of(mem.module) - 1); end();
	expect_error("module 'm' ends");
	begin(); mmap_tag(seabios, 4, 24); tag(MB2_TAG_CMDLINE, 12); memset(mem.info + used - 8, 'a', 8);
	put32(mem.info + used - 16 + 4, 12); end();
	expect_error("command line not NUL-terminated");
	begin(); mmap_tag(seabios, 4, 24); tag(MB2_TAG_ACPI_NEW, 8 + 20); end();
	expect_error("the RSDP needs 44");

	struct boot_source src = { .info_phys = FAKE_PHYS + 4, .phys_to_virt = (uintptr_t)mem.info - FAKE_PHYS,
				  .firmware = BI_FIRMWARE_BIOS };
	char err[160];
	assert_int_equal(mb2_fill_boot_info(&src, &bi, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "8-byte aligned"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_map_sorted_and_carved),
		cmocka_unit_test(test_acpi_new_preferred),
		cmocka_unit_test(test_framebuffer),
		cmocka_unit_test(test_framebuffer_indexed),
		cmocka_unit_test(test_framebuffer_malformed),
		cmocka_unit_test(test_oversized_sources_refused),
		cmocka_unit_test(test_identity_module),
		cmocka_unit_test(test_medium_and_note_modules),
		cmocka_unit_test(test_malformed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
