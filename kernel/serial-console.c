/*
 * The serial console's UART (kernel/serial-console.h). At entry only COM1-COM4 can be
 * tried: ACPI tables and MMIO need the kernel's page tables. Once they are up, the search
 * runs in order: the UART ACPI's SPCR names (a BMC's serial-over-LAN), the early COM
 * port, the first PCI 16550 (class 07, subclass 00: Intel AMT's SOL, PCIe serial cards).
 * Whatever was printed before goes to the chosen UART again, so it carries the whole run.
 */
#include "kernel/serial-console.h"
#include "arch/x86/paging.h"
#include "drivers/pci.h"
#include "drivers/uart16550.h"
#include "kernel/console.h"
#include "kernel/kernel.h"
#include "kernel/mem.h"
#include "lib/acpi.h"
#include "lib/format.h"
#include "lib/str.h"
#include "lib/util.h"

#define UART_REG_COUNT 8        /* THR .. SCR */
#define IO_PORT_LAST   0xffffu
#define PCI_BARS       6
#define NOTE_MAX       160

static const uint16_t com_ports[] = { UART_COM1, UART_COM2, UART_COM3, UART_COM4 };

/* A UART found, how fast to run it, and where it came from for console.serial=. */
struct choice {
	struct uart_regs r;
	uint32_t baud;              /* 0: as the firmware set it */
	char source[48];            /* "ACPI SPCR", "COM2", "PCI 00:03.0 1b36:0002" */
	enum cfg_serial kind;       /* for cfg.serial.port: IO, MMIO, MMIO32 or PCI_AT */
	uint8_t bus, dev, fn;
};

static struct choice early;     /* the COM port found at entry */
static bool early_found;
static uint32_t current_baud;   /* the console's rate as programmed (0: the firmware's) */
/* What the search passed over, for the reason on the console.serial line. */
static char passed_over[NOTE_MAX];

static void pass_over(const char *what)
{
	size_t n = strnlen(passed_over, sizeof(passed_over));
	bp_snprintf(passed_over + n, sizeof(passed_over) - n, "%s%s", n ? ", " : "", what);
}

static void io_choice(struct choice *c, uint16_t port)
{
	c->r = (struct uart_regs){ .space = UART_SPACE_IO, .base = port, .phys = port, .access_bytes = 1 };
	c->kind = CFG_SERIAL_IO;
}

void serial_console_early(void)
{
	for (unsigned i = 0; i < ARRAY_SIZE(com_ports) && !early_found; i++) {
		io_choice(&early, com_ports[i]);
		early.baud = UART_BASE_BAUD;
		bp_snprintf(early.source, sizeof(early.source), "COM%u", i + 1);
		early_found = uart_init(&early.r, early.baud);
	}
	current_baud = UART_BASE_BAUD;
}

/* Registers 8 << shift bytes from phys, mapped uncached; false (why in note) where the
 * kernel cannot map them so. */
static bool mmio_choice(struct choice *c, uint64_t phys, uint8_t shift, uint8_t access, char *note,
			size_t len)
{
	volatile void *va = paging_map_mmio(phys, (uint64_t)UART_REG_COUNT << shift);
	if (!va) {
		bp_snprintf(note, len, "MMIO at 0x%llx cannot be mapped uncached by this kernel%s",
			    (unsigned long long)phys, sizeof(void *) == 4 ? " (the i686 one reaches "
			    "below 3 GiB and 0xf0000000-0xffbfffff, with PAE)" : "");
		return false;
	}
	c->r = (struct uart_regs){ .space = UART_SPACE_MMIO, .base = (uintptr_t)va, .phys = phys,
				   .shift = shift, .access_bytes = access };
	c->kind = access == 4 && shift == 2 ? CFG_SERIAL_MMIO32 : CFG_SERIAL_MMIO;
	return true;
}

/* Whether the UART answers (the console itself, at its rate, is not probed again: the
 * loopback test would cut off what it is sending); note says where nothing did. */
static bool answers(const struct choice *c, char *note, size_t len)
{
	const struct uart_regs *now = uart_current();
	char desc[64];

	if (uart_present() && now->space == c->r.space && now->phys == c->r.phys &&
	    (c->baud == 0 || c->baud == current_baud))
		return true;
	if (uart_probe(&c->r, c->baud))
		return true;
	uart_describe(&c->r, desc, sizeof(desc));
	bp_snprintf(note, len, "no UART answers at %s", desc);
	return false;
}

