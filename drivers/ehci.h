/*
 * EHCI host controller (Enhanced Host Controller Interface Specification for USB 1.0),
 * polled: the controller taken from the firmware (USB legacy support, 2.1.7-2.1.8, 5.1),
 * reset, its ports routed to it (CONFIGFLAG), each high-speed device reset, addressed and
 * served by control and bulk transfers on the asynchronous schedule (4.8, 4.10, 3.5-3.6).
 * No interrupts, no periodic schedule; every wait bounded. Full- and low-speed devices are
 * left to the companion controllers. Data structures use 32-bit addresses (a 64-bit capable
 * controller gets CTRLDSSEGMENT 0); every transfer goes through a bounce buffer in the
 * controller's DMA memory.
 */
#ifndef DRIVERS_EHCI_H
#define DRIVERS_EHCI_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "drivers/blockdev.h"
#include "drivers/pci.h"
#include "drivers/usb.h"

/* Capability registers (2.2), at BAR0 */
#define EHCI_CAPLENGTH_HCIVERSION 0x00  /* CAPLENGTH 7:0, HCIVERSION 31:16 */
#define EHCI_CAPLENGTH_MASK     0xFFu
#define EHCI_HCSPARAMS          0x04
#define EHCI_HCS_N_PORTS_MASK   0x0Fu
#define EHCI_HCS_PPC            (1u << 4)       /* port power control */
#define EHCI_HCS_N_CC_SHIFT     12              /* companion controllers */
#define EHCI_HCS_N_CC_MASK      0x0Fu
#define EHCI_HCCPARAMS          0x08
#define EHCI_HCC_AC64           (1u << 0)       /* 64-bit addressing capability */
#define EHCI_HCC_EECP_SHIFT     8               /* extended capabilities, in PCI config space */
#define EHCI_HCC_EECP_MASK      0xFFu
#define EHCI_MMIO_BYTES         0x100           /* USBBASE's register space (2.1.3) */

/* Extended capabilities in PCI configuration space (2.1.7, 2.1.8) */
#define EHCI_EXTCAP_ID_MASK     0xFFu
#define EHCI_EXTCAP_NEXT_SHIFT  8
#define EHCI_EXTCAP_NEXT_MASK   0xFFu
#define EHCI_EXTCAP_LEGACY      0x01            /* USBLEGSUP */
#define EHCI_EXTCAP_FIRST       0x40            /* the first offset past the PCI header */
#define EHCI_USBLEGSUP_BIOS_OWNED (1u << 16)
#define EHCI_USBLEGSUP_OS_OWNED (1u << 24)
#define EHCI_USBLEGCTLSTS       0x04            /* from USBLEGSUP */
#define EHCI_USBLEGCTLSTS_SMI_ENABLES 0x0000E03Fu  /* bits 5:0 and 15:13 */
#define EHCI_USBLEGCTLSTS_SMI_RWC 0xE0000000u   /* the write-1-to-clear SMI status bits 31:29 */

