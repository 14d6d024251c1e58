/*
 * CPU and PMU detection (lib/cpuinfo.c) against real CPUID dumps in tests/data/cpuid/: the
 * InstLatx64 set must decode to the table in its README.md, the dumps transcribed from
 * libcpuid to what their headers say. Synthetic dumps cover what no real dump
 * shows (hypervisors, leaves past the maximum, odd files), and a fixed-seed fuzz loop
 * feeds the parser mutated dumps. Run from the repository root.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "lib/cpuid-dump.h"
#include "lib/cpuinfo.h"
#include "lib/util.h"
#include "tests/unit/test_data.h"

#define DATA_DIR TEST_CPUID_DIR

/* ------------------------------------------------------------------ helpers */

static struct cpuid_dump *parse_text(const char *text)
{
	return test_parse_dump("synthetic dump", text, strlen(text));
}

/*
 * Reader that checks the decoder's manners: every leaf it asks for must lie within
 * the maxima the dump itself states, and 0x4000xxxx only with the hypervisor bit.
 */
struct fenced_reader {
	struct cpuid_dump *d;
	uint32_t max_leaf, max_ext_leaf;
	bool hypervisor;
	unsigned violations;
	uint32_t bad_leaf;
};

static void fence_init(struct fenced_reader *fr, struct cpuid_dump *d)
{
	uint32_t r[4] = { 0, 0, 0, 0 };

	memset(fr, 0, sizeof(*fr));
	fr->d = d;
	if (cpuid_dump_read(d, 0, 0, r))
		fr->max_leaf = r[0];
	memset(r, 0, sizeof(r));
	if (cpuid_dump_read(d, 0x80000000u, 0, r) && (r[0] & 0xFFFF0000u) == 0x80000000u)
		fr->max_ext_leaf = r[0];
	memset(r, 0, sizeof(r));
	if (fr->max_leaf >= 1 && cpuid_dump_read(d, 1, 0, r))
		fr->hypervisor = (r[2] >> 31) & 1;
}

static bool fenced_read(void *ctx, uint32_t leaf, uint32_t subleaf, uint32_t regs[4])
{
	struct fenced_reader *fr = ctx;
	bool ok;

	if (leaf >= 0x80000000u)
		ok = leaf == 0x80000000u || leaf <= fr->max_ext_leaf;
	else if (leaf >= 0x40000000u)
		ok = fr->hypervisor && leaf == 0x40000000u;
	else
		ok = leaf == 0 || leaf <= fr->max_leaf;
	if (!ok) {
		fr->violations++;
		fr->bad_leaf = leaf;
	}
	return cpuid_dump_read(fr->d, leaf, subleaf, regs);
}

static void decode_fenced(struct cpuid_dump *d, struct cpu_info *ci, struct pmu_caps *pc)
{
	struct fenced_reader fr;

	fence_init(&fr, d);
	cpuinfo_decode(fenced_read, &fr, ci, pc);
	if (fr.violations != 0)
		fail_msg("decoder read leaf 0x%08x beyond the stated maximum (0x%x / 0x%x)",
			 fr.bad_leaf, fr.max_leaf, fr.max_ext_leaf);
}

/* The report, captured line by line. */
#define REPORT_MAX_LINES 64
struct report {
	unsigned n;
	char line[REPORT_MAX_LINES][256];
};

static void capture_line(void *ctx, const char *line)
{
	struct report *rep = ctx;

	assert_true(rep->n < REPORT_MAX_LINES);
	assert_true(strlen(line) < sizeof(rep->line[0]));
	strcpy(rep->line[rep->n++], line);
}

static const char *report_value(const struct report *rep, const char *key)
{
	size_t klen = strlen(key);
	unsigned i;

	for (i = 0; i < rep->n; i++)
		if (strncmp(rep->line[i], key, klen) == 0 && rep->line[i][klen] == '=')
			return rep->line[i] + klen + 1;
	fail_msg("report has no line for %s", key);
	return NULL;
}

static void assert_report_uint(const struct report *rep, const char *key, unsigned want)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%u", want);
	assert_string_equal(report_value(rep, key), buf);
}

/* ------------------------------------------------------------------ real dumps */

struct expect {
	const char *path;
	const char *vendor;
	unsigned family, model, stepping;
	enum pmu_kind kind;
	unsigned gp, width, version, fixed;
};

/* tests/data/cpuid/README.md, row for row. A "-" there is 0 here, except that the
 * version of amd-perfmon-v2 is 2 by the struct pmu_caps contract. */
static const struct expect instlatx64_table[] = {
	{ DATA_DIR "GenuineIntel0000F24_P4_Northwood_CPUID.txt", "GenuineIntel", 15, 2, 4,
	  PMU_INTEL_NETBURST, 18, 40, 0, 0 },
	{ DATA_DIR "GenuineIntel0000673_P3_Katmai_CPUID.txt", "GenuineIntel", 6, 7, 3,
	  PMU_INTEL_P6, 2, 40, 0, 0 },
	{ DATA_DIR "GenuineIntel00006F6_Conroe_CPUID.txt", "GenuineIntel", 6, 15, 6,
	  PMU_INTEL_ARCH, 2, 40, 2, 3 },
	{ DATA_DIR "GenuineIntel00506E3_Skylake_CPUID.txt", "GenuineIntel", 6, 94, 3,
	  PMU_INTEL_ARCH, 8, 48, 4, 3 },
	{ DATA_DIR "AuthenticAMD0000622_K7_Pluto_CPUID.txt", "AuthenticAMD", 6, 2, 2,
	  PMU_AMD_LEGACY, 4, 48, 0, 0 },
	{ DATA_DIR "AuthenticAMD0000F51_K8_Sledgehammer_CPUID.txt", "AuthenticAMD", 15, 5, 1,
	  PMU_AMD_LEGACY, 4, 48, 0, 0 },
	{ DATA_DIR "AuthenticAMD0600F01_K15_Bulldozer_CPUID.txt", "AuthenticAMD", 21, 0, 1,
	  PMU_AMD_CORE, 6, 48, 0, 0 },
	{ DATA_DIR "AuthenticAMD0A60F12_K19_Raphael_01_CPUID.txt", "AuthenticAMD", 25, 97, 2,
	  PMU_AMD_PERFMON_V2, 6, 48, 2, 0 },
};

