/*
 * APIC ID field widths (lib/topology.c): every CPUID dump in tests/data/cpuid/ and a
 * synthetic dump for each source and each way a source is passed over. The expected
 * widths come from the leaves as the SDM (Vol. 2A CPUID, Vol. 3A 10.9) and the AMD APM
 * (Vol. 3 Appendix E) define them; the comment on each row shows the arithmetic.
 * Run from the repository root.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "lib/topology.h"
#include "lib/util.h"
#include "tests/unit/test_data.h"

struct expect {
	const char *name;           /* file in tests/data/cpuid/, or a label */
	const char *source;
	unsigned smt_bits, core_bits;
};

static void check(struct cpuid_dump *d, const struct expect *x)
{
	struct cpu_topology t;

	memset(&t, 0xA5, sizeof(t));
	topology_decode(cpuid_dump_read, d, &t);
	if (t.source == NULL || strcmp(t.source, x->source) != 0 ||
	    t.smt_bits != x->smt_bits || t.core_bits != x->core_bits)
		fail_msg("%s: got %s %u/%u, expected %s %u/%u", x->name,
			 t.source ? t.source : "(null)", t.smt_bits, t.core_bits,
			 x->source, x->smt_bits, x->core_bits);
}

/* ------------------------------------------------------------------ real dumps */

static const struct expect real_dumps[] = {
	/* K7: no HTT, no Fn8000_0008 (max ext 0x80000006). */
	{ "AuthenticAMD0000622_K7_Pluto_CPUID.txt", "none", 0, 0 },
	/* K8 single core: Fn8000_0008 ECX = 0, so NC+1 = 1 core: no bits. */
	{ "AuthenticAMD0000F51_K8_Sledgehammer_CPUID.txt", "0x80000008", 0, 0 },
	/* Bulldozer: ECX = 0x4003 ApicIdCoreIdSize 4; TopologyExtensions, Fn8000_001E EBX
	 * 0x100: 2 cores per compute unit, 1 bit. */
	{ "AuthenticAMD0600F01_K15_Bulldozer_CPUID.txt", "0x8000001e", 1, 3 },
	/* Zen 2: leaf 0xB SMT shift 1, core shift 7. */
	{ "AuthenticAMD0870F10_Zen2_Matisse_CPUID.txt", "leaf 0xb", 1, 6 },
	/* Zen 4: leaf 0xB SMT shift 1, core shift 4 (Fn8000_0008 ApicIdCoreIdSize says 4 too). */
	{ "AuthenticAMD0A60F12_K19_Raphael_01_CPUID.txt", "leaf 0xb", 1, 3 },
	/* Pentium III: no HTT. */
	{ "GenuineIntel0000673_P3_Katmai_CPUID.txt", "none", 0, 0 },
	/* Pentium M: no HTT. */
	{ "GenuineIntel00006D8_PentiumM_Dothan_CPUID.txt", "none", 0, 0 },
	/* Core 2 Duo: leaf 1 says 2 logical, leaf 4 EAX[31:26] = 1: 2 cores, 1 thread each. */
	{ "GenuineIntel00006F6_Conroe_CPUID.txt", "leaf 4", 0, 1 },
	/* Northwood: HTT set but 1 logical processor, max leaf 2 (no leaf 4). */
	{ "GenuineIntel0000F24_P4_Northwood_CPUID.txt", "leaf 1", 0, 0 },
	/* Prescott HT: leaf 4 says 1 core, leaf 1 2 logical: one SMT bit. */
	{ "GenuineIntel0000F34_P4_Prescott_HT_CPUID.txt", "leaf 4", 1, 0 },
	/* Skylake: leaf 0xB SMT shift 1, core shift 4 (max leaf 0x16, no 0x1F). */
	{ "GenuineIntel00506E3_Skylake_CPUID.txt", "leaf 0xb", 1, 3 },
	/* Alder Lake: leaf 0x1F SMT shift 1, core shift 7. */
	{ "GenuineIntel0090672_AlderLake_S_CPUID.txt", "leaf 0x1f", 1, 6 },
};

static void test_real_dumps(void **state)
{
	char path[256];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(real_dumps); i++) {
		snprintf(path, sizeof(path), TEST_CPUID_DIR "%s", real_dumps[i].name);
		struct cpuid_dump *d = test_load_dump(path);
		check(d, &real_dumps[i]);
		free(d);
	}
}

