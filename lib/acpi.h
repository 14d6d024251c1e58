/*
 * The ACPI tables bareperf reads: RSDP -> RSDT/XSDT -> MADT, for the processors' local
 * APIC IDs. ACPI 6.5: 5.2.5 (RSDP), 5.2.7 (RSDT), 5.2.8 (XSDT), 5.2.12 (MADT),
 * 5.2.12.2 (Processor Local APIC), 5.2.12.8 (Local APIC Address Override),
 * 5.2.12.12 (Processor Local x2APIC). Tables are read through a callback, so the same
 * parser runs in the kernel (physical memory, identity-mapped) and on the host (bytes).
 * Every length, checksum and count is checked; a bad table is an error, never a crash.
 */
#ifndef LIB_ACPI_H
#define LIB_ACPI_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* 5.2.5.3 RSDP structure: what a loader handing one over (lib/pvh.c) checks too. */
#define ACPI_RSDP_SIGNATURE      "RSD PTR "
#define ACPI_RSDP_V1_LEN         20      /* the ACPI 1.0 part */
#define ACPI_RSDP_V2_LEN         36      /* with length and XSDT: revision 2 and later */
#define ACPI_RSDP_OFF_REVISION   15
#define ACPI_RSDP_REV_XSDT       2       /* revision from which length and XSDT exist */

/* Copy len bytes at physical address phys into buf; false when it cannot be read. */
typedef bool (*acpi_read_fn)(void *ctx, uint64_t phys, void *buf, uint32_t len);

#define ACPI_MAX_CPUS 64

struct acpi_cpu {
	uint32_t apic_id;           /* local APIC ID (xAPIC: 0..254) or x2APIC ID */
	uint32_t uid;               /* ACPI processor UID */
	bool x2apic_entry;          /* came from a Processor Local x2APIC structure */
	bool enabled;               /* flags bit 0 */
	bool online_capable;        /* flags bit 1 (MADT revision >= 5): may be enabled later */
};

struct acpi_madt_info {
	uint64_t lapic_phys;        /* MADT Local Interrupt Controller Address, or the 64-bit override */
	bool pcat_compat;           /* MADT flags bit 0: 8259 PICs present */
	unsigned ncpus;             /* entries in cpu[], enabled or not, in table order, duplicates dropped */
	struct acpi_cpu cpu[ACPI_MAX_CPUS];
	unsigned dropped;           /* processor entries past ACPI_MAX_CPUS (reported, not used) */
};

/* Find and parse the MADT from the RSDP at rsdp (revision as in boot_info: 0 = ACPI 1.0,
 * 2 = 2.0+, which prefers the XSDT). 0, or -1 with a reason in err. */
int acpi_read_madt(acpi_read_fn rd, void *ctx, uint64_t rsdp, unsigned rsdp_revision,
		   struct acpi_madt_info *out, char *err, size_t errlen);

/* PCI Express enhanced configuration (ECAM) regions, from the MCFG (PCI Firmware
 * Specification 3.0, 4.1.2). */
#define ACPI_MCFG_MAX 8

struct acpi_mcfg_segment {
	uint64_t base;              /* ECAM address of bus 0 of the segment, 1 MiB aligned */
	uint16_t segment;           /* PCI segment group */
	uint8_t bus_start, bus_end; /* the buses this region decodes */
};

struct acpi_mcfg_info {
	unsigned nsegments;
	struct acpi_mcfg_segment seg[ACPI_MCFG_MAX];
	unsigned dropped;           /* entries past ACPI_MCFG_MAX */
};

/* Find and parse the MCFG. 0, or -1 with a reason in err (no MCFG is such a reason: the
 * machine then has only the legacy configuration mechanism). */
int acpi_read_mcfg(acpi_read_fn rd, void *ctx, uint64_t rsdp, unsigned rsdp_revision,
		   struct acpi_mcfg_info *out, char *err, size_t errlen);

/* The console UART from the SPCR (Microsoft Serial Port Console Redirection Table,
 * revision 2 and later): only the 16550 kinds (DBG2 port subtypes 0x00 full 16550, 0x01
 * 16450 subset, 0x12 16550 described by the Generic Address Structure), on I/O ports or
 * in memory. */
#define ACPI_SPCR_16550          0x00
#define ACPI_SPCR_16450          0x01
#define ACPI_SPCR_16550_GAS      0x12

struct acpi_spcr_info {
	uint8_t revision;
	uint8_t interface_type;     /* one of ACPI_SPCR_16550, _16450, _16550_GAS */
	bool mmio;                  /* system memory, else system I/O */
	uint64_t address;
	uint8_t reg_shift;          /* register n at address + (n << reg_shift) */
	uint8_t access_bytes;       /* 1 or 4 */
	uint32_t baud;              /* 0: as the firmware left it */
	bool pci;                   /* the UART is the PCI function below (device ID not 0xffff) */
	uint16_t pci_vendor, pci_device;
	uint8_t pci_segment, pci_bus, pci_dev, pci_fn;
};

/* Find and parse the SPCR. 0; 1 when the root tables name none (most PCs); -1 with a
 * reason in err for unusable ACPI tables, a bad SPCR or a UART bareperf cannot drive. */
int acpi_read_spcr(acpi_read_fn rd, void *ctx, uint64_t rsdp, unsigned rsdp_revision,
		   struct acpi_spcr_info *out, char *err, size_t errlen);

#endif