/* The libcpuid transcriptions, as each file's header states. */
static const struct expect data_table[] = {
	{ DATA_DIR "GenuineIntel00006D8_PentiumM_Dothan_CPUID.txt", "GenuineIntel", 6, 13, 8,
	  PMU_INTEL_P6, 2, 40, 0, 0 },
	{ DATA_DIR "GenuineIntel0000F34_P4_Prescott_HT_CPUID.txt", "GenuineIntel", 15, 3, 4,
	  PMU_INTEL_NETBURST, 18, 40, 0, 0 },
	{ DATA_DIR "GenuineIntel0090672_AlderLake_S_CPUID.txt", "GenuineIntel", 6, 151, 2,
	  PMU_INTEL_ARCH, 6, 48, 5, 3 },
	{ DATA_DIR "AuthenticAMD0870F10_Zen2_Matisse_CPUID.txt", "AuthenticAMD", 23, 113, 0,
	  PMU_AMD_CORE, 6, 48, 0, 0 },
};

static void check_expect(const struct expect *x)
{
	struct cpuid_dump *d = test_load_dump(x->path);
	struct cpu_info ci;
	struct pmu_caps pc;
	struct report rep = { 0 };

	decode_fenced(d, &ci, &pc);
	print_message("%s: %s %u/%u/%u %s %u x %u bits, v%u, %u fixed\n", x->path, ci.vendor_id,
		      ci.family, ci.model, ci.stepping, pmu_kind_name(pc.kind), pc.gp_counters,
		      pc.gp_width, pc.version, pc.fixed_counters);
	assert_string_equal(ci.vendor_id, x->vendor);
	assert_int_equal(ci.family, x->family);
	assert_int_equal(ci.model, x->model);
	assert_int_equal(ci.stepping, x->stepping);
	assert_string_equal(pmu_kind_name(pc.kind), pmu_kind_name(x->kind));
	assert_int_equal(pc.gp_counters, x->gp);
	assert_int_equal(pc.gp_width, x->width);
	assert_int_equal(pc.version, x->version);
	assert_int_equal(pc.fixed_counters, x->fixed);

	/* The report says the same. */
	cpuinfo_report(&ci, &pc, capture_line, &rep);
	assert_string_equal(report_value(&rep, "cpu.vendor"), x->vendor);
	assert_report_uint(&rep, "cpu.family", x->family);
	assert_report_uint(&rep, "cpu.model", x->model);
	assert_report_uint(&rep, "cpu.stepping", x->stepping);
	assert_string_equal(report_value(&rep, "pmu.kind"), pmu_kind_name(x->kind));
	assert_report_uint(&rep, "pmu.gp_counters", x->gp);
	assert_report_uint(&rep, "pmu.gp_width", x->width);
	assert_report_uint(&rep, "pmu.version", x->version);
	assert_report_uint(&rep, "pmu.fixed_counters", x->fixed);
	free(d);
}

static void test_instlatx64_dumps_match_readme(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(instlatx64_table); i++)
		check_expect(&instlatx64_table[i]);
}

static void test_transcribed_dumps(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(data_table); i++)
		check_expect(&data_table[i]);
}

static void decode_file(const char *path, struct cpu_info *ci, struct pmu_caps *pc)
{
	struct cpuid_dump *d = test_load_dump(path);

	decode_fenced(d, ci, pc);
	free(d);
}

/* RAPL: AMD by CPUID 0x80000007 EDX[14] (Zen 2 and Raphael set it, K8 and Bulldozer
 * do not), Intel by family 6 model; the MSRs themselves are read at boot, not here. */
static void test_rapl_detection(void **state)
{
	static const struct { const char *file; bool rapl; enum rapl_vendor vendor; } dumps[] = {
		{ "AuthenticAMD0000F51_K8_Sledgehammer_CPUID.txt", false, RAPL_VENDOR_NONE },
		{ "AuthenticAMD0600F01_K15_Bulldozer_CPUID.txt", false, RAPL_VENDOR_NONE },
		{ "AuthenticAMD0870F10_Zen2_Matisse_CPUID.txt", true, RAPL_VENDOR_AMD },
		{ "AuthenticAMD0A60F12_K19_Raphael_01_CPUID.txt", true, RAPL_VENDOR_AMD },
		{ "GenuineIntel00006F6_Conroe_CPUID.txt", false, RAPL_VENDOR_NONE },
		{ "GenuineIntel0000F34_P4_Prescott_HT_CPUID.txt", false, RAPL_VENDOR_NONE },
		{ "GenuineIntel00506E3_Skylake_CPUID.txt", true, RAPL_VENDOR_INTEL },
		{ "GenuineIntel0090672_AlderLake_S_CPUID.txt", true, RAPL_VENDOR_INTEL },
	};
	(void)state;
	for (unsigned i = 0; i < ARRAY_SIZE(dumps); i++) {
		struct cpu_info ci;
		struct pmu_caps pc;
		struct report rep = { 0 };
		char path[256];
		snprintf(path, sizeof(path), DATA_DIR "%s", dumps[i].file);
		decode_file(path, &ci, &pc);
		if (ci.rapl != dumps[i].rapl)
			fail_msg("%s: rapl %d", dumps[i].file, ci.rapl);
		assert_int_equal(pc.rapl.vendor, dumps[i].vendor);
		assert_int_equal(pc.rapl.state, dumps[i].rapl ? RAPL_UNPROBED : RAPL_ABSENT);
		assert_false(pc.rapl.dram_fixed_unit);          /* no server part among them */
		cpuinfo_report(&ci, &pc, capture_line, &rep);
		const char *features = report_value(&rep, "cpu.features");
		bool listed = strstr(features, ",rapl") != NULL;
		assert_int_equal(listed, dumps[i].rapl);
	}
}

