#include "drivers/ahci.h"
#include "arch/x86/cpu.h"
#include "drivers/poll.h"
#include "lib/ata-identify.h"
#include "lib/format.h"
#include "lib/str.h"

/* Bounds on polls of a register (drivers/poll.h: time on the TSC, or polls of 1 us each
 * without one): 10 s for a command (a disk may take seconds to spin up; under QEMU the
 * host may be slow to complete the I/O), 0.5 s for a port to stop or start. */
#define COMMAND_POLLS           10000000u
#define ENGINE_POLLS            500000u

static uint32_t rd(volatile uint8_t *abar, uint32_t off)
{
	return *(volatile uint32_t *)(abar + off);
}

static void wr(volatile uint8_t *abar, uint32_t off, uint32_t v)
{
	*(volatile uint32_t *)(abar + off) = v;
}

/* Wait until (reg & mask) == want; false when the polls run out. */
static bool wait_reg(volatile uint8_t *abar, uint32_t off, uint32_t mask, uint32_t want, unsigned polls)
{
	struct poll_bound b;

	for (poll_bound_start(&b, polls); !poll_bound_spent(&b);) {
		if ((rd(abar, off) & mask) == want)
			return true;
		poll_pause();
	}
	return false;
}

unsigned ahci_port_count(volatile uint8_t *abar)
{
	unsigned n = 0;

	for (uint32_t pi = rd(abar, AHCI_PI); pi; pi &= pi - 1)
		n++;
	return n;
}

uint32_t ahci_disk_ports(volatile uint8_t *abar)
{
	uint32_t pi = rd(abar, AHCI_PI), disks = 0;

	for (unsigned p = 0; p < AHCI_PORTS; p++) {
		if (!(pi & (1u << p)))
			continue;
		uint32_t port = AHCI_PORT(p);
		if ((rd(abar, port + AHCI_PxSSTS) & AHCI_PxSSTS_DET_MASK) == AHCI_PxSSTS_DET_PRESENT &&
		    rd(abar, port + AHCI_PxSIG) == AHCI_SIG_ATA)
			disks |= 1u << p;
	}
	return disks;
}

/* The DMA region's parts: command list, received FIS, command table, bounce buffer. */
#define DMA_CMD_LIST    0
#define DMA_RX_FIS      (DMA_CMD_LIST + AHCI_CMD_LIST_BYTES)
#define DMA_CMD_TABLE   (DMA_RX_FIS + AHCI_RX_FIS_BYTES)
#define DMA_BOUNCE      (DMA_CMD_TABLE + AHCI_CMD_TABLE_BYTES)

static int port_fail(struct ahci_port *ap, const char *what)
{
	bp_snprintf(ap->bd.err, sizeof(ap->bd.err), "%s (%s)", what, ap->bd.where);
	return -1;
}

/* Issue one command in slot 0 with bytes of data through the bounce buffer and wait for
 * it; 0, or -1 with the reason in ap->bd.err. */