/* Every dump in the folder has a row above, so a new dump cannot go untested. */
static void test_every_dump_has_a_row(void **state)
{
	FILE *p = popen("ls " TEST_CPUID_DIR, "r");
	char line[256];
	unsigned seen = 0;

	(void)state;
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		line[strcspn(line, "\n")] = '\0';
		if (strstr(line, "_CPUID.txt") == NULL)
			continue;
		bool found = false;
		for (size_t i = 0; i < ARRAY_SIZE(real_dumps); i++)
			found |= strcmp(real_dumps[i].name, line) == 0;
		if (!found)
			fail_msg("%s has no row in real_dumps[]", line);
		seen++;
	}
	pclose(p);
	assert_int_equal(seen, ARRAY_SIZE(real_dumps));
}

/* ------------------------------------------------------------------ synthetic dumps */

#define INTEL0(max) "CPUID 00000000: " max "-756E6547-6C65746E-49656E69\n"
#define AMD0(max)   "CPUID 00000000: " max "-68747541-444D4163-69746E65\n"
#define HYGON0(max) "CPUID 00000000: " max "-6F677948-656E6975-6E65476E\n"

static const struct { struct expect x; const char *dump; } synthetic[] = {
	/* 0x1F with module (3) and die (5) levels above the core: they fold into the core
	 * field. Leaf 0xB disagrees, to show 0x1F wins. */
	{ { "0x1f with module and die", "leaf 0x1f", 1, 6 },
	  INTEL0("0000001F")
	  "CPUID 00000001: 000906A3-00800800-7FFAFBFF-BFEBFBFF\n"
	  "CPUID 0000000B: 00000001-00000002-00000100-00000000 [SL 00]\n"
	  "CPUID 0000000B: 00000004-00000008-00000201-00000000 [SL 01]\n"
	  "CPUID 0000001F: 00000001-00000002-00000100-00000000 [SL 00]\n"
	  "CPUID 0000001F: 00000004-00000010-00000201-00000000 [SL 01]\n"
	  "CPUID 0000001F: 00000005-00000020-00000302-00000000 [SL 02]\n"
	  "CPUID 0000001F: 00000007-00000040-00000503-00000000 [SL 03]\n"
	  "CPUID 0000001F: 00000000-00000000-00000004-00000000 [SL 04]\n" },
	/* 0x1F in the dump but past the maximum leaf (0x16): a real CPU would answer with
	 * leaf 0x16's data, so it must not be read. */
	{ { "0x1f past the maximum", "leaf 0xb", 1, 2 },
	  INTEL0("00000016")
	  "CPUID 00000001: 000906A3-00800800-7FFAFBFF-BFEBFBFF\n"
	  "CPUID 0000000B: 00000001-00000002-00000100-00000000 [SL 00]\n"
	  "CPUID 0000000B: 00000003-00000008-00000201-00000000 [SL 01]\n"
	  "CPUID 0000001F: 00000001-00000002-00000100-00000000 [SL 00]\n"
	  "CPUID 0000001F: 00000009-00000010-00000201-00000000 [SL 01]\n" },
	/* 0x1F present with EBX = 0 at subleaf 0: not supported, so 0xB. */
	{ { "0x1f with EBX 0", "leaf 0xb", 0, 3 },
	  INTEL0("0000001F")
	  "CPUID 00000001: 000906A3-00800800-7FFAFBFF-BFEBFBFF\n"
	  "CPUID 0000000B: 00000000-00000001-00000100-00000000 [SL 00]\n"
	  "CPUID 0000000B: 00000003-00000008-00000201-00000000 [SL 01]\n"
	  "CPUID 0000001F: 00000001-00000000-00000100-00000000 [SL 00]\n"
	  "CPUID 0000001F: 00000000-00000000-00000000-00000000 [SL 01]\n" },
	/* 0xB whose first level is the core (no SMT level): no thread bits. */
	{ { "0xb without SMT level", "leaf 0xb", 0, 3 },
	  INTEL0("0000000B")
	  "CPUID 00000001: 000506E3-00100800-7FFAFBFF-BFEBFBFF\n"
	  "CPUID 0000000B: 00000003-00000008-00000201-00000000 [SL 00]\n"
	  "CPUID 0000000B: 00000000-00000000-00000002-00000000 [SL 01]\n" },
	/* 0xB all zero (a hypervisor hiding it), leaf 4 behind it: 8 logical, 4 cores. */
	{ { "0xb empty, leaf 4", "leaf 4", 1, 2 },
	  INTEL0("0000000B")
	  "CPUID 00000001: 000506E3-00080800-7FFAFBFF-BFEBFBFF\n"
	  "CPUID 00000004: 0C000121-01C0003F-0000003F-00000000 [SL 00]\n"
	  "CPUID 0000000B: 00000000-00000000-00000000-00000000 [SL 00]\n" },
	/* Leaf 4, 12 logical over 6 cores: log2ceil(2) = 1, log2ceil(6) = 3. */
	{ { "leaf 4, six cores", "leaf 4", 1, 3 },
	  INTEL0("0000000A")
	  "CPUID 00000001: 000206C2-000C0800-029EE3FF-BFEBFBFF\n"
	  "CPUID 00000004: 14004121-01C0003F-0000003F-00000000 [SL 00]\n" },
	/* Leaf 4 present but no HTT: one logical processor. */
	{ { "leaf 4 without HTT", "none", 0, 0 },
	  INTEL0("0000000A")
	  "CPUID 00000001: 000006F6-00020800-0000E3BD-AFEBFBFF\n"
	  "CPUID 00000004: 04000121-01C0003F-0000003F-00000001 [SL 00]\n" },
	/* Leaf 4 with cache type 0 (no caches described): leaf 1 alone, 4 logical. */
	{ { "leaf 4 type 0", "leaf 1", 2, 0 },
	  INTEL0("00000004")
	  "CPUID 00000001: 00000F41-00040800-0000441D-BFEBFBFF\n"
	  "CPUID 00000004: 00000000-00000000-00000000-00000000 [SL 00]\n" },
	/* Pentium 4 HT without leaf 4 (max leaf 2): 2 logical, one SMT bit. */
	{ { "P4 HT, leaf 1 only", "leaf 1", 1, 0 },
	  INTEL0("00000002")
	  "CPUID 00000001: 00000F29-00020800-00004400-BFEBFBFF\n" },
	/* Leaf 1 says 3 logical: rounded up to 2 bits. */
	{ { "leaf 1, three logical", "leaf 1", 2, 0 },
	  INTEL0("00000002")
	  "CPUID 00000001: 00000F29-00030800-00004400-BFEBFBFF\n" },
	/* HTT with a count of 0: treated as one. */
	{ { "HTT with count 0", "none", 0, 0 },
	  INTEL0("00000002")
	  "CPUID 00000001: 00000F29-00000800-00004400-BFEBFBFF\n" },
	/* AMD with TopologyExtensions: ApicIdCoreIdSize 5, 2 threads per core. */
	{ { "AMD topoext", "0x8000001e", 1, 4 },
	  AMD0("0000000D")
	  "CPUID 00000001: 00800F11-00100800-7ED8320B-178BFBFF\n"
	  "CPUID 80000000: 8000001F-68747541-444D4163-69746E65\n"
	  "CPUID 80000001: 00800F11-20000000-35C233FF-2FD3FBFF\n"
	  "CPUID 80000008: 00003030-00000000-0000501F-00000000\n"
	  "CPUID 8000001E: 00000000-00000100-00000000-00000000\n" },
	/* AMD, ApicIdCoreIdSize 0: NC = 5, 6 threads, 3 bits; no TopologyExtensions. */
	{ { "AMD NC only", "0x80000008", 0, 3 },
	  AMD0("00000006")
	  "CPUID 00000001: 00100F42-00060800-00802009-178BFBFF\n"
	  "CPUID 80000000: 8000001B-68747541-444D4163-69746E65\n"
	  "CPUID 80000001: 00100F42-10000000-000037FF-EFD3FBFF\n"
	  "CPUID 80000008: 00003030-00000000-00000005-00000000\n" },
	/* TopologyExtensions set but the maximum extended leaf below 0x8000001E. */
	{ { "AMD topoext, no 0x8000001e", "0x80000008", 0, 2 },
	  AMD0("0000000D")
	  "CPUID 00000001: 00600F01-00040800-1E98220B-178BFBFF\n"
	  "CPUID 80000000: 8000001B-68747541-444D4163-69746E65\n"
	  "CPUID 80000001: 00600F01-10000000-01C9BFFF-2FD3FBFF\n"
	  "CPUID 80000008: 00003030-00000000-00002003-00000000\n"
	  "CPUID 8000001E: 00000010-00000300-00000000-00000000\n" },
	/* Hygon is AMD's layout. */
	{ { "Hygon", "0x8000001e", 1, 5 },
	  HYGON0("0000000D")
	  "CPUID 00000001: 00900F02-00200800-7ED8320B-178BFBFF\n"
	  "CPUID 80000000: 8000001F-6F677948-656E6975-6E65476E\n"
	  "CPUID 80000001: 00900F02-60000000-35C233FF-2FD3FBFF\n"
	  "CPUID 80000008: 00003030-00000000-0000603F-00000000\n"
	  "CPUID 8000001E: 00000000-00000100-00000000-00000000\n" },
	/* An Intel CPU is never read through the AMD leaves. */
	{ { "Intel with 0x80000008 NC", "none", 0, 0 },
	  INTEL0("00000002")
	  "CPUID 00000001: 00000F29-00000800-00004400-AFEBFBFF\n"
	  "CPUID 80000000: 80000008-00000000-00000000-00000000\n"
	  "CPUID 80000008: 00003024-00000000-0000500F-00000000\n" },
	/* Only leaf 0: nothing to go on. */
	{ { "leaf 0 only", "none", 0, 0 }, INTEL0("00000000") },
};

