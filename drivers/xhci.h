/*
 * xHCI host controller, polled (eXtensible Host Controller Interface for USB 1.2). The
 * controller is taken from the firmware (USB Legacy Support, 7.1), Intel's shared ports are
 * routed to it, it is reset and given one command ring and one event ring; each port with
 * a device gets a slot, an address and endpoint 0, and then the two bulk endpoints of the
 * storage interface that drivers/usb.c finds. Every wait is bounded; nothing uses
 * interrupts. Register and structure layouts cite the chapter of the specification.
 */
#ifndef DRIVERS_XHCI_H
#define DRIVERS_XHCI_H
#include <stdbool.h>
#include <stdint.h>
#include "drivers/blockdev.h"
#include "drivers/pci.h"
#include "drivers/usb.h"

/* Capability registers (5.3) */
#define XHCI_CAPLENGTH          0x00    /* byte */
#define XHCI_CAP_BYTES_MIN      0x20    /* CAPLENGTH covers at least the registers of 5.3 */
#define XHCI_HCIVERSION         0x02    /* 16 bits */
#define XHCI_HCSPARAMS1         0x04
#define XHCI_HCS1_MAX_SLOTS(v)  ((v) & 0xFFu)
#define XHCI_HCS1_MAX_PORTS(v)  ((v) >> 24)
#define XHCI_HCSPARAMS2         0x08
#define XHCI_HCS2_SPB_HI(v)     (((v) >> 21) & 0x1Fu)
#define XHCI_HCS2_SPB_LO(v)     ((v) >> 27)
#define XHCI_HCCPARAMS1         0x10
#define XHCI_HCC1_CSZ           (1u << 2)       /* 64-byte contexts */
#define XHCI_HCC1_PPC           (1u << 3)       /* port power control */
#define XHCI_HCC1_XECP(v)       ((v) >> 16)     /* in dwords */
#define XHCI_DBOFF              0x14
#define XHCI_DBOFF_MASK         0xFFFFFFFCu
#define XHCI_RTSOFF             0x18
#define XHCI_RTSOFF_MASK        0xFFFFFFE0u

/* Operational registers (5.4), from CAPLENGTH */
#define XHCI_USBCMD             0x00
#define XHCI_USBCMD_RS          (1u << 0)
#define XHCI_USBCMD_HCRST       (1u << 1)
#define XHCI_USBSTS             0x04
#define XHCI_USBSTS_HCH         (1u << 0)
#define XHCI_USBSTS_HSE         (1u << 2)
#define XHCI_USBSTS_CNR         (1u << 11)
#define XHCI_USBSTS_HCE         (1u << 12)
#define XHCI_PAGESIZE           0x08
#define XHCI_PAGESIZE_MASK      0xFFFFu /* bit n: pages of 2^(n+12) bytes (5.4.3) */
#define XHCI_CRCR               0x18    /* 64 bits */
#define XHCI_CRCR_RCS           (1u << 0)
#define XHCI_DCBAAP             0x30    /* 64 bits */
#define XHCI_CONFIG             0x38
#define XHCI_PORTSC(p)          (0x400 + 0x10 * ((p) - 1))     /* p from 1 */

/* PORTSC (5.4.8); RW1C bits must be written 0 to leave them alone */
#define XHCI_PORTSC_CCS         (1u << 0)
#define XHCI_PORTSC_PED         (1u << 1)
#define XHCI_PORTSC_PR          (1u << 4)
#define XHCI_PORTSC_PP          (1u << 9)
#define XHCI_PORTSC_SPEED(v)    (((v) >> 10) & 0xFu)
#define XHCI_PORTSC_CSC         (1u << 17)
#define XHCI_PORTSC_PEC         (1u << 18)
#define XHCI_PORTSC_WRC         (1u << 19)
#define XHCI_PORTSC_OCC         (1u << 20)
#define XHCI_PORTSC_PRC         (1u << 21)
#define XHCI_PORTSC_PLC         (1u << 22)
#define XHCI_PORTSC_CEC         (1u << 23)
#define XHCI_PORTSC_WPR         (1u << 31)
#define XHCI_PORTSC_CHANGES     (XHCI_PORTSC_CSC | XHCI_PORTSC_PEC | XHCI_PORTSC_WRC | XHCI_PORTSC_OCC | \
				 XHCI_PORTSC_PRC | XHCI_PORTSC_PLC | XHCI_PORTSC_CEC)
/* What a write keeps: the read-only bits (CCS, OCA, speed, DR) and the RWS bits (PLS, PP,
 * PIC, wake enables); PED and the change bits are RW1C and written 0. */
#define XHCI_PORTSC_KEEP        0x4E00FFE9u
/* Protocol Speed ID defaults (7.2.2.1.1) */
#define XHCI_SPEED_FULL         1
#define XHCI_SPEED_LOW          2
#define XHCI_SPEED_HIGH         3
#define XHCI_SPEED_SUPER        4

