/* RAPL energy counters: domains, CPU lists, units, wrap and joule formatting (lib/rapl.h). */
#include "lib/rapl.h"
#include "lib/format.h"
#include "lib/str.h"
#include "lib/u128.h"
#include "lib/util.h"

static const char *const domain_names[RAPL_DOMAIN_COUNT] = {
	[RAPL_PKG] = "pkg", [RAPL_CORES] = "cores", [RAPL_RAM] = "ram",
};

const char *rapl_domain_name(enum rapl_domain d)
{
	return (unsigned)d < RAPL_DOMAIN_COUNT ? domain_names[d] : "?";
}

int rapl_event_domain(const char *text)
{
	static const char perf_pmu[] = "power/";
	size_t len = strlen(text);
	/* power/energy-pkg/ is energy-pkg between perf's PMU name and a closing slash */
	if (!str_ncasecmp(text, perf_pmu, sizeof(perf_pmu) - 1) && len > sizeof(perf_pmu) &&
	    text[len - 1] == '/') {
		text += sizeof(perf_pmu) - 1;
		len -= sizeof(perf_pmu);
	}
	/* energy-DOMAIN: every event name is asked, so no formatting here */
	static const char energy[] = "energy-";
	if (len < sizeof(energy) || str_ncasecmp(text, energy, sizeof(energy) - 1))
		return -1;
	text += sizeof(energy) - 1;
	len -= sizeof(energy) - 1;
	for (unsigned d = 0; d < RAPL_DOMAIN_COUNT; d++)
		if (strlen(domain_names[d]) == len && !str_ncasecmp(text, domain_names[d], len))
			return (int)d;
	return -1;
}

/* Family 6 models with MSR_RAPL_POWER_UNIT and MSR_PKG_ENERGY_STATUS: the SDM Vol. 4
 * MSR tables of Sandy Bridge and every later Core and Xeon generation, Goldmont and
 * later Atoms, and Xeon Phi (the list Linux's RAPL perf driver matches). fixed: the parts
 * whose MSR_DRAM_ENERGY_STATUS counts in 15.3 uJ (SDM Vol. 4: Haswell-E, Broadwell-E,
 * Skylake-SP to Ice Lake-SP tables, Xeon Phi). Sapphire and Emerald Rapids are not: their
 * table (4th/5th Gen Xeon Scalable) gives 619H "Energy in 61 micro-joules", the
 * power-unit MSR's unit, and Linux dropped its SPR DRAM quirk for that reason. */
static const struct { uint8_t model; bool dram_fixed; } intel_models[] = {
	{ 0x2a, false }, { 0x2d, false },                       /* Sandy Bridge, -EP */
	{ 0x3a, false }, { 0x3e, false },                       /* Ivy Bridge, -EP */
	{ 0x3c, false }, { 0x45, false }, { 0x46, false },      /* Haswell */
	{ 0x3f, true },                                         /* Haswell-E/EP */
	{ 0x3d, false }, { 0x47, false }, { 0x56, false },      /* Broadwell, -DE */
	{ 0x4f, true },                                         /* Broadwell-E/EP */
	{ 0x4e, false }, { 0x5e, false },                       /* Skylake */
	{ 0x55, true },                                         /* Skylake-SP, Cascade Lake */
	{ 0x8e, false }, { 0x9e, false }, { 0xa5, false }, { 0xa6, false }, /* Kaby, Comet */
	{ 0x66, false }, { 0x7d, false }, { 0x7e, false },      /* Cannon Lake, Ice Lake */
	{ 0x6a, true }, { 0x6c, true },                         /* Ice Lake-SP, -D */
	{ 0x8c, false }, { 0x8d, false }, { 0xa7, false },      /* Tiger Lake, Rocket Lake */
	{ 0x97, false }, { 0x9a, false }, { 0xbe, false },      /* Alder Lake */
	{ 0xb7, false }, { 0xba, false }, { 0xbf, false },      /* Raptor Lake */
	{ 0xaa, false }, { 0xac, false },                       /* Meteor Lake */
	{ 0x8f, false }, { 0xcf, false },                       /* Sapphire, Emerald Rapids */
	{ 0x5c, false }, { 0x5f, false }, { 0x7a, false },      /* Goldmont, Goldmont Plus */
	{ 0x57, true }, { 0x85, true },                         /* Xeon Phi: Knights Landing, Mill */
};

bool rapl_intel_model(unsigned model, bool *dram_fixed)
{
	for (unsigned i = 0; i < ARRAY_SIZE(intel_models); i++)
		if (intel_models[i].model == model) {
			*dram_fixed = intel_models[i].dram_fixed;
			return true;
		}
	*dram_fixed = false;
	return false;
}

unsigned rapl_esu(uint64_t power_unit)
{
	return (unsigned)((power_unit >> RAPL_UNIT_ESU_SHIFT) & RAPL_UNIT_ESU_MASK);
}

void rapl_set_units(struct rapl_caps *rc, uint64_t power_unit, uint8_t domains)
{
	unsigned esu = rapl_esu(power_unit);
	rc->domains = domains;
	for (unsigned d = 0; d < RAPL_DOMAIN_COUNT; d++)
		rc->esu[d] = (uint8_t)esu;
	if (rc->dram_fixed_unit)
		rc->esu[RAPL_RAM] = RAPL_DRAM_FIXED_ESU;
	rc->state = RAPL_PRESENT;
}

