/*
 * libFuzzer target: acpi_read_madt (lib/acpi.c), what the kernel runs on the firmware's
 * ACPI tables. The input is a small physical address space: byte 0 is the loader's
 * rsdp_revision, the rest is memory from physical address SPACE_BASE (the BIOS area,
 * where an RSDP can be), with the RSDP at its start; a read of anything else fails, as
 * a read of unmapped memory does in the kernel. Checks:
 * a failure always says why and leaves no processors behind; a success has at most
 * ACPI_MAX_CPUS processors, no APIC ID twice, an 8-bit ID and UID for every Local
 * APIC entry, and Online Capable only with Enabled clear. acpi_read_mcfg reads the same
 * tables (check_mcfg).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/acpi.h"

#define SPACE_BASE 0xE0000u

struct space {
	const uint8_t *mem;
	size_t size;
};

static void fail(const char *what, const char *detail)
{
	fprintf(stderr, "fuzz_acpi: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
	abort();
}

static bool space_read(void *ctx, uint64_t phys, void *buf, uint32_t len)
{
	const struct space *s = ctx;

	if (phys < SPACE_BASE || phys - SPACE_BASE > s->size || len > s->size - (phys - SPACE_BASE))
		return false;
	memcpy(buf, s->mem + (phys - SPACE_BASE), len);
	return true;
}

static void check_cpus(const struct acpi_madt_info *info)
{
	if (info->ncpus > ACPI_MAX_CPUS)
		fail("more processors than ACPI_MAX_CPUS", NULL);
	for (unsigned i = 0; i < info->ncpus; i++) {
		const struct acpi_cpu *c = &info->cpu[i];

		if (!c->x2apic_entry && (c->apic_id > 0xFF || c->uid > 0xFF))
			fail("a Local APIC entry with an ID or UID over 8 bits", NULL);
		if (c->online_capable && c->enabled)
			fail("Online Capable with Enabled set", NULL);
		for (unsigned j = 0; j < i; j++)
			if (info->cpu[j].apic_id == c->apic_id)
				fail("an APIC ID listed twice", NULL);
	}
	if (info->dropped != 0 && info->ncpus != ACPI_MAX_CPUS)
		fail("processors dropped with room left", NULL);
}

/* acpi_read_mcfg on the same tables: a failure says why and leaves no segments; a
 * success has at most ACPI_MCFG_MAX, each 1 MiB aligned with its buses in order. */
static void check_mcfg(const struct space *s, unsigned revision)
{
	static struct acpi_mcfg_info mcfg;
	char err[160] = "";

	if (acpi_read_mcfg(space_read, (void *)s, SPACE_BASE, revision, &mcfg, err, sizeof(err)) != 0) {
		if (err[0] == '\0' || mcfg.nsegments != 0)
			fail("MCFG rejected without a message, or with segments left", err);
		return;
	}
	if (mcfg.nsegments > ACPI_MCFG_MAX)
		fail("more MCFG segments than ACPI_MCFG_MAX", NULL);
	for (unsigned i = 0; i < mcfg.nsegments; i++)
		if (mcfg.seg[i].base == 0 || mcfg.seg[i].base % 0x100000 || mcfg.seg[i].bus_start > mcfg.seg[i].bus_end)
			fail("an MCFG segment that breaks its checks was accepted", NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct acpi_madt_info info;
	struct space s;
	char err[160];

	if (size < 1)
		return 0;
	s.mem = data + 1;
	s.size = size - 1;
	check_mcfg(&s, data[0]);
	err[0] = '\0';
	if (acpi_read_madt(space_read, &s, SPACE_BASE, data[0], &info, err, sizeof(err)) != 0) {
		if (err[0] == '\0' || !memchr(err, '\0', sizeof(err)))
			fail("rejected without a message", NULL);
		if (info.ncpus != 0 || info.dropped != 0)
			fail("a failure left processors behind", err);
		return 0;
	}
	check_cpus(&info);
	return 0;
}
