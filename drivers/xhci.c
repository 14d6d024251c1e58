#include "drivers/xhci.h"
#include "drivers/mmio.h"
#include "drivers/poll.h"
#include "lib/format.h"
#include "lib/str.h"

/* Polls of a register, each after a read of port 0x80, as milliseconds at 1 us a poll
 * (drivers/poll.h): a bound is that time on the TSC where the kernel has its rate; a
 * fixed delay (RESET_RECOVERY_POLLS) is that many polls. */
#define HALT_POLLS              100000u         /* ~100 ms; HCH follows R/S within 16 ms (5.4.2) */
#define RESET_POLLS             1000000u        /* ~1 s for HCRST and CNR */
#define HANDOFF_POLLS           1000000u        /* ~1 s for the firmware to let go */
#define SETTLE_POLLS            200000u         /* ~200 ms for devices to connect after the start */
#define PORT_POLLS              500000u         /* ~500 ms for a port reset or link training */
#define COMMAND_POLLS           1000000u        /* ~1 s for a command */
#define TRANSFER_POLLS          5000000u        /* ~5 s for a transfer: a stick writing its flash */
#define RESET_RECOVERY_POLLS    10000u          /* 10 ms after a port reset (USB 2.0 7.1.7.5, TRSTRCY) */
#define XCAP_MAX                64              /* extended capabilities walked at most */

/* The controller's DMA region: DCBAA, ERST, command ring, event ring. */
#define CTRL_DCBAA              0
#define CTRL_ERST               0x100
#define CTRL_CMD                0x400
#define CTRL_EVENTS             0x1000
#define CTRL_DMA_BYTES          (CTRL_EVENTS + XHCI_EVENT_TRBS * XHCI_TRB_BYTES)
/* A device's: bounce buffer (64 KiB-aligned), input and output contexts, three rings. */
#define DEV_BOUNCE              0
#define DEV_IN_CTX              XHCI_BOUNCE_BYTES
#define DEV_OUT_CTX             (DEV_IN_CTX + 0x1000)
#define DEV_EP0_RING            (DEV_OUT_CTX + 0x1000)
#define DEV_RING_BYTES          (XHCI_XFER_TRBS * XHCI_TRB_BYTES)
#define DEV_DMA_BYTES           (DEV_EP0_RING + 3 * DEV_RING_BYTES)
#define DEV_DMA_ALIGN           XHCI_BOUNCE_BYTES

#define barrier()               __asm__ volatile("" ::: "memory")

static const struct usb_hc_ops xhci_ops;

static uint32_t rd32(volatile uint8_t *base, uint32_t off)
{
	return mmio_read32(base + off);
}

static void wr32(volatile uint8_t *base, uint32_t off, uint32_t v)
{
	mmio_write32(base + off, v);
}

/* 64-bit registers written as two dwords, low first (5.1). */
static void wr64(volatile uint8_t *base, uint32_t off, uint64_t v)
{
	wr32(base, off, (uint32_t)v);
	wr32(base, off + 4, (uint32_t)(v >> 32));
}

static bool wait32(volatile uint8_t *base, uint32_t off, uint32_t mask, uint32_t want, uint32_t polls)
{
	struct poll_bound b;

	for (poll_bound_start(&b, polls); !poll_bound_spent(&b);) {
		if ((rd32(base, off) & mask) == want)
			return true;
		poll_pause();
	}
	return false;
}

/* ---- rings (4.9) ---- */

static void ring_init(struct xhci_ring *r, void *virt, uint64_t phys, uint32_t trbs)
{
	memset(virt, 0, (size_t)trbs * XHCI_TRB_BYTES);
	r->trb = virt;
	r->phys = phys;
	r->size = trbs;
	r->enq = 0;
	r->pcs = 1;
	struct xhci_trb *link = &r->trb[trbs - 1];
	link->param_lo = (uint32_t)phys;
	link->param_hi = (uint32_t)(phys >> 32);
	link->control = XHCI_TRB_TYPE(XHCI_TRB_LINK) | XHCI_TRB_TC;
}

/* Put one TRB on the ring, its cycle bit last; returns its address. */
static uint64_t ring_push(struct xhci_ring *r, uint64_t param, uint32_t status, uint32_t control)
{
	struct xhci_trb *t = &r->trb[r->enq];
	uint64_t at = r->phys + (uint64_t)r->enq * XHCI_TRB_BYTES;

	t->param_lo = (uint32_t)param;
	t->param_hi = (uint32_t)(param >> 32);
	t->status = status;
	barrier();
	t->control = (control & ~XHCI_TRB_CYCLE) | r->pcs;
	if (++r->enq == r->size - 1) {
		struct xhci_trb *link = &r->trb[r->enq];
		barrier();
		link->control = XHCI_TRB_TYPE(XHCI_TRB_LINK) | XHCI_TRB_TC | r->pcs;
		r->pcs ^= 1;
		r->enq = 0;
	}
	return at;
}

static uint64_t ring_dequeue_ptr(const struct xhci_ring *r)
{
	return (r->phys + (uint64_t)r->enq * XHCI_TRB_BYTES) | r->pcs;
}

/* The next event, if the controller has written one (4.9.4). */
static bool event_pop(struct xhci *x, struct xhci_trb *ev)
{
	volatile struct xhci_trb *t = &x->events[x->ev_deq];

	if ((t->control & XHCI_TRB_CYCLE) != x->ccs)
		return false;
	barrier();
	ev->param_lo = t->param_lo;
	ev->param_hi = t->param_hi;
	ev->status = t->status;
	ev->control = t->control;
	if (++x->ev_deq == XHCI_EVENT_TRBS) {
		x->ev_deq = 0;
		x->ccs ^= 1;
	}
	wr64(x->rt, XHCI_IR0 + XHCI_ERDP, (x->events_phys + (uint64_t)x->ev_deq * XHCI_TRB_BYTES) | XHCI_ERDP_EHB);
	return true;
}