static void test_intel_details(void **state)
{
	struct cpu_info ci;
	struct pmu_caps pc;

	(void)state;
	/* Conroe: leaf 0xA v2 says 0 fixed counters; Linux's rule makes them 3 of GP width. */
	decode_file(DATA_DIR "GenuineIntel00006F6_Conroe_CPUID.txt", &ci, &pc);
	assert_true(pc.fixed_count_quirk);
	assert_int_equal(pc.fixed_width, 40);
	assert_int_equal(pc.fixed_counter_mask, 0x7);
	assert_int_equal(pc.arch_events_len, 7);
	assert_int_equal(ci.logical_per_package, 2);
	assert_int_equal(ci.threads_per_core, 1);      /* 2 logical / 2 cores from leaf 4 */
	assert_false(ci.hypervisor);
	assert_string_equal(ci.brand, "Intel(R) Core(TM)2 CPU         X6800  @ 2.93GHz");

	/* Skylake: v4 with 3 fixed counters reported, so no quirk; 0x15 lacks the crystal. */
	decode_file(DATA_DIR "GenuineIntel00506E3_Skylake_CPUID.txt", &ci, &pc);
	assert_false(pc.fixed_count_quirk);
	assert_int_equal(pc.fixed_width, 48);
	assert_string_equal(ci.brand, "Intel(R) Core(TM) i5-6400T CPU @ 2.20GHz");
	assert_true(ci.invariant_tsc);
	assert_int_equal(ci.tsc_ratio_den, 2);
	assert_int_equal(ci.tsc_ratio_num, 0xB8);
	assert_int_equal(ci.crystal_hz, 0);
	assert_int_equal(ci.tsc_hz, 0);
	assert_int_equal(ci.base_mhz, 2200);
	assert_int_equal(ci.max_mhz, 2800);
	assert_int_equal(ci.bus_mhz, 100);
	assert_int_equal(ci.threads_per_core, 1);      /* leaf 0xB level 0 */
	assert_true(ci.smep && ci.smap && ci.pdcm && ci.x2apic && ci.aperfmperf && ci.rdtscp);
	assert_true(pc.aperfmperf);                    /* carried into the PMU caps */
	assert_false(ci.umip);
	assert_true(ci.nx && ci.lm && ci.ds && ci.dtes64);
	assert_int_equal(ci.clflush_size, 64);

	/* Alder Lake: v5, fixed counters from the ECX mask; 0x15 complete. */
	decode_file(DATA_DIR "GenuineIntel0090672_AlderLake_S_CPUID.txt", &ci, &pc);
	assert_int_equal(pc.fixed_counter_mask, 0x7);
	assert_int_equal(pc.fixed_width, 48);
	assert_true(pc.any_thread_deprecated);
	assert_false(pc.fixed_count_quirk);
	assert_int_equal(ci.crystal_hz, 38400000);
	assert_int_equal(ci.tsc_hz, 3187200000ull);    /* 38.4 MHz * 166 / 2 */
	assert_int_equal(ci.threads_per_core, 2);
	assert_true(ci.umip);

	/* Northwood: HTT flag set but one logical processor, so no HT; brand trimmed. */
	decode_file(DATA_DIR "GenuineIntel0000F24_P4_Northwood_CPUID.txt", &ci, &pc);
	assert_false(pc.aperfmperf);                   /* max leaf 2: no leaf 6 */
	assert_true(ci.htt);
	assert_int_equal(ci.logical_per_package, 1);
	assert_false(pc.netburst_ht);
	assert_string_equal(ci.brand, "Intel(R) Pentium(R) 4 CPU 1.60GHz");
	assert_int_equal(ci.max_ext_leaf, 0x80000004);

	/* Prescott with HT: two logical processors on one core. */
	decode_file(DATA_DIR "GenuineIntel0000F34_P4_Prescott_HT_CPUID.txt", &ci, &pc);
	assert_true(pc.netburst_ht);
	assert_int_equal(ci.logical_per_package, 2);
	assert_int_equal(ci.threads_per_core, 2);
	assert_true(ci.ds);

	/* Katmai: no extended leaves at all, so no brand, no NX, no long mode. */
	decode_file(DATA_DIR "GenuineIntel0000673_P3_Katmai_CPUID.txt", &ci, &pc);
	assert_int_equal(ci.max_ext_leaf, 0);
	assert_string_equal(ci.brand, "");
	assert_false(ci.nx || ci.lm || ci.rdtscp);
	assert_true(ci.tsc && ci.msr);
}

static void test_amd_details(void **state)
{
	struct cpu_info ci;
	struct pmu_caps pc;

	(void)state;
	decode_file(DATA_DIR "AuthenticAMD0A60F12_K19_Raphael_01_CPUID.txt", &ci, &pc);
	assert_true(pc.amd_perfmon_v2 && pc.amd_lbr_v2 && pc.amd_perfctr_core);
	assert_int_equal(ci.threads_per_core, 2);      /* 0x8000001E EBX[15:8] + 1 */
	assert_int_equal(ci.logical_per_package, 12);
	assert_string_equal(ci.brand, "AMD Ryzen 5 7600X 6-Core Processor");
	assert_true(ci.invariant_tsc && ci.smep && ci.smap && ci.umip && ci.rdtscp);
	assert_int_equal(pc.fixed_counters, 0);

	decode_file(DATA_DIR "AuthenticAMD0600F01_K15_Bulldozer_CPUID.txt", &ci, &pc);
	assert_true(pc.amd_perfctr_core);
	assert_false(pc.amd_perfmon_v2);
	assert_int_equal(ci.threads_per_core, 1);      /* family 0x15: 4 logical / 4 cores */

	decode_file(DATA_DIR "AuthenticAMD0000622_K7_Pluto_CPUID.txt", &ci, &pc);
	assert_string_equal(ci.brand, "AMD Athlon(tm) Processor");
	assert_false(pc.amd_perfctr_core);
	assert_true(ci.syscall);
	assert_false(ci.lm);

	decode_file(DATA_DIR "AuthenticAMD0000F51_K8_Sledgehammer_CPUID.txt", &ci, &pc);
	assert_true(ci.lm && ci.nx);
	assert_string_equal(ci.brand, "AMD Opteron(tm) Processor 240 HE");

	decode_file(DATA_DIR "AuthenticAMD0870F10_Zen2_Matisse_CPUID.txt", &ci, &pc);
	assert_int_equal(ci.threads_per_core, 2);
	assert_false(pc.amd_perfmon_v2);               /* max ext leaf 0x80000020 */
}

