/*
 * The results area on a bareperf image's FAT32 partition (docs/results-area.md): the folder
 * /bareperf/results holding IDENTITY (the image's 128-bit identity) and RESULTS_SLOTS
 * preallocated, contiguous log files run01.log ... runNN.log, each RESULTS_SLOT_BYTES long.
 * scripts/mkimage creates it (and reads the sizes below from this file); the kernel checks
 * that every directory entry and cluster run is still exactly as created and then writes
 * only the data sectors of one log file. FAT layout: Microsoft "FAT: General Overview of
 * On-Disk Format" 1.03 (BPB, FAT32 entries, directory entries), MBR partition table as in
 * the UEFI 2.10 specification 5.2.1.
 */
#ifndef LIB_RESULTS_AREA_H
#define LIB_RESULTS_AREA_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The area's shape; scripts/mkimage greps these three lines. A default-plan run's serial
 * log is about 68 KB (QEMU, 1 CPU): a slot holds 7 times that. */
#define RESULTS_SLOTS 8
#define RESULTS_SLOT_BYTES 524288
#define RESULTS_IDENTITY_BYTES 512

/* The first RESULTS_HEADER_BYTES of a slot are its header; the log follows. One 4096-byte
 * block, so the header is whole sectors on 512- and 4096-byte media alike. */
#define RESULTS_HEADER_BYTES 4096
#define RESULTS_LOG_BYTES (RESULTS_SLOT_BYTES - RESULTS_HEADER_BYTES)

#define RESULTS_ID_BYTES 16

#endif