static uint64_t event_ptr(const struct xhci_trb *ev)
{
	return (uint64_t)ev->param_hi << 32 | ev->param_lo;
}

/* Completion codes named (6.4.5). */
static const char *const cc_names[] = {
	[2] = "data buffer error", [3] = "babble", [4] = "USB transaction error", [5] = "TRB error",
	[6] = "stall", [7] = "resource error", [8] = "bandwidth error", [9] = "no slots available",
	[11] = "slot not enabled", [12] = "endpoint not enabled", [17] = "parameter error",
	[19] = "context state error", [21] = "event ring full", [26] = "stopped",
};

static const char *cc_name(uint32_t code)
{
	if (code < sizeof(cc_names) / sizeof(cc_names[0]) && cc_names[code])
		return cc_names[code];
	return "completion code";
}

/* ---- commands (4.6) ---- */

static int command(struct xhci *x, uint64_t param, uint32_t control, struct xhci_trb *ev, const char *what,
		   char *err, size_t errlen)
{
	uint64_t at = ring_push(&x->cmd, param, 0, control);

	barrier();
	wr32(x->db, 0, 0);
	struct poll_bound b;
	for (poll_bound_start(&b, COMMAND_POLLS); !poll_bound_spent(&b);) {
		while (event_pop(x, ev)) {
			if (XHCI_TRB_TYPE_OF(ev->control) != XHCI_TRB_COMMAND_EVENT || event_ptr(ev) != at)
				continue;
			uint32_t code = XHCI_TRB_CODE_OF(ev->status);
			if (code != XHCI_CC_SUCCESS)
				return fmt_error(err, errlen, "%s failed (%s %u)", what, cc_name(code), code);
			return 0;
		}
		poll_pause();
	}
	return fmt_error(err, errlen, "%s did not complete within " POLLS_TEXT, what, POLLS_ARGS(COMMAND_POLLS));
}

/* ---- taking the controller ---- */

/* USB Legacy Support (7.1.1, 7.1.2): ask for the controller, wait for the firmware to let
 * go (taking it anyway after about 1 s, with a note), and turn its SMIs off. */
static void take_from_firmware(struct xhci *x, uint32_t off, char *note, size_t notelen)
{
	volatile uint8_t *sem = x->cap + off;

	mmio_write8(sem + 3, 1);                /* OS Owned, bit 24: its own byte */
	if (!wait32(x->cap, off, XHCI_USBLEGSUP_BIOS_OWNED, 0, HANDOFF_POLLS)) {
		mmio_write8(sem + 2, 0);        /* BIOS Owned, bit 16 */
		if (note)
			fmt_text(note, notelen, "%s: the firmware kept the USB legacy semaphore for " POLLS_TEXT
				 "; taken anyway", x->where, POLLS_ARGS(HANDOFF_POLLS));
	}
	uint32_t ctl = rd32(x->cap, off + XHCI_USBLEGCTLSTS);
	wr32(x->cap, off + XHCI_USBLEGCTLSTS, (ctl & ~XHCI_LEGCTL_SMI_ENABLES) | XHCI_LEGCTL_SMI_EVENTS);
}

/* Supported Protocol (7.2): which ports are USB 2 and which USB 3. */
static void note_protocol(struct xhci *x, uint32_t off)
{
	uint32_t major = XHCI_PROTO_MAJOR(rd32(x->cap, off)), ports = rd32(x->cap, off + 8);
	uint32_t first = XHCI_PROTO_PORT_OFF(ports), count = XHCI_PROTO_PORT_COUNT(ports);

	for (uint32_t p = first; p < first + count && p <= XHCI_PORTS_MAX; p++)
		if (p >= 1)
			x->port_major[p] = (uint8_t)major;
}

static void walk_capabilities(struct xhci *x, char *note, size_t notelen)
{
	uint32_t off = XHCI_HCC1_XECP(rd32(x->cap, XHCI_HCCPARAMS1)) * 4;

	for (unsigned n = 0; off && off + 12 <= x->mmio_len && n < XCAP_MAX; n++) {
		uint32_t v = rd32(x->cap, off);
		if (XHCI_XCAP_ID(v) == XHCI_XCAP_LEGACY)
			take_from_firmware(x, off, note, notelen);
		else if (XHCI_XCAP_ID(v) == XHCI_XCAP_PROTOCOL)
			note_protocol(x, off);
		off = XHCI_XCAP_NEXT(v) ? off + XHCI_XCAP_NEXT(v) * 4 : 0;
	}
}

/* Intel's PCH shares its ports between EHCI and xHCI: route to xHCI those the chipset
 * lets be routed (the mask registers; 0 or all ones where the registers do not exist). */
static void route_intel_ports(const struct pci_dev *d)
{
	static const struct { uint16_t route, mask; } regs[] = {
		{ INTEL_USB3_PSSEN, INTEL_USB3PRM },
		{ INTEL_XUSB2PR, INTEL_XUSB2PRM },
	};

	if (d->vendor != PCI_VENDOR_INTEL)
		return;
	for (unsigned i = 0; i < sizeof(regs) / sizeof(regs[0]); i++) {
		uint32_t mask = pci_dev_read32(d, regs[i].mask);
		if (mask != 0 && mask != 0xFFFFFFFFu)
			pci_write32(d->bus, d->dev, d->fn, regs[i].route, mask);
	}
}

