/*
 * Legacy IDE/ATA disks by polled PIO (ATA/ATAPI-6 registers, ACS-3 commands): IDENTIFY
 * DEVICE, READ/WRITE SECTORS EXT, FLUSH CACHE EXT; every wait bounded. Channels at the
 * compatibility ports or, in PCI native mode, at the controller's BARs (PCI IDE Controller
 * Specification 1.0, 2.1: programming interface bits 0 and 2).
 */
#ifndef DRIVERS_IDE_H
#define DRIVERS_IDE_H
#include <stdbool.h>
#include <stdint.h>
#include "drivers/ata.h"
#include "drivers/blockdev.h"

#define IDE_PRIMARY_CMD         0x1F0
#define IDE_PRIMARY_CTRL        0x3F6
#define IDE_SECONDARY_CMD       0x170
#define IDE_SECONDARY_CTRL      0x376
#define IDE_PROGIF_PRIMARY_NATIVE   0x01
#define IDE_PROGIF_SECONDARY_NATIVE 0x04
#define IDE_NATIVE_CTRL_OFFSET  2       /* the control BAR's block: alternate status at +2 */

/* Command block registers (offsets from the command base) */
#define ATA_REG_DATA            0
#define ATA_REG_ERROR           1
#define ATA_REG_SECCOUNT        2
#define ATA_REG_LBA_LO          3
#define ATA_REG_LBA_MID         4
#define ATA_REG_LBA_HI          5
#define ATA_REG_DEVICE          6
#define ATA_REG_STATUS          7       /* read */
#define ATA_REG_COMMAND         7       /* write */
#define ATA_DEVICE_OBS          0xA0    /* bits 7 and 5, set by convention */
#define ATA_DEVICE_SLAVE        0x10
#define ATA_STATUS_ERR          0x01
#define ATA_STATUS_DRQ          0x08
#define ATA_STATUS_DF           0x20
#define ATA_STATUS_BSY          0x80
#define ATA_DEVCTL_NIEN         0x02    /* no interrupts: bareperf polls */
#define ATA_ATAPI_MID           0x14    /* signature of a packet device after IDENTIFY aborts */
#define ATA_ATAPI_HI            0xEB

struct ide_drive {
	uint16_t cmd, ctrl;         /* command block and device control/alternate status ports */
	bool slave;
	struct blockdev bd;
};

/* The command and control ports of channel 0 (primary) or 1 of a controller with this
 * programming interface and BARs. */
void ide_channel_ports(unsigned channel, uint8_t progif, const uint32_t bar[4], uint16_t *cmd, uint16_t *ctrl);

/* Probe and IDENTIFY one drive; 1 a disk (out->bd ready, where set by the caller), 0 none,
 * -1 a device that answers nonsense (the reason in err). */
int ide_drive_open(struct ide_drive *out, uint16_t cmd, uint16_t ctrl, bool slave, char *err, size_t errlen);

#endif