static void test_synthetic_sources(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(synthetic); i++) {
		struct cpuid_dump *d = test_parse_dump("synthetic dump", synthetic[i].dump, strlen(synthetic[i].dump));
		check(d, &synthetic[i].x);
		free(d);
	}
}

/* A reader with no leaves at all (every call false): the "none" answer. */
static bool read_nothing(void *ctx, uint32_t leaf, uint32_t subleaf, uint32_t regs[4])
{
	(void)ctx; (void)leaf; (void)subleaf;
	regs[0] = regs[1] = regs[2] = regs[3] = 0xDEADBEEF;   /* must be ignored */
	return false;
}

/* A reader answering every leaf like a real CPU does past its maximum: the same
 * (garbage) values everywhere, which must not loop or overflow a field. */
static bool read_garbage(void *ctx, uint32_t leaf, uint32_t subleaf, uint32_t regs[4])
{
	(void)ctx; (void)subleaf;
	regs[0] = leaf >= 0x80000000u ? 0x8000FFFFu : 0xFFFFFFFFu;
	regs[1] = 0xFFFFFFFFu;
	regs[2] = 0xFFFFFFFFu;
	regs[3] = 0xFFFFFFFFu;
	return true;
}

static void test_odd_readers(void **state)
{
	struct cpu_topology t;

	(void)state;
	topology_decode(read_nothing, NULL, &t);
	assert_string_equal(t.source, "none");
	assert_int_equal(t.smt_bits, 0);
	assert_int_equal(t.core_bits, 0);

	/* Every level type 0xFF, every shift 31: leaf 0x1F, no SMT level, 31 bits of core. */
	topology_decode(read_garbage, NULL, &t);
	assert_string_equal(t.source, "leaf 0x1f");
	assert_int_equal(t.smt_bits, 0);
	assert_int_equal(t.core_bits, 31);
}