static int issue(struct ahci_port *ap, uint8_t command, uint64_t lba, uint32_t count, uint32_t bytes, bool write)
{
	volatile uint8_t *abar = ap->abar;
	uint32_t port = AHCI_PORT(ap->port);
	uint8_t *base = ap->dma.virt;
	uint32_t *hdr = (uint32_t *)(base + DMA_CMD_LIST);
	uint8_t *table = base + DMA_CMD_TABLE;
	uint64_t table_phys = ap->dma.phys + DMA_CMD_TABLE, data_phys = ap->dma.phys + DMA_BOUNCE;

	if (!wait_reg(abar, port + AHCI_PxTFD, AHCI_PxTFD_BSY | AHCI_PxTFD_DRQ, 0, COMMAND_POLLS))
		return port_fail(ap, "the disk stays busy");
	memset(table, 0, AHCI_CMD_TABLE_BYTES);
	table[0] = FIS_TYPE_REG_H2D;
	table[1] = FIS_H2D_COMMAND;
	table[2] = command;
	for (int i = 0; i < 3; i++) {
		table[4 + i] = (uint8_t)(lba >> (8 * i));
		table[8 + i] = (uint8_t)(lba >> (8 * (i + 3)));
	}
	table[7] = ATA_DEVICE_LBA;
	table[12] = (uint8_t)count;
	table[13] = (uint8_t)(count >> 8);
	uint32_t *prd = (uint32_t *)(table + AHCI_CT_PRDT);
	prd[0] = (uint32_t)data_phys;
	prd[1] = (uint32_t)(data_phys >> 32);
	prd[3] = bytes ? bytes - 1 : 0;
	hdr[0] = AHCI_CH_CFL(FIS_H2D_DWORDS) | (write ? AHCI_CH_WRITE : 0) | AHCI_CH_PRDTL(bytes ? 1 : 0);
	hdr[1] = 0;
	hdr[2] = (uint32_t)table_phys;
	hdr[3] = (uint32_t)(table_phys >> 32);
	__asm__ volatile("" ::: "memory");
	wr(abar, port + AHCI_PxIS, 0xFFFFFFFFu);
	wr(abar, port + AHCI_PxCI, 1);
	struct poll_bound b;
	for (poll_bound_start(&b, COMMAND_POLLS); !poll_bound_spent(&b);) {
		if (rd(abar, port + AHCI_PxIS) & AHCI_PxIS_TFES) {
			bp_snprintf(ap->bd.err, sizeof(ap->bd.err), "the disk reports an error on command 0x%02x at "
				    "sector %llu (status 0x%02x, error 0x%02x; %s)", command, (unsigned long long)lba,
				    rd(abar, port + AHCI_PxTFD) & 0xFF, rd(abar, port + AHCI_PxTFD) >> 8 & 0xFF,
				    ap->bd.where);
			return -1;
		}
		if (!(rd(abar, port + AHCI_PxCI) & 1)) {
			__asm__ volatile("" ::: "memory");
			return 0;
		}
		poll_pause();
	}
	bp_snprintf(ap->bd.err, sizeof(ap->bd.err), "timeout: the disk did not finish a command within " POLLS_TEXT
		    " (%s)", POLLS_ARGS(COMMAND_POLLS), ap->bd.where);
	return -1;
}

static int ahci_rw(struct blockdev *bd, uint64_t lba, uint32_t count, void *buf, bool write)
{
	struct ahci_port *ap = bd->priv;
	uint8_t *bounce = (uint8_t *)ap->dma.virt + DMA_BOUNCE;
	uint32_t per = AHCI_BOUNCE_BYTES / bd->sector_size;

	if (lba > bd->sectors || count > bd->sectors - lba)
		return port_fail(ap, "a transfer past the end of the disk");
	while (count) {
		uint32_t n = count < per ? count : per, bytes = n * bd->sector_size;
		if (write)
			memcpy(bounce, buf, bytes);
		if (issue(ap, write ? ATA_CMD_WRITE_DMA_EXT : ATA_CMD_READ_DMA_EXT, lba, n, bytes, write))
			return -1;
		uint32_t done = ((uint32_t *)((uint8_t *)ap->dma.virt + DMA_CMD_LIST))[1];
		if (done != bytes) {
			bp_snprintf(bd->err, sizeof(bd->err), "a short transfer: %u of %u bytes at sector %llu (%s)",
				    done, bytes, (unsigned long long)lba, bd->where);
			return -1;
		}
		if (!write)
			memcpy(buf, bounce, bytes);
		buf = (uint8_t *)buf + bytes;
		lba += n;
		count -= n;
	}
	return 0;
}

static int ahci_read(struct blockdev *bd, uint64_t lba, uint32_t count, void *buf)
{
	return ahci_rw(bd, lba, count, buf, false);
}

static int ahci_write(struct blockdev *bd, uint64_t lba, uint32_t count, const void *buf)
{
	if (ahci_rw(bd, lba, count, (void *)buf, true))
		return -1;
	struct ahci_port *ap = bd->priv;
	return issue(ap, ATA_CMD_FLUSH_CACHE_EXT, 0, 0, 0, false);
}

static const struct blockdev_ops ahci_ops = { .read = ahci_read, .write = ahci_write };

