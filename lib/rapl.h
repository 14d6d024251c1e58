/* RAPL energy counters: SDM Vol. 3B 15.10 "Platform Specific Power Management Support"
 * (15.10.1 RAPL interfaces, 15.10.3 MSR_RAPL_POWER_UNIT); AMD PPR for family 17h/19h
 * (MSRC001_0299 RAPL_PWR_UNIT, MSRC001_029A CORE_ENERGY_STAT, MSRC001_029B PKG_ENERGY_STAT). */
/*
 * What the event language, the report and the detection need to know about RAPL, pure
 * and host-tested: the domains and their event names, which CPUs have the MSRs, the
 * energy unit, the 32-bit wrap, and joules printed without floating point. The MSR
 * numbers and the boot-time probe live in arch/x86 (msr-index.h, pmu/rapl-probe.c).
 */
#ifndef LIB_RAPL_H
#define LIB_RAPL_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* perf's power/energy-pkg/, energy-cores, energy-ram. */
enum rapl_domain { RAPL_PKG, RAPL_CORES, RAPL_RAM, RAPL_DOMAIN_COUNT };
#define RAPL_DOMAIN_BIT(d)      (1u << (d))

/* MSR_RAPL_POWER_UNIT (Intel 0x606) and RAPL_PWR_UNIT (AMD 0xC0010299) alike: energy
 * status units in bits 12:8, one count = 1/2^ESU joules. */
#define RAPL_UNIT_ESU_SHIFT     8
#define RAPL_UNIT_ESU_MASK      0x1full
/* The energy status registers count in bits 31:0 and wrap there; 63:32 are reserved. */
#define RAPL_ENERGY_WIDTH       32
/* The fixed DRAM unit of the server parts in rapl_intel_models: 15.3 uJ = 2^-16 J
 * (SDM Vol. 4, MSR_DRAM_ENERGY_STATUS in the Haswell-E to Ice Lake-SP Xeon tables). */
#define RAPL_DRAM_FIXED_ESU     16

enum rapl_vendor { RAPL_VENDOR_NONE, RAPL_VENDOR_INTEL, RAPL_VENDOR_AMD };

/* How far detection got. */
enum rapl_state {
	RAPL_UNPROBED,          /* no machine to read (host tools): CPUID/model only */
	RAPL_ABSENT,            /* CPUID (AMD) or the model list (Intel) says none */
	RAPL_UNIT_FAULT,        /* reading the power-unit MSR faulted */
	RAPL_UNIT_ZERO,         /* it reads 0: no RAPL behind it (QEMU TCG reads unknown MSRs as 0) */
	RAPL_PRESENT,           /* domains holds what the status MSRs confirmed */
};

struct rapl_caps {
	enum rapl_vendor vendor;        /* whose MSRs, when the CPU should have them */
	bool dram_fixed_unit;           /* DRAM counts in 2^-16 J whatever the unit MSR says */
	enum rapl_state state;
	uint8_t domains;                /* RAPL_DOMAIN_BIT()s whose status MSR reads */
	uint8_t esu[RAPL_DOMAIN_COUNT]; /* joules per count = 1/2^esu[d] */
};

/* "pkg", "cores", "ram". */
const char *rapl_domain_name(enum rapl_domain d);
/* The domain an event name means: energy-pkg, energy-cores, energy-ram, or perf's
 * power/energy-pkg/ forms (any case); -1 for any other text. */
int rapl_event_domain(const char *text);

/* Intel family 6 models with RAPL (Sandy Bridge and later, SDM Vol. 4 MSR tables; Intel
 * has no CPUID bit for it); *dram_fixed tells the servers with the fixed DRAM unit. */
bool rapl_intel_model(unsigned model, bool *dram_fixed);
/* The energy status unit from a power-unit MSR value. */
unsigned rapl_esu(uint64_t power_unit);
/* Fill rc from a power-unit MSR value and the domains whose status MSRs read. */
void rapl_set_units(struct rapl_caps *rc, uint64_t power_unit, uint8_t domains);
/* Why domain d cannot be counted, or NULL when it can. */
const char *rapl_unavailable(const struct rapl_caps *rc, enum rapl_domain d);

/* Counts between two reads of a status register: modulo 2^32. */
uint64_t rapl_delta(uint64_t before, uint64_t after);

/* milli_counts / 1000 / per counts (per >= 1: e.g. iterations), in joules at 1/2^esu J
 * per count, as "6.10352e-05": sig significant digits (1-18), rounded; "0" for zero.
 * Integer arithmetic only, exact to 1e-9 counts before rounding. JSON-ready. Returns
 * the length, as bp_snprintf does. */
int rapl_fmt_joules(char *buf, size_t len, int64_t milli_counts, uint64_t per, unsigned esu,
		    unsigned sig);
/* The same with an SI prefix for people: "61.04 nJ", "1.250 J", "0 J". */
int rapl_fmt_joules_si(char *buf, size_t len, int64_t milli_counts, uint64_t per,
		       unsigned esu, unsigned sig);

#endif