/* ------------------------------------------------------------------ parser */

static void test_parser_subleaves(void **state)
{
	struct cpuid_dump *d;
	uint32_t r[4];

	(void)state;
	/* Bulldozer lists 0x8000001D's four subleaves as untagged repeats. */
	d = test_load_dump(DATA_DIR "AuthenticAMD0600F01_K15_Bulldozer_CPUID.txt");
	assert_true(cpuid_dump_read(d, 0x8000001Du, 3, r));
	assert_int_equal(r[0], 0x00004163);
	assert_true(cpuid_dump_read(d, 0x8000001Du, 0, r));
	assert_int_equal(r[0], 0x00000121);
	assert_false(cpuid_dump_read(d, 0x8000001Du, 4, r));
	assert_true(cpuid_dump_read(d, 0xD, 1, r));
	assert_int_equal(r[0], 0x00000100);
	/* Leaf 1 has no subleaves: any ECX reads it. */
	assert_true(cpuid_dump_read(d, 1, 7, r));
	assert_int_equal(r[0], 0x00600F01);
	/* Only the first CPU's block: 47 lines, not 4 x 47. */
	assert_int_equal(d->count, 47);
	free(d);

	/* Raphael tags subleaves, with gaps and notes: [SL 0B], "[x87]", "[AuthenticAMD]". */
	d = test_load_dump(DATA_DIR "AuthenticAMD0A60F12_K19_Raphael_01_CPUID.txt");
	assert_true(cpuid_dump_read(d, 0xD, 0xB, r));
	assert_int_equal(r[0], 0x00000010);
	assert_true(cpuid_dump_read(d, 0xD, 9, r));
	assert_int_equal(r[1], 0x00000980);
	assert_false(cpuid_dump_read(d, 0xD, 3, r));
	assert_false(cpuid_dump_read(d, 0xB, 2, r));   /* two subleaves, so no fallback */
	assert_true(cpuid_dump_read(d, 0, 0, r));
	assert_int_equal(r[0], 0x10);
	assert_false(cpuid_dump_read(d, 0x12345678u, 0, r));
	free(d);
}

static const char synthetic_skl[] =
	"CPUID 00000000: 00000016-756E6547-6C65746E-49656E69\n"
	"CPUID 00000001: 000506E3-00100800-7FFAFBFF-BFEBFBFF\n"
	"CPUID 0000000A: 07300804-00000000-00000000-00000603\n"
	"CPUID 80000000: 80000008-00000000-00000000-00000000\n"
	"CPUID 80000007: 00000000-00000000-00000000-00000100\n";

static void test_parser_line_endings_and_garbage(void **state)
{
	static const char messy[] =
		"\xEF\xBB\xBF------[ CPU Info ]------\r\n"
		"CPUID Manufacturer : GenuineIntel\r\n"
		"CPUID Revision     : 000506E3h\r\n"
		"CPUID CPU Name     : Intel(R) Core(TM)\r\n"
		"CPUID Registers (CPU #1):\r\n"
		"MSR 0000001B: 0000-0000-FEE0-0900\r\n"
		"CPUID 0000000G: 00000016-756E6547-6C65746E-49656E69\r\n"
		"CPUID 00000001: 000506E3-00100800\r\n"
		"CPUID 00000001 000506E3-00100800-7FFAFBFF-BFEBFBFFX\r\n"
		"  CPUID 00000000: 00000016-756E6547-6C65746E-49656E69 [GenuineIntel]\r\n"
		"CPUID 00000001: 000506E3-00100800-7FFAFBFF-BFEBFBFF\r\n"
		"\r\n"
		"random text CPUID 0000000A: 00000000-00000000-00000000-00000000\r\n"
		"CPUID 0000000A: 07300804-00000000-00000000-00000603 [SL 00\r\n"
		"CPUID 80000000: 80000008-00000000-00000000-00000000\r\n"
		"CPUID 80000007: 00000000-00000000-00000000-00000100";   /* no final newline */
	struct cpuid_dump *lf = parse_text(synthetic_skl), *crlf = parse_text(messy);
	struct cpu_info a, b;
	struct pmu_caps pa, pb;
	unsigned i;

	(void)state;
	assert_int_equal(crlf->count, lf->count);
	for (i = 0; i < lf->count; i++) {
		assert_int_equal(crlf->e[i].leaf, lf->e[i].leaf);
		assert_int_equal(crlf->e[i].subleaf, lf->e[i].subleaf);
		assert_memory_equal(crlf->e[i].regs, lf->e[i].regs, sizeof(lf->e[i].regs));
	}
	decode_fenced(lf, &a, &pa);
	decode_fenced(crlf, &b, &pb);
	assert_string_equal(b.vendor_id, "GenuineIntel");
	assert_int_equal(b.model, 94);
	assert_int_equal(pb.kind, PMU_INTEL_ARCH);
	assert_int_equal(pb.gp_counters, pa.gp_counters);
	assert_true(b.invariant_tsc);
	free(lf);
	free(crlf);
}