/* Operational registers (2.3), at BAR0 + CAPLENGTH */
#define EHCI_USBCMD             0x00
#define EHCI_CMD_RS             (1u << 0)
#define EHCI_CMD_HCRESET        (1u << 1)
#define EHCI_CMD_PSE            (1u << 4)
#define EHCI_CMD_ASE            (1u << 5)
#define EHCI_CMD_IAAD           (1u << 6)       /* interrupt on async advance doorbell */
#define EHCI_CMD_ITC(n)         ((uint32_t)(n) << 16)   /* interrupt threshold, micro-frames */
#define EHCI_USBSTS             0x04
#define EHCI_STS_IAA            (1u << 5)
#define EHCI_STS_HCHALTED       (1u << 12)
#define EHCI_STS_ASS            (1u << 15)      /* asynchronous schedule status */
#define EHCI_STS_RWC_ALL        0x0000003Fu     /* the write-1-to-clear bits 5:0 */
#define EHCI_USBINTR            0x08
#define EHCI_CTRLDSSEGMENT      0x10
#define EHCI_ASYNCLISTADDR      0x18
#define EHCI_CONFIGFLAG         0x40
#define EHCI_CONFIGFLAG_CF      (1u << 0)       /* route all ports to this controller */
#define EHCI_PORTSC(n)          (0x44 + 4 * (n))
#define EHCI_PORT_CCS           (1u << 0)       /* current connect status */
#define EHCI_PORT_CSC           (1u << 1)       /* write 1 to clear */
#define EHCI_PORT_PE            (1u << 2)
#define EHCI_PORT_PEC           (1u << 3)       /* write 1 to clear */
#define EHCI_PORT_OCC           (1u << 5)       /* write 1 to clear */
#define EHCI_PORT_PR            (1u << 8)
#define EHCI_PORT_LS_SHIFT      10              /* line status: 01b = K-state, a low-speed device */
#define EHCI_PORT_LS_MASK       0x3u
#define EHCI_PORT_LS_K          0x1u
#define EHCI_PORT_PP            (1u << 12)
#define EHCI_PORT_OWNER         (1u << 13)      /* 1: the companion controller owns the port */
#define EHCI_PORT_RWC           (EHCI_PORT_CSC | EHCI_PORT_PEC | EHCI_PORT_OCC)
#define EHCI_PORTS_MAX          15

/* Link pointers (3.1, 3.5.1) */
#define EHCI_LINK_TERMINATE     (1u << 0)
#define EHCI_LINK_TYPE_QH       (1u << 1)       /* Typ 01b */
#define EHCI_LINK_ADDR_MASK     0xFFFFFFE0u     /* 32-byte aligned */

/* qTD token (3.5.3) */
#define EHCI_QTD_ACTIVE         (1u << 7)
#define EHCI_QTD_HALTED         (1u << 6)
#define EHCI_QTD_BUFFER_ERR     (1u << 5)
#define EHCI_QTD_BABBLE         (1u << 4)
#define EHCI_QTD_XACT_ERR       (1u << 3)
#define EHCI_QTD_MISSED_UFRAME  (1u << 2)
#define EHCI_QTD_PID_OUT        (0u << 8)
#define EHCI_QTD_PID_IN         (1u << 8)
#define EHCI_QTD_PID_SETUP      (2u << 8)
#define EHCI_QTD_CERR(n)        ((uint32_t)(n) << 10)
#define EHCI_QTD_CERR_SHIFT     10
#define EHCI_QTD_CERR_MASK      0x3u
#define EHCI_QTD_IOC            (1u << 15)
#define EHCI_QTD_BYTES_SHIFT    16
#define EHCI_QTD_BYTES_MASK     0x7FFFu
#define EHCI_QTD_BYTES(n)       ((uint32_t)(n) << EHCI_QTD_BYTES_SHIFT)
#define EHCI_QTD_TOGGLE         (1u << 31)
#define EHCI_QTD_BUFFERS        5               /* page pointers: 20 KiB from a page boundary */
#define EHCI_PAGE               4096u

/* Queue head endpoint characteristics (3.6.2, dword 1) and capabilities (dword 2) */
#define EHCI_QH_ADDR(a)         ((uint32_t)(a))
#define EHCI_QH_ENDPT(e)        ((uint32_t)(e) << 8)
#define EHCI_QH_EPS_HIGH        (2u << 12)
#define EHCI_QH_DTC             (1u << 14)      /* data toggle from the qTD */
#define EHCI_QH_HEAD            (1u << 15)      /* head of the reclamation list */
#define EHCI_QH_MAXPKT(n)       ((uint32_t)(n) << 16)
#define EHCI_QH_ADDR_MASK       0x7Fu
#define EHCI_QH_MULT_ONE        (1u << 30)      /* one transaction per micro-frame */

