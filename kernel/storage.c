#include "kernel/storage.h"
#include "arch/x86/paging.h"
#include "drivers/pci.h"
#include "kernel/console.h"
#include "kernel/kernel.h"
#include "lib/acpi.h"
#include "lib/str.h"

#define ECAM_BUS_BYTES (1ull << 20)

static struct pci_found pci;

static bool read_phys(void *ctx, uint64_t phys, void *buf, uint32_t len)
{
	(void)ctx;
	/* Page 0 is unmapped; everything else below the identity limit is mapped. */
	if (phys < PAGE_SIZE || phys + len < phys || phys + len > paging.identity_limit)
		return false;
	memcpy(buf, (const void *)(uintptr_t)phys, len);
	return true;
}

/* ECAM where the MCFG has segment 0 with bus 0 and the window is identity-mapped; the
 * reason for mechanism #1 otherwise. */
static void choose_config_access(void)
{
	static struct acpi_mcfg_info mcfg;
	char err[160];

	if (acpi_read_mcfg(read_phys, 0, kernel.bi->rsdp, kernel.bi->rsdp_revision, &mcfg, err, sizeof(err))) {
		kprintf("pci.config=legacy (%s)\n", err);
		return;
	}
	for (unsigned i = 0; i < mcfg.nsegments; i++) {
		const struct acpi_mcfg_segment *s = &mcfg.seg[i];
		uint64_t end = s->base + ((uint64_t)s->bus_end + 1) * ECAM_BUS_BYTES;
		if (s->segment != 0 || s->bus_start != 0)
			continue;
		if (end > paging.identity_limit) {
			kprintf("pci.config=legacy (the MCFG's ECAM window 0x%llx..0x%llx is above the "
				"identity-mapped 0x%llx)\n", (unsigned long long)s->base, (unsigned long long)end,
				(unsigned long long)paging.identity_limit);
			return;
		}
		pci_use_ecam((uintptr_t)s->base, s->bus_start, s->bus_end);
		kprintf("pci.config=ecam (MCFG: segment 0, buses %u-%u at 0x%llx)\n", s->bus_start, s->bus_end,
			(unsigned long long)s->base);
		return;
	}
	kprintf("pci.config=legacy (the MCFG has no region for segment 0 from bus 0)\n");
}

/* The storage controllers bareperf knows or will know (AHCI, IDE; USB hosts for mass
 * storage), named as the saved: line names them. */
static const struct {
	uint8_t class_code, subclass;
	int progif;                 /* -1: any */
	const char *name;
} controller_kinds[] = {
	{ PCI_CLASS_STORAGE, PCI_SUBCLASS_SATA, PCI_PROGIF_AHCI, "ahci" },
	{ PCI_CLASS_STORAGE, PCI_SUBCLASS_IDE, -1, "ide" },
	{ PCI_CLASS_SERIAL_BUS, PCI_SUBCLASS_USB, PCI_PROGIF_XHCI, "xhci" },
	{ PCI_CLASS_SERIAL_BUS, PCI_SUBCLASS_USB, PCI_PROGIF_EHCI, "ehci" },
};

static const char *controller_kind(const struct pci_dev *d)
{
	for (unsigned i = 0; i < sizeof(controller_kinds) / sizeof(controller_kinds[0]); i++)
		if (d->class_code == controller_kinds[i].class_code && d->subclass == controller_kinds[i].subclass &&
		    (controller_kinds[i].progif < 0 || d->progif == controller_kinds[i].progif))
			return controller_kinds[i].name;
	return NULL;
}

void storage_detect(void)
{
	unsigned controllers = 0;

	choose_config_access();
	pci_enumerate(&pci);
	kprintf("pci.functions=%u%s\n", pci.count, pci.dropped ? " (more not kept)" : "");
	for (unsigned i = 0; i < pci.count; i++) {
		const struct pci_dev *d = &pci.dev[i];
		const char *kind = controller_kind(d);
		if (!kind)
			continue;
		controllers++;
		kprintf("storage.controller=%s %02x:%02x.%x %04x:%04x\n", kind, d->bus, d->dev, d->fn, d->vendor,
			d->device);
	}
	if (!controllers)
		kprintf("storage.controller=none\n");
}
