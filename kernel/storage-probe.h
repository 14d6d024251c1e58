/* Finding the disks for the results area (kernel/storage-probe.c): PCI, the storage
 * controllers, and each disk and USB stick on them as a block device. kernel/storage.c
 * saves the run on the one that carries this image's identity. */
#ifndef KERNEL_STORAGE_PROBE_H
#define KERNEL_STORAGE_PROBE_H
#include <stdbool.h>
#include "drivers/blockdev.h"

/* Disks kept open: those that carry this image's identity (each keeps its driver's memory;
 * a second one already means nothing is written). Every other disk is examined and closed,
 * however many there are. */
#define STORAGE_DISKS_MAX 4

/* Called for each disk storage_probe opens: report it (storage.disk, storage.results) and
 * say whether its results area carries this image's identity, which keeps it open. */
typedef bool (*storage_examine_fn)(struct blockdev *bd);

/* Choose ECAM (MCFG) or configuration mechanism #1, enumerate PCI, report pci.config,
 * pci.functions and one storage.controller line per controller, and open every disk on
 * them, handing each to examine; a problem with one is a storage.note line. */
void storage_probe(storage_examine_fn examine);

/* The disks storage_probe kept (they carried this image's identity when examined): their
 * count, and *list set to them. */
unsigned storage_disks(struct blockdev *const **list);

/* How many places that may hold a disk were not searched for want of an entry bareperf
 * has a fixed number of (an xHCI or EHCI controller past those it opens, a device past
 * the entries of its controller, a hub behind the one hub tier it follows), and *first
 * set to what the first one's note said. A disk there could carry this image's identity
 * as well. */
unsigned storage_unsearched(const char **first);

/* What was searched, for a not saved: line: "2 disks searched; AHCI: 1 controller, 6
 * ports; IDE: 0 controllers; ...". */
const char *storage_searched_text(void);

/* Stop the USB host controllers' schedules, so that no DMA runs while a payload is
 * measured (EHCI's asynchronous schedule; an xHCI is idle without a doorbell). */
void storage_usb_idle(void);

#endif