static void test_parser_two_cpus(void **state)
{
	static const char two[] =
		"------[ Logical CPU #0 ]------\n"
		"CPUID 00000000: 00000001-68747541-444D4163-69746E65\n"
		"CPUID 00000001: 00000F51-00000881-00000000-078BFBFF\n"
		"CPUID 80000000: 80000001-68747541-444D4163-69746E65\n"
		"CPUID 80000001: 00000F51-00000000-00000000-E1D3FBFF\n"
		"------[ Logical CPU #1 ]------\n"
		"CPUID 00000000: 00000001-756E6547-6C65746E-49656E69\n"
		"CPUID 00000001: 000006F6-01020800-0000E3BD-BFEBFBFF\n"
		"CPUID 0000000A: 07280202-00000000-00000000-00000000\n";
	struct cpuid_dump *d = parse_text(two);
	struct cpu_info ci;
	struct pmu_caps pc;
	uint32_t r[4];

	(void)state;
	assert_int_equal(d->count, 4);
	assert_false(cpuid_dump_read(d, 0xA, 0, r));
	decode_fenced(d, &ci, &pc);
	assert_string_equal(ci.vendor_id, "AuthenticAMD");
	assert_int_equal(ci.signature, 0x00000F51);
	assert_int_equal(pc.kind, PMU_AMD_LEGACY);
	free(d);
}

static void test_parser_errors_and_limits(void **state)
{
	static const char none[] = "------[ Versions ]------\nMSR 0000001B: 0000-0000-FEE0-0900\n";
	struct cpuid_dump *d = malloc(sizeof(*d));
	char err[128] = "";
	char *big, *p;
	unsigned i;

	(void)state;
	assert_non_null(d);
	assert_int_equal(cpuid_dump_parse(d, none, strlen(none), err, sizeof(err)), -1);
	assert_string_equal(err, "no CPUID lines found (expected 'CPUID 00000000: EAX-EBX-ECX-EDX')");
	err[0] = 0;
	assert_int_equal(cpuid_dump_parse(d, "", 0, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "no CPUID lines found"));
	/* A tiny error buffer is still NUL-terminated and not overrun. */
	memset(err, 'x', sizeof(err));
	assert_int_equal(cpuid_dump_parse(d, none, strlen(none), err, 8), -1);
	assert_int_equal(strlen(err), 7);

	/* More lines than the table holds: the first CPUID_DUMP_MAX are kept. */
	big = malloc(70 * (CPUID_DUMP_MAX + 100));
	assert_non_null(big);
	p = big;
	p += sprintf(p, "CPUID 00000000: 00000001-756E6547-6C65746E-49656E69\n");
	for (i = 1; i < CPUID_DUMP_MAX + 100; i++)
		p += sprintf(p, "CPUID %08X: %08X-00000000-00000000-00000000\n", 0x80000000u + i, i);
	assert_int_equal(cpuid_dump_parse(d, big, (unsigned long)(p - big), err, sizeof(err)),
			 CPUID_DUMP_MAX);
	assert_int_equal(d->e[CPUID_DUMP_MAX - 1].regs[0], CPUID_DUMP_MAX - 1);
	free(big);
	free(d);
}

/* ------------------------------------------------------------------ synthetic CPUs */

struct decoded {
	struct cpu_info ci;
	struct pmu_caps pc;
	struct report rep;
};

static void decode_synthetic(const char *text, struct decoded *out)
{
	struct cpuid_dump *d = parse_text(text);

	memset(out, 0, sizeof(*out));
	decode_fenced(d, &out->ci, &out->pc);
	cpuinfo_report(&out->ci, &out->pc, capture_line, &out->rep);
	free(d);
}

static void test_hypervisor_cases(void **state)
{
	/* QEMU Skylake-Client under TCG: hypervisor bit, leaf 0xA all zero. */
	static const char qemu_skl[] =
		"CPUID 00000000: 0000000D-756E6547-6C65746E-49656E69\n"
		"CPUID 00000001: 000506E3-00000800-FFFAB223-0F8BFBFF\n"
		"CPUID 0000000A: 00000000-00000000-00000000-00000000\n"
		"CPUID 40000000: 40000001-54474354-43544743-47435447\n"
		"CPUID 80000000: 80000008-00000000-00000000-00000000\n";
	/* The same with the bit but no vendor leaf. */
	static const char hv_no_leaf[] =
		"CPUID 00000000: 0000000D-756E6547-6C65746E-49656E69\n"
		"CPUID 00000001: 000506E3-00000800-FFFAB223-0F8BFBFF\n";
	/* Bit clear: a 0x40000000 line in the dump must not be believed. */
	static const char no_hv_bit[] =
		"CPUID 00000000: 00000001-756E6547-6C65746E-49656E69\n"
		"CPUID 00000001: 00000673-00000000-00000000-0387F9FF\n"
		"CPUID 40000000: 40000001-54474354-43544743-47435447\n";
	/* qemu64: AuthenticAMD family 15 model 107, leaf 0xA zero, no PerfCtrExtCore. */
	static const char qemu64[] =
		"CPUID 00000000: 0000000D-68747541-444D4163-69746E65\n"
		"CPUID 00000001: 00060FB1-00000800-80A02001-078BFBFD\n"
		"CPUID 0000000A: 00000000-00000000-00000000-00000000\n"
		"CPUID 40000000: 40000001-54474354-43544743-47435447\n"
		"CPUID 80000000: 80000008-68747541-444D4163-69746E65\n"
		"CPUID 80000001: 00060FB1-00000000-00000021-2193FBFD\n";
	/* A Conroe-like leaf 0xA (v2, EDX 0) under a hypervisor: no fixed-counter quirk. */
	static const char hv_v2[] =
		"CPUID 00000000: 0000000A-756E6547-6C65746E-49656E69\n"
		"CPUID 00000001: 000006F6-00000800-8000E3BD-BFEBFBFF\n"
		"CPUID 0000000A: 07280202-00000000-00000000-00000000\n";
	struct decoded x;

	(void)state;
	decode_synthetic(qemu_skl, &x);
	assert_true(x.ci.hypervisor);
	assert_string_equal(x.ci.hv_vendor, "TCGTCGTCGTCG");
	assert_int_equal(x.pc.kind, PMU_NONE);
	assert_int_equal(x.pc.gp_counters, 0);
	assert_string_equal(report_value(&x.rep, "cpu.hypervisor"), "TCGTCGTCGTCG");
	assert_string_equal(report_value(&x.rep, "pmu.kind"), "none");

	decode_synthetic(hv_no_leaf, &x);
	assert_true(x.ci.hypervisor);
	assert_string_equal(x.ci.hv_vendor, "");
	assert_string_equal(report_value(&x.rep, "cpu.hypervisor"), "unknown");

	decode_synthetic(no_hv_bit, &x);
	assert_false(x.ci.hypervisor);
	assert_string_equal(x.ci.hv_vendor, "");
	assert_string_equal(report_value(&x.rep, "cpu.hypervisor"), "none");
	assert_int_equal(x.pc.kind, PMU_INTEL_P6);

	decode_synthetic(qemu64, &x);
	assert_int_equal(x.ci.family, 15);
	assert_int_equal(x.ci.model, 107);
	assert_int_equal(x.pc.kind, PMU_AMD_LEGACY);
	assert_int_equal(x.pc.gp_counters, 4);
	assert_string_equal(report_value(&x.rep, "cpu.hypervisor"), "TCGTCGTCGTCG");

	decode_synthetic(hv_v2, &x);
	assert_int_equal(x.pc.kind, PMU_INTEL_ARCH);
	assert_int_equal(x.pc.fixed_counters, 0);
	assert_false(x.pc.fixed_count_quirk);
	assert_int_equal(x.pc.fixed_width, 0);
}

