/* The storage path (issue 17, docs/results-area.md): PCI enumeration and the storage
 * controllers found, reported at boot. */
#ifndef KERNEL_STORAGE_H
#define KERNEL_STORAGE_H

/* Choose ECAM (MCFG) or configuration mechanism #1, enumerate PCI and report
 * pci.config, pci.functions and one storage.controller line per controller. */
void storage_detect(void);

/* At the end of a run (measurements done, other CPUs parked): write the console's copy of
 * the run into the results area of the one disk carrying this image's identity, unless
 * save=off; the last line says where it went or why not. */
void storage_save(void);

/* Between payloads of a run: the log so far goes into the same slot, its header still
 * saying writing, so that a hang or crash later keeps what was measured. Silent; a
 * failure is reported by storage_save at the end (or at once when a write fails). */
void storage_save_progress(void);

#endif
