/*
 * OHCI host controller (Open Host Controller Interface Specification for USB, release 1.0a),
 * polled: the controller taken from the firmware (ownership change request, 5.1.1.3.3),
 * reset and made operational (5.1.1.4), its root hub's ports powered, each full-speed device
 * reset, addressed and served by control and bulk transfers: general TDs queued on an
 * endpoint descriptor per endpoint in the control and bulk lists (4.2-4.3, 6.4). No
 * interrupts, no periodic or isochronous lists, no low-speed devices; every wait bounded.
 * Data structures lie below 4 GiB; every transfer goes through a bounce buffer.
 */
#ifndef DRIVERS_OHCI_H
#define DRIVERS_OHCI_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "drivers/blockdev.h"
#include "drivers/pci.h"
#include "drivers/usb.h"

#define OHCI_MMIO_BYTES         0x100           /* through HcRhPortStatus[15] (7.4) */
#define OHCI_REG_NONE           0xFFFFFFFFu     /* a read where no device answers */

/* Operational registers (7.1-7.4), at BAR0 */
#define OHCI_HCREVISION         0x00
#define OHCI_REV_MASK           0xFFu           /* BCD: 0x10 for 1.0 */
#define OHCI_REV_1_0            0x10u
#define OHCI_HCCONTROL          0x04
#define OHCI_CTRL_CBSR_MASK     0x3u            /* control/bulk service ratio */
#define OHCI_CTRL_CBSR_4_1      0x3u
#define OHCI_CTRL_PLE           (1u << 2)
#define OHCI_CTRL_IE            (1u << 3)
#define OHCI_CTRL_CLE           (1u << 4)       /* control list enable */
#define OHCI_CTRL_BLE           (1u << 5)       /* bulk list enable */
#define OHCI_CTRL_HCFS_MASK     (3u << 6)       /* host controller functional state */
#define OHCI_CTRL_HCFS_RESET    (0u << 6)
#define OHCI_CTRL_HCFS_RESUME   (1u << 6)
#define OHCI_CTRL_HCFS_OPER     (2u << 6)
#define OHCI_CTRL_HCFS_SUSPEND  (3u << 6)
#define OHCI_CTRL_IR            (1u << 8)       /* interrupt routing: an SMM driver owns it */
#define OHCI_CTRL_RWC           (1u << 9)
#define OHCI_HCCOMMANDSTATUS    0x08            /* write 1 to set; 0 does nothing */
#define OHCI_CMD_HCR            (1u << 0)       /* host controller reset */
#define OHCI_CMD_CLF            (1u << 1)       /* control list filled */
#define OHCI_CMD_BLF            (1u << 2)       /* bulk list filled */
#define OHCI_CMD_OCR            (1u << 3)       /* ownership change request */
#define OHCI_HCINTERRUPTSTATUS  0x0C            /* write 1 to clear */
#define OHCI_INT_WDH            (1u << 1)       /* writeback done head */
#define OHCI_INT_UE             (1u << 4)       /* unrecoverable error */
#define OHCI_INT_ALL            0xC000007Fu     /* every status bit: 6:0, 30 (OC) and 31 */
#define OHCI_HCINTERRUPTDISABLE 0x14
#define OHCI_INT_MIE            (1u << 31)
#define OHCI_HCHCCA             0x18
#define OHCI_HCCONTROLHEADED    0x20
#define OHCI_HCCONTROLCURRENTED 0x24
#define OHCI_HCBULKHEADED       0x28
#define OHCI_HCBULKCURRENTED    0x2C
#define OHCI_HCFMINTERVAL       0x34
#define OHCI_FMI_FI_MASK        0x3FFFu
#define OHCI_FMI_FI_DEFAULT     11999u          /* bit times a frame, less one (7.3.1) */
#define OHCI_FMI_FI_MIN         (OHCI_FMI_FI_DEFAULT - 60)      /* +/- 0.5%: a tuned interval */
#define OHCI_FMI_FI_MAX         (OHCI_FMI_FI_DEFAULT + 60)
#define OHCI_FMI_FSMPS_SHIFT    16              /* the largest data packet a frame takes */
#define OHCI_FMI_FSMPS(fi)      ((((fi) - 210u) * 6u / 7u) << OHCI_FMI_FSMPS_SHIFT)
#define OHCI_FMI_FIT            (1u << 31)      /* toggled when FI changes */
#define OHCI_HCPERIODICSTART    0x40
#define OHCI_PERIODIC_START(fi) ((fi) * 9u / 10u)       /* 90% of the frame, as 7.3.4 suggests */
#define OHCI_HCRHDESCRIPTORA    0x48
#define OHCI_RHA_NDP_MASK       0xFFu           /* number of downstream ports */
#define OHCI_RHA_PSM            (1u << 8)       /* ports powered each by itself */
#define OHCI_RHA_NPS            (1u << 9)       /* no power switching: always powered */
#define OHCI_RHA_POTPGT_SHIFT   24              /* power on to power good, 2 ms units */
#define OHCI_HCRHSTATUS         0x50
#define OHCI_RHS_LPSC           (1u << 16)      /* written 1: SetGlobalPower */
#define OHCI_HCRHPORTSTATUS(n)  (0x54 + 4 * (n))        /* n from 0; written 1: the action */
#define OHCI_PORT_CCS           (1u << 0)       /* written 1: ClearPortEnable */
#define OHCI_PORT_PES           (1u << 1)       /* written 1: SetPortEnable */
#define OHCI_PORT_PRS           (1u << 4)       /* written 1: SetPortReset */
#define OHCI_PORT_PPS           (1u << 8)       /* written 1: SetPortPower */
#define OHCI_PORT_LSDA          (1u << 9)       /* a low-speed device */
#define OHCI_PORT_CSC           (1u << 16)      /* change bits 20:16, write 1 to clear */
#define OHCI_PORT_PRSC          (1u << 20)
#define OHCI_PORT_CHANGES       0x001F0000u
#define OHCI_PORTS_MAX          15