static void test_leaves_beyond_maximum(void **state)
{
	/* Max leaf 5, but the dump carries a plausible leaf 0xA: it must not be used. */
	static const char merom_like[] =
		"CPUID 00000000: 00000005-756E6547-6C65746E-49656E69\n"
		"CPUID 00000001: 000006F6-00020800-0000E3BD-BFEBFBFF\n"
		"CPUID 0000000A: 07280202-00000000-00000000-00000503\n"
		"CPUID 0000000B: 00000001-00000002-00000100-00000000\n"
		"CPUID 80000000: 80000004-00000000-00000000-00000000\n"
		"CPUID 80000007: 00000000-00000000-00000000-00000100\n";
	/* Pentium M (Banias) with max leaf 2 and a garbage leaf 0xA: P6. */
	static const char banias_like[] =
		"CPUID 00000000: 00000002-756E6547-6C65746E-49656E69\n"
		"CPUID 00000001: 00000695-00000816-00000000-A7E9F9BF\n"
		"CPUID 0000000A: 07280202-00000000-00000000-00000503\n";
	/* AMD with 0x80000022 present past max ext leaf 0x80000008: not PerfMonV2. */
	static const char amd_short_ext[] =
		"CPUID 00000000: 00000010-68747541-444D4163-69746E65\n"
		"CPUID 00000001: 00A60F12-000C0800-7EF8320B-178BFBFF\n"
		"CPUID 80000000: 80000008-68747541-444D4163-69746E65\n"
		"CPUID 80000001: 00A60F12-00000000-75C237FF-2FD3FBFF\n"
		"CPUID 80000022: 00000003-00084106-00000003-00000000\n";
	/* 0x80000000 that is not an extended maximum (a CPU echoing a basic leaf). */
	static const char bad_ext_max[] =
		"CPUID 00000000: 00000001-756E6547-6C65746E-49656E69\n"
		"CPUID 00000001: 00000543-00000000-00000000-008003BF\n"
		"CPUID 80000000: 00000543-00000000-00000000-008003BF\n"
		"CPUID 80000001: 00000000-00000000-00000000-20100800\n";
	struct decoded x;

	(void)state;
	decode_synthetic(merom_like, &x);
	assert_int_equal(x.pc.kind, PMU_NONE);         /* model 15 > 0xE: not P6 either */
	assert_int_equal(x.pc.version, 0);
	assert_false(x.ci.invariant_tsc);              /* 0x80000007 > max ext 0x80000004 */
	assert_int_equal(x.ci.threads_per_core, 2);    /* no leaf 0xB: 2 logical / 1 core */

	decode_synthetic(banias_like, &x);
	assert_int_equal(x.ci.model, 9);
	assert_int_equal(x.pc.kind, PMU_INTEL_P6);
	assert_int_equal(x.pc.gp_counters, 2);

	decode_synthetic(amd_short_ext, &x);
	assert_int_equal(x.pc.kind, PMU_AMD_CORE);
	assert_false(x.pc.amd_perfmon_v2);

	decode_synthetic(bad_ext_max, &x);
	assert_int_equal(x.ci.max_ext_leaf, 0);
	assert_false(x.ci.lm || x.ci.nx);
	assert_int_equal(x.ci.family, 5);
	assert_int_equal(x.pc.kind, PMU_NONE);         /* Pentium: no supported PMU */
}

