/* The storage path (issue 17, docs/results-area.md): PCI enumeration and the storage
 * controllers found, reported at boot. */
#ifndef KERNEL_STORAGE_H
#define KERNEL_STORAGE_H

/* Choose ECAM (MCFG) or configuration mechanism #1, enumerate PCI and report
 * pci.config, pci.functions and one storage.controller line per controller. */
void storage_detect(void);

#endif
