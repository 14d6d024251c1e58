#include "drivers/ide.h"
#include "arch/x86/cpu.h"
#include "drivers/pci.h"
#include "drivers/poll.h"
#include "lib/ata-identify.h"
#include "lib/format.h"

/* Status polls, each an I/O read, bounded as drivers/poll.h says (time on the TSC, else
 * reads of about 1 us): 10 s for a command (a disk may take seconds to spin up; under QEMU
 * the host may be slow to complete the disk's I/O: 1 s of polls, counted, was seen to run
 * out on a loaded host). */
#define STATUS_POLLS            10000000u
#define SELECT_DELAY_READS      4       /* 400 ns after selecting a drive (ATA: 4 status reads) */
#define FLOATING_BUS            0xFF    /* no drive on the channel pulls the bus down */

void ide_channel_ports(unsigned channel, uint8_t progif, const uint32_t bar[4], uint16_t *cmd, uint16_t *ctrl)
{
	bool native = progif & (channel ? IDE_PROGIF_SECONDARY_NATIVE : IDE_PROGIF_PRIMARY_NATIVE);

	if (native && (bar[2 * channel] & PCI_BAR_IO) && (bar[2 * channel + 1] & PCI_BAR_IO)) {
		*cmd = (uint16_t)(bar[2 * channel] & PCI_BAR_IO_MASK);
		*ctrl = (uint16_t)((bar[2 * channel + 1] & PCI_BAR_IO_MASK) + IDE_NATIVE_CTRL_OFFSET);
		return;
	}
	*cmd = channel ? IDE_SECONDARY_CMD : IDE_PRIMARY_CMD;
	*ctrl = channel ? IDE_SECONDARY_CTRL : IDE_PRIMARY_CTRL;
}

static int drive_fail(struct ide_drive *d, const char *what, uint8_t status)
{
	bp_snprintf(d->bd.err, sizeof(d->bd.err), "%s (status 0x%02x, error 0x%02x; %s)", what, status,
		    inb(d->cmd + ATA_REG_ERROR), d->bd.where);
	return -1;
}

/* Wait for BSY clear and then, when want_drq, DRQ set; 0, or -1 with the reason. */
static int wait_ready(struct ide_drive *d, bool want_drq)
{
	uint8_t s = 0;
	struct poll_bound b;

	for (poll_bound_start(&b, STATUS_POLLS); !poll_bound_spent(&b);) {
		s = inb(d->ctrl);       /* the alternate status: reading it acknowledges nothing */
		if (s & ATA_STATUS_BSY)
			continue;
		if (s & (ATA_STATUS_ERR | ATA_STATUS_DF))
			return drive_fail(d, "the disk reports an error", s);
		if (!want_drq || (s & ATA_STATUS_DRQ))
			return 0;
	}
	char what[80];
	bp_snprintf(what, sizeof(what), "timeout: the disk did not answer within " POLLS_TEXT, POLLS_ARGS(STATUS_POLLS));
	return drive_fail(d, what, s);
}

static void select_drive(struct ide_drive *d, uint8_t lba_bits)
{
	outb(d->cmd + ATA_REG_DEVICE, (uint8_t)(ATA_DEVICE_OBS | (d->slave ? ATA_DEVICE_SLAVE : 0) | lba_bits));
	for (int i = 0; i < SELECT_DELAY_READS; i++)
		(void)inb(d->ctrl);
}

/* LBA48 task file: the high-order bytes first, then the low-order (ATA/ATAPI-6 6.20). */
static void task_file48(struct ide_drive *d, uint64_t lba, uint16_t count)
{
	outb(d->cmd + ATA_REG_SECCOUNT, (uint8_t)(count >> 8));
	outb(d->cmd + ATA_REG_LBA_LO, (uint8_t)(lba >> 24));
	outb(d->cmd + ATA_REG_LBA_MID, (uint8_t)(lba >> 32));
	outb(d->cmd + ATA_REG_LBA_HI, (uint8_t)(lba >> 40));
	outb(d->cmd + ATA_REG_SECCOUNT, (uint8_t)count);
	outb(d->cmd + ATA_REG_LBA_LO, (uint8_t)lba);
	outb(d->cmd + ATA_REG_LBA_MID, (uint8_t)(lba >> 8));
	outb(d->cmd + ATA_REG_LBA_HI, (uint8_t)(lba >> 16));
}