/* The UART the SPCR names. 1 when there is no SPCR (not a fault of anyone's). */
static int from_spcr(struct choice *c, char *note, size_t len)
{
	struct acpi_spcr_info s;
	char err[NOTE_MAX];

	if (!kernel.bi->rsdp)
		return 1;
	int rc = acpi_read_spcr(mem_read_phys, 0, kernel.bi->rsdp, kernel.bi->rsdp_revision, &s,
				err, sizeof(err));
	if (rc != 0) {
		bp_snprintf(note, len, "%s", err);
		return rc;
	}
	if (s.mmio) {
		if (!mmio_choice(c, s.address, s.reg_shift, s.access_bytes, note, len))
			return -1;
	} else {
		io_choice(c, (uint16_t)s.address);
	}
	/* serial.baud, given, wins over the table's rate: nothing the user said is dropped. */
	c->baud = kernel.cfg.serial_baud_given ? kernel.cfg.serial_baud : s.baud;
	if (s.pci)
		bp_snprintf(c->source, sizeof(c->source), "ACPI SPCR, PCI %02x:%02x.%x", s.pci_bus,
			    s.pci_dev, s.pci_fn);
	else
		str_copy(c->source, "ACPI SPCR", sizeof(c->source));
	return answers(c, note, len) ? 0 : -1;
}

/* A UART at one of d's BARs, the first that answers. */
static bool from_pci_function(const struct pci_dev *d, struct choice *c, char *note, size_t len)
{
	struct pci_bar b;

	bp_snprintf(c->source, sizeof(c->source), "PCI %02x:%02x.%x %04x:%04x", d->bus, d->dev, d->fn,
		    d->vendor, d->device);
	c->baud = kernel.cfg.serial_baud;
	bp_snprintf(note, len, "%s has no I/O or memory BAR", c->source);
	for (unsigned n = 0; n < PCI_BARS && pci_read_bar(d, n, &b); n += b.wide ? 2 : 1) {
		if (b.addr == 0 || (b.io && b.addr > IO_PORT_LAST - (UART_REG_COUNT - 1)))
			continue;
		if (b.io)
			io_choice(c, (uint16_t)b.addr);
		else if (!mmio_choice(c, b.addr, 0, 1, note, len))
			continue;
		pci_enable_decode(d, b.io);
		if (answers(c, note, len)) {
			c->kind = CFG_SERIAL_PCI_AT;
			c->bus = d->bus, c->dev = d->dev, c->fn = d->fn;
			return true;
		}
	}
	return false;
}

/* The first PCI 16550 that answers; the others' failures are printed. */
static bool from_pci(struct choice *c, char *note, size_t len)
{
	static struct pci_found found;

	pci_enumerate(&found);
	bp_snprintf(note, len, "no PCI 16550 (class 07, subclass 00, prog-if 01-06)");
	for (unsigned i = 0; i < found.count; i++) {
		if (!pci_is_uart(&found.dev[i]))
			continue;
		if (from_pci_function(&found.dev[i], c, note, len))
			return true;
		kprintf("console: %s\n", note);
	}
	return false;
}

/* serial.port=bus:dev.fn: whatever the function's class, a 16550 at one of its BARs. */
static bool from_pci_at(struct choice *c, uint8_t bus, uint8_t dev, uint8_t fn, char *note, size_t len)
{
	uint32_t id = pci_read32(bus, dev, fn, PCI_VENDOR_DEVICE);
	struct pci_dev d = { .bus = bus, .dev = dev, .fn = fn, .vendor = (uint16_t)id,
			     .device = (uint16_t)(id >> 16) };

	if (d.vendor == PCI_VENDOR_NONE) {
		bp_snprintf(note, len, "no PCI function at %02x:%02x.%x", bus, dev, fn);
		return false;
	}
	return from_pci_function(&d, c, note, len);
}

/* The order of the search without serial.port: the SPCR's UART, the early COM port, a
 * PCI UART. Failures are printed, absences kept for the reason. */
static bool search(struct choice *c)
{
	char note[NOTE_MAX];

	int rc = from_spcr(c, note, sizeof(note));
	if (rc == 0)
		return true;
	if (rc > 0)
		pass_over(kernel.bi->rsdp ? "no ACPI SPCR" : "no ACPI tables");
	else
		kprintf("console: not the ACPI SPCR's UART: %s\n", note);
	if (early_found) {
		*c = early;
		c->baud = kernel.cfg.serial_baud;
		if (answers(c, note, sizeof(note)))
			return true;
		kprintf("console: %s at %u baud: %s\n", early.source, c->baud, note);
	} else {
		pass_over("no UART at COM1-COM4");
	}
	if (from_pci(c, note, sizeof(note)))
		return true;
	pass_over(note);
	return false;
}

