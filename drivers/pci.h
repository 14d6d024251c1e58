/*
 * PCI configuration space: configuration mechanism #1 (I/O ports 0xCF8/0xCFC, PCI Local
 * Bus Specification 3.0, 3.2.2.3.2) and, where ACPI's MCFG gives one, the memory-mapped
 * ECAM (PCI Express Base Specification 4.0, 7.2.2), and an enumeration that follows
 * PCI-to-PCI bridges from bus 0. Header fields: PCI Local Bus 3.0, 6.1 (Figure 6-1) and
 * the PCI-to-PCI Bridge Architecture Specification 1.2, 3.2 (type 1 header).
 */
#ifndef DRIVERS_PCI_H
#define DRIVERS_PCI_H
#include <stdbool.h>
#include <stdint.h>

#define PCI_CONFIG_ADDRESS      0xCF8
#define PCI_CONFIG_DATA         0xCFC
#define PCI_CONFIG_ENABLE       0x80000000u

#define PCI_VENDOR_DEVICE       0x00    /* vendor ID in bits 15:0, device ID in 31:16 */
#define PCI_COMMAND             0x04
#define PCI_COMMAND_IO          0x0001u
#define PCI_COMMAND_MEMORY      0x0002u
#define PCI_COMMAND_MASTER      0x0004u
#define PCI_CLASS_REVISION      0x08    /* class 31:24, subclass 23:16, prog-if 15:8 */
#define PCI_HEADER_TYPE_DWORD   0x0C    /* header type in bits 23:16 */
#define PCI_HEADER_MULTIFUNCTION 0x80u
#define PCI_HEADER_TYPE_MASK    0x7Fu
#define PCI_HEADER_BRIDGE       0x01u
#define PCI_BAR(n)              (0x10 + 4 * (n))
#define PCI_BAR_IO              0x1u
#define PCI_BAR_IO_MASK         0xFFFFFFFCu
#define PCI_BAR_MEM_TYPE_64     0x4u    /* bits 2:1 = 10b */
#define PCI_BAR_MEM_MASK        0xFFFFFFF0u
#define PCI_BRIDGE_BUSES        0x18    /* primary 7:0, secondary 15:8, subordinate 23:16 */
#define PCI_VENDOR_NONE         0xFFFFu
#define PCI_VENDOR_INTEL        0x8086u

#define PCI_CLASS_STORAGE       0x01
#define PCI_SUBCLASS_IDE        0x01
#define PCI_SUBCLASS_SATA       0x06
#define PCI_PROGIF_AHCI         0x01    /* SATA: AHCI 1.0 (Serial ATA AHCI 1.3.1, 2.1) */
#define PCI_CLASS_COMM          0x07    /* simple communication controllers */
#define PCI_SUBCLASS_SERIAL     0x00
#define PCI_PROGIF_16450        0x01    /* 0x02 16550, 0x03 16650, 0x04 16750, 0x05 16850, */
#define PCI_PROGIF_16950        0x06    /* 0x06 16950: all with the 16550's registers */
#define PCI_CLASS_SERIAL_BUS    0x0C
#define PCI_SUBCLASS_USB        0x03
#define PCI_PROGIF_UHCI         0x00
#define PCI_PROGIF_OHCI         0x10
#define PCI_PROGIF_EHCI         0x20
#define PCI_PROGIF_XHCI         0x30
#define PCI_PROGIF_USB_DEVICE   0xFE    /* a USB device, not a host controller */

#define PCI_BUSES       256
#define PCI_DEVICES     32
#define PCI_FUNCTIONS   8
#define PCI_MAX_FOUND   64      /* functions pci_enumerate keeps; more are counted */

struct pci_dev {
	uint8_t bus, dev, fn;
	uint16_t vendor, device;
	uint8_t class_code, subclass, progif;
	uint8_t header_type;        /* without the multi-function bit */
};

struct pci_found {
	unsigned count;             /* functions kept in dev[] */
	unsigned dropped;           /* past PCI_MAX_FOUND */
	struct pci_dev dev[PCI_MAX_FOUND];
};

/* Use ECAM at base (the address of bus 0) for buses bus_start..bus_end: the caller has
 * checked the window is mapped. Without this call, mechanism #1 is used. */
void pci_use_ecam(uintptr_t base, uint8_t bus_start, uint8_t bus_end);
bool pci_ecam_in_use(void);

uint32_t pci_read32(uint8_t bus, uint8_t dev, uint8_t fn, uint16_t off);
void pci_write32(uint8_t bus, uint8_t dev, uint8_t fn, uint16_t off, uint32_t v);
static inline uint32_t pci_dev_read32(const struct pci_dev *d, uint16_t off)
{
	return pci_read32(d->bus, d->dev, d->fn, off);
}

/* A decoded BAR (PCI Local Bus 3.0, 6.2.5.1). */
struct pci_bar {
	bool io;                    /* I/O space, else memory */
	bool wide;                  /* a 64-bit memory BAR: it takes the next BAR too */
	uint64_t addr;              /* 0: not assigned */
};

/* BAR n of d (a 64-bit memory BAR takes n and n + 1); false past a type 0 header's six. */
bool pci_read_bar(const struct pci_dev *d, unsigned n, struct pci_bar *out);
/* Turn on d's decoding of I/O or memory space (the firmware may leave it off). */
void pci_enable_decode(const struct pci_dev *d, bool io);
/* Whether d is a serial controller with the 16550's registers (class 07, subclass 00,
 * prog-if 01 16450 to 06 16950). */
bool pci_is_uart(const struct pci_dev *d);

/* Every function on bus 0 and the buses behind its bridges, each bus visited once. */
void pci_enumerate(struct pci_found *out);

#endif
