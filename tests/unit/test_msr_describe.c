/* trace=msr decoding: pmu_msr_describe() names each PMU MSR and decodes its fields. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "arch/x86/msr-index.h"
#include "arch/x86/pmu/core.h"
#include "arch/x86/pmu/pmu.h"
#include "lib/util.h"

struct describe_case {
	uint32_t msr;
	uint64_t val;
	const char *want;
};

static const struct describe_case cases[] = {
	{ 0x186, 0x004300c0, "PERFEVTSEL0 0x186 <- 0x004300c0 event=0xc0 umask=0x00 usr os en" },
	{ 0x187, 0x0143412e, "PERFEVTSEL1 0x187 <- 0x0143412e event=0x2e umask=0x41 usr os en cmask=1" },
	{ 0x188, 0x00a5003c, "PERFEVTSEL2 0x188 <- 0x00a5003c event=0x3c umask=0x00 usr edge any inv" },
	{ 0x186, 0x100000000ULL, "PERFEVTSEL0 0x186 <- 0x100000000 event=0x00 umask=0x00 reserved=0x100000000" },
	{ 0xc1, 0, "PMC0 0xc1 <- 0x00000000" },
	{ 0xc4, 0xffff80000000ULL, "PMC3 0xc4 <- 0xffff80000000" },
	{ 0x4c2, 0x1234, "A_PMC1 0x4c2 <- 0x00001234" },
	{ 0x30b, 0, "FIXED_CTR2 0x30b <- 0x00000000" },
	{ 0x38d, 0x332, "FIXED_CTR_CTRL 0x38d <- 0x00000332 fixed0=usr fixed1=os,usr fixed2=os,usr" },
	{ 0x38d, 0x3b03, "FIXED_CTR_CTRL 0x38d <- 0x00003b03 fixed0=os,usr fixed1=off fixed2=os,usr,pmi fixed3=os,usr" },
	{ 0x38d, 0, "FIXED_CTR_CTRL 0x38d <- 0x00000000 all off" },
	{ 0x38f, 0x700000003ULL, "PERF_GLOBAL_CTRL 0x38f <- 0x700000003 pmc0 pmc1 fixed0 fixed1 fixed2" },
	{ 0x38f, 0, "PERF_GLOBAL_CTRL 0x38f <- 0x00000000 none" },
	{ 0x390, 0xc000000100000001ULL, "PERF_GLOBAL_OVF_CTRL 0x390 <- 0xc000000100000001 pmc0 fixed0 ovf_buf cond_chgd" },
	{ 0x38e, 1ULL << 61, "PERF_GLOBAL_STATUS 0x38e <- 0x2000000000000000 ovf_uncore" },
	{ 0x345, 0x2000, "PERF_CAPABILITIES 0x345 <- 0x00002000 fw_write" },
	{ 0xc0010000, 0x00430076, "K7_EVNTSEL0 0xc0010000 <- 0x00430076 event=0x076 umask=0x00 usr os en" },
	{ 0xc0010007, 5, "K7_PERFCTR3 0xc0010007 <- 0x00000005" },
	{ 0xc0010200, 0x4300c0, "PERF_CTL0 0xc0010200 <- 0x004300c0 event=0x0c0 umask=0x00 usr os en" },
	{ 0xc001020a, 0x2010043ff29ULL, "PERF_CTL5 0xc001020a <- 0x2010043ff29 event=0x129 umask=0xff usr os en hostonly" },
	{ 0xc0010203, 0xffffffffffffULL, "PERF_CTR1 0xc0010203 <- 0xffffffffffff" },
	{ 0xc0000301, 0x3f, "PERF_CNTR_GLOBAL_CTL 0xc0000301 <- 0x0000003f pmc0 pmc1 pmc2 pmc3 pmc4 pmc5" },
	{ 0xc0000302, 0x5, "PERF_CNTR_GLOBAL_STATUS_CLR 0xc0000302 <- 0x00000005 pmc0 pmc2" },
	{ 0x1a6, 0x3f84000001ULL, "OFFCORE_RSP_0 0x1a6 <- 0x3f84000001" },
	{ 0x1a7, 0x10002, "OFFCORE_RSP_1 0x1a7 <- 0x00010002" },
	{ 0x3f7, 0x400906, "PEBS_FRONTEND 0x3f7 <- 0x00400906" },
	{ 0x10, 42, "TSC 0x10 <- 0x0000002a" },
	{ 0x1a0, 0x1, "MSR 0x1a0 <- 0x00000001" },
	{ 0xc0011000, 0x12345678, "MSR 0xc0011000 <- 0x12345678" },
};

static void test_describe_table(void **state)
{
	(void)state;
	for (unsigned i = 0; i < ARRAY_SIZE(cases); i++) {
		char buf[256];
		int n = pmu_msr_describe(cases[i].msr, cases[i].val, buf, sizeof(buf));
		assert_string_equal(buf, cases[i].want);
		assert_int_equal(n, (int)strlen(cases[i].want));
	}
}

static void test_describe_truncates(void **state)
{
	(void)state;
	char buf[12];
	memset(buf, 'x', sizeof(buf));
	int n = pmu_msr_describe(0x186, 0x004300c0, buf, sizeof(buf));
	assert_string_equal(buf, "PERFEVTSEL0");
	assert_int_equal(n, (int)strlen(cases[0].want));
}

/* 0x309 is IA32_FIXED_CTR0, but on NetBurst one of its 18 counters: the kind decides. */
static void test_describe_netburst_overlap(void **state)
{
	(void)state;
	char arch[128], nb[128];
	pmu_msr_describe_kind(PMU_INTEL_ARCH, 0x309, 7, arch, sizeof(arch));
	assert_string_equal(arch, "FIXED_CTR0 0x309 <- 0x00000007");
	pmu_msr_describe_kind(PMU_INTEL_NETBURST, 0x309, 7, nb, sizeof(nb));
	assert_null(strstr(nb, "FIXED_CTR0"));
	assert_non_null(strstr(nb, "0x309"));
	/* A NetBurst-only MSR (IQ_CCCR0 0x36c) is decoded by the NetBurst part in any kind. */
	pmu_msr_describe(0x36c, 0x3d000, nb, sizeof(nb));
	assert_non_null(strstr(nb, "CCCR"));
	assert_null(strstr(nb, "MSR 0x36c"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_describe_table),
		cmocka_unit_test(test_describe_truncates),
		cmocka_unit_test(test_describe_netburst_overlap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