#define IDE_MAX_COUNT 256       /* sectors per command here (the register allows 65536) */

static int ide_rw(struct blockdev *bd, uint64_t lba, uint32_t count, void *buf, bool write)
{
	struct ide_drive *d = bd->priv;
	uint16_t *w = buf;
	uint32_t words = bd->sector_size / 2;

	if (lba > bd->sectors || count > bd->sectors - lba)
		return drive_fail(d, "a transfer past the end of the disk", 0);
	while (count) {
		uint32_t n = count < IDE_MAX_COUNT ? count : IDE_MAX_COUNT;
		if (wait_ready(d, false))
			return -1;
		select_drive(d, ATA_DEVICE_LBA);
		task_file48(d, lba, (uint16_t)n);
		outb(d->cmd + ATA_REG_COMMAND, write ? ATA_CMD_WRITE_SECTORS_EXT : ATA_CMD_READ_SECTORS_EXT);
		for (uint32_t s = 0; s < n; s++) {
			if (wait_ready(d, true))
				return -1;
			for (uint32_t k = 0; k < words; k++, w++) {
				if (write)
					outw(d->cmd + ATA_REG_DATA, *w);
				else
					*w = inw(d->cmd + ATA_REG_DATA);
			}
		}
		lba += n;
		count -= n;
	}
	if (!write)
		return 0;
	if (wait_ready(d, false))
		return -1;
	outb(d->cmd + ATA_REG_COMMAND, ATA_CMD_FLUSH_CACHE_EXT);
	return wait_ready(d, false);
}

static int ide_read(struct blockdev *bd, uint64_t lba, uint32_t count, void *buf)
{
	return ide_rw(bd, lba, count, buf, false);
}

static int ide_write(struct blockdev *bd, uint64_t lba, uint32_t count, const void *buf)
{
	return ide_rw(bd, lba, count, (void *)buf, true);
}

static const struct blockdev_ops ide_ops = { .read = ide_read, .write = ide_write };

int ide_drive_open(struct ide_drive *out, uint16_t cmd, uint16_t ctrl, bool slave, char *err, size_t errlen)
{
	static uint16_t id[ATA_IDENTIFY_WORDS];
	struct ata_disk disk;
	char why[120];

	out->cmd = cmd;
	out->ctrl = ctrl;
	out->slave = slave;
	out->bd.ops = &ide_ops;
	out->bd.kind = "IDE disk";
	out->bd.priv = out;
	outb(ctrl, ATA_DEVCTL_NIEN);
	select_drive(out, 0);
	if (inb(ctrl) == FLOATING_BUS)
		return 0;
	outb(cmd + ATA_REG_SECCOUNT, 0);
	outb(cmd + ATA_REG_LBA_LO, 0);
	outb(cmd + ATA_REG_LBA_MID, 0);
	outb(cmd + ATA_REG_LBA_HI, 0);
	outb(cmd + ATA_REG_COMMAND, ATA_CMD_IDENTIFY);
	if (inb(ctrl) == 0)
		return 0;                       /* no drive at this position */
	unsigned i;
	for (i = 0; i < STATUS_POLLS && (inb(ctrl) & ATA_STATUS_BSY); i++)
		;
	if (i == STATUS_POLLS)
		return fmt_error(err, errlen, "%s: the drive stays busy after IDENTIFY", out->bd.where);
	if (inb(cmd + ATA_REG_LBA_MID) == ATA_ATAPI_MID && inb(cmd + ATA_REG_LBA_HI) == ATA_ATAPI_HI)
		return 0;                       /* a CD drive or another packet device: not a disk */
	if (wait_ready(out, true))
		return fmt_error(err, errlen, "IDENTIFY failed: %s", out->bd.err);
	for (unsigned k = 0; k < ATA_IDENTIFY_WORDS; k++)
		id[k] = inw(cmd + ATA_REG_DATA);
	if (ata_identify_parse(id, &disk, why, sizeof(why)))
		return fmt_error(err, errlen, "%s: %s", out->bd.where, why);
	if (!disk.lba48)
		return fmt_error(err, errlen, "%s: the disk has no 48-bit addressing", out->bd.where);
	out->bd.sector_size = disk.sector_size;
	out->bd.sectors = disk.sectors;
	return 1;
}