/* Runtime registers (5.5): interrupter 0 */
#define XHCI_IR0                0x20
#define XHCI_IR_BYTES           0x20    /* one interrupter's register set */
#define XHCI_IMAN               0x00
#define XHCI_ERSTSZ             0x08
#define XHCI_ERSTBA             0x10    /* 64 bits */
#define XHCI_ERDP               0x18    /* 64 bits */
#define XHCI_ERDP_EHB           (1u << 3)

/* Extended capabilities (7): USB Legacy Support (7.1), Supported Protocol (7.2) */
#define XHCI_XCAP_ID(v)         ((v) & 0xFFu)
#define XHCI_XCAP_NEXT(v)       (((v) >> 8) & 0xFFu)    /* in dwords */
#define XHCI_XCAP_LEGACY        1
#define XHCI_XCAP_PROTOCOL      2
#define XHCI_USBLEGSUP_BIOS_OWNED (1u << 16)
#define XHCI_USBLEGSUP_OS_OWNED (1u << 24)
#define XHCI_USBLEGCTLSTS       0x04
/* USBLEGCTLSTS: the SMI enables (0, 4, 13-15), and the RW1C SMI events (29-31) */
#define XHCI_LEGCTL_SMI_ENABLES 0x0000E011u
#define XHCI_LEGCTL_SMI_EVENTS  0xE0000000u
#define XHCI_PROTO_MAJOR(v)     ((v) >> 24)
#define XHCI_PROTO_PORT_OFF(v)  ((v) & 0xFFu)
#define XHCI_PROTO_PORT_COUNT(v) (((v) >> 8) & 0xFFu)

/* Intel PCH port routing, PCI configuration space of the xHCI function (Intel 7 Series /
 * C216 Chipset Family PCH datasheet, the xHCI registers XUSB2PR, XUSB2PRM, USB3_PSSEN and
 * USB3PRM) */
#define INTEL_XUSB2PR           0xD0    /* USB 2.0 ports routed to xHCI */
#define INTEL_XUSB2PRM          0xD4    /* which of them may be */
#define INTEL_USB3_PSSEN        0xD8    /* SuperSpeed enabled on the shared ports */
#define INTEL_USB3PRM           0xDC

/* TRB (6.4): parameter (64 bits), status, control */
struct xhci_trb {
	uint32_t param_lo, param_hi, status, control;
};
#define XHCI_TRB_BYTES          16
#define XHCI_TRB_CYCLE          (1u << 0)
#define XHCI_TRB_TC             (1u << 1)       /* Link: toggle cycle */
#define XHCI_TRB_ISP            (1u << 2)
#define XHCI_TRB_IOC            (1u << 5)
#define XHCI_TRB_IDT            (1u << 6)
#define XHCI_TRB_TYPE(t)        ((uint32_t)(t) << 10)
#define XHCI_TRB_TYPE_OF(c)     (((c) >> 10) & 0x3Fu)
#define XHCI_TRB_DIR_IN         (1u << 16)      /* Data and Status stages */
#define XHCI_TRB_TRT(t)         ((uint32_t)(t) << 16)   /* Setup stage: 0 none, 2 OUT, 3 IN */
#define XHCI_TRB_TRT_OUT        2
#define XHCI_TRB_TRT_IN         3
#define XHCI_TRB_EP(dci)        ((uint32_t)(dci) << 16)
#define XHCI_TRB_EP_OF(c)       (((c) >> 16) & 0x1Fu)
#define XHCI_TRB_SLOT(s)        ((uint32_t)(s) << 24)
#define XHCI_TRB_SLOT_OF(c)     ((c) >> 24)
#define XHCI_TRB_CODE_OF(s)     ((s) >> 24)
#define XHCI_TRB_LEN_OF(s)      ((s) & 0xFFFFFFu)
/* TRB types (6.4.6, Table 6-91) */
#define XHCI_TRB_NORMAL         1
#define XHCI_TRB_SETUP          2
#define XHCI_TRB_DATA           3
#define XHCI_TRB_STATUS         4
#define XHCI_TRB_LINK           6
#define XHCI_TRB_ENABLE_SLOT    9
#define XHCI_TRB_ADDRESS_DEVICE 11
#define XHCI_TRB_CONFIGURE_EP   12
#define XHCI_TRB_EVALUATE_CTX   13
#define XHCI_TRB_RESET_EP       14
#define XHCI_TRB_STOP_EP        15
#define XHCI_TRB_SET_TR_DEQUEUE 16
#define XHCI_TRB_TRANSFER_EVENT 32
#define XHCI_TRB_COMMAND_EVENT  33
/* Completion codes (6.4.5, Table 6-90) */
#define XHCI_CC_SUCCESS         1
#define XHCI_CC_STALL           6
#define XHCI_CC_SHORT_PACKET    13

/* Contexts (6.2): 32 or 64 bytes each (CSZ); an input context has the input control
 * context first, then the slot context and 31 endpoint contexts. DCI = 2 * endpoint
 * number + (1 for IN), 1 for endpoint 0. */