/* Stop the controller and reset it (4.2, 5.4.1). */
static int reset_controller(struct xhci *x, char *err, size_t errlen)
{
	if (!(rd32(x->op, XHCI_USBSTS) & XHCI_USBSTS_HCH)) {
		wr32(x->op, XHCI_USBCMD, rd32(x->op, XHCI_USBCMD) & ~XHCI_USBCMD_RS);
		if (!wait32(x->op, XHCI_USBSTS, XHCI_USBSTS_HCH, XHCI_USBSTS_HCH, HALT_POLLS))
			return fmt_error(err, errlen, "%s: the controller does not halt within " POLLS_TEXT, x->where,
					 POLLS_ARGS(HALT_POLLS));
	}
	wr32(x->op, XHCI_USBCMD, XHCI_USBCMD_HCRST);
	poll_delay(1000);      /* some controllers must not be read for 1 ms after HCRST (Linux: Intel) */
	if (!wait32(x->op, XHCI_USBCMD, XHCI_USBCMD_HCRST, 0, RESET_POLLS) ||
	    !wait32(x->op, XHCI_USBSTS, XHCI_USBSTS_CNR, 0, RESET_POLLS))
		return fmt_error(err, errlen, "%s: the controller does not come out of reset within " POLLS_TEXT,
				 x->where, POLLS_ARGS(RESET_POLLS));
	return 0;
}

/* Scratchpad buffers the controller asks for (4.20), pointed to by DCBAA entry 0. */
static int scratchpads(struct xhci *x, char *err, size_t errlen)
{
	uint32_t hcs2 = rd32(x->cap, XHCI_HCSPARAMS2);
	uint32_t n = XHCI_HCS2_SPB_HI(hcs2) << 5 | XHCI_HCS2_SPB_LO(hcs2);
	uint32_t ps = rd32(x->op, XHCI_PAGESIZE) & XHCI_PAGESIZE_MASK, page = 4096;
	struct dma_region arr, pages;

	if (n == 0)
		return 0;
	for (uint32_t b = 0; b < 16 && !(ps & (1u << b)); b++)
		page <<= 1;
	if (x->alloc((uint64_t)n * 8, 64, &arr) || x->alloc((uint64_t)n * page, page, &pages))
		return fmt_error(err, errlen, "%s: no memory for %u scratchpad buffers of %u bytes", x->where, n, page);
	memset(pages.virt, 0, (size_t)n * page);
	for (uint32_t i = 0; i < n; i++)
		((uint64_t *)arr.virt)[i] = pages.phys + (uint64_t)i * page;
	x->dcbaa[0] = arr.phys;
	return 0;
}

/* DCBAA, command ring, event ring with its one-segment ERST, then run (4.2). */
static int start_controller(struct xhci *x, char *err, size_t errlen)
{
	struct dma_region m;

	if (x->alloc(CTRL_DMA_BYTES, 4096, &m))
		return fmt_error(err, errlen, "%s: no memory for DMA", x->where);
	memset(m.virt, 0, CTRL_DMA_BYTES);
	uint8_t *base = m.virt;
	x->dcbaa = (uint64_t *)(base + CTRL_DCBAA);
	if (scratchpads(x, err, errlen))
		return -1;
	ring_init(&x->cmd, base + CTRL_CMD, m.phys + CTRL_CMD, XHCI_CMD_TRBS);
	x->events = (struct xhci_trb *)(base + CTRL_EVENTS);
	x->events_phys = m.phys + CTRL_EVENTS;
	x->ev_deq = 0;
	x->ccs = 1;
	uint32_t *erst = (uint32_t *)(base + CTRL_ERST);
	erst[0] = (uint32_t)x->events_phys;
	erst[1] = (uint32_t)(x->events_phys >> 32);
	erst[2] = XHCI_EVENT_TRBS;

	wr32(x->op, XHCI_CONFIG, x->slots);
	wr64(x->op, XHCI_DCBAAP, m.phys + CTRL_DCBAA);
	wr64(x->op, XHCI_CRCR, x->cmd.phys | XHCI_CRCR_RCS);
	wr32(x->rt, XHCI_IR0 + XHCI_ERSTSZ, 1);
	wr64(x->rt, XHCI_IR0 + XHCI_ERDP, x->events_phys);
	wr64(x->rt, XHCI_IR0 + XHCI_ERSTBA, m.phys + CTRL_ERST);
	wr32(x->op, XHCI_USBCMD, XHCI_USBCMD_RS);
	if (!wait32(x->op, XHCI_USBSTS, XHCI_USBSTS_HCH, 0, HALT_POLLS))
		return fmt_error(err, errlen, "%s: the controller does not start (USBSTS 0x%08x)", x->where,
				 rd32(x->op, XHCI_USBSTS));
	return 0;
}

