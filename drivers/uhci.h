/*
 * UHCI host controller (Intel Universal Host Controller Interface Design Guide, revision 1.1),
 * polled: the controller taken from the firmware (the legacy support register LEGSUP, PCI
 * 0xC0; Intel 82371AB PIIX4 datasheet 2.7), reset, each full-speed device on a root port reset,
 * enabled, addressed and served by control and bulk transfers: chains of TDs in the element
 * list of one queue head that every entry of the frame list points to (3.1-3.4). No
 * interrupts, no isochronous or interrupt transfers, no low-speed devices; every wait
 * bounded. Registers are I/O ports (BAR4); data structures lie below 4 GiB, every transfer
 * through a bounce buffer in the controller's DMA memory.
 */
#ifndef DRIVERS_UHCI_H
#define DRIVERS_UHCI_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "drivers/blockdev.h"
#include "drivers/pci.h"
#include "drivers/usb.h"

/* PCI configuration (2.1): the I/O base in BAR4, the legacy support register */
#define UHCI_PCI_BAR            4
#define UHCI_IO_BYTES           0x20
#define UHCI_LEGSUP             0xC0            /* 16 bits */
#define UHCI_LEGSUP_MASK        0xFFFFu
#define UHCI_LEGSUP_RWC         0x8F00u         /* write-1-to-clear: 15 (A20 pass-through end), 11:8 (traps) */
#define UHCI_LEGSUP_SMI_ENABLES 0x00BFu         /* 7 and 5:0: SMIs and the 60h/64h traps */
#define UHCI_LEGSUP_PIRQ        0x2000u         /* USBPIRQDEN: the controller's interrupt on PIRQD */

/* I/O registers (2.1.1-2.1.7), offsets from the I/O base */
#define UHCI_USBCMD             0x00            /* 16 bits */
#define UHCI_CMD_RS             (1u << 0)
#define UHCI_CMD_HCRESET        (1u << 1)
#define UHCI_CMD_GRESET         (1u << 2)
#define UHCI_CMD_CF             (1u << 6)       /* configure flag: software owns it */
#define UHCI_CMD_MAXP           (1u << 7)       /* 64-byte reclamation packets */
#define UHCI_USBSTS             0x02            /* 16 bits */
#define UHCI_STS_USBINT         (1u << 0)
#define UHCI_STS_ERROR          (1u << 1)
#define UHCI_STS_RESUME         (1u << 2)
#define UHCI_STS_HSE            (1u << 3)       /* host system error */
#define UHCI_STS_HCPE           (1u << 4)       /* host controller process error */
#define UHCI_STS_HCHALTED       (1u << 5)
#define UHCI_STS_RWC            0x003Fu         /* all write-1-to-clear */
#define UHCI_STS_EVENTS         0x001Fu         /* those that report events, HCHalted aside */
#define UHCI_USBINTR            0x04            /* 16 bits */
#define UHCI_FRNUM              0x06            /* 16 bits */
#define UHCI_FLBASEADD          0x08            /* 32 bits, 4 KiB aligned */
#define UHCI_SOFMOD             0x0C            /* 8 bits */
#define UHCI_SOFMOD_DEFAULT     64              /* 12000 bit times a frame */
#define UHCI_PORTSC(n)          (0x10 + 2 * (n))        /* 16 bits, n from 0 */
#define UHCI_PORT_CCS           (1u << 0)
#define UHCI_PORT_CSC           (1u << 1)       /* write 1 to clear */
#define UHCI_PORT_PE            (1u << 2)
#define UHCI_PORT_PEC           (1u << 3)       /* write 1 to clear */
#define UHCI_PORT_RD            (1u << 6)       /* resume detect */
#define UHCI_PORT_ALWAYS_1      (1u << 7)       /* reserved, reads 1: how a port is told from none */
#define UHCI_PORT_LSDA          (1u << 8)       /* a low-speed device */
#define UHCI_PORT_PR            (1u << 9)
#define UHCI_PORT_SUSP          (1u << 12)
#define UHCI_PORT_RWC           (UHCI_PORT_CSC | UHCI_PORT_PEC)
#define UHCI_PORT_RW            (UHCI_PORT_PE | UHCI_PORT_RD | UHCI_PORT_PR | UHCI_PORT_SUSP)
#define UHCI_PORT_NONE          0xFFFFu         /* what a read past the I/O range gives */
#define UHCI_PORTS_MAX          ((UHCI_IO_BYTES - UHCI_PORTSC(0)) / 2)

/* Frame list (3.1): 1024 link pointers, 4 KiB aligned */
#define UHCI_FRAMES             1024
/* Link pointers (3.1.1, 3.2.1, 3.3.1) */
#define UHCI_LINK_TERMINATE     (1u << 0)
#define UHCI_LINK_QH            (1u << 1)
#define UHCI_LINK_DEPTH         (1u << 2)       /* Vf: depth first, in a TD's link */
#define UHCI_LINK_ADDR_MASK     0xFFFFFFF0u

