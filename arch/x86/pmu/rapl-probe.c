/*
 * RAPL energy counters: which MSRs a domain has, and the one probe at boot. Intel has no
 * CPUID bit, and a listed model may still lack a domain (or run under a hypervisor that
 * has none), so every MSR is read once through the fault fixup before any event may name
 * it: the harness reads them later with a plain RDMSR.
 */
#include "arch/x86/msr-index.h"
#include "arch/x86/pmu/pmu.h"
#include "lib/rapl.h"

static const uint32_t status_msr[2][RAPL_DOMAIN_COUNT] = {
	/* Intel: SDM Vol. 3B 15.10.3 (package), 15.10.4 (PP0), 15.10.5 (DRAM) */
	{ [RAPL_PKG] = MSR_PKG_ENERGY_STATUS, [RAPL_CORES] = MSR_PP0_ENERGY_STATUS,
	  [RAPL_RAM] = MSR_DRAM_ENERGY_STATUS },
	/* AMD PPR: package and core; no DRAM domain */
	{ [RAPL_PKG] = MSR_AMD_PKG_ENERGY_STAT, [RAPL_CORES] = MSR_AMD_CORE_ENERGY_STAT },
};

uint32_t rapl_status_msr(enum rapl_domain d, bool amd)
{
	return (unsigned)d < RAPL_DOMAIN_COUNT ? status_msr[amd][d] : 0;
}

void rapl_probe(const struct msr_io *io, struct rapl_caps *rc)
{
	bool amd = rc->vendor == RAPL_VENDOR_AMD;
	uint64_t unit, v;
	uint8_t domains = 0;

	if (rc->vendor == RAPL_VENDOR_NONE) {
		rc->state = RAPL_ABSENT;
		return;
	}
	if (io->read(io->ctx, amd ? MSR_AMD_RAPL_PWR_UNIT : MSR_RAPL_POWER_UNIT, &unit)) {
		rc->state = RAPL_UNIT_FAULT;
		return;
	}
	/* Real parts report nonzero power, energy and time units; all zero is a stand-in. */
	if (unit == 0) {
		rc->state = RAPL_UNIT_ZERO;
		return;
	}
	for (unsigned d = 0; d < RAPL_DOMAIN_COUNT; d++)
		if (status_msr[amd][d] && io->read(io->ctx, status_msr[amd][d], &v) == 0)
			domains |= (uint8_t)RAPL_DOMAIN_BIT(d);
	rapl_set_units(rc, unit, domains);
}