int xhci_open(struct xhci *x, volatile uint8_t *mmio, uint64_t mmio_len, const struct pci_dev *d,
	      xhci_dma_alloc_fn alloc, char *note, size_t notelen, char *err, size_t errlen)
{
	memset(x, 0, sizeof(*x));
	bp_snprintf(x->where, sizeof(x->where), "xHCI %02x:%02x.%x", d->bus, d->dev, d->fn);
	if (note && notelen)
		note[0] = 0;
	x->cap = mmio;
	x->mmio_len = mmio_len;
	x->alloc = alloc;
	uint32_t caplen = mmio_read8(mmio + XHCI_CAPLENGTH);
	uint32_t hcs1 = rd32(mmio, XHCI_HCSPARAMS1), hcc1 = rd32(mmio, XHCI_HCCPARAMS1);
	uint32_t rtsoff = rd32(mmio, XHCI_RTSOFF) & XHCI_RTSOFF_MASK, dboff = rd32(mmio, XHCI_DBOFF) & XHCI_DBOFF_MASK;
	x->ports = XHCI_HCS1_MAX_PORTS(hcs1);
	x->slots = XHCI_HCS1_MAX_SLOTS(hcs1) < XHCI_SLOTS_USED ? XHCI_HCS1_MAX_SLOTS(hcs1) : XHCI_SLOTS_USED;
	x->ctx_bytes = hcc1 & XHCI_HCC1_CSZ ? 64 : 32;
	if (caplen < XHCI_CAP_BYTES_MIN || x->ports == 0 || x->slots == 0 || caplen + XHCI_PORTSC(x->ports) + 16 > mmio_len ||
	    rtsoff + XHCI_IR0 + XHCI_IR_BYTES > mmio_len || dboff + 4 * (x->slots + 1) > mmio_len)
		return fmt_error(err, errlen, "%s: capability registers that make no sense (CAPLENGTH 0x%x, "
				 "HCSPARAMS1 0x%08x, RTSOFF 0x%x, DBOFF 0x%x for %llu bytes of registers)", x->where,
				 caplen, hcs1, rtsoff, dboff, (unsigned long long)mmio_len);
	if (x->ports > XHCI_PORTS_MAX)
		x->ports = XHCI_PORTS_MAX;
	x->op = mmio + caplen;
	x->rt = mmio + rtsoff;
	x->db = mmio + dboff;
	walk_capabilities(x, note, notelen);
	route_intel_ports(d);
	if (reset_controller(x, err, errlen) || start_controller(x, err, errlen))
		return -1;
	if (hcc1 & XHCI_HCC1_PPC)
		for (unsigned p = 1; p <= x->ports; p++)
			if (!(rd32(x->op, XHCI_PORTSC(p)) & XHCI_PORTSC_PP))
				wr32(x->op, XHCI_PORTSC(p), XHCI_PORTSC_PP);
	poll_delay(SETTLE_POLLS);
	return 0;
}

/* ---- ports and devices ---- */

static void port_clear_changes(struct xhci *x, unsigned port)
{
	uint32_t sc = rd32(x->op, XHCI_PORTSC(port));
	wr32(x->op, XHCI_PORTSC(port), (sc & XHCI_PORTSC_KEEP) | (sc & XHCI_PORTSC_CHANGES));
}

/* Reset a USB 2 port (4.3.1); a USB 3 port enables itself after link training, and gets a
 * warm reset when it does not (4.3.1, 4.19.5.1). */
static int port_enable(struct xhci *x, unsigned port, char *err, size_t errlen)
{
	uint32_t off = XHCI_PORTSC(port), sc = rd32(x->op, off);
	bool usb3 = x->port_major[port] == 3;

	if (usb3 && wait32(x->op, off, XHCI_PORTSC_PED, XHCI_PORTSC_PED, PORT_POLLS)) {
		port_clear_changes(x, port);
		return 0;
	}
	wr32(x->op, off, (sc & XHCI_PORTSC_KEEP) | (usb3 ? XHCI_PORTSC_WPR : XHCI_PORTSC_PR));
	if (!wait32(x->op, off, XHCI_PORTSC_PRC, XHCI_PORTSC_PRC, PORT_POLLS))
		return fmt_error(err, errlen, "%s, port %u: the port reset does not finish within " POLLS_TEXT,
				 x->where, port, POLLS_ARGS(PORT_POLLS));
	port_clear_changes(x, port);
	poll_delay(RESET_RECOVERY_POLLS);
	sc = rd32(x->op, off);
	if (!(sc & XHCI_PORTSC_PED) || !(sc & XHCI_PORTSC_CCS))
		return fmt_error(err, errlen, "%s, port %u: the port is not enabled after its reset (PORTSC 0x%08x)",
				 x->where, port, sc);
	return 0;
}

static uint32_t *ctx(uint8_t *base, unsigned index, unsigned ctx_bytes)
{
	return (uint32_t *)(base + (size_t)index * ctx_bytes);
}

/* The input context's endpoint entry for dci (after the control and slot contexts). */
static uint32_t *in_ep(struct xhci_device *xd, unsigned dci)
{
	return ctx(xd->in_ctx, 1 + dci, xd->x->ctx_bytes);
}

static void ep_ring_ctx(uint32_t *ep, const struct xhci_ring *r)
{
	uint64_t deq = ring_dequeue_ptr(r);
	ep[2] = (uint32_t)deq;
	ep[3] = (uint32_t)(deq >> 32);
}

static void ring_doorbell(struct xhci_device *xd, unsigned dci)
{
	barrier();
	wr32(xd->x->db, 4 * xd->slot, dci);
}

/* A device pulled out answers nothing: its transfers fail at once instead of timing out. */
static int device_gone(struct xhci_device *xd, char *err, size_t errlen)
{
	uint32_t sc = rd32(xd->x->op, XHCI_PORTSC(xd->port));

	if ((sc & XHCI_PORTSC_CCS) && (sc & XHCI_PORTSC_PED))
		return 0;
	return fmt_error(err, errlen, "the device is gone (PORTSC 0x%08x)", sc), USB_XFER_GONE;
}

static unsigned bulk_dci(const struct usb_dev *d, int in)
{
	return in ? 2u * d->ep_in + 1 : 2u * d->ep_out;
}

/* Wait for the transfer event of the TD whose last TRB is at last: 0, USB_XFER_STALL or
 * -1 with the reason; *residual gets the bytes the data TRB at data did not move. */