/* serial.port's own choice, when it names one; note says why it cannot be had. */
static bool configured(struct choice *c, char *note, size_t len)
{
	const struct bp_config *cfg = &kernel.cfg;

	switch (cfg->serial_kind) {
	case CFG_SERIAL_IO:
		io_choice(c, cfg->serial_port);
		c->baud = kernel.cfg.serial_baud;
		bp_snprintf(c->source, sizeof(c->source), "serial.port");
		return answers(c, note, len);
	case CFG_SERIAL_MMIO:
	case CFG_SERIAL_MMIO32:
		c->baud = kernel.cfg.serial_baud;
		bp_snprintf(c->source, sizeof(c->source), "serial.port");
		return mmio_choice(c, cfg->serial_mmio, cfg->serial_kind == CFG_SERIAL_MMIO32 ? 2 : 0,
				   cfg->serial_kind == CFG_SERIAL_MMIO32 ? 4 : 1, note, len) &&
		       answers(c, note, len);
	case CFG_SERIAL_SPCR: {
		int rc = from_spcr(c, note, len);
		if (rc > 0)
			bp_snprintf(note, len, "%s", kernel.bi->rsdp ? "the ACPI tables have no SPCR" :
				    "the loader found no ACPI tables");
		return rc == 0;
	}
	case CFG_SERIAL_PCI:
		return from_pci(c, note, len);
	case CFG_SERIAL_PCI_AT:
		return from_pci_at(c, cfg->serial_pci_bus, cfg->serial_pci_dev, cfg->serial_pci_fn, note, len);
	default:
		return false;
	}
}

/* Move to c (everything printed so far goes there too) and say so. */
static void use(const struct choice *c)
{
	const struct uart_regs *now = uart_current();
	bool moved = !uart_present() || now->space != c->r.space || now->phys != c->r.phys;
	char desc[64], rate[40];

	uart_describe(&c->r, desc, sizeof(desc));
	if (moved && uart_present())
		kprintf("console: continuing on %s (%s)\n", desc, c->source);
	uart_select(&c->r);
	if (c->baud)
		current_baud = c->baud;
	if (moved)
		console_replay();
	if (c->baud)
		bp_snprintf(rate, sizeof(rate), "%u", c->baud);
	else
		str_copy(rate, "at the rate the firmware set", sizeof(rate));
	kprintf("console.serial=%s (%s, %s%s%s)\n", desc, c->source, rate, passed_over[0] ? "; " : "",
		passed_over);
	/* cfg.serial.port reports the console in use, as serial.port would name it. */
	kernel.cfg.serial_kind = c->kind;
	kernel.cfg.serial_port = (uint16_t)c->r.phys;
	kernel.cfg.serial_mmio = c->r.phys;
	kernel.cfg.serial_pci_bus = c->bus, kernel.cfg.serial_pci_dev = c->dev;
	kernel.cfg.serial_pci_fn = c->fn;
	if (c->baud)
		kernel.cfg.serial_baud = c->baud;
}

void serial_console_choose(void (*error)(void *ctx, const char *msg))
{
	static struct choice c;
	char note[NOTE_MAX], asked[48], desc[64], msg[KERNEL_CONFIG_ERROR_LEN];
	bool want = kernel.cfg.serial_kind != CFG_SERIAL_AUTO;

	if (want && configured(&c, note, sizeof(note))) {
		use(&c);
		return;
	}
	config_show_value(&kernel.cfg, "serial.port", asked, sizeof(asked));
	if (want)
		kprintf("console: serial.port=%s: %s; searching as without it\n", asked, note);
	bool found = search(&c);
	if (found)
		use(&c);
	else
		kprintf("console.serial=none (%s)\n", passed_over);
	if (want) {
		uart_describe(&c.r, desc, sizeof(desc));
		if (found)
			bp_snprintf(msg, sizeof(msg), "serial.port=%s: %s; using %s (%s) instead", asked,
				    note, desc, c.source);
		else
			bp_snprintf(msg, sizeof(msg), "serial.port=%s: %s; no other UART answers either",
				    asked, note);
		error(0, msg);
	}
}
