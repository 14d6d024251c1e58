#include "drivers/pci.h"
#include "arch/x86/cpu.h"

/* Mechanism #1 reaches offsets 0..255 of each function; ECAM all 4096. */
#define PCI_LEGACY_SPACE 256
#define ECAM_FN_BYTES    4096u
#define ECAM_ADDR(base, bus, dev, fn, off) \
	((base) + ((uintptr_t)(bus) << 20 | (uintptr_t)(dev) << 15 | (uintptr_t)(fn) << 12 | (off)))

static struct {
	bool ecam;
	uintptr_t base;
	uint8_t bus_start, bus_end;
} cfg;

void pci_use_ecam(uintptr_t base, uint8_t bus_start, uint8_t bus_end)
{
	cfg.ecam = true;
	cfg.base = base;
	cfg.bus_start = bus_start;
	cfg.bus_end = bus_end;
}

bool pci_ecam_in_use(void)
{
	return cfg.ecam;
}

static bool via_ecam(uint8_t bus)
{
	return cfg.ecam && bus >= cfg.bus_start && bus <= cfg.bus_end;
}

static uint32_t legacy_address(uint8_t bus, uint8_t dev, uint8_t fn, uint16_t off)
{
	return PCI_CONFIG_ENABLE | (uint32_t)bus << 16 | (uint32_t)dev << 11 | (uint32_t)fn << 8 | (off & 0xFCu);
}

uint32_t pci_read32(uint8_t bus, uint8_t dev, uint8_t fn, uint16_t off)
{
	off &= (uint16_t)~3u;
	if (via_ecam(bus))
		return *(volatile uint32_t *)ECAM_ADDR(cfg.base, bus, dev, fn, off % ECAM_FN_BYTES);
	if (off >= PCI_LEGACY_SPACE)
		return 0xFFFFFFFFu;
	outl(PCI_CONFIG_ADDRESS, legacy_address(bus, dev, fn, off));
	return inl(PCI_CONFIG_DATA);
}

void pci_write32(uint8_t bus, uint8_t dev, uint8_t fn, uint16_t off, uint32_t v)
{
	off &= (uint16_t)~3u;
	if (via_ecam(bus)) {
		*(volatile uint32_t *)ECAM_ADDR(cfg.base, bus, dev, fn, off % ECAM_FN_BYTES) = v;
		return;
	}
	if (off >= PCI_LEGACY_SPACE)
		return;
	outl(PCI_CONFIG_ADDRESS, legacy_address(bus, dev, fn, off));
	outl(PCI_CONFIG_DATA, v);
}

static void add(struct pci_found *out, const struct pci_dev *d)
{
	if (out->count < PCI_MAX_FOUND)
		out->dev[out->count++] = *d;
	else
		out->dropped++;
}

/* One function: recorded; a bridge's secondary bus goes on the list of buses to visit. */
static void probe_function(uint8_t bus, uint8_t dev, uint8_t fn, uint32_t id, struct pci_found *out,
			   bool seen[PCI_BUSES], uint8_t queue[PCI_BUSES], unsigned *queued)
{
	uint32_t cls = pci_read32(bus, dev, fn, PCI_CLASS_REVISION);
	uint32_t hdr = pci_read32(bus, dev, fn, PCI_HEADER_TYPE_DWORD) >> 16 & 0xFF;
	struct pci_dev d = {
		.bus = bus, .dev = dev, .fn = fn,
		.vendor = (uint16_t)id, .device = (uint16_t)(id >> 16),
		.class_code = (uint8_t)(cls >> 24), .subclass = (uint8_t)(cls >> 16), .progif = (uint8_t)(cls >> 8),
		.header_type = (uint8_t)(hdr & PCI_HEADER_TYPE_MASK),
	};

	add(out, &d);
	if (d.header_type == PCI_HEADER_BRIDGE) {
		uint8_t secondary = (uint8_t)(pci_read32(bus, dev, fn, PCI_BRIDGE_BUSES) >> 8);
		/* Bus 0 is never a secondary bus; a bridge not yet numbered says 0. */
		if (secondary != 0 && !seen[secondary]) {
			seen[secondary] = true;
			queue[(*queued)++] = secondary;
		}
	}
}

static void scan_bus(uint8_t bus, struct pci_found *out, bool seen[PCI_BUSES], uint8_t queue[PCI_BUSES],
		     unsigned *queued)
{
	for (uint8_t dev = 0; dev < PCI_DEVICES; dev++) {
		uint32_t id = pci_read32(bus, dev, 0, PCI_VENDOR_DEVICE);
		if ((id & 0xFFFF) == PCI_VENDOR_NONE)
			continue;
		bool multi = pci_read32(bus, dev, 0, PCI_HEADER_TYPE_DWORD) >> 16 & PCI_HEADER_MULTIFUNCTION;
		for (uint8_t fn = 0; fn < (multi ? PCI_FUNCTIONS : 1); fn++) {
			if (fn)
				id = pci_read32(bus, dev, fn, PCI_VENDOR_DEVICE);
			if ((id & 0xFFFF) != PCI_VENDOR_NONE)
				probe_function(bus, dev, fn, id, out, seen, queue, queued);
		}
	}
}

void pci_enumerate(struct pci_found *out)
{
	static bool seen[PCI_BUSES];
	static uint8_t queue[PCI_BUSES];
	unsigned queued = 1;

	out->count = out->dropped = 0;
	for (unsigned i = 0; i < PCI_BUSES; i++)
		seen[i] = false;
	seen[0] = true;
	queue[0] = 0;
	/* Each bus enters the queue once, so this ends after at most 256 buses. */
	for (unsigned next = 0; next < queued; next++)
		scan_bus(queue[next], out, seen, queue, &queued);
}

#define PCI_BARS_TYPE0 6

bool pci_read_bar(const struct pci_dev *d, unsigned n, struct pci_bar *out)
{
	if (n >= PCI_BARS_TYPE0)
		return false;
	uint32_t v = pci_dev_read32(d, PCI_BAR(n));
	out->io = v & PCI_BAR_IO;
	out->wide = false;
	if (out->io) {
		out->addr = v & PCI_BAR_IO_MASK;
		return true;
	}
	out->addr = v & PCI_BAR_MEM_MASK;
	out->wide = (v & PCI_BAR_MEM_TYPE_64) && n + 1 < PCI_BARS_TYPE0;
	if (out->wide)
		out->addr |= (uint64_t)pci_dev_read32(d, PCI_BAR(n + 1)) << 32;
	return true;
}

void pci_enable_decode(const struct pci_dev *d, bool io)
{
	uint32_t cmd = pci_dev_read32(d, PCI_COMMAND);
	uint32_t want = io ? PCI_COMMAND_IO : PCI_COMMAND_MEMORY;
	/* The status half of the dword is write-1-to-clear: write it as 0. */
	if (!(cmd & want))
		pci_write32(d->bus, d->dev, d->fn, PCI_COMMAND, (cmd & 0xFFFFu) | want);
}

bool pci_is_uart(const struct pci_dev *d)
{
	return d->class_code == PCI_CLASS_COMM && d->subclass == PCI_SUBCLASS_SERIAL &&
	       d->progif >= PCI_PROGIF_16450 && d->progif <= PCI_PROGIF_16950;
}
