/* The ATA commands and Device register bits both disk drivers use (ACS-3, 7.x; the
 * Device register: ATA/ATAPI-6 6.20). */
#ifndef DRIVERS_ATA_H
#define DRIVERS_ATA_H

#define ATA_DEVICE_LBA            0x40
#define ATA_CMD_READ_SECTORS_EXT  0x24
#define ATA_CMD_READ_DMA_EXT      0x25
#define ATA_CMD_WRITE_SECTORS_EXT 0x34
#define ATA_CMD_WRITE_DMA_EXT     0x35
#define ATA_CMD_FLUSH_CACHE_EXT   0xEA
#define ATA_CMD_IDENTIFY          0xEC

#endif