/* Endpoint descriptor (4.2.1) */
#define OHCI_ED_FA(a)           ((uint32_t)(a))         /* function address 6:0 */
#define OHCI_ED_FA_MASK         0x7Fu
#define OHCI_ED_EN(e)           ((uint32_t)(e) << 7)
#define OHCI_ED_DIR_TD          (0u << 11)      /* direction from each TD */
#define OHCI_ED_DIR_OUT         (1u << 11)
#define OHCI_ED_DIR_IN          (2u << 11)
#define OHCI_ED_LOW_SPEED       (1u << 13)
#define OHCI_ED_SKIP            (1u << 14)
#define OHCI_ED_MPS_SHIFT       16
#define OHCI_ED_MPS_MASK        0x7FFu
#define OHCI_ED_MPS(n)          ((uint32_t)(n) << OHCI_ED_MPS_SHIFT)
#define OHCI_ED_HEAD_HALTED     (1u << 0)       /* in HeadP */
#define OHCI_ED_HEAD_CARRY      (1u << 1)       /* toggle carry, in HeadP */
#define OHCI_ED_PTR_MASK        0xFFFFFFF0u

/* General TD (4.3.1), dword 0 */
#define OHCI_TD_ROUNDING        (1u << 18)      /* a short packet is no error */
#define OHCI_TD_DP_SETUP        (0u << 19)
#define OHCI_TD_DP_OUT          (1u << 19)
#define OHCI_TD_DP_IN           (2u << 19)
#define OHCI_TD_DI_NONE         (7u << 21)      /* no interrupt */
#define OHCI_TD_T_CARRY         (0u << 24)      /* data toggle from the ED's carry */
#define OHCI_TD_T_DATA0         (2u << 24)
#define OHCI_TD_T_DATA1         (3u << 24)
#define OHCI_TD_CC_SHIFT        28              /* condition code (4.3.3) */
#define OHCI_TD_CC_MASK         0xFu
#define OHCI_CC_NO_ERROR        0x0u
#define OHCI_CC_STALL           0x4u
#define OHCI_CC_NOT_ACCESSED    0xFu            /* 111x: written by software, not yet retired */
#define OHCI_CC_NOT_ACCESSED_MASK 0xEu

struct ohci_ed {
	volatile uint32_t info, tailp, headp, next;
} __attribute__((aligned(16)));

struct ohci_td {
	volatile uint32_t info, cbp, next, be;
} __attribute__((aligned(16)));

_Static_assert(sizeof(struct ohci_ed) == 16, "ED");
_Static_assert(sizeof(struct ohci_td) == 16, "TD");

#define OHCI_HCCA_BYTES         256
#define OHCI_PAGE               4096u
#define OHCI_BOUNCE_BYTES       4096    /* within one page: one TD reaches all of it */
#define OHCI_FS_EP0_MAX_PACKET  8
#define OHCI_DEVS_MAX           4
#define OHCI_DMA_BYTES          (OHCI_PAGE + OHCI_BOUNCE_BYTES)

struct ohci_hc;

/* An endpoint: its ED and the dummy TD that is always its tail. */
struct ohci_ep {
	struct ohci_ed *ed;
	struct ohci_td *tail;
};

struct ohci_dev {
	struct usb_dev usb;
	struct ohci_hc *hc;
	unsigned port;              /* the root port (1-based) it is on, or behind */
	struct ohci_ep ep0, bulk_in, bulk_out;
	bool dead, gone;
};

struct ohci_hc {
	volatile uint8_t *regs;
	struct dma_region dma;      /* OHCI_DMA_BYTES, 4 KiB aligned, below 4 GiB */
	char name[24];              /* "OHCI 00:04.0" */
	unsigned nports;
	uint8_t *hcca;
	struct ohci_ed *eds;        /* 3 per device */
	struct ohci_td *tails, *td; /* a tail per ED; 3 for the transfer at hand */
	uint8_t *setup, *bounce;
	uint8_t next_address;
	unsigned ndevs;
	struct ohci_dev devs[OHCI_DEVS_MAX];
};

/* Take the controller whose registers are at regs from the firmware, reset it, make it
 * operational and power its ports. hc->name is set by the caller; note gets a remark that
 * is not an error (a firmware that kept the controller), or "". 0, or -1 with the reason. */
int ohci_open(struct ohci_hc *hc, volatile uint8_t *regs, const struct dma_region *dma, char *note, size_t notelen,
	      char *err, size_t errlen);

/* Stop the control and bulk lists, which the next transfer starts again: the controller
 * then reads no descriptors (it still writes the frame number into the HCCA each frame). */
int ohci_idle(struct ohci_hc *hc, char *err, size_t errlen);

enum ohci_port_state { OHCI_PORT_EMPTY, OHCI_PORT_DEVICE, OHCI_PORT_SKIPPED, OHCI_PORT_FAILED };

/* Root port port (1..nports): reset it and give a full-speed device an address. The device's
 * where is "NAME, port N"; msg says why for SKIPPED (low speed) and FAILED. */
enum ohci_port_state ohci_port_attach(struct ohci_hc *hc, unsigned port, struct usb_dev **out, char *msg,
				      size_t msglen);

#endif