/* TD control and status (3.2.2) */
#define UHCI_TD_ACTLEN_MASK     0x7FFu          /* n - 1; 0x7FF: none */
#define UHCI_TD_BITSTUFF        (1u << 17)
#define UHCI_TD_CRC_TIMEOUT     (1u << 18)
#define UHCI_TD_NAK             (1u << 19)
#define UHCI_TD_BABBLE          (1u << 20)
#define UHCI_TD_DBUF_ERR        (1u << 21)
#define UHCI_TD_STALLED         (1u << 22)
#define UHCI_TD_ACTIVE          (1u << 23)
#define UHCI_TD_IOC             (1u << 24)
#define UHCI_TD_LS              (1u << 26)
#define UHCI_TD_CERR(n)         ((uint32_t)(n) << 27)
#define UHCI_TD_SPD             (1u << 29)      /* short packet detect */
#define UHCI_TD_ERRORS          (UHCI_TD_BITSTUFF | UHCI_TD_CRC_TIMEOUT | UHCI_TD_BABBLE | UHCI_TD_DBUF_ERR | \
				 UHCI_TD_STALLED)
/* TD token (3.2.3) */
#define UHCI_PID_SETUP          0x2Du
#define UHCI_PID_IN             0x69u
#define UHCI_PID_OUT            0xE1u
#define UHCI_TOKEN_PID_MASK     0xFFu
#define UHCI_TOKEN_ADDR(a)      ((uint32_t)(a) << 8)
#define UHCI_TOKEN_ENDPT(e)     ((uint32_t)(e) << 15)
#define UHCI_TOKEN_TOGGLE       (1u << 19)
#define UHCI_TOKEN_MAXLEN_SHIFT 21
#define UHCI_TOKEN_MAXLEN(n)    ((uint32_t)(((n) - 1) & 0x7FFu) << UHCI_TOKEN_MAXLEN_SHIFT)  /* n - 1; 0: 0x7FF */
#define UHCI_TOKEN_MAXLEN_MASK  0x7FFu
#define UHCI_MAXLEN_MAX         1023            /* the most a full-speed packet carries */

/* A TD (3.2: the four dwords the controller reads, 16-byte aligned) and a queue head (3.3). */
struct uhci_td {
	volatile uint32_t link, status, token, buffer;
} __attribute__((aligned(16)));

struct uhci_qh {
	volatile uint32_t head, element;
	uint32_t pad[2];
} __attribute__((aligned(16)));

_Static_assert(sizeof(struct uhci_td) == 16, "TD");
_Static_assert(sizeof(struct uhci_qh) == 16, "QH");

#define UHCI_PAGE               4096u
#define UHCI_FS_EP0_MAX_PACKET  8       /* what a first read of a full-speed device assumes */
#define UHCI_BOUNCE_BYTES       4096
/* TDs of one transfer: setup, status, and the data stage of a whole configuration in
 * 8-byte packets (or the bounce buffer in bulk packets of 64) */
#define UHCI_TDS                (2 + USB_CONFIG_TOTAL_MAX / UHCI_FS_EP0_MAX_PACKET)
#define UHCI_DEVS_MAX           4
/* The frame list, a page of the queue head, setup packet and TDs, and the bounce buffer. */
#define UHCI_DMA_BYTES          (2 * UHCI_PAGE + UHCI_BOUNCE_BYTES)

struct uhci_hc;

struct uhci_dev {
	struct usb_dev usb;
	struct uhci_hc *hc;
	unsigned port;              /* the root port (1-based) it is on, or behind */
	bool toggle_in, toggle_out; /* the next bulk packet's data toggle */
	bool dead, gone;
};

struct uhci_hc {
	uint16_t io;                /* I/O base */
	struct dma_region dma;      /* UHCI_DMA_BYTES, 4 KiB aligned, below 4 GiB */
	char name[24];              /* "UHCI 00:1d.0" */
	unsigned nports;
	volatile uint32_t *frames;
	struct uhci_qh *qh;         /* the one queue head every frame points to */
	struct uhci_td *td;         /* UHCI_TDS, one transfer at a time */
	uint8_t *setup, *bounce;
	uint8_t next_address;
	unsigned ndevs;
	struct uhci_dev devs[UHCI_DEVS_MAX];
};

/* Take the controller at I/O base io from the firmware (LEGSUP), reset it and start it. hc->name
 * is set by the caller. 0, or -1 with the reason in err. */
int uhci_open(struct uhci_hc *hc, const struct pci_dev *pci, uint16_t io, const struct dma_region *dma, char *err,
	      size_t errlen);

/* Stop the controller (Run/Stop 0), which the next transfer starts again: it then reads no
 * memory, and measurements run undisturbed by its DMA. 0, or -1 with the reason. */
int uhci_idle(struct uhci_hc *hc, char *err, size_t errlen);

enum uhci_port_state { UHCI_PORT_EMPTY, UHCI_PORT_DEVICE, UHCI_PORT_SKIPPED, UHCI_PORT_FAILED };

/* Root port port (1..nports): reset and enable it and give a full-speed device an address (its
 * device descriptor's first 8 bytes read at address 0, then SET_ADDRESS). The device's where
 * is "NAME, port N"; msg says why for SKIPPED (a low-speed device) and FAILED. */
enum uhci_port_state uhci_port_attach(struct uhci_hc *hc, unsigned port, struct usb_dev **out, char *msg,
				      size_t msglen);

#endif