const char *rapl_unavailable(const struct rapl_caps *rc, enum rapl_domain d)
{
	switch (rc->state) {
	case RAPL_UNPROBED:
		return "RAPL is detected at boot, by reading its MSRs; there is no CPU to read here";
	case RAPL_ABSENT:
		return "this CPU has no RAPL energy counters: CPUID 0x80000007 EDX bit 14 is "
		       "clear (AMD), or it is no Intel family 6 model from Sandy Bridge on";
	case RAPL_UNIT_FAULT:
		return "reading the RAPL power-unit MSR faulted: this machine has no RAPL";
	case RAPL_UNIT_ZERO:
		return "the RAPL power-unit MSR reads 0: this machine does not implement RAPL; "
		       "QEMU TCG, for one, reads unknown MSRs as 0";
	case RAPL_PRESENT:
		break;
	}
	if (rc->domains & RAPL_DOMAIN_BIT(d))
		return NULL;
	if (d == RAPL_RAM && rc->vendor == RAPL_VENDOR_AMD)
		return "AMD's RAPL has no DRAM domain";
	return "this CPU's RAPL has no such domain (its energy status MSR faulted at boot)";
}

uint64_t rapl_delta(uint64_t before, uint64_t after)
{
	return (after - before) & ((1ull << RAPL_ENERGY_WIDTH) - 1);
}

/* ---------------------------------------------------------------- joules as text */

#define SIG_MAX 18

/* The first sig significant decimal digits of mag / den (rounded half up) into dig, and
 * the power of ten of the first one. mag > 0. Digit by digit with u128 arithmetic, so
 * the i686 kernel needs no libgcc division and rem * 10 cannot overflow. */
static void decimal_digits(uint64_t mag, uint64_t den, unsigned sig, char *dig, int *exp10)
{
	char d[SIG_MAX + 1];
	unsigned n = 0;
	uint64_t rem;
	uint64_t q = u128_divmod64(u128_from_u64(mag), den, &rem).lo;
	*exp10 = 0;
	if (q) {
		char rev[24];
		unsigned k = 0;
		while (q) {
			uint64_t r;
			q = u128_divmod64(u128_from_u64(q), 10, &r).lo;
			rev[k++] = (char)('0' + r);
		}
		*exp10 = (int)k - 1;
		while (k && n < sig + 1)
			d[n++] = rev[--k];
	}
	bool started = n > 0;
	while (n < sig + 1) {
		uint64_t digit = u128_divmod64(u128_mul64(rem, 10), den, &rem).lo;
		if (!started) {
			(*exp10)--;
			if (!digit)
				continue;
			started = true;
		}
		d[n++] = (char)('0' + digit);
	}
	bool carry = d[sig] >= '5';
	for (unsigned i = sig; i-- > 0;) {
		dig[i] = d[i];
		if (carry) {
			carry = d[i] == '9';
			dig[i] = carry ? '0' : (char)(d[i] + 1);
		}
	}
	if (carry) {                       /* 9.99 -> 10.0 */
		dig[0] = '1';
		(*exp10)++;
	}
}

/* The value's digits and exponent; false for zero. The count is taken to 1e-9 units
 * (milli x 10^6 / per) and divided by 10^9 x 2^esu: both fit 64 bits for esu <= 31. */
static bool joule_digits(int64_t milli_counts, uint64_t per, unsigned esu, unsigned *sig,
			 char *dig, int *exp10, bool *neg)
{
	uint64_t mag = milli_counts < 0 ? 0 - (uint64_t)milli_counts : (uint64_t)milli_counts;
	*neg = milli_counts < 0;
	if (*sig < 1)
		*sig = 1;
	if (*sig > SIG_MAX)
		*sig = SIG_MAX;
	struct u128 nano = u128_divmod64(u128_mul64(mag, 1000000), per ? per : 1, NULL);
	if (nano.hi)
		nano.lo = UINT64_MAX;      /* beyond 1.8e10 counts: no 32-bit counter gets there */
	if (nano.lo == 0)
		return false;
	decimal_digits(nano.lo, 1000000000ull << (esu & 31), *sig, dig, exp10);
	return true;
}

int rapl_fmt_joules(char *buf, size_t len, int64_t milli_counts, uint64_t per, unsigned esu,
		    unsigned sig)
{
	char dig[SIG_MAX];
	int e;
	bool neg;
	if (!joule_digits(milli_counts, per, esu, &sig, dig, &e, &neg))
		return bp_snprintf(buf, len, "0");
	return bp_snprintf(buf, len, "%s%c%s%.*se%s%02d", neg ? "-" : "", dig[0], sig > 1 ? "." : "",
			   (int)sig - 1, dig + 1, e < 0 ? "-" : "+", e < 0 ? -e : e);
}

int rapl_fmt_joules_si(char *buf, size_t len, int64_t milli_counts, uint64_t per,
		       unsigned esu, unsigned sig)
{
	static const char *const prefix[] = { "f", "p", "n", "u", "m", "", "k" };  /* 10^-15.. */
	char dig[SIG_MAX], mant[SIG_MAX + 4];
	int e;
	bool neg;
	if (!joule_digits(milli_counts, per, esu, &sig, dig, &e, &neg))
		return bp_snprintf(buf, len, "0 J");
	int eng = e >= 0 ? e / 3 * 3 : -((-e + 2) / 3 * 3);
	if (eng < -15 || eng > 3) {
		char sci[32];
		rapl_fmt_joules(sci, sizeof(sci), milli_counts, per, esu, sig);
		return bp_snprintf(buf, len, "%s J", sci);
	}
	unsigned whole = (unsigned)(e - eng + 1), n = 0;     /* 1 to 3 digits before the point */
	unsigned total = sig > whole ? sig : whole;
	for (unsigned i = 0; i < total; i++) {
		if (i == whole)
			mant[n++] = '.';
		mant[n++] = i < sig ? dig[i] : '0';
	}
	mant[n] = 0;
	return bp_snprintf(buf, len, "%s%s %sJ", neg ? "-" : "", mant, prefix[(eng + 15) / 3]);
}
