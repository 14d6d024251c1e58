/*
 * Finding the disks (kernel/storage-probe.h): PCI enumeration, by ECAM where ACPI's MCFG
 * gives one, and the storage controllers on it, each disk and USB stick opened as a block
 * device through its driver (drivers/ahci, ide, xhci, ehci, uhci, ohci; usb, usb-hub,
 * usb-msc).
 */
#include "kernel/storage-probe.h"
#include "arch/x86/paging.h"
#include "drivers/ahci.h"
#include "drivers/ehci.h"
#include "drivers/ide.h"
#include "drivers/ohci.h"
#include "drivers/pci.h"
#include "drivers/uhci.h"
#include "drivers/usb-hub.h"
#include "drivers/usb-msc.h"
#include "drivers/xhci.h"
#include "kernel/console.h"
#include "kernel/kernel.h"
#include "kernel/mem.h"
#include "lib/acpi.h"
#include "lib/format.h"
#include "lib/str.h"

#define ECAM_BUS_BYTES (1ull << 20)
#define STORAGE_EHCI_MAX 4      /* EHCI controllers opened; each keeps EHCI_DMA_BYTES */
#define STORAGE_XHCI_MAX  2     /* xHCI controllers opened */
#define STORAGE_UHCI_MAX 8      /* UHCI controllers opened; each keeps UHCI_DMA_BYTES */
#define STORAGE_OHCI_MAX 4      /* OHCI controllers opened; each keeps OHCI_DMA_BYTES */

static struct pci_found pci;
/* Per kind, the disks kept and, past them, one entry for the disk being examined. */
static struct ahci_port ahci_ports[STORAGE_DISKS_MAX + 1];
static unsigned nahci;
static struct dma_region ahci_spare;    /* DMA memory no port uses: the next port's */
static struct ide_drive ide_drives[STORAGE_DISKS_MAX + 1];
static unsigned nide;
static struct xhci xhcis[STORAGE_XHCI_MAX];
static unsigned nxhci;
static struct usb_msc sticks[STORAGE_DISKS_MAX + 1];
static unsigned nsticks;
static struct blockdev *disks[STORAGE_DISKS_MAX];
static unsigned ndisks, nexamined;
static storage_examine_fn examine;
static unsigned nunsearched;
static char first_unsearched[BLOCKDEV_ERR_MAX];
static struct ehci_hc ehci_hcs[STORAGE_EHCI_MAX];
static const struct pci_dev *ehci_pci[STORAGE_EHCI_MAX];
static unsigned nehci;
static struct uhci_hc uhci_hcs[STORAGE_UHCI_MAX];
static unsigned nuhci;
static struct ohci_hc ohci_hcs[STORAGE_OHCI_MAX];
static unsigned nohci;

/* ECAM where the MCFG has segment 0 with bus 0 and the window is identity-mapped; the
 * reason for mechanism #1 otherwise. */