/* Stop the port's engines (3.3.7: ST then FRE, waiting for CR and FR). */
static int port_stop(struct ahci_port *ap, char *err, size_t errlen)
{
	volatile uint8_t *abar = ap->abar;
	uint32_t port = AHCI_PORT(ap->port), cmd = rd(abar, port + AHCI_PxCMD);

	wr(abar, port + AHCI_PxCMD, cmd & ~AHCI_PxCMD_ST);
	if (!wait_reg(abar, port + AHCI_PxCMD, AHCI_PxCMD_CR, 0, ENGINE_POLLS))
		return fmt_error(err, errlen, "%s: the port's command engine does not stop", ap->bd.where);
	wr(abar, port + AHCI_PxCMD, rd(abar, port + AHCI_PxCMD) & ~AHCI_PxCMD_FRE);
	if (!wait_reg(abar, port + AHCI_PxCMD, AHCI_PxCMD_FR, 0, ENGINE_POLLS))
		return fmt_error(err, errlen, "%s: the port's FIS receive engine does not stop", ap->bd.where);
	return 0;
}

/* Stop the port, point it at our memory, and start it again. */
static int port_start(struct ahci_port *ap, char *err, size_t errlen)
{
	volatile uint8_t *abar = ap->abar;
	uint32_t port = AHCI_PORT(ap->port);

	if (port_stop(ap, err, errlen))
		return -1;
	memset(ap->dma.virt, 0, DMA_BOUNCE);
	wr(abar, port + AHCI_PxCLB, (uint32_t)(ap->dma.phys + DMA_CMD_LIST));
	wr(abar, port + AHCI_PxCLBU, (uint32_t)((ap->dma.phys + DMA_CMD_LIST) >> 32));
	wr(abar, port + AHCI_PxFB, (uint32_t)(ap->dma.phys + DMA_RX_FIS));
	wr(abar, port + AHCI_PxFBU, (uint32_t)((ap->dma.phys + DMA_RX_FIS) >> 32));
	wr(abar, port + AHCI_PxIE, 0);
	wr(abar, port + AHCI_PxSERR, 0xFFFFFFFFu);
	wr(abar, port + AHCI_PxIS, 0xFFFFFFFFu);
	wr(abar, port + AHCI_PxCMD, rd(abar, port + AHCI_PxCMD) | AHCI_PxCMD_FRE);
	wr(abar, port + AHCI_PxCMD, rd(abar, port + AHCI_PxCMD) | AHCI_PxCMD_ST);
	return 0;
}

int ahci_port_open(struct ahci_port *out, volatile uint8_t *abar, unsigned p, const struct dma_region *dma,
		   char *err, size_t errlen)
{
	struct ata_disk disk;
	char why[120];

	out->abar = abar;
	out->port = p;
	out->dma = *dma;
	out->bd.ops = &ahci_ops;
	out->bd.kind = "SATA disk";
	out->bd.priv = out;
	out->bd.sector_size = 512;
	out->bd.sectors = 0;
	if (dma->size < AHCI_PORT_DMA_BYTES || dma->phys % 4096)
		return fmt_error(err, errlen, "%s: DMA memory too small or misaligned", out->bd.where);
	if (dma->phys + dma->size > (1ull << 32) && !(rd(abar, AHCI_CAP) & AHCI_CAP_S64A))
		return fmt_error(err, errlen, "%s: DMA memory above 4 GiB and no 64-bit addressing", out->bd.where);
	wr(abar, AHCI_GHC, rd(abar, AHCI_GHC) | AHCI_GHC_AE);
	if (port_start(out, err, errlen))
		return -1;
	if (issue(out, ATA_CMD_IDENTIFY, 0, 0, 512, false))
		return fmt_error(err, errlen, "IDENTIFY DEVICE failed: %s", out->bd.err);
	if (ata_identify_parse((const uint16_t *)((uint8_t *)dma->virt + DMA_BOUNCE), &disk, why, sizeof(why)))
		return fmt_error(err, errlen, "%s: %s", out->bd.where, why);
	if (!disk.lba48)
		return fmt_error(err, errlen, "%s: the disk has no 48-bit addressing (READ DMA EXT)", out->bd.where);
	out->bd.sector_size = disk.sector_size;
	out->bd.sectors = disk.sectors;
	return 0;
}

int ahci_port_close(struct ahci_port *ap, char *err, size_t errlen)
{
	return port_stop(ap, err, errlen);
}
