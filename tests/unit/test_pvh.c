/* lib/pvh.c: boot_info from PVH start information, as QEMU's -kernel hands it over, and
 * malformed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/bootinfo.h"
#include "lib/pvh.h"

#define FAKE_PHYS   0x10000u        /* where the tests pretend the information lies */
#define KERNEL_PHYS 0x200000u
#define KERNEL_SIZE 0x250000u

/* The start information, its tables and strings, and module contents in one block, so all
 * get 32-bit "physical" addresses. */
static struct {
	_Alignas(8) struct pvh_start_info si;
	struct pvh_memmap_entry map[BI_MMAP_MAX + 1];
	struct pvh_module mods[BIB_MODULES_MAX + 1];
	char strings[4096];
	_Alignas(16) uint8_t rsdp[36];
	_Alignas(4096) uint8_t module[16 * 1024];
	char tail[PVH_CMDLINE_MAX + 16];
} mem;
static uint32_t strings_used;
static struct boot_info bi;

static uint64_t phys_of(const void *p)
{
	return FAKE_PHYS + (uint64_t)((const uint8_t *)p - (const uint8_t *)&mem);
}

/* QEMU's e820 for 512 MiB under q35 with SeaBIOS, as its PVH option ROM passes it on. */
static const struct pvh_memmap_entry seabios[] = {
	{ 0x0, 0x9fc00, PVH_MEM_RAM, 0 }, { 0x9fc00, 0x400, PVH_MEM_RESERVED, 0 },
	{ 0xf0000, 0x10000, PVH_MEM_RESERVED, 0 }, { 0x100000, 0x1fee0000, PVH_MEM_RAM, 0 },
	{ 0x1ffe0000, 0x20000, PVH_MEM_RESERVED, 0 }, { 0xb0000000, 0x10000000, PVH_MEM_RESERVED, 0 },
	{ 0xfed1c000, 0x4000, PVH_MEM_RESERVED, 0 }, { 0xfffc0000, 0x40000, PVH_MEM_RESERVED, 0 },
	{ 0xfd00000000ull, 0x300000000ull, PVH_MEM_RESERVED, 0 },
};
#define SEABIOS_N (sizeof(seabios) / sizeof(seabios[0]))

static uint64_t string(const char *s)
{
	char *at = mem.strings + strings_used;
	strings_used += strlen(s) + 1;
	assert_true(strings_used <= sizeof(mem.strings));
	memcpy(at, s, strlen(s) + 1);
	return phys_of(at);
}

/* A module at mem.module + off with these contents, named name (NULL: nameless). */
static void module(unsigned i, const char *name, size_t off, const char *text, size_t len)
{
	memcpy(mem.module + off, text, len);
	mem.mods[i] = (struct pvh_module){ .paddr = phys_of(mem.module + off), .size = len,
					   .cmdline_paddr = name ? string(name) : 0 };
	if (i + 1 > mem.si.nr_modules)
		mem.si.nr_modules = i + 1;
}

/* What QEMU's PVH option ROM hands over: version 1, the e820, the -append line, the
 * -initrd file as one nameless module, and the RSDP (ACPI 2.0). */
static void qemu_like(void)
{
	memset(&mem, 0, sizeof(mem));
	strings_used = 0;
	mem.si = (struct pvh_start_info){ .magic = PVH_START_MAGIC, .version = 1,
					  .modlist_paddr = phys_of(mem.mods),
					  .memmap_paddr = phys_of(mem.map), .memmap_entries = SEABIOS_N };
	memcpy(mem.map, seabios, sizeof(seabios));
	mem.si.cmdline_paddr = string("mode=selftest reps=3");
	module(0, NULL, 0, "mode=detect\n", 12);
	memcpy(mem.rsdp, "RSD PTR ", 8);
	mem.rsdp[15] = 2;
	mem.si.rsdp_paddr = phys_of(mem.rsdp);
}

static int fill(char *err, size_t len)
{
	struct boot_source src = {
		.info_phys = FAKE_PHYS, .phys_to_virt = (uintptr_t)&mem - FAKE_PHYS,
		.kernel_phys = KERNEL_PHYS, .kernel_size = KERNEL_SIZE, .firmware = BI_FIRMWARE_BIOS,
	};
	err[0] = 0;
	return pvh_fill_boot_info(&src, &bi, err, len);
}

static uint32_t type_at(uint64_t addr)
{
	for (uint32_t i = 0; i < bi.mmap_count; i++)
		if (bi.mmap[i].base <= addr && addr < bi.mmap[i].base + bi.mmap[i].pages * BI_PAGE_SIZE)
			return bi.mmap[i].type;
	return 0;
}