static void test_family_model_rules(void **state)
{
	/* AMD base family 6 ignores the extended model (Intel's rule would add it). */
	static const char amd_k7_ext[] =
		"CPUID 00000000: 00000001-68747541-444D4163-69746E65\n"
		"CPUID 00000001: 00010662-00000000-00000000-0383FBFF\n";
	static const char intel_fam6_ext[] =
		"CPUID 00000000: 00000001-756E6547-6C65746E-49656E69\n"
		"CPUID 00000001: 00010662-00000000-00000000-0383FBFF\n";
	/* The extended family counts only when the base family is 0xF. */
	static const char intel_fam6_extfam[] =
		"CPUID 00000000: 00000001-756E6547-6C65746E-49656E69\n"
		"CPUID 00000001: 00100673-00000000-00000000-0387F9FF\n";
	/* Hygon Dhyana: family 0xF + 9 = 24, AMD rules for the PMU. */
	static const char hygon[] =
		"CPUID 00000000: 0000000D-6F677948-656E6975-6E65476E\n"
		"CPUID 00000001: 00900F01-00100800-7ED8320B-178BFBFF\n"
		"CPUID 80000000: 8000001F-6F677948-656E6975-6E65476E\n"
		"CPUID 80000001: 00900F01-00000000-35C233FF-2FD3FBFF\n"
		"CPUID 8000001E: 00000000-00000100-00000000-00000000\n";
	/* AMD K5 (family 5): no PMU to drive. */
	static const char k5[] =
		"CPUID 00000000: 00000001-68747541-444D4163-69746E65\n"
		"CPUID 00000001: 00000514-00000000-00000000-000001BF\n";
	/* Intel v3 reporting 2 fixed counters on bare metal: Linux raises it to 3. */
	static const char intel_v3_two_fixed[] =
		"CPUID 00000000: 0000000B-756E6547-6C65746E-49656E69\n"
		"CPUID 00000001: 000106A5-00100800-0098E3BD-BFEBFBFF\n"
		"CPUID 0000000A: 07300403-00000000-00000000-00000602\n";
	/* kvm64: GenuineIntel family 15 under a hypervisor is still NetBurst. */
	static const char kvm64[] =
		"CPUID 00000000: 0000000D-756E6547-6C65746E-49656E69\n"
		"CPUID 00000001: 00000F61-00000800-80802001-078BFBFD\n";
	struct decoded x;

	(void)state;
	decode_synthetic(amd_k7_ext, &x);
	assert_int_equal(x.ci.family, 6);
	assert_int_equal(x.ci.model, 6);
	decode_synthetic(intel_fam6_ext, &x);
	assert_int_equal(x.ci.model, 0x16);
	decode_synthetic(intel_fam6_extfam, &x);
	assert_int_equal(x.ci.family, 6);
	assert_int_equal(x.ci.model, 7);
	assert_int_equal(x.pc.kind, PMU_INTEL_P6);

	decode_synthetic(hygon, &x);
	assert_int_equal(x.ci.vendor, VENDOR_HYGON);
	assert_int_equal(x.ci.family, 24);
	assert_int_equal(x.pc.kind, PMU_AMD_CORE);
	assert_int_equal(x.ci.threads_per_core, 2);

	decode_synthetic(k5, &x);
	assert_int_equal(x.pc.kind, PMU_NONE);
	assert_string_equal(report_value(&x.rep, "pmu.gp_counters"), "0");

	decode_synthetic(intel_v3_two_fixed, &x);
	assert_int_equal(x.pc.fixed_counters, 3);
	assert_true(x.pc.fixed_count_quirk);
	assert_int_equal(x.pc.fixed_width, 48);
	assert_int_equal(x.pc.gp_counters, 4);

	decode_synthetic(kvm64, &x);
	assert_true(x.ci.hypervisor);
	assert_int_equal(x.pc.kind, PMU_INTEL_NETBURST);
	assert_false(x.pc.netburst_ht);
}

/* Dual-core NetBurst: CPUID.1 says HTT with 2 (or 4) logical processors per package, but
 * leaf 4 says 2 cores, so only the Extreme Edition has two threads per core (SDM Vol. 3A
 * 10.9.1: SMT width from leaf 1 EBX[23:16] over leaf 4 EAX[31:26] + 1). */
static void test_netburst_dual_core(void **state)
{
	/* Pentium D (family 15 model 4): one thread per core, T1 bits do not apply. */
	static const char pentium_d[] =
		"CPUID 00000000: 00000005-756E6547-6C65746E-49656E69\n"
		"CPUID 00000001: 00000F44-00020800-0000E41D-BFEBFBFF\n"
		"CPUID 00000004: 04000121-01C0003F-0000001F-00000000\n";
	/* Pentium Extreme Edition (model 4): two cores with Hyper-Threading. */
	static const char pentium_ee[] =
		"CPUID 00000000: 00000005-756E6547-6C65746E-49656E69\n"
		"CPUID 00000001: 00000F44-00040800-0000E41D-BFEBFBFF\n"
		"CPUID 00000004: 04004121-01C0003F-0000001F-00000000\n";
	struct decoded x;

	(void)state;
	decode_synthetic(pentium_d, &x);
	assert_int_equal(x.pc.kind, PMU_INTEL_NETBURST);
	assert_true(x.ci.htt);
	assert_int_equal(x.ci.logical_per_package, 2);
	assert_int_equal(x.ci.threads_per_core, 1);
	assert_false(x.pc.netburst_ht);
	decode_synthetic(pentium_ee, &x);
	assert_int_equal(x.ci.logical_per_package, 4);
	assert_int_equal(x.ci.threads_per_core, 2);
	assert_true(x.pc.netburst_ht);
}

/* ------------------------------------------------------------------ report */

static void test_report_order(void **state)
{
	static const char *const keys[] = {
		"cpu.vendor", "cpu.family", "cpu.model", "cpu.stepping", "cpu.brand",
		"cpu.hypervisor", "cpu.invariant_tsc", "cpu.tsc_hz", "cpu.base_mhz",
		"cpu.threads_per_core", "cpu.logical_per_package",
	};
	static const char *const pmu_keys[] = {
		"pmu.kind", "pmu.version", "pmu.gp_counters", "pmu.gp_width",
		"pmu.fixed_counters", "pmu.fixed_width",
	};
	struct cpuid_dump *d = test_load_dump(DATA_DIR "GenuineIntel0090672_AlderLake_S_CPUID.txt");
	struct cpu_info ci;
	struct pmu_caps pc;
	struct report rep = { 0 };
	unsigned i, pmu_start = 0;

	(void)state;
	decode_fenced(d, &ci, &pc);
	cpuinfo_report(&ci, &pc, capture_line, &rep);
	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		size_t k = strlen(keys[i]);

		if (strncmp(rep.line[i], keys[i], k) != 0 || rep.line[i][k] != '=')
			fail_msg("line %u is '%s', expected key %s", i, rep.line[i], keys[i]);
	}
	while (pmu_start < rep.n && strncmp(rep.line[pmu_start], "pmu.", 4) != 0)
		pmu_start++;
	for (i = 0; i < ARRAY_SIZE(pmu_keys); i++)
		if (strncmp(rep.line[pmu_start + i], pmu_keys[i], strlen(pmu_keys[i])) != 0)
			fail_msg("pmu line %u is '%s', expected key %s", i, rep.line[pmu_start + i],
				 pmu_keys[i]);
	for (i = pmu_start; i < rep.n; i++)
		assert_memory_equal(rep.line[i], "pmu.", 4);

	assert_string_equal(report_value(&rep, "cpu.brand"), "12th Gen Intel(R) Core(TM) i9-12900K");
	assert_string_equal(report_value(&rep, "cpu.tsc_hz"), "3187200000");
	assert_string_equal(report_value(&rep, "cpu.base_mhz"), "3200");
	assert_string_equal(report_value(&rep, "cpu.invariant_tsc"), "yes");
	assert_string_equal(report_value(&rep, "cpu.hypervisor"), "none");
	assert_string_equal(report_value(&rep, "pmu.fixed_counter_mask"), "0x7");
	assert_string_equal(report_value(&rep, "pmu.fixed_quirk"), "no");
	assert_string_equal(report_value(&rep, "pmu.any_thread_deprecated"), "yes");
	assert_string_equal(report_value(&rep, "cpu.signature"), "0x00090672");
	assert_non_null(strstr(report_value(&rep, "cpu.features"), "x2apic"));
	assert_null(strstr(report_value(&rep, "cpu.features"), "hypervisor"));
	free(d);
}

