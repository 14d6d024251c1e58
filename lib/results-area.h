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
#include "lib/fat32.h"

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

/* A medium smaller than this cannot hold the area: the MBR's sector and the files' bytes. */
#define RESULTS_MEDIUM_MIN_BYTES (RESULTS_SECTOR_MAX + RESULTS_IDENTITY_BYTES + \
				  RESULTS_SLOTS * RESULTS_SLOT_BYTES)

/* ---- finding and checking the area on a block device ---- */

/* Read count sectors from lba into buf; false on any error (lib/fat32.h's). */
typedef fat32_read_fn results_read_fn;

#define RESULTS_SECTOR_MAX FAT32_SECTOR_MAX
/* results_area_find's scratch: lib/fat32.c's sectors and windows on the FAT. */
#define RESULTS_SCRATCH_BYTES FAT32_SCRATCH_BYTES

struct results_extent {
	uint64_t lba;               /* first sector on the device */
	uint32_t sectors;           /* device sectors the file's bytes occupy */
};

struct results_area {
	uint32_t sector_size;
	uint8_t id[RESULTS_ID_BYTES];       /* from IDENTITY */
	struct results_extent identity;
	struct results_extent slot[RESULTS_SLOTS];
};

/* Room for a reason results_area_find and the parsers give (a longer one is cut at a word). */
#define RESULTS_ERR_MAX 200

/* Find /bareperf/results on the device (sector_size 512 or 4096, total_sectors long) and
 * check that it is exactly as scripts/mkimage made it. scratch holds RESULTS_SCRATCH_BYTES
 * bytes. 0, or -1 with the failed check in err. Reads only (each sector once); writes
 * nothing. */
int results_area_find(results_read_fn rd, void *ctx, uint32_t sector_size, uint64_t total_sectors,
		      uint8_t *scratch, struct results_area *out, char *err, size_t errlen);

struct results_identity {
	uint8_t id[RESULTS_ID_BYTES];
	uint32_t cluster[RESULTS_SLOTS];    /* each slot's first cluster, as created */
};

/* IDENTITY's text (len bytes). 0, or -1 with a reason. */
int results_identity_parse(const char *text, size_t len, struct results_identity *out,
			   char *err, size_t errlen);

/* ---- a slot's header ---- */

enum results_state {
	RESULTS_EMPTY,              /* all zero: never written */
	RESULTS_DAMAGED,            /* not a bareperf header */
	RESULTS_WRITING,            /* a save started and did not finish: torn */
	RESULTS_COMPLETE,
};

#define RESULTS_RTC_MAX 20          /* "YYYY-MM-DD hh:mm:ss" */
#define RESULTS_CPU_MAX 64
/* A header with more is damaged. Run numbers never wrap (a wrapped number would sort as the
 * oldest and be replaced first, and two runs could share one): once a slot holds this one,
 * nothing more is saved until the slots are emptied (docs/results-area.md). */
#define RESULTS_RUN_MAX 999999999

struct results_header {
	enum results_state state;
	uint8_t id[RESULTS_ID_BYTES];
	uint32_t run;
	char rtc[RESULTS_RTC_MAX];
	char cpu[RESULTS_CPU_MAX];
	uint32_t length;            /* log bytes after the header */
	uint32_t crc32;             /* of those bytes */
};

/* Write h (state WRITING or COMPLETE) as RESULTS_HEADER_BYTES bytes, zero-padded. */
void results_header_format(uint8_t buf[RESULTS_HEADER_BYTES], const struct results_header *h);
/* Parse a header; returns its state (DAMAGED with the reason in err). */
enum results_state results_header_parse(const uint8_t buf[RESULTS_HEADER_BYTES], struct results_header *h,
					char *err, size_t errlen);

/* CRC-32 (IEEE 802.3, reflected, as zlib's crc32): start with crc = 0. */
uint32_t results_crc32(uint32_t crc, const void *data, size_t len);

/* ---- which slot the next run takes (docs/results-area.md, "Which slot") ---- */

struct results_choice {
	unsigned slot;              /* 0-based */
	uint32_t run;               /* the new run's number */
	uint32_t replaced_run;      /* the run it overwrites, 0 when the slot was free */
};

/* 0, or -1 when a slot holds run RESULTS_RUN_MAX: no number is left, and out->slot is
 * that slot (out->run 0). */
int results_pick_slot(const struct results_header hdr[RESULTS_SLOTS], struct results_choice *out);

#endif
