/*
 * AHCI (Serial ATA AHCI 1.3.1), polled: one command slot per port, READ/WRITE DMA EXT and
 * IDENTIFY DEVICE, every wait bounded. The HBA is used as the firmware left it (no HBA
 * reset); a port is stopped, given bareperf's command list and FIS area, and started.
 */
#ifndef DRIVERS_AHCI_H
#define DRIVERS_AHCI_H
#include <stdbool.h>
#include <stdint.h>
#include "drivers/ata.h"
#include "drivers/blockdev.h"

/* HBA registers (1.3.1, 3.1) */
#define AHCI_CAP        0x00
#define AHCI_CAP_S64A   (1u << 31)
#define AHCI_GHC        0x04
#define AHCI_GHC_AE     (1u << 31)
#define AHCI_PI         0x0C
#define AHCI_PORTS      32
#define AHCI_ABAR_BYTES 0x1100          /* the HBA registers and 32 ports */

/* Port registers (3.3), at 0x100 + 0x80 * port */
#define AHCI_PORT(p)    (0x100 + 0x80 * (p))
#define AHCI_PxCLB      0x00
#define AHCI_PxCLBU     0x04
#define AHCI_PxFB       0x08
#define AHCI_PxFBU      0x0C
#define AHCI_PxIS       0x10
#define AHCI_PxIS_TFES  (1u << 30)      /* task file error */
#define AHCI_PxIE       0x14
#define AHCI_PxCMD      0x18
#define AHCI_PxCMD_ST   (1u << 0)
#define AHCI_PxCMD_FRE  (1u << 4)
#define AHCI_PxCMD_FR   (1u << 14)
#define AHCI_PxCMD_CR   (1u << 15)
#define AHCI_PxTFD      0x20
#define AHCI_PxTFD_ERR  0x01
#define AHCI_PxTFD_DRQ  0x08
#define AHCI_PxTFD_BSY  0x80
#define AHCI_PxSIG      0x24
#define AHCI_SIG_ATA    0x00000101u     /* a SATA disk (ATAPI is 0xEB140101) */
#define AHCI_PxSSTS     0x28
#define AHCI_PxSSTS_DET_MASK 0x0Fu
#define AHCI_PxSSTS_DET_PRESENT 0x3u    /* device present, PHY communication established */
#define AHCI_PxSERR     0x30
#define AHCI_PxCI       0x38

/* Command header (4.2.2) and table (4.2.3) */
#define AHCI_CMD_HEADER_BYTES   32
#define AHCI_CMD_LIST_BYTES     1024    /* 32 headers, 1 KiB aligned */
#define AHCI_RX_FIS_BYTES       256     /* 256-byte aligned */
#define AHCI_CMD_TABLE_BYTES    256     /* CFIS, ACMD, one PRD entry; 128-byte aligned */
#define AHCI_CH_CFL(dwords)     (dwords)
#define AHCI_CH_WRITE           (1u << 6)
#define AHCI_CH_PRDTL(n)        ((uint32_t)(n) << 16)
#define AHCI_CT_PRDT            0x80
#define AHCI_PRD_DBC_MAX        (4u << 20)      /* one PRD entry: at most 4 MiB */

/* Register FIS host to device (SATA 3.2, 10.5.5); the commands are drivers/ata.h's */
#define FIS_TYPE_REG_H2D        0x27
#define FIS_H2D_COMMAND         0x80    /* the C bit: the FIS carries a command */
#define FIS_H2D_DWORDS          5

/* DMA memory one port needs: command list, received FIS, command table, bounce buffer. */
#define AHCI_BOUNCE_BYTES       (64 * 1024)
#define AHCI_PORT_DMA_BYTES     (AHCI_CMD_LIST_BYTES + AHCI_RX_FIS_BYTES + AHCI_CMD_TABLE_BYTES + AHCI_BOUNCE_BYTES)

struct ahci_port {
	volatile uint8_t *abar;
	unsigned port;
	struct dma_region dma;      /* AHCI_PORT_DMA_BYTES, 4 KiB aligned, below 4 GiB */
	struct blockdev bd;
};

/* How many ports the HBA implements (PI). */
unsigned ahci_port_count(volatile uint8_t *abar);

/* Bitmap of implemented ports with a SATA disk attached (PxSSTS.DET = 3, PxSIG = ATA). */
uint32_t ahci_disk_ports(volatile uint8_t *abar);

/* Take port p: stop it, point it at dma, start it, IDENTIFY the disk. The block device
 * is then out->bd, with where set by the caller. 0, or -1 with the reason in err. */
int ahci_port_open(struct ahci_port *out, volatile uint8_t *abar, unsigned p, const struct dma_region *dma,
		   char *err, size_t errlen);

/* Stop the port's engines, so that the HBA no longer reads or writes its DMA memory, which
 * may then serve another port. 0, or -1 with the reason in err (the memory is then the
 * port's still). */
int ahci_port_close(struct ahci_port *ap, char *err, size_t errlen);

#endif
