/*
 * A block device, as the storage path sees one: what it is, where it is, its sector size
 * and count, and polled reads and writes of whole sectors. AHCI (drivers/ahci.c), IDE
 * (drivers/ide.c) and USB mass storage (drivers/usb-msc.c) implement it. Every operation is bounded in time and says what
 * went wrong: an error, a timeout, a device that vanished.
 */
#ifndef DRIVERS_BLOCKDEV_H
#define DRIVERS_BLOCKDEV_H
#include <stddef.h>
#include <stdint.h>

#define BLOCKDEV_WHERE_MAX 48
#define BLOCKDEV_ERR_MAX   448     /* a USB reason (USB_ERR_MAX) and " at sector N (where)" */

struct blockdev;

struct blockdev_ops {
	/* count sectors at lba into / from buf. 0, or -1 with the reason in bd->err. */
	int (*read)(struct blockdev *bd, uint64_t lba, uint32_t count, void *buf);
	int (*write)(struct blockdev *bd, uint64_t lba, uint32_t count, const void *buf);
};

struct blockdev {
	const struct blockdev_ops *ops;
	const char *kind;                   /* "SATA disk", "IDE disk", "USB stick" */
	char where[BLOCKDEV_WHERE_MAX];     /* "AHCI 00:1f.2, port 0" */
	uint32_t sector_size;               /* 512 or 4096; others are refused when probed */
	uint64_t sectors;
	void *priv;                         /* the driver's */
	char err[BLOCKDEV_ERR_MAX];
};

static inline int blockdev_read(struct blockdev *bd, uint64_t lba, uint32_t count, void *buf)
{
	return bd->ops->read(bd, lba, count, buf);
}

static inline int blockdev_write(struct blockdev *bd, uint64_t lba, uint32_t count, const void *buf)
{
	return bd->ops->write(bd, lba, count, buf);
}

/* Memory a driver can hand to a DMA engine: virt is where the kernel sees it. */
struct dma_region {
	void *virt;
	uint64_t phys;
	uint64_t size;
};

/* The bus address of p, which lies in the region (32 bits: the regions are below 4 GiB). */
static inline uint32_t dma_phys_of(const struct dma_region *d, const volatile void *p)
{
	return (uint32_t)(d->phys + (uint64_t)((uintptr_t)p - (uintptr_t)d->virt));
}

#endif