static void test_qemu_hand_over(void **state)
{
	(void)state;
	char err[160];
	qemu_like();
	assert_int_equal(fill(err, sizeof(err)), 0);
	assert_string_equal(err, "");
	assert_int_equal(bootinfo_validate(&bi, err, sizeof(err)), 0);
	assert_int_equal(bi.protocol, BI_PROTOCOL_PVH);
	assert_string_equal(bootinfo_protocol_name(&bi), "pvh");
	assert_string_equal(bootinfo_firmware_name(&bi), "bios");
	assert_string_equal(bi.cmdline, "mode=selftest reps=3");
	assert_int_equal(bi.cmdline_len, 20);
	/* QEMU's -initrd: nameless, first, so the configuration. */
	assert_string_equal(bi.config, "mode=detect\n");
	assert_int_equal(bi.config_len, 12);
	assert_int_equal(bi.identity_len, 0);
	assert_string_equal(bi.note, "");
	assert_int_equal(bi.rsdp, phys_of(mem.rsdp));
	assert_int_equal(bi.rsdp_revision, 2);
}

static void test_map(void **state)
{
	(void)state;
	char err[160];
	qemu_like();
	assert_int_equal(fill(err, sizeof(err)), 0);
	for (uint32_t i = 1; i < bi.mmap_count; i++) {
		const struct bi_mem_range *a = &bi.mmap[i - 1], *b = &bi.mmap[i];
		assert_true(a->base + a->pages * BI_PAGE_SIZE <= b->base);
	}
	assert_int_equal(type_at(0), BI_MEM_USABLE);
	assert_int_equal(type_at(0x9f000), BI_MEM_RESERVED);       /* the partial page grows */
	assert_int_equal(type_at(0xa0000), 0);
	/* In use: the kernel, the information, its tables, strings and module. */
	assert_int_equal(type_at(KERNEL_PHYS - 1), BI_MEM_USABLE);
	assert_int_equal(type_at(KERNEL_PHYS), BI_MEM_LOADER);
	assert_int_equal(type_at(KERNEL_PHYS + KERNEL_SIZE), BI_MEM_USABLE);
	assert_int_equal(type_at(FAKE_PHYS), BI_MEM_LOADER);
	assert_int_equal(type_at(phys_of(mem.map)), BI_MEM_LOADER);
	assert_int_equal(type_at(phys_of(mem.mods)), BI_MEM_LOADER);
	assert_int_equal(type_at(phys_of(mem.strings)), BI_MEM_LOADER);
	assert_int_equal(type_at(phys_of(mem.rsdp)), BI_MEM_LOADER);
	assert_int_equal(type_at(phys_of(mem.module)), BI_MEM_LOADER);
	assert_int_equal(type_at(phys_of(mem.tail) + 8192), BI_MEM_USABLE);
	assert_int_equal(type_at(0xfd00000000ull), BI_MEM_RESERVED);
}

static void test_named_modules(void **state)
{
	(void)state;
	char err[160];
	qemu_like();
	module(0, "bareperf.identity", 0, "id=0123\n", 8);
	module(1, "bareperf.cfg", 4096, "reps=7\n", 7);
	module(2, "initrd.img", 8192, "x", 1);
	module(3, NULL, 12288, "y", 1);                 /* nameless, not first */
	assert_int_equal(fill(err, sizeof(err)), 0);
	assert_int_equal(bi.identity_len, 8);
	assert_memory_equal(bi.identity, "id=0123\n", 8);
	assert_string_equal(bi.config, "reps=7\n");
	assert_string_equal(bi.note, "module 'initrd.img' ignored; a module without a name ignored");
	assert_int_equal(type_at(phys_of(mem.module + 12288)), BI_MEM_LOADER);
}

static void test_oversized_sources_refused(void **state)
{
	(void)state;
	char err[160];
	static char big[BI_CONFIG_MAX + 1];
	memset(big, 'x', sizeof(big));
	qemu_like();
	module(0, NULL, 0, big, sizeof(big) - 1);     /* 8191 + 1 bytes do not fit with the NUL */
	memset(mem.tail, 'c', BI_CMDLINE_MAX);         /* a command line of 1024 characters */
	mem.si.cmdline_paddr = phys_of(mem.tail);
	assert_int_equal(fill(err, sizeof(err)), 0);
	assert_int_equal(bi.config_len, 0);
	assert_int_equal(bi.config_size, BI_CONFIG_MAX);
	assert_true(BI_CONFIG_REFUSED(&bi));
	assert_int_equal(bi.cmdline_len, 0);
	assert_int_equal(bi.cmdline_size, BI_CMDLINE_MAX);
	assert_true(BI_CMDLINE_REFUSED(&bi));
	assert_int_equal(bootinfo_validate(&bi, err, sizeof(err)), 0);
}