static int wait_transfer(struct xhci_device *xd, unsigned dci, uint64_t data, uint64_t last, uint32_t *residual,
			 char *err, size_t errlen)
{
	struct xhci *x = xd->x;
	struct xhci_trb ev;

	*residual = 0;
	struct poll_bound b;
	for (poll_bound_start(&b, TRANSFER_POLLS); !poll_bound_spent(&b);) {
		while (event_pop(x, &ev)) {
			if (XHCI_TRB_TYPE_OF(ev.control) != XHCI_TRB_TRANSFER_EVENT ||
			    XHCI_TRB_SLOT_OF(ev.control) != xd->slot || XHCI_TRB_EP_OF(ev.control) != dci)
				continue;
			uint32_t code = XHCI_TRB_CODE_OF(ev.status);
			if (code == XHCI_CC_STALL)
				return fmt_error(err, errlen, "endpoint %u stalled", dci / 2), USB_XFER_STALL;
			if (code != XHCI_CC_SUCCESS && code != XHCI_CC_SHORT_PACKET)
				return fmt_error(err, errlen, "a transfer on endpoint %u failed (%s %u)", dci / 2,
						 cc_name(code), code);
			if (event_ptr(&ev) == data)
				*residual = XHCI_TRB_LEN_OF(ev.status);
			if (event_ptr(&ev) == last)
				return 0;
		}
		poll_pause();
	}
	uint32_t sc = rd32(x->op, XHCI_PORTSC(xd->port));
	if (!(sc & XHCI_PORTSC_CCS))
		return fmt_error(err, errlen, "the device is gone (PORTSC 0x%08x)", sc), USB_XFER_GONE;
	return fmt_error(err, errlen, "timeout: a transfer on endpoint %u did not finish within " POLLS_TEXT, dci / 2,
			 POLLS_ARGS(TRANSFER_POLLS));
}

static uint32_t ep_state(struct xhci_device *xd, unsigned dci)
{
	return XHCI_EP_STATE_OF(ctx(xd->out_ctx, dci, xd->x->ctx_bytes)[0]);
}

/* A halted endpoint (a stall, or errors past CErr) made usable again: Reset Endpoint, which
 * also resets its sequence, then Set TR Dequeue Pointer past the TD it halted on (4.6.8,
 * 4.6.10, 4.8.3). */
static int restart_halted(struct xhci_device *xd, unsigned dci, const struct xhci_ring *r, char *err, size_t errlen)
{
	uint32_t target = XHCI_TRB_SLOT(xd->slot) | XHCI_TRB_EP(dci);
	struct xhci_trb ev;

	if (command(xd->x, 0, XHCI_TRB_TYPE(XHCI_TRB_RESET_EP) | target, &ev, "Reset Endpoint", err, errlen) ||
	    command(xd->x, ring_dequeue_ptr(r), XHCI_TRB_TYPE(XHCI_TRB_SET_TR_DEQUEUE) | target, &ev,
		    "Set TR Dequeue Pointer", err, errlen))
		return -1;
	return 0;
}

/* A control transfer: Setup, Data (through the bounce buffer), Status stages (4.11.2.2). */
static int xhci_control(struct usb_dev *d, const struct usb_setup *s, void *data, uint16_t len, uint32_t *done,
			char *err, size_t errlen)
{
	struct xhci_device *xd = d->hc_dev;
	bool in = s->request_type & USB_DIR_IN;
	uint64_t setup, data_at = 0, status_at;
	uint32_t residual;

	if (device_gone(xd, err, errlen))
		return USB_XFER_GONE;
	/* len (16 bits) always fits the 64 KiB bounce buffer */
	if (!in && len)
		memcpy(xd->bounce, data, len);
	memcpy(&setup, s, sizeof(setup));
	ring_push(&xd->ep0, setup, sizeof(*s), XHCI_TRB_TYPE(XHCI_TRB_SETUP) | XHCI_TRB_IDT |
		  XHCI_TRB_TRT(len ? (in ? XHCI_TRB_TRT_IN : XHCI_TRB_TRT_OUT) : 0));
	if (len)
		data_at = ring_push(&xd->ep0, xd->bounce_phys, len, XHCI_TRB_TYPE(XHCI_TRB_DATA) |
				    (in ? XHCI_TRB_DIR_IN : 0) | XHCI_TRB_ISP | XHCI_TRB_IOC);
	status_at = ring_push(&xd->ep0, 0, 0, XHCI_TRB_TYPE(XHCI_TRB_STATUS) | XHCI_TRB_IOC |
			      (len && in ? 0 : XHCI_TRB_DIR_IN));
	ring_doorbell(xd, 1);
	int r = wait_transfer(xd, 1, data_at, status_at, &residual, err, errlen);
	if (r) {
		/* a stalled request halts endpoint 0 on the host side only: the device takes the
		 * next SETUP (USB 2.0 8.5.3.4), the controller needs restarting */
		char why[USB_ERR_MAX];
		if (r != USB_XFER_GONE && ep_state(xd, 1) == XHCI_EP_STATE_HALTED &&
		    restart_halted(xd, 1, &xd->ep0, why, sizeof(why))) {
			fmt_append(err, errlen, "; endpoint 0 stays halted: %s", why);
		}
		return r;
	}
	if (residual > len)
		residual = len;
	if (in && len)
		memcpy(data, xd->bounce, len - residual);
	if (done)
		*done = len - residual;
	return 0;
}

/* A bulk transfer through the bounce buffer, one Normal TRB per 64 KiB (4.11.2.1). */
static int xhci_bulk(struct usb_dev *d, int in, void *buf, uint32_t len, uint32_t *done, char *err, size_t errlen)
{
	struct xhci_device *xd = d->hc_dev;
	unsigned dci = bulk_dci(d, in);
	uint32_t residual;

	*done = 0;
	if (device_gone(xd, err, errlen))
		return USB_XFER_GONE;
	while (len) {
		uint32_t n = len < XHCI_BOUNCE_BYTES ? len : XHCI_BOUNCE_BYTES;
		if (!in)
			memcpy(xd->bounce, buf, n);
		uint64_t at = ring_push(&xd->bulk[in ? 1 : 0], xd->bounce_phys, n,
					XHCI_TRB_TYPE(XHCI_TRB_NORMAL) | XHCI_TRB_ISP | XHCI_TRB_IOC);
		ring_doorbell(xd, dci);
		int r = wait_transfer(xd, dci, at, at, &residual, err, errlen);
		if (r)
			return r;
		uint32_t got = residual < n ? n - residual : 0;
		if (in)
			memcpy(buf, xd->bounce, got);
		*done += got;
		buf = (uint8_t *)buf + got;
		len -= n;
		if (got < n)
			break;
	}
	return 0;
}