#define XHCI_CONTEXTS           32
#define XHCI_ICC_DROP           0       /* dword */
#define XHCI_ICC_ADD            1
#define XHCI_SLOT_ROUTE_SPEED(speed, entries) ((uint32_t)(speed) << 20 | (uint32_t)(entries) << 27)
#define XHCI_SLOT_ROOT_PORT(p)  ((uint32_t)(p) << 16)
#define XHCI_SLOT_MTT           (1u << 25)
#define XHCI_SLOT_HUB           (1u << 26)
#define XHCI_SLOT_ROUTE_SPEED_MASK 0x07FFFFFFu /* dword 0 less Context Entries (6.2.2) */
#define XHCI_SLOT_PORTS(n)      ((uint32_t)(n) << 24)   /* dword 1: a hub's ports */
#define XHCI_SLOT_PORTS_MASK    0xFF000000u
#define XHCI_SLOT_TT(slot, port, ttt) ((uint32_t)(slot) | (uint32_t)(port) << 8 | (uint32_t)(ttt) << 16)
#define XHCI_ROUTE_TIERS        5
#define XHCI_ROUTE_PORT_MAX     15
#define XHCI_EP_STATE_OF(v)     ((v) & 0x7u)
#define XHCI_EP_STATE_RUNNING   1
#define XHCI_EP_STATE_HALTED    2
#define XHCI_EP_CERR(n)         ((uint32_t)(n) << 1)
#define XHCI_EP_TYPE(t)         ((uint32_t)(t) << 3)
#define XHCI_EP_TYPE_BULK_OUT   2
#define XHCI_EP_TYPE_CONTROL    4
#define XHCI_EP_TYPE_BULK_IN    6
#define XHCI_EP_MPS(m)          ((uint32_t)(m) << 16)
#define XHCI_EP_AVG_TRB(n)      ((uint32_t)(n))
#define XHCI_EP_DCS             1u

/* Sizes of what bareperf gives the controller */
#define XHCI_SLOTS_USED         16
#define XHCI_PORTS_MAX          32
#define XHCI_DEVICES_MAX        8
#define XHCI_CMD_TRBS           64
#define XHCI_EVENT_TRBS         256
#define XHCI_XFER_TRBS          64
#define XHCI_BOUNCE_BYTES       (64u * 1024)    /* one TRB, not crossing 64 KiB (6.4.1) */
#define XHCI_MMIO_MIN           0x1000

/* Ring: TRBs with a Link TRB last, back to the first. */
struct xhci_ring {
	struct xhci_trb *trb;
	uint64_t phys;
	uint32_t size, enq, pcs;
};

struct xhci;

struct xhci_device {
	struct usb_dev usb;
	struct xhci *x;
	uint8_t slot, port;                     /* port: the root port, behind hubs too */
	uint8_t depth;                          /* hubs between it and the root port */
	uint32_t route;                         /* route string (6.2.2): a hub port per tier */
	uint8_t tt_slot, tt_port;               /* a FS/LS device's transaction translator */
	bool mtt, is_hub;
	struct xhci_ring ep0, bulk[2];          /* [0] OUT, [1] IN */
	uint8_t *dma, *in_ctx, *out_ctx, *bounce;      /* dma: the device's region, holding the rest */
	uint64_t dma_phys, in_ctx_phys, out_ctx_phys, bounce_phys;
};

/* DMA memory below 4 GiB, identity-mapped (virt is where it is seen): 0, or -1. */
typedef int (*xhci_dma_alloc_fn)(uint64_t size, uint64_t align, struct dma_region *out);

struct xhci {
	volatile uint8_t *cap, *op, *rt, *db;
	uint64_t mmio_len;
	xhci_dma_alloc_fn alloc;
	char where[USB_WHERE_MAX];              /* "xHCI 00:04.0" */
	unsigned ports, slots, ctx_bytes;
	uint8_t port_major[XHCI_PORTS_MAX + 1]; /* 2 or 3 by Supported Protocol; 0 unknown */
	uint64_t *dcbaa;
	struct xhci_ring cmd;
	struct xhci_trb *events;
	uint64_t events_phys;
	uint32_t ev_deq, ccs;
	unsigned ndev;
	struct xhci_device dev[XHCI_DEVICES_MAX];
};

/* Take the controller whose registers are mmio_len bytes at mmio (legacy handoff, Intel
 * routing), reset it and start it with its rings. 0, or -1 with the reason in err. Notes on what was worked around (a firmware
 * that kept its semaphore) go to note, if not NULL. */
int xhci_open(struct xhci *x, volatile uint8_t *mmio, uint64_t mmio_len, const struct pci_dev *d,
	      xhci_dma_alloc_fn alloc, char *note, size_t notelen, char *err, size_t errlen);

/* The device on port (1..x->ports): reset and enable the port, Enable Slot, Address
 * Device, endpoint 0's max packet. 0 when nothing is connected, 1 with *out ready for
 * usb_find_storage, -1 with the reason in err. */
int xhci_attach_port(struct xhci *x, unsigned port, struct usb_dev **out, char *err, size_t errlen);

#endif