static void choose_config_access(void)
{
	static struct acpi_mcfg_info mcfg;
	char err[160];

	if (acpi_read_mcfg(mem_read_phys, 0, kernel.bi->rsdp, kernel.bi->rsdp_revision, &mcfg, err, sizeof(err))) {
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

/* The storage controllers bareperf opens (AHCI, IDE; USB hosts for mass storage). */
enum controller { CTRL_NONE, CTRL_AHCI, CTRL_IDE, CTRL_XHCI, CTRL_EHCI, CTRL_UHCI, CTRL_OHCI, CTRL_USB_OTHER };
static const struct {
	uint8_t class_code, subclass;
	int progif;                 /* -1: any */
	enum controller kind;
	const char *name;
} controller_kinds[] = {
	{ PCI_CLASS_STORAGE, PCI_SUBCLASS_SATA, PCI_PROGIF_AHCI, CTRL_AHCI, "ahci" },
	{ PCI_CLASS_STORAGE, PCI_SUBCLASS_IDE, -1, CTRL_IDE, "ide" },
	{ PCI_CLASS_SERIAL_BUS, PCI_SUBCLASS_USB, PCI_PROGIF_XHCI, CTRL_XHCI, "xhci" },
	{ PCI_CLASS_SERIAL_BUS, PCI_SUBCLASS_USB, PCI_PROGIF_EHCI, CTRL_EHCI, "ehci" },
	{ PCI_CLASS_SERIAL_BUS, PCI_SUBCLASS_USB, PCI_PROGIF_UHCI, CTRL_UHCI, "uhci" },
	{ PCI_CLASS_SERIAL_BUS, PCI_SUBCLASS_USB, PCI_PROGIF_OHCI, CTRL_OHCI, "ohci" },
	/* named, so that the not saved: line can say where bareperf did not look */
	{ PCI_CLASS_SERIAL_BUS, PCI_SUBCLASS_USB, -1, CTRL_USB_OTHER, "usb-other" },
};

/* The entry of controller_kinds that d is, or -1. */
static int controller_entry(const struct pci_dev *d)
{
	for (unsigned i = 0; i < sizeof(controller_kinds) / sizeof(controller_kinds[0]); i++)
		if (d->class_code == controller_kinds[i].class_code && d->subclass == controller_kinds[i].subclass &&
		    (controller_kinds[i].progif < 0 || d->progif == controller_kinds[i].progif))
			return (int)i;
	return -1;
}

static enum controller controller_kind(const struct pci_dev *d)
{
	int e = controller_entry(d);
	return e < 0 ? CTRL_NONE : controller_kinds[e].kind;
}

/* What was searched, per kind of controller the kernel opens (and the USB hubs it follows),
 * for the not saved: line. */
enum { SEARCHED_AHCI, SEARCHED_IDE, SEARCHED_XHCI, SEARCHED_EHCI, SEARCHED_UHCI, SEARCHED_OHCI, SEARCHED_HUB,
       SEARCHED_KINDS };
static struct {
	const char *label, *holder, *unit;
	bool named_when_none;
	unsigned holders, units;
} searched[SEARCHED_KINDS] = {
	[SEARCHED_AHCI] = { "AHCI", "controller", "port", true },
	[SEARCHED_IDE] = { "IDE", "controller", "channel", true },
	[SEARCHED_XHCI] = { "xHCI", "controller", "port", true },
	[SEARCHED_EHCI] = { "EHCI", "controller", "port", true },
	[SEARCHED_UHCI] = { "UHCI", "controller", "port", false },
	[SEARCHED_OHCI] = { "OHCI", "controller", "port", false },
	[SEARCHED_HUB] = { "USB hubs", "hub", "port", false },
};

/* The USB controllers found and not searched, for the not saved: line: a kind bareperf
 * does not drive (by programming interface, PCI Code and ID Assignment 1.11, class 0Ch
 * subclass 03h), or a UHCI or OHCI that did not open (its storage.note= line says why). */
static char usb_unsearched[160];
static unsigned nusb_unsearched;

static void note_usb_unsearched(const char *name, const char *why)
{
	size_t n = strlen(usb_unsearched);

	if (n < sizeof(usb_unsearched))
		bp_snprintf(usb_unsearched + n, sizeof(usb_unsearched) - n, "%s%s (%s)", nusb_unsearched ? ", " : "", name,
			    why);
	nusb_unsearched++;
}

static void note_undriven(const struct pci_dev *d)
{
	char name[24];

	bp_snprintf(name, sizeof(name), "%s %02x:%02x.%x", d->progif == PCI_PROGIF_USB_DEVICE ? "USB device" : "USB",
		    d->bus, d->dev, d->fn);
	note_usb_unsearched(name, "not driven");
}

static void count_searched(unsigned kind, unsigned units)
{
	searched[kind].holders++;
	searched[kind].units += units;
}

/* An Intel EHCI beside an Intel xHCI: the chipset may route the EHCI's ports to the xHCI
 * (XUSB2PR, in the xHCI's configuration space), and a stick there is the xHCI's. */
static const struct pci_dev *intel_shared_xhci(const struct pci_dev *ehci)
{
	if (ehci->vendor != PCI_VENDOR_INTEL)
		return NULL;
	for (unsigned i = 0; i < pci.count; i++)
		if (controller_kind(&pci.dev[i]) == CTRL_XHCI && pci.dev[i].vendor == PCI_VENDOR_INTEL)
			return &pci.dev[i];
	return NULL;
}

/* A controller's registers: memory BAR n (64 bits wide where it says so), len bytes of it
 * mapped uncached (paging_map_mmio, wherever the firmware put it) and named in a
 * storage.registers line. NULL for an I/O BAR, one not assigned, or one the kernel cannot
 * map; *base is its address, for the caller's note. */
static volatile uint8_t *map_bar(const struct pci_dev *d, const char *kind, unsigned n, uint64_t len,
				 uint64_t *base)
{
	struct pci_bar b;

	*base = 0;
	if (!pci_read_bar(d, n, &b) || b.io || b.addr == 0)
		return NULL;
	*base = b.addr;
	volatile uint8_t *regs = paging_map_mmio(b.addr, len);
	if (regs)
		kprintf("storage.registers=%s %02x:%02x.%x: BAR%u at 0x%llx, 0x%llx bytes mapped uncached at 0x%llx\n",
			kind, d->bus, d->dev, d->fn, n, (unsigned long long)b.addr, (unsigned long long)len,
			(unsigned long long)(uintptr_t)regs);
	return regs;
}

/* A disk just opened: examined (reported, and asked whether it carries this image's
 * identity) and kept open when it does, else to be closed by the caller. Every disk found
 * comes here, however many there are: only the kept ones are limited. */
static bool keep_disk(struct blockdev *bd)
{
	nexamined++;
	if (!examine(bd))
		return false;
	if (ndisks == STORAGE_DISKS_MAX) {
		kprintf("storage.note=%s: carries this image's identity, past the %u such disks bareperf keeps "
			"open; nothing is written there\n", bd->where, STORAGE_DISKS_MAX);
		return false;
	}
	disks[ndisks++] = bd;
	return true;
}

/* A place that may hold a disk, not searched for want of an entry bareperf has a fixed
 * number of (or of a hub tier past the one it follows): what says so is a storage.note
 * line, and it is counted (storage_unsearched). */
static void not_searched(const char *what)
{
	kprintf("storage.note=%s\n", what);
	if (nunsearched++ == 0)
		str_copy(first_unsearched, what, sizeof(first_unsearched));
}

static int dma_alloc(uint64_t size, uint64_t align, struct dma_region *out)
{
	out->phys = mem_alloc_phys(size, align);
	out->virt = (void *)(uintptr_t)out->phys;
	out->size = size;
	return out->phys ? 0 : -1;
}

/* One SATA disk: opened on the spare DMA memory, examined, and kept or closed; a closed
 * port's memory serves the next port (or none, where the port does not stop). */
static void open_ahci_port(volatile uint8_t *regs, const struct pci_dev *d, unsigned p)
{
	struct ahci_port *ap = &ahci_ports[nahci];
	char err[BLOCKDEV_ERR_MAX];

	bp_snprintf(ap->bd.where, sizeof(ap->bd.where), "AHCI %02x:%02x.%x, port %u", d->bus, d->dev, d->fn, p);
	if (!ahci_spare.phys && dma_alloc(AHCI_PORT_DMA_BYTES, PAGE_SIZE, &ahci_spare)) {
		kprintf("storage.note=%s: no memory for DMA\n", ap->bd.where);
		return;
	}
	int r = ahci_port_open(ap, regs, p, &ahci_spare, err, sizeof(err));
	if (r)
		kprintf("storage.note=%s\n", err);
	if (!r && keep_disk(&ap->bd)) {
		nahci++;
		ahci_spare = (struct dma_region){ 0 };
		return;
	}
	if (ahci_port_close(ap, err, sizeof(err))) {
		kprintf("storage.note=%s; its DMA memory is left to it\n", err);
		ahci_spare = (struct dma_region){ 0 };
	}
}

/* Open each SATA disk on an AHCI controller as a block device. */
static void open_ahci(const struct pci_dev *d)
{
	uint64_t abar;
	volatile uint8_t *regs = map_bar(d, "AHCI", 5, AHCI_ABAR_BYTES, &abar);

	if (!regs) {
		kprintf("storage.note=AHCI %02x:%02x.%x: its registers (BAR5 at 0x%llx) are not reachable\n", d->bus,
			d->dev, d->fn, (unsigned long long)abar);
		return;
	}
	pci_write32(d->bus, d->dev, d->fn, PCI_COMMAND,
		    pci_dev_read32(d, PCI_COMMAND) | PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER);
	uint32_t ports = ahci_disk_ports(regs);
	count_searched(SEARCHED_AHCI, ahci_port_count(regs));
	for (unsigned p = 0; p < AHCI_PORTS; p++)
		if (ports & (1u << p))
			open_ahci_port(regs, d, p);
}

/* Each IDE disk on the controller's two channels, master and slave. */
static void open_ide(const struct pci_dev *d)
{
	static const char *const channel_names[2] = { "primary", "secondary" };
	uint32_t bar[4];
	char err[BLOCKDEV_ERR_MAX];

	for (unsigned i = 0; i < 4; i++)
		bar[i] = pci_dev_read32(d, PCI_BAR(i));
	pci_write32(d->bus, d->dev, d->fn, PCI_COMMAND, pci_dev_read32(d, PCI_COMMAND) | PCI_COMMAND_IO);
	count_searched(SEARCHED_IDE, 2);
	for (unsigned ch = 0; ch < 2; ch++) {
		uint16_t cmd, ctrl;
		ide_channel_ports(ch, d->progif, bar, &cmd, &ctrl);
		for (unsigned slave = 0; slave < 2; slave++) {
			struct ide_drive *dr = &ide_drives[nide];
			bp_snprintf(dr->bd.where, sizeof(dr->bd.where), "IDE %02x:%02x.%x, %s %s", d->bus, d->dev, d->fn,
				    channel_names[ch], slave ? "slave" : "master");
			int r = ide_drive_open(dr, cmd, ctrl, slave, err, sizeof(err));
			if (r < 0)
				kprintf("storage.note=%s\n", err);
			if (r == 1 && keep_disk(&dr->bd))
				nide++;         /* else closed: PIO leaves nothing to undo */
		}
	}
}

/* A memory BAR's size (PCI Local Bus 3.0, 6.2.5.1): all ones written, the size read back,
 * with memory decoding off meanwhile. */
static uint64_t bar_bytes(const struct pci_dev *d, unsigned n)
{
	uint32_t cmd = pci_dev_read32(d, PCI_COMMAND), bar = pci_dev_read32(d, PCI_BAR(n));

	pci_write32(d->bus, d->dev, d->fn, PCI_COMMAND, cmd & ~PCI_COMMAND_MEMORY);
	pci_write32(d->bus, d->dev, d->fn, PCI_BAR(n), 0xFFFFFFFFu);
	uint32_t mask = pci_dev_read32(d, PCI_BAR(n)) & PCI_BAR_MEM_MASK;
	pci_write32(d->bus, d->dev, d->fn, PCI_BAR(n), bar);
	pci_write32(d->bus, d->dev, d->fn, PCI_COMMAND, cmd);
	return mask ? (uint64_t)(~mask) + 1 : 0;
}

/* An addressed USB device: a bulk-only stick becomes a disk (drivers/usb.c configures it,
 * drivers/usb-msc.c opens it) and is examined; anything else is noted. A stick not kept
 * stays addressed but idle: its memory is its controller's. 1 for a hub (usb_hub_open is
 * then the caller's), else 0. */
static int open_usb_device(struct usb_dev *ud)
{
	char err[BLOCKDEV_ERR_MAX];

	int r = usb_find_storage(ud, err, sizeof(err));
	if (r == USB_FOUND_HUB)
		return 1;
	if (r) {
		kprintf("storage.note=%s\n", err);
		return 0;
	}
	if (usb_msc_open(&sticks[nsticks], ud, err, sizeof(err))) {
		kprintf("storage.note=%s\n", err);
		return 0;
	}
	if (keep_disk(&sticks[nsticks].bd))
		nsticks++;
	return 0;
}

/* Whether the USB controller hc (a struct usb_dev's) has no device entry left
 * (XHCI_DEVICES_MAX, EHCI_DEVS_MAX): a device it then fails to attach was not searched. */
static bool usb_controller_full(const void *hc)
{
	for (unsigned i = 0; i < nxhci; i++)
		if (hc == &xhcis[i])
			return xhcis[i].ndev == XHCI_DEVICES_MAX;
	for (unsigned i = 0; i < nehci; i++)
		if (hc == &ehci_hcs[i])
			return ehci_hcs[i].ndevs == EHCI_DEVS_MAX;
	for (unsigned i = 0; i < nuhci; i++)
		if (hc == &uhci_hcs[i])
			return uhci_hcs[i].ndevs == UHCI_DEVS_MAX;
	for (unsigned i = 0; i < nohci; i++)
		if (hc == &ohci_hcs[i])
			return ohci_hcs[i].ndevs == OHCI_DEVS_MAX;
	return false;
}

/* A device that failed to attach: not searched where the controller was full, else noted. */
static void attach_failed(const void *hc, const char *err)
{
	if (usb_controller_full(hc))
		not_searched(err);
	else
		kprintf("storage.note=%s\n", err);
}

/* The devices on a hub's ports (one tier: a hub behind it is named, not followed). */
static void open_usb_hub(struct usb_dev *hub)
{
	static struct usb_hub h;
	char err[BLOCKDEV_ERR_MAX], note[BLOCKDEV_ERR_MAX];
	struct usb_dev *ud;

	if (usb_hub_open(&h, hub, err, sizeof(err))) {
		kprintf("storage.note=%s\n", err);
		return;
	}
	count_searched(SEARCHED_HUB, h.nports);
	for (unsigned p = 1; p <= h.nports; p++) {
		int r = usb_hub_attach_port(&h, p, &ud, err, sizeof(err));
		if (r < 0)
			attach_failed(hub->hc, err);
		if (r > 0 && open_usb_device(ud)) {
			bp_snprintf(note, sizeof(note), "%s: a hub behind a hub; devices behind it are not searched",
				    ud->where);
			not_searched(note);
		}
	}
}

/* The device on one xHCI root port, and behind it when it is a hub. */
static void open_usb_port(struct xhci *x, unsigned port)
{
	char err[BLOCKDEV_ERR_MAX];
	struct usb_dev *ud;

	int r = xhci_attach_port(x, port, &ud, err, sizeof(err));
	if (r < 0)
		attach_failed(x, err);
	if (r > 0 && open_usb_device(ud))
		open_usb_hub(ud);
}

/* Each mass-storage device on an xHCI controller's root ports. */
static void open_xhci(const struct pci_dev *d)
{
	uint64_t base = 0, len = bar_bytes(d, 0);
	char err[BLOCKDEV_ERR_MAX], note[BLOCKDEV_ERR_MAX];

	if (nxhci == STORAGE_XHCI_MAX) {
		bp_snprintf(note, sizeof(note), "xHCI %02x:%02x.%x: past the %u xHCI controllers bareperf opens", d->bus,
			    d->dev, d->fn, STORAGE_XHCI_MAX);
		not_searched(note);
		return;
	}
	volatile uint8_t *regs = len >= XHCI_MMIO_MIN ? map_bar(d, "xHCI", 0, len, &base) : NULL;
	if (!regs) {
		kprintf("storage.note=xHCI %02x:%02x.%x: its registers (BAR0 at 0x%llx, %llu bytes) are not "
			"reachable\n", d->bus, d->dev, d->fn, (unsigned long long)base, (unsigned long long)len);
		return;
	}
	pci_write32(d->bus, d->dev, d->fn, PCI_COMMAND,
		    pci_dev_read32(d, PCI_COMMAND) | PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER);
	struct xhci *x = &xhcis[nxhci];
	int r = xhci_open(x, regs, len, d, dma_alloc, note, sizeof(note), err,
			  sizeof(err));
	if (note[0])
		kprintf("storage.note=%s\n", note);
	if (r) {
		kprintf("storage.note=%s\n", err);
		return;
	}
	nxhci++;
	count_searched(SEARCHED_XHCI, x->ports);
	for (unsigned p = 1; p <= x->ports; p++)
		open_usb_port(x, p);
}

/* An EHCI controller: its registers (BAR0), taken from the firmware and reset; each port's
 * high-speed device. */
static void open_ehci(const struct pci_dev *d)
{
	uint64_t base;
	char note[USB_ERR_MAX], err[USB_ERR_MAX];
	struct dma_region dma;

	if (nehci == STORAGE_EHCI_MAX) {
		bp_snprintf(note, sizeof(note), "EHCI %02x:%02x.%x: past the %u EHCI controllers bareperf opens", d->bus,
			    d->dev, d->fn, STORAGE_EHCI_MAX);
		not_searched(note);
		return;
	}
	struct ehci_hc *hc = &ehci_hcs[nehci];
	bp_snprintf(hc->name, sizeof(hc->name), "EHCI %02x:%02x.%x", d->bus, d->dev, d->fn);
	volatile uint8_t *regs = map_bar(d, "EHCI", 0, EHCI_MMIO_BYTES, &base);
	if (!regs) {
		kprintf("storage.note=%s: its registers (BAR0 at 0x%llx) are not reachable\n", hc->name,
			(unsigned long long)base);
		return;
	}
	if (dma_alloc(EHCI_DMA_BYTES, PAGE_SIZE, &dma)) {
		kprintf("storage.note=%s: no memory for DMA\n", hc->name);
		return;
	}
	pci_write32(d->bus, d->dev, d->fn, PCI_COMMAND,
		    pci_dev_read32(d, PCI_COMMAND) | PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER);
	int r = ehci_open(hc, d, regs, &dma, note, sizeof(note), err, sizeof(err));
	if (note[0])
		kprintf("storage.note=%s\n", note);
	if (r) {
		kprintf("storage.note=%s\n", err);
		return;
	}
	ehci_pci[nehci++] = d;
	count_searched(SEARCHED_EHCI, hc->nports);
	for (unsigned p = 1; p <= hc->nports; p++) {
		struct usb_dev *ud;
		switch (ehci_port_attach(hc, p, &ud, err, sizeof(err))) {
		case EHCI_PORT_DEVICE:
			if (open_usb_device(ud))
				open_usb_hub(ud);
			break;
		case EHCI_PORT_FAILED:
			attach_failed(hc, err);
			break;
		case EHCI_PORT_SKIPPED:
			kprintf("storage.note=%s\n", err);
			break;
		case EHCI_PORT_EMPTY:
			break;
		}
	}
}

/* A UHCI controller: its I/O registers (BAR4), taken from the firmware and reset; each port's
 * full-speed device (a companion of an EHCI gets the ports the EHCI let go). */
static void open_uhci(const struct pci_dev *d)
{
	uint32_t bar = pci_dev_read32(d, PCI_BAR(UHCI_PCI_BAR));
	uint32_t io = bar & PCI_BAR_IO_MASK;
	char err[USB_ERR_MAX], note[USB_ERR_MAX];
	struct dma_region dma;

	if (nuhci == STORAGE_UHCI_MAX) {
		bp_snprintf(note, sizeof(note), "UHCI %02x:%02x.%x: past the %u UHCI controllers bareperf opens", d->bus,
			    d->dev, d->fn, STORAGE_UHCI_MAX);
		not_searched(note);
		return;
	}
	struct uhci_hc *hc = &uhci_hcs[nuhci];
	bp_snprintf(hc->name, sizeof(hc->name), "UHCI %02x:%02x.%x", d->bus, d->dev, d->fn);
	if (!(bar & PCI_BAR_IO) || io == 0 || io + UHCI_IO_BYTES > 0x10000u) {
		kprintf("storage.note=%s: its registers (BAR4 0x%08x) are not reachable\n", hc->name, bar);
		note_usb_unsearched(hc->name, "did not open");
		return;
	}
	if (dma_alloc(UHCI_DMA_BYTES, PAGE_SIZE, &dma)) {
		kprintf("storage.note=%s: no memory for DMA\n", hc->name);
		note_usb_unsearched(hc->name, "did not open");
		return;
	}
	pci_write32(d->bus, d->dev, d->fn, PCI_COMMAND,
		    pci_dev_read32(d, PCI_COMMAND) | PCI_COMMAND_IO | PCI_COMMAND_MASTER);
	if (uhci_open(hc, d, (uint16_t)io, &dma, err, sizeof(err))) {
		kprintf("storage.note=%s\n", err);
		note_usb_unsearched(hc->name, "did not open");
		return;
	}
	nuhci++;
	count_searched(SEARCHED_UHCI, hc->nports);
	for (unsigned p = 1; p <= hc->nports; p++) {
		struct usb_dev *ud;
		switch (uhci_port_attach(hc, p, &ud, err, sizeof(err))) {
		case UHCI_PORT_DEVICE:
			if (open_usb_device(ud))
				open_usb_hub(ud);
			break;
		case UHCI_PORT_FAILED:
			attach_failed(hc, err);
			break;
		case UHCI_PORT_SKIPPED:
			kprintf("storage.note=%s\n", err);
			break;
		case UHCI_PORT_EMPTY:
			break;
		}
	}
}

/* An OHCI controller: its registers (BAR0), taken from the firmware, reset and made
 * operational; each port's full-speed device. */
static void open_ohci(const struct pci_dev *d)
{
	uint32_t bar = pci_dev_read32(d, PCI_BAR(0));
	uint64_t base = bar & PCI_BAR_MEM_MASK;
	char note[USB_ERR_MAX], err[USB_ERR_MAX];
	struct dma_region dma;

	if (nohci == STORAGE_OHCI_MAX) {
		bp_snprintf(note, sizeof(note), "OHCI %02x:%02x.%x: past the %u OHCI controllers bareperf opens", d->bus,
			    d->dev, d->fn, STORAGE_OHCI_MAX);
		not_searched(note);
		return;
	}
	struct ohci_hc *hc = &ohci_hcs[nohci];
	bp_snprintf(hc->name, sizeof(hc->name), "OHCI %02x:%02x.%x", d->bus, d->dev, d->fn);
	volatile uint8_t *regs = base && !(bar & PCI_BAR_IO) ? paging_map_mmio(base, OHCI_MMIO_BYTES) : NULL;
	if (!regs) {
		kprintf("storage.note=%s: its registers (BAR0 at 0x%llx) are not reachable\n", hc->name,
			(unsigned long long)base);
		note_usb_unsearched(hc->name, "did not open");
		return;
	}
	if (dma_alloc(OHCI_DMA_BYTES, PAGE_SIZE, &dma)) {
		kprintf("storage.note=%s: no memory for DMA\n", hc->name);
		note_usb_unsearched(hc->name, "did not open");
		return;
	}
	pci_write32(d->bus, d->dev, d->fn, PCI_COMMAND,
		    pci_dev_read32(d, PCI_COMMAND) | PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER);
	int r = ohci_open(hc, regs, &dma, note, sizeof(note), err, sizeof(err));
	if (note[0])
		kprintf("storage.note=%s\n", note);
	if (r) {
		kprintf("storage.note=%s\n", err);
		note_usb_unsearched(hc->name, "did not open");
		return;
	}
	nohci++;
	count_searched(SEARCHED_OHCI, hc->nports);
	for (unsigned p = 1; p <= hc->nports; p++) {
		struct usb_dev *ud;
		switch (ohci_port_attach(hc, p, &ud, err, sizeof(err))) {
		case OHCI_PORT_DEVICE:
			if (open_usb_device(ud))
				open_usb_hub(ud);
			break;
		case OHCI_PORT_FAILED:
			attach_failed(hc, err);
			break;
		case OHCI_PORT_SKIPPED:
			kprintf("storage.note=%s\n", err);
			break;
		case OHCI_PORT_EMPTY:
			break;
		}
	}
}

/* "2 disks searched; AHCI: 1 controller, 6 ports; IDE: 0 controllers; ...; USB hubs: 1 hub,
 * 8 ports", and where an Intel EHCI's ports may have gone to an xHCI. */
const char *storage_searched_text(void)
{
	static char text[400];
	size_t n = bp_snprintf(text, sizeof(text), "%u disk%s searched", nexamined, nexamined == 1 ? "" : "s");

	for (unsigned k = 0; k < SEARCHED_KINDS && n < sizeof(text); k++) {
		if (!searched[k].holders && !searched[k].named_when_none)
			continue;
		n += bp_snprintf(text + n, sizeof(text) - n, "; %s: %u %s%s", searched[k].label, searched[k].holders,
				 searched[k].holder, searched[k].holders == 1 ? "" : "s");
		if (searched[k].holders && n < sizeof(text))
			n += bp_snprintf(text + n, sizeof(text) - n, ", %u %s%s", searched[k].units, searched[k].unit,
					 searched[k].units == 1 ? "" : "s");
	}
	for (unsigned i = 0; i < nehci && n < sizeof(text); i++) {
		const struct pci_dev *x = intel_shared_xhci(ehci_pci[i]);
		if (x)
			n += bp_snprintf(text + n, sizeof(text) - n, "; the ports of Intel %s may be routed to the "
					 "xHCI %02x:%02x.%x", ehci_hcs[i].name, x->bus, x->dev, x->fn);
	}
	if (nusb_unsearched && n < sizeof(text))
		bp_snprintf(text + n, sizeof(text) - n, "; USB controllers not searched: %s", usb_unsearched);
	return text;
}

/* Between storage operations the USB host controllers read no memory: EHCI's asynchronous
 * schedule stops, UHCI stops (xHCI is idle without a doorbell), OHCI's lists stop (it still
 * writes the frame number into its HCCA), so that no DMA disturbs a measurement. */
void storage_usb_idle(void)
{
	char err[USB_ERR_MAX];

	for (unsigned i = 0; i < nehci; i++)
		if (ehci_idle(&ehci_hcs[i], err, sizeof(err)))
			kprintf("storage.note=%s\n", err);
	for (unsigned i = 0; i < nuhci; i++)
		if (uhci_idle(&uhci_hcs[i], err, sizeof(err)))
			kprintf("storage.note=%s\n", err);
	for (unsigned i = 0; i < nohci; i++)
		if (ohci_idle(&ohci_hcs[i], err, sizeof(err)))
			kprintf("storage.note=%s\n", err);
}

/* Enumerate PCI, report each storage controller, and open every disk and USB stick on
 * them as a block device, each examined as it opens. */
void storage_probe(storage_examine_fn examine_disk)
{
	unsigned controllers = 0;

	examine = examine_disk;
	choose_config_access();
	pci_enumerate(&pci);
	kprintf("pci.functions=%u%s\n", pci.count, pci.dropped ? " (more not kept)" : "");
	for (unsigned i = 0; i < pci.count; i++) {
		const struct pci_dev *d = &pci.dev[i];
		int e = controller_entry(d);
		if (e < 0)
			continue;
		controllers++;
		kprintf("storage.controller=%s %02x:%02x.%x %04x:%04x\n", controller_kinds[e].name, d->bus, d->dev,
			d->fn, d->vendor, d->device);
	}
	if (!controllers)
		kprintf("storage.controller=none\n");
	for (unsigned i = 0; i < pci.count; i++)
		switch (controller_kind(&pci.dev[i])) {
		case CTRL_AHCI:
			open_ahci(&pci.dev[i]);
			break;
		case CTRL_IDE:
			open_ide(&pci.dev[i]);
			break;
		case CTRL_XHCI:
			open_xhci(&pci.dev[i]);
			break;
		case CTRL_USB_OTHER:
			note_undriven(&pci.dev[i]);
			break;
		case CTRL_EHCI:         /* below */
		case CTRL_UHCI:
		case CTRL_OHCI:
		case CTRL_NONE:
			break;
		}
	/* EHCI after xHCI: an Intel xHCI may take the EHCI's ports when it opens (XUSB2PR). */
	for (unsigned i = 0; i < pci.count; i++)
		if (controller_kind(&pci.dev[i]) == CTRL_EHCI)
			open_ehci(&pci.dev[i]);
	/* The USB 1.1 controllers last: an EHCI's companions get the full-speed devices it lets
	 * go (its ports' Port Owner) once it has been opened. */
	for (unsigned i = 0; i < pci.count; i++)
		switch (controller_kind(&pci.dev[i])) {
		case CTRL_UHCI:
			open_uhci(&pci.dev[i]);
			break;
		case CTRL_OHCI:
			open_ohci(&pci.dev[i]);
			break;
		default:
			break;
		}
}

unsigned storage_unsearched(const char **first)
{
	*first = first_unsearched;
	return nunsearched;
}

unsigned storage_disks(struct blockdev *const **list)
{
	*list = disks;
	return ndisks;
}
