/* Finding the disks for the results area (kernel/storage-probe.c): PCI, the storage
 * controllers, and each disk and USB stick on them as a block device. kernel/storage.c
 * saves the run on the one that carries this image's identity. */
#ifndef KERNEL_STORAGE_PROBE_H
#define KERNEL_STORAGE_PROBE_H
#include "drivers/blockdev.h"

#define STORAGE_DISKS_MAX 4     /* disks opened; each keeps its driver's DMA memory */

/* Choose ECAM (MCFG) or configuration mechanism #1, enumerate PCI, report pci.config,
 * pci.functions and one storage.controller line per controller, and open the disks on
 * them; a problem with one is a storage.note line. */
void storage_probe(void);

/* The disks storage_probe opened: their count, and *list set to them. */
unsigned storage_disks(struct blockdev *const **list);

/* What was searched, for a not saved: line: "2 disks searched; AHCI: 1 controller, 6
 * ports; IDE: 0 controllers; ...". */
const char *storage_searched_text(void);

/* Stop the USB host controllers' schedules, so that no DMA runs while a payload is
 * measured (EHCI's asynchronous schedule; an xHCI is idle without a doorbell). */
void storage_usb_idle(void);

#endif