static void bulk_ep_ctx(struct xhci_device *xd, int in)
{
	const struct usb_dev *d = &xd->usb;
	unsigned dci = bulk_dci(d, in);
	uint32_t ring_off = DEV_EP0_RING + (in ? 2 : 1) * DEV_RING_BYTES;
	uint8_t *ring = xd->dma + ring_off;
	uint64_t ring_phys = xd->dma_phys + ring_off;
	uint32_t *ep = in_ep(xd, dci);

	ring_init(&xd->bulk[in ? 1 : 0], ring, ring_phys, XHCI_XFER_TRBS);
	ep[1] = XHCI_EP_CERR(3) | XHCI_EP_TYPE(in ? XHCI_EP_TYPE_BULK_IN : XHCI_EP_TYPE_BULK_OUT) |
		XHCI_EP_MPS(in ? d->ep_in_max_packet : d->ep_out_max_packet);
	ep_ring_ctx(ep, &xd->bulk[in ? 1 : 0]);
	ep[4] = XHCI_EP_AVG_TRB(3072);
}

/* Configure Endpoint (4.6.6) for the bulk endpoints in the add mask (fresh rings), those
 * in drop dropped first. */
static int configure_endpoints(struct xhci_device *xd, uint32_t drop, uint32_t add, char *err, size_t errlen)
{
	struct xhci *x = xd->x;
	const struct usb_dev *d = &xd->usb;
	unsigned in_dci = bulk_dci(d, 1), out_dci = bulk_dci(d, 0);
	unsigned last = in_dci > out_dci ? in_dci : out_dci;
	struct xhci_trb ev;

	memset(xd->in_ctx, 0, (size_t)(XHCI_CONTEXTS + 1) * x->ctx_bytes);
	uint32_t *icc = ctx(xd->in_ctx, 0, x->ctx_bytes), *slot = ctx(xd->in_ctx, 1, x->ctx_bytes);
	const uint32_t *out_slot = ctx(xd->out_ctx, 0, x->ctx_bytes);
	icc[XHCI_ICC_DROP] = drop;
	icc[XHCI_ICC_ADD] = add | 1u;
	slot[0] = (out_slot[0] & XHCI_SLOT_ROUTE_SPEED_MASK) | XHCI_SLOT_ROUTE_SPEED(0, last);
	slot[1] = out_slot[1];
	slot[2] = out_slot[2];
	if (add & (1u << in_dci))
		bulk_ep_ctx(xd, 1);
	if (add & (1u << out_dci))
		bulk_ep_ctx(xd, 0);
	return command(x, xd->in_ctx_phys, XHCI_TRB_TYPE(XHCI_TRB_CONFIGURE_EP) | XHCI_TRB_SLOT(xd->slot), &ev,
		       "Configure Endpoint", err, errlen);
}

static int xhci_configure_bulk(struct usb_dev *d, char *err, size_t errlen)
{
	struct xhci_device *xd = d->hc_dev;
	if (bulk_dci(d, 1) >= XHCI_CONTEXTS || bulk_dci(d, 0) >= XHCI_CONTEXTS)
		return fmt_error(err, errlen, "endpoint numbers out of range");
	return configure_endpoints(xd, 0, 1u << bulk_dci(d, 1) | 1u << bulk_dci(d, 0), err, errlen);
}

/* After CLEAR_FEATURE(ENDPOINT_HALT): a halted endpoint is restarted; one that did not
 * halt (reset recovery) is stopped, dropped and added again with a fresh ring, which also
 * resets its sequence (4.6.6). */
static int xhci_reset_bulk(struct usb_dev *d, int in, char *err, size_t errlen)
{
	struct xhci_device *xd = d->hc_dev;
	unsigned dci = bulk_dci(d, in);
	uint32_t state = ep_state(xd, dci);
	struct xhci_trb ev;

	if (state == XHCI_EP_STATE_HALTED)
		return restart_halted(xd, dci, &xd->bulk[in ? 1 : 0], err, errlen);
	if (state == XHCI_EP_STATE_RUNNING &&
	    command(xd->x, 0, XHCI_TRB_TYPE(XHCI_TRB_STOP_EP) | XHCI_TRB_SLOT(xd->slot) | XHCI_TRB_EP(dci), &ev,
		    "Stop Endpoint", err, errlen))
		return -1;
	return configure_endpoints(xd, 1u << dci, 1u << dci, err, errlen);
}


/* Endpoint 0's max packet size before the device says (4.3.3, USB 2.0 5.5.3). */
static uint16_t default_ep0_packet(enum usb_speed speed)
{
	return speed == USB_SPEED_SUPER ? 512 : speed == USB_SPEED_HIGH ? 64 : 8;
}

