/* The storage path (docs/results-area.md): the disks found at boot (kernel/storage-probe.c),
 * and the run saved on the one that carries this image's identity (kernel/storage.c). */
#ifndef KERNEL_STORAGE_H
#define KERNEL_STORAGE_H
#include <stddef.h>

/* Learn this image's identity (boot.image), find the disks (storage_probe) and report
 * each one and the results area on it (storage.disk, storage.results). From then on, at
 * every checkpoint of a mode (kernel/checkpoint.h), the log so far goes into the run's
 * slot, its header still saying writing, so that a hang or crash later keeps what was
 * measured: silent, a failure reported by storage_save at the end (or at once when a
 * write fails). */
void storage_detect(void);

/* At the end of a run (measurements done, other CPUs parked): write the console's copy of
 * the run into the results area of the one disk carrying this image's identity, unless
 * save=off; the last line says where it went or why not. */
void storage_save(void);


/* This image and run, for the results screen: "image 0f11...c11, run 3" (the run's number
 * once its save has begun), "image 0f11...c11, run not saved" or "image unknown". */
void storage_describe(char *buf, size_t len);

#endif
