/*
 * What bareperf needs from ATA IDENTIFY DEVICE data (ACS-3, 7.12.7, Table 45): LBA and
 * 48-bit addressing, the sector count and the logical sector size. A device whose answer
 * makes no sense (no LBA, capacity 0, a sector size other than 512 or 4096) is refused
 * with the reason, as the storage path must never guess.
 */
#ifndef LIB_ATA_IDENTIFY_H
#define LIB_ATA_IDENTIFY_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ATA_IDENTIFY_WORDS 256
#define ATA_LBA48_MAX_SECTORS (1ull << 48)

struct ata_disk {
	uint64_t sectors;
	uint32_t sector_size;
	bool lba48;
	char model[41];             /* words 27-46, byte-swapped, trailing spaces removed */
};

/* 0, or -1 with the reason in err. */
int ata_identify_parse(const uint16_t id[ATA_IDENTIFY_WORDS], struct ata_disk *out, char *err, size_t errlen);

#endif