/* Enable Slot and Address Device (4.3.2, 4.3.3) with endpoint 0 and its ring. */
static int address_device(struct xhci_device *xd, uint32_t port_speed, char *err, size_t errlen)
{
	struct xhci *x = xd->x;
	struct xhci_trb ev;

	if (command(x, 0, XHCI_TRB_TYPE(XHCI_TRB_ENABLE_SLOT), &ev, "Enable Slot", err, errlen))
		return -1;
	xd->slot = (uint8_t)XHCI_TRB_SLOT_OF(ev.control);
	if (xd->slot == 0 || xd->slot > x->slots)
		return fmt_error(err, errlen, "Enable Slot gave slot %u", xd->slot);
	x->dcbaa[xd->slot] = xd->out_ctx_phys;
	memset(xd->in_ctx, 0, (size_t)(XHCI_CONTEXTS + 1) * x->ctx_bytes);
	uint32_t *icc = ctx(xd->in_ctx, 0, x->ctx_bytes), *slot = ctx(xd->in_ctx, 1, x->ctx_bytes), *ep0 = in_ep(xd, 1);
	icc[XHCI_ICC_ADD] = 1u << 0 | 1u << 1;
	slot[0] = XHCI_SLOT_ROUTE_SPEED(port_speed, 1) | xd->route | (xd->mtt ? XHCI_SLOT_MTT : 0);
	slot[1] = XHCI_SLOT_ROOT_PORT(xd->port);
	slot[2] = XHCI_SLOT_TT(xd->tt_slot, xd->tt_port, 0);
	ep0[1] = XHCI_EP_CERR(3) | XHCI_EP_TYPE(XHCI_EP_TYPE_CONTROL) | XHCI_EP_MPS(xd->usb.ep0_max_packet);
	ep_ring_ctx(ep0, &xd->ep0);
	ep0[4] = XHCI_EP_AVG_TRB(8);
	if (command(x, xd->in_ctx_phys, XHCI_TRB_TYPE(XHCI_TRB_ADDRESS_DEVICE) | XHCI_TRB_SLOT(xd->slot), &ev,
		    "Address Device", err, errlen))
		return -1;
	xd->usb.address = (uint8_t)ctx(xd->out_ctx, 0, x->ctx_bytes)[3];
	usb_poll_delay(&xd->usb, USB_SET_ADDRESS_US);
	return 0;
}

/* The first 8 bytes of the device descriptor give endpoint 0's real max packet size;
 * Evaluate Context tells the controller when it differs (4.6.7). */
static int fix_ep0_packet(struct xhci_device *xd, char *err, size_t errlen)
{
	struct xhci *x = xd->x;
	uint8_t desc[USB_DEVICE_DESC_PREFIX];
	uint32_t done = 0;
	struct xhci_trb ev;

	if (usb_get_descriptor(&xd->usb, USB_DT_DEVICE, 0, desc, sizeof(desc), &done, err, errlen))
		return -1;
	if (done < sizeof(desc) || desc[1] != USB_DT_DEVICE)
		return fmt_error(err, errlen, "a device descriptor of %u bytes, type 0x%02x", done,
				 desc[1]);
	uint16_t mps = xd->usb.speed == USB_SPEED_SUPER ? (uint16_t)(desc[7] < 16 ? 1u << desc[7] : 0) : desc[7];
	if (mps != 8 && mps != 16 && mps != 32 && mps != 64 && mps != 512)
		return fmt_error(err, errlen, "endpoint 0 max packet size %u", mps);
	if (mps == xd->usb.ep0_max_packet)
		return 0;
	memset(xd->in_ctx, 0, (size_t)(XHCI_CONTEXTS + 1) * x->ctx_bytes);
	ctx(xd->in_ctx, 0, x->ctx_bytes)[XHCI_ICC_ADD] = 1u << 1;
	in_ep(xd, 1)[1] = XHCI_EP_CERR(3) | XHCI_EP_TYPE(XHCI_EP_TYPE_CONTROL) | XHCI_EP_MPS(mps);
	if (command(x, xd->in_ctx_phys, XHCI_TRB_TYPE(XHCI_TRB_EVALUATE_CTX) | XHCI_TRB_SLOT(xd->slot), &ev,
		    "Evaluate Context", err, errlen))
		return -1;
	xd->usb.ep0_max_packet = mps;
	return 0;
}

static enum usb_speed usb_speed_of(uint32_t port_speed)
{
	switch (port_speed) {
	case XHCI_SPEED_FULL: return USB_SPEED_FULL;
	case XHCI_SPEED_LOW: return USB_SPEED_LOW;
	case XHCI_SPEED_HIGH: return USB_SPEED_HIGH;
	default: return USB_SPEED_SUPER;
	}
}

static int device_memory(struct xhci *x, struct xhci_device *xd)
{
	struct dma_region m;

	if (x->alloc(DEV_DMA_BYTES, DEV_DMA_ALIGN, &m))
		return -1;
	uint8_t *base = m.virt;
	memset(base + DEV_IN_CTX, 0, DEV_DMA_BYTES - DEV_IN_CTX);
	xd->dma = base;
	xd->dma_phys = m.phys;
	xd->bounce = base + DEV_BOUNCE;
	xd->bounce_phys = m.phys + DEV_BOUNCE;
	xd->in_ctx = base + DEV_IN_CTX;
	xd->in_ctx_phys = m.phys + DEV_IN_CTX;
	xd->out_ctx = base + DEV_OUT_CTX;
	xd->out_ctx_phys = m.phys + DEV_OUT_CTX;
	ring_init(&xd->ep0, base + DEV_EP0_RING, m.phys + DEV_EP0_RING, XHCI_XFER_TRBS);
	return 0;
}

static uint32_t port_speed_of(enum usb_speed speed)
{
	switch (speed) {
	case USB_SPEED_FULL: return XHCI_SPEED_FULL;
	case USB_SPEED_LOW: return XHCI_SPEED_LOW;
	case USB_SPEED_HIGH: return XHCI_SPEED_HIGH;
	default: return XHCI_SPEED_SUPER;
	}
}