/* A qTD (3.5) and a queue head (3.6), each with the 64-bit extended buffer pointers of
 * Appendix B (zero here). Aligned to 32 bytes; neither may cross a 4 KiB page. */
struct ehci_qtd {
	volatile uint32_t next, alt_next, token, buf[EHCI_QTD_BUFFERS];
	volatile uint32_t buf_hi[EHCI_QTD_BUFFERS];
	uint32_t pad[3];
} __attribute__((aligned(64)));

struct ehci_qh {
	volatile uint32_t link, chars, caps, current;
	struct {
		volatile uint32_t next, alt_next, token, buf[EHCI_QTD_BUFFERS];
		volatile uint32_t buf_hi[EHCI_QTD_BUFFERS];
	} overlay;
	uint32_t pad[7];
} __attribute__((aligned(32)));

_Static_assert(sizeof(struct ehci_qtd) == 64, "qTD slot");
_Static_assert(sizeof(struct ehci_qh) == 96, "QH slot");

#define EHCI_DEVS_MAX           4       /* high-speed devices served per controller */
#define EHCI_QTDS               3       /* a control transfer: setup, data, status */
#define EHCI_BOUNCE_BYTES       (16 * 1024)     /* one qTD's worth from a page boundary */

/* The DMA memory one controller needs: a page of queue heads and qTDs, the bounce buffer. */
#define EHCI_DMA_BYTES          (EHCI_PAGE + EHCI_BOUNCE_BYTES)

struct ehci_hc;

struct ehci_dev {
	struct usb_dev usb;
	struct ehci_hc *hc;
	unsigned port;              /* 1-based, as a hub numbers its ports */
	struct ehci_qh *ep0, *bulk_in, *bulk_out;
	bool dead;                  /* a transfer timed out: the queue heads are unlinked */
	bool gone;                  /* and the port said the device was disconnected */
};

struct ehci_hc {
	volatile uint8_t *cap, *op;
	struct dma_region dma;      /* EHCI_DMA_BYTES, 4 KiB aligned, below 4 GiB */
	char name[24];              /* "EHCI 00:1d.7" */
	unsigned nports, ncompanions;
	struct ehci_qh *head;       /* the reclamation list head, never active */
	struct ehci_qh *qh_pool;
	struct ehci_qtd *qtd;       /* EHCI_QTDS, shared: one transfer at a time */
	uint8_t *setup, *bounce;
	uint8_t next_address;
	unsigned ndevs;
	struct ehci_dev devs[EHCI_DEVS_MAX];
};

/* Take the controller whose registers are at regs from the firmware (USB legacy support),
 * reset it, route its ports to it and start the asynchronous schedule. hc->name is set by
 * the caller. note gets a remark that is not an error (a BIOS that kept its semaphore), or
 * "". 0, or -1 with the reason in err. */
int ehci_open(struct ehci_hc *hc, const struct pci_dev *pci, volatile uint8_t *regs, const struct dma_region *dma,
	      char *note, size_t notelen, char *err, size_t errlen);

/* Stop the asynchronous schedule, which the next transfer starts again: the controller then
 * reads no memory, and measurements run undisturbed by its DMA. 0, or -1 with the reason. */
int ehci_idle(struct ehci_hc *hc, char *err, size_t errlen);

enum ehci_port_state {
	EHCI_PORT_EMPTY,            /* nothing connected */
	EHCI_PORT_DEVICE,           /* a high-speed device, addressed: *out */
	EHCI_PORT_SKIPPED,          /* not served (a full- or low-speed device); why in msg */
	EHCI_PORT_FAILED,           /* why in msg */
};

/* Port port (1..nports): reset it and, for a high-speed device, give the device an
 * address over endpoint 0 (its device descriptor's first 8 bytes read at address 0,
 * then SET_ADDRESS). The device's where is "NAME, port N". */
enum ehci_port_state ehci_port_attach(struct ehci_hc *hc, unsigned port, struct usb_dev **out, char *msg,
				      size_t msglen);

#endif