static void test_positions(void **state)
{
	const struct cpu_topology t13 = { 1, 3, "leaf 0xb" };
	const struct cpu_topology t00 = { 0, 0, "none" };
	const struct cpu_topology t_wide = { 4, 28, "leaf 0x1f" };
	const struct cpu_topology t_all_smt = { 32, 0, "test" };
	struct cpu_position p;

	(void)state;
	topology_position(&t13, 0x1B, &p);           /* 1 101 1 */
	assert_int_equal(p.thread, 1);
	assert_int_equal(p.core, 5);
	assert_int_equal(p.package, 1);
	topology_position(&t13, 0x10, &p);
	assert_int_equal(p.thread, 0);
	assert_int_equal(p.core, 0);
	assert_int_equal(p.package, 1);
	topology_position(&t00, 7, &p);
	assert_int_equal(p.thread, 0);
	assert_int_equal(p.core, 0);
	assert_int_equal(p.package, 7);
	topology_position(&t_wide, 0xFFFFFFFFu, &p); /* fields fill all 32 bits */
	assert_int_equal(p.thread, 0xF);
	assert_int_equal(p.core, 0x0FFFFFFF);
	assert_int_equal(p.package, 0);
	topology_position(&t_all_smt, 0x12345678u, &p);
	assert_int_equal(p.thread, 0x12345678u);
	assert_int_equal(p.core, 0);
	assert_int_equal(p.package, 0);
}

/* Alder Lake's real widths on an x2APIC ID of its range. */
static void test_position_from_dump(void **state)
{
	struct cpuid_dump *d = test_load_dump(TEST_CPUID_DIR "GenuineIntel0090672_AlderLake_S_CPUID.txt");
	struct cpu_topology t;
	struct cpu_position p;

	(void)state;
	topology_decode(cpuid_dump_read, d, &t);
	topology_position(&t, 0x4B, &p);             /* 100 1011: core 37, thread 1 */
	assert_int_equal(p.thread, 1);
	assert_int_equal(p.core, 37);
	assert_int_equal(p.package, 0);
	topology_position(&t, 0x80, &p);
	assert_int_equal(p.package, 1);
	free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_dumps),
		cmocka_unit_test(test_every_dump_has_a_row),
		cmocka_unit_test(test_synthetic_sources),
		cmocka_unit_test(test_odd_readers),
		cmocka_unit_test(test_positions),
		cmocka_unit_test(test_position_from_dump),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