/* The next device entry; its place (root port, route, TT) is the caller's to fill. */
static struct xhci_device *new_device(struct xhci *x, unsigned port, char *err, size_t errlen)
{
	if (x->ndev == XHCI_DEVICES_MAX) {
		fmt_error(err, errlen, "%s, port %u: more devices than bareperf handles (%u)", x->where, port,
			  XHCI_DEVICES_MAX);
		return NULL;
	}
	struct xhci_device *xd = &x->dev[x->ndev];
	memset(xd, 0, sizeof(*xd));
	xd->x = x;
	xd->port = (uint8_t)port;
	xd->usb.ops = &xhci_ops;
	xd->usb.hc = x;
	xd->usb.hc_dev = xd;
	return xd;
}

/* Slot, address and endpoint 0 for a device whose place is filled in. */
static int attach_device(struct xhci_device *xd, enum usb_speed speed, struct usb_dev **out, char *err,
			 size_t errlen)
{
	char why[USB_ERR_MAX];

	if (device_memory(xd->x, xd))
		return fmt_error(err, errlen, "%s: no memory for DMA", xd->usb.where);
	xd->usb.speed = speed;
	xd->usb.ep0_max_packet = default_ep0_packet(speed);
	if (address_device(xd, port_speed_of(speed), why, sizeof(why)) || fix_ep0_packet(xd, why, sizeof(why)))
		return fmt_error(err, errlen, "%s: %s", xd->usb.where, why);
	xd->x->ndev++;
	*out = &xd->usb;
	return 0;
}

int xhci_attach_port(struct xhci *x, unsigned port, struct usb_dev **out, char *err, size_t errlen)
{
	if (port < 1 || port > x->ports || !(rd32(x->op, XHCI_PORTSC(port)) & XHCI_PORTSC_CCS))
		return 0;
	struct xhci_device *xd = new_device(x, port, err, errlen);
	if (!xd || port_enable(x, port, err, errlen))
		return -1;
	bp_snprintf(xd->usb.where, sizeof(xd->usb.where), "%s, port %u", x->where, port);
	enum usb_speed speed = usb_speed_of(XHCI_PORTSC_SPEED(rd32(x->op, XHCI_PORTSC(port))));
	return attach_device(xd, speed, out, err, errlen) ? -1 : 1;
}

/* A device on a hub's port: its route string extends the hub's by one tier; a full- or
 * low-speed device behind a high-speed hub talks through that hub's TT (4.3.3, 6.2.2). */
static int xhci_attach_child(struct usb_dev *hub, unsigned port, enum usb_speed speed, struct usb_dev **out,
			     char *err, size_t errlen)
{
	struct xhci_device *parent = hub->hc_dev;

	if (parent->depth >= XHCI_ROUTE_TIERS || port > XHCI_ROUTE_PORT_MAX)
		return fmt_error(err, errlen, "%s.%u: past the route string's 5 tiers of 15 ports", hub->where, port);
	struct xhci_device *xd = new_device(parent->x, parent->port, err, errlen);
	if (!xd)
		return -1;
	bp_snprintf(xd->usb.where, sizeof(xd->usb.where), "%s.%u", hub->where, port);
	xd->depth = (uint8_t)(parent->depth + 1);
	xd->route = parent->route | (uint32_t)port << (4 * parent->depth);
	if (hub->speed == USB_SPEED_HIGH && (speed == USB_SPEED_FULL || speed == USB_SPEED_LOW)) {
		xd->tt_slot = parent->slot;
		xd->tt_port = (uint8_t)port;
		xd->mtt = parent->mtt;
	} else {
		xd->tt_slot = parent->tt_slot;
		xd->tt_port = parent->tt_port;
	}
	return attach_device(xd, speed, out, err, errlen);
}

/* Configure Endpoint with the slot context only (4.6.6): Hub, its ports, MTT and the TT
 * think time, as a hub's slot context has them (6.2.2). */
static int xhci_configure_hub(struct usb_dev *hub, unsigned nports, int mtt, unsigned ttt, char *err,
			      size_t errlen)
{
	struct xhci_device *xd = hub->hc_dev;
	struct xhci *x = xd->x;
	bool high = hub->speed == USB_SPEED_HIGH;
	struct xhci_trb ev;

	memset(xd->in_ctx, 0, (size_t)(XHCI_CONTEXTS + 1) * x->ctx_bytes);
	uint32_t *icc = ctx(xd->in_ctx, 0, x->ctx_bytes), *slot = ctx(xd->in_ctx, 1, x->ctx_bytes);
	const uint32_t *out_slot = ctx(xd->out_ctx, 0, x->ctx_bytes);
	icc[XHCI_ICC_ADD] = 1u;
	xd->is_hub = true;
	xd->mtt = mtt && high;
	slot[0] = out_slot[0] | XHCI_SLOT_HUB | (xd->mtt ? XHCI_SLOT_MTT : 0);
	slot[1] = (out_slot[1] & ~XHCI_SLOT_PORTS_MASK) | XHCI_SLOT_PORTS(nports);
	slot[2] = out_slot[2] | (high ? XHCI_SLOT_TT(0, 0, ttt) : 0);
	return command(x, xd->in_ctx_phys, XHCI_TRB_TYPE(XHCI_TRB_CONFIGURE_EP) | XHCI_TRB_SLOT(xd->slot), &ev,
		       "Configure Endpoint (hub)", err, errlen);
}

static const struct usb_hc_ops xhci_ops = {
	.control = xhci_control,
	.configure_bulk = xhci_configure_bulk,
	.bulk = xhci_bulk,
	.reset_bulk = xhci_reset_bulk,
	.delay = usb_poll_delay,
	.configure_hub = xhci_configure_hub,
	.attach_child = xhci_attach_child,
};