/* ------------------------------------------------------------------ fuzz */

static uint64_t rng_state;

static uint64_t rng_next(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1Dull;
}

static size_t rng_below(size_t n)
{
	return n == 0 ? 0 : (size_t)(rng_next() % n);
}

static void check_report_sane(void *ctx, const char *line)
{
	unsigned *lines = ctx;
	const char *p;

	assert_non_null(strchr(line, '='));
	assert_true(strlen(line) < 256);
	for (p = line; *p; p++)
		if (*p < 0x20 || *p > 0x7E)
			fail_msg("unprintable byte 0x%02x in report line '%s'", (unsigned char)*p, line);
	(*lines)++;
}

/* Mutates src into a fresh, exactly sized buffer. */
static char *mutate(const char *src, size_t len, size_t *out_len)
{
	static const char alphabet[] = "0123456789ABCDEFabcdef-:[] \t\r\nCPUIDSLx\0\xff";
	size_t cap = len * 2 + 64, n = len, i, edits = 1 + rng_below(8);
	char *buf = malloc(cap), *out;

	assert_non_null(buf);
	memcpy(buf, src, len);
	for (i = 0; i < edits; i++) {
		size_t at = rng_below(n + 1), span = rng_below(64);

		switch (rng_below(6)) {
		case 0: /* overwrite a byte */
			if (n > 0)
				buf[rng_below(n)] = alphabet[rng_below(sizeof(alphabet))];
			break;
		case 1: /* random byte */
			if (n > 0)
				buf[rng_below(n)] = (char)rng_next();
			break;
		case 2: /* truncate */
			n = rng_below(n + 1);
			break;
		case 3: /* delete a span */
			if (at + span > n)
				span = n - at;
			memmove(buf + at, buf + at + span, n - at - span);
			n -= span;
			break;
		case 4: /* duplicate a span */
			if (at + span > n)
				span = n - at;
			if (n + span <= cap) {
				memmove(buf + at + span, buf + at, n - at);
				n += span;
			}
			break;
		default: /* insert one character */
			if (n < cap) {
				memmove(buf + at + 1, buf + at, n - at);
				buf[at] = alphabet[rng_below(sizeof(alphabet))];
				n++;
			}
			break;
		}
	}
	out = malloc(n > 0 ? n : 1);
	assert_non_null(out);
	memcpy(out, buf, n);
	free(buf);
	*out_len = n;
	return out;
}

static void test_fuzz_parser(void **state)
{
	const struct expect *all[ARRAY_SIZE(instlatx64_table) +
				 ARRAY_SIZE(data_table)];
	struct cpuid_dump *d = malloc(sizeof(*d));
	size_t nfiles = 0, f, i;
	unsigned parsed = 0, rejected = 0;

	(void)state;
	assert_non_null(d);
	for (i = 0; i < ARRAY_SIZE(instlatx64_table); i++)
		all[nfiles++] = &instlatx64_table[i];
	for (i = 0; i < ARRAY_SIZE(data_table); i++)
		all[nfiles++] = &data_table[i];

	rng_state = 0x6261726570657266ull;      /* fixed seed: failures reproduce */
	for (f = 0; f < nfiles; f++) {
		size_t len;
		char *text = test_slurp(all[f]->path, &len);

		for (i = 0; i < 400; i++) {
			size_t mlen;
			char *m = mutate(text, len, &mlen);
			char err[96];
			int n = cpuid_dump_parse(d, m, mlen, err, sizeof(err));

			if (n < 0) {
				assert_int_equal(d->count, 0);
				assert_non_null(strstr(err, "no CPUID lines found"));
				rejected++;
			} else {
				struct cpu_info ci;
				struct pmu_caps pc;
				unsigned lines = 0;

				assert_true(n >= 1 && n <= CPUID_DUMP_MAX);
				assert_int_equal((unsigned)n, d->count);
				decode_fenced(d, &ci, &pc);
				assert_true(pc.kind < PMU_KIND_COUNT);
				assert_true(strlen(ci.brand) < sizeof(ci.brand));
				cpuinfo_report(&ci, &pc, check_report_sane, &lines);
				assert_true(lines >= 17);
				parsed++;
			}
			free(m);
		}
		free(text);
	}
	print_message("fuzz: %u mutated dumps parsed, %u rejected\n", parsed, rejected);
	assert_true(parsed > 0);
	free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_instlatx64_dumps_match_readme),
		cmocka_unit_test(test_transcribed_dumps),
		cmocka_unit_test(test_intel_details),
		cmocka_unit_test(test_amd_details),
		cmocka_unit_test(test_parser_subleaves),
		cmocka_unit_test(test_parser_line_endings_and_garbage),
		cmocka_unit_test(test_parser_two_cpus),
		cmocka_unit_test(test_parser_errors_and_limits),
		cmocka_unit_test(test_hypervisor_cases),
		cmocka_unit_test(test_leaves_beyond_maximum),
		cmocka_unit_test(test_family_model_rules),
		cmocka_unit_test(test_netburst_dual_core),
		cmocka_unit_test(test_report_order),
		cmocka_unit_test(test_rapl_detection),
		cmocka_unit_test(test_fuzz_parser),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