static void test_rsdp(void **state)
{
	(void)state;
	char err[160];
	qemu_like();
	mem.rsdp[15] = 0;                               /* ACPI 1.0 */
	assert_int_equal(fill(err, sizeof(err)), 0);
	assert_int_equal(bi.rsdp_revision, 0);
	qemu_like();
	mem.si.rsdp_paddr = 0;                          /* none given */
	assert_int_equal(fill(err, sizeof(err)), 0);
	assert_int_equal(bi.rsdp, 0);
	qemu_like();
	memcpy(mem.rsdp, "NOT RSDP", 8);               /* not one: left out, said */
	assert_int_equal(fill(err, sizeof(err)), 0);
	assert_int_equal(bi.rsdp, 0);
	assert_non_null(strstr(bi.note, "no RSDP signature"));
}

/* Each malformed hand-over is refused with its reason, and nothing past it is read. */
static void expect_refused(const char *reason)
{
	char err[160];
	assert_int_equal(fill(err, sizeof(err)), -1);
	if (!strstr(err, reason))
		fail_msg("expected '%s' in '%s'", reason, err);
}

static void test_malformed(void **state)
{
	(void)state;
	qemu_like();
	mem.si.magic = 0x2badb002;
	expect_refused("magic 0x2badb002, not 0x336ec578");
	qemu_like();
	mem.si.version = 0;
	expect_refused("version 0 has no memory map");
	qemu_like();
	mem.si.memmap_entries = 0;
	expect_refused("memory map of 0 entries");
	qemu_like();
	mem.si.memmap_entries = BI_MMAP_MAX + 1;
	expect_refused("memory map of 513 entries");
	qemu_like();
	mem.si.memmap_paddr = 0xfffffff0;
	expect_refused("memory map at 0xfffffff0+0xd8 is not in the first 4 GiB");
	qemu_like();
	mem.map[2].size = UINT64_MAX;
	expect_refused("memory map entry 2 (0xf0000+0xffffffffffffffff) wraps");
	qemu_like();
	mem.si.modlist_paddr = 0x100000000ull;
	expect_refused("module list at 0x100000000+0x20 is not in the first 4 GiB");
	qemu_like();
	mem.si.nr_modules = BIB_MODULES_MAX + 1;
	expect_refused("61 modules (at most 60)");
	qemu_like();
	mem.mods[0].paddr = 0xfffff000;
	mem.mods[0].size = 0x2000;
	expect_refused("module at 0xfffff000+0x2000 is not in the first 4 GiB");
	qemu_like();
	memset(mem.strings, 'n', sizeof(mem.strings));
	mem.mods[0].cmdline_paddr = phys_of(mem.strings);
	expect_refused("module name at 0x");
	expect_refused("has no NUL within 256 bytes");
	qemu_like();
	memset(mem.tail, 'c', sizeof(mem.tail));
	mem.si.cmdline_paddr = phys_of(mem.tail);
	expect_refused("command line at 0x");
	expect_refused("has no NUL within 65536 bytes");
	qemu_like();
	mem.si.memmap_paddr = 0;
	expect_refused("memory map at address 0");
	qemu_like();
	mem.si.rsdp_paddr = 0xffffffe0;
	expect_refused("RSDP at 0xffffffe0+0x24 is not in the first 4 GiB");
}

static void test_information_address(void **state)
{
	(void)state;
	char err[160];
	struct boot_source src = { .info_phys = 0, .kernel_phys = KERNEL_PHYS, .kernel_size = KERNEL_SIZE,
				   .firmware = BI_FIRMWARE_BIOS };
	assert_int_equal(pvh_fill_boot_info(&src, &bi, err, sizeof(err)), -1);
	assert_string_equal(err, "start information at address 0");
	src.info_phys = 0xffffffe0;
	assert_int_equal(pvh_fill_boot_info(&src, &bi, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "is not in the first 4 GiB"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_qemu_hand_over),
		cmocka_unit_test(test_map),
		cmocka_unit_test(test_named_modules),
		cmocka_unit_test(test_oversized_sources_refused),
		cmocka_unit_test(test_rsdp),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_information_address),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
