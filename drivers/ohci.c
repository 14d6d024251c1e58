#include "drivers/ohci.h"
#include "drivers/mmio.h"
#include "drivers/poll.h"
#include "lib/format.h"
#include "lib/str.h"

/* Waits are counted in polls, each after a read of port 0x80 (about 1 us), as drivers/ehci.c
 * does. The times are USB 2.0's (7.1.7.3, 7.1.7.5, 9.2.6.3) and OHCI's (5.1.1.3, 5.1.1.4) with
 * a margin. */
#define HANDOFF_POLLS           (1000 * POLLS_PER_MS)   /* the SMM driver lets go */
#define RESET_POLLS             (100 * POLLS_PER_MS)    /* HCR clears within 10 us */
#define CONNECT_DEBOUNCE_POLLS  (100 * POLLS_PER_MS)    /* TATTDB */
#define PORT_RESET_POLLS        (100 * POLLS_PER_MS)    /* PRSC after the 10 ms reset */
#define RESET_RECOVERY_POLLS    (10 * POLLS_PER_MS)     /* TRSTRCY */
#define CONTROL_POLLS           (1000 * POLLS_PER_MS)
#define BULK_POLLS              (5000 * POLLS_PER_MS)   /* a stick may take seconds to write */
#define PORT_CHECK_POLLS        1024
#define ADDRESS_MAX             127
#define POWER_GOOD_MIN_MS       20

enum { EP_CONTROL, EP_BULK_IN, EP_BULK_OUT, EPS_PER_DEV };
#define TDS_PER_TRANSFER        3       /* setup, data, status */

/* The first page: the HCCA, the EDs, their tail TDs, a transfer's TDs and the setup packet;
 * then the bounce buffer. */
#define DMA_HCCA                0
#define DMA_EDS                 OHCI_HCCA_BYTES
#define DMA_TAILS               (DMA_EDS + EPS_PER_DEV * OHCI_DEVS_MAX * sizeof(struct ohci_ed))
#define DMA_TDS                 (DMA_TAILS + EPS_PER_DEV * OHCI_DEVS_MAX * sizeof(struct ohci_td))
#define DMA_SETUP               (DMA_TDS + TDS_PER_TRANSFER * sizeof(struct ohci_td))
#define DMA_BOUNCE              OHCI_PAGE
_Static_assert(DMA_SETUP + sizeof(struct usb_setup) <= DMA_BOUNCE, "the first page overflows");

static uint32_t rd(const struct ohci_hc *hc, uint32_t off)
{
	return mmio_read32(hc->regs + off);
}

static void wr(struct ohci_hc *hc, uint32_t off, uint32_t v)
{
	mmio_write32(hc->regs + off, v);
}

static bool wait_reg(const struct ohci_hc *hc, uint32_t off, uint32_t mask, uint32_t want, unsigned polls)
{
	struct poll_bound b;

	for (poll_bound_start(&b, polls); !poll_bound_spent(&b);) {
		if ((rd(hc, off) & mask) == want)
			return true;
		poll_pause();
	}
	return false;
}

/* Clear the interrupt status bits that are set, and only those. */
static void status_clear(struct ohci_hc *hc)
{
	uint32_t sts = rd(hc, OHCI_HCINTERRUPTSTATUS) & OHCI_INT_ALL;
	if (sts)
		wr(hc, OHCI_HCINTERRUPTSTATUS, sts);
}

/* ---- taking the controller ---- */

/* An SMM driver owns the controller while InterruptRouting is set: ask for it (OwnershipChange
 * Request) and wait until the SMM driver clears IR (5.1.1.3.3). One that does not is overruled,
 * with a note. A BIOS driver without SMM (IR clear, the state not UsbReset) is simply reset. */
static void legacy_handoff(struct ohci_hc *hc, char *note, size_t notelen)
{
	if (!(rd(hc, OHCI_HCCONTROL) & OHCI_CTRL_IR))
		return;
	wr(hc, OHCI_HCCOMMANDSTATUS, OHCI_CMD_OCR);
	if (wait_reg(hc, OHCI_HCCONTROL, OHCI_CTRL_IR, 0, HANDOFF_POLLS))
		return;
	fmt_text(note, notelen, "%s: the firmware kept the controller (HcControl 0x%08x) for " POLLS_TEXT
		 "; taken anyway", hc->name, rd(hc, OHCI_HCCONTROL), POLLS_ARGS(HANDOFF_POLLS));
	wr(hc, OHCI_HCCONTROL, rd(hc, OHCI_HCCONTROL) & ~OHCI_CTRL_IR);
}

/* Reset (HCR: the controller then sits in UsbSuspend, which it must leave within 2 ms), the
 * frame interval and the HCCA set up, and UsbOperational with the control and bulk lists on
 * (5.1.1.4). */
static int hc_reset_and_run(struct ohci_hc *hc, char *err, size_t errlen)
{
	/* The firmware may have tuned the frame interval to the board's clock: kept. */
	uint32_t fmi = rd(hc, OHCI_HCFMINTERVAL), fit = fmi & OHCI_FMI_FIT, fi = fmi & OHCI_FMI_FI_MASK;
	if (fi < OHCI_FMI_FI_MIN || fi > OHCI_FMI_FI_MAX)
		fi = OHCI_FMI_FI_DEFAULT;

	wr(hc, OHCI_HCINTERRUPTDISABLE, OHCI_INT_ALL);
	wr(hc, OHCI_HCCOMMANDSTATUS, OHCI_CMD_HCR);
	if (!wait_reg(hc, OHCI_HCCOMMANDSTATUS, OHCI_CMD_HCR, 0, RESET_POLLS))
		return fmt_error(err, errlen, "%s: the controller reset does not finish", hc->name);
	wr(hc, OHCI_HCHCCA, dma_phys_of(&hc->dma, hc->hcca));
	wr(hc, OHCI_HCCONTROLHEADED, 0);
	wr(hc, OHCI_HCCONTROLCURRENTED, 0);
	wr(hc, OHCI_HCBULKHEADED, 0);
	wr(hc, OHCI_HCBULKCURRENTED, 0);
	wr(hc, OHCI_HCFMINTERVAL, fi | OHCI_FMI_FSMPS(fi) | (fit ^ OHCI_FMI_FIT));
	wr(hc, OHCI_HCPERIODICSTART, OHCI_PERIODIC_START(fi));
	status_clear(hc);
	wr(hc, OHCI_HCCONTROL, OHCI_CTRL_HCFS_OPER | OHCI_CTRL_CBSR_4_1 | OHCI_CTRL_CLE | OHCI_CTRL_BLE);
	if ((rd(hc, OHCI_HCCONTROL) & OHCI_CTRL_HCFS_MASK) != OHCI_CTRL_HCFS_OPER)
		return fmt_error(err, errlen, "%s: the controller does not become operational (HcControl 0x%08x)",
				 hc->name, rd(hc, OHCI_HCCONTROL));
	return 0;
}

/* Power the root hub's ports where software switches it, and let connections settle. */
static void ports_power(struct ohci_hc *hc)
{
	uint32_t rha = rd(hc, OHCI_HCRHDESCRIPTORA);
	unsigned good_ms = (rha >> OHCI_RHA_POTPGT_SHIFT) * 2;

	if (!(rha & OHCI_RHA_NPS)) {
		wr(hc, OHCI_HCRHSTATUS, OHCI_RHS_LPSC);
		if (rha & OHCI_RHA_PSM)
			for (unsigned p = 0; p < hc->nports; p++)
				wr(hc, OHCI_HCRHPORTSTATUS(p), OHCI_PORT_PPS);
		poll_delay((good_ms > POWER_GOOD_MIN_MS ? good_ms : POWER_GOOD_MIN_MS) * POLLS_PER_MS);
	}
	poll_delay(CONNECT_DEBOUNCE_POLLS);
}

int ohci_open(struct ohci_hc *hc, volatile uint8_t *regs, const struct dma_region *dma, char *note, size_t notelen,
	      char *err, size_t errlen)
{
	uint8_t *base = dma->virt;

	note[0] = 0;
	hc->regs = regs;
	hc->dma = *dma;
	hc->ndevs = 0;
	hc->next_address = 1;
	if (dma->size < OHCI_DMA_BYTES || dma->phys % OHCI_PAGE || dma->phys + dma->size > (1ull << 32))
		return fmt_error(err, errlen, "%s: DMA memory too small, misaligned or above 4 GiB", hc->name);
	uint32_t rev = rd(hc, OHCI_HCREVISION), rha = rd(hc, OHCI_HCRHDESCRIPTORA);
	hc->nports = rha & OHCI_RHA_NDP_MASK;
	if ((rev & OHCI_REV_MASK) < OHCI_REV_1_0 || rev == OHCI_REG_NONE || hc->nports == 0 || hc->nports > OHCI_PORTS_MAX)
		return fmt_error(err, errlen, "%s: implausible registers (HcRevision 0x%08x, HcRhDescriptorA 0x%08x)",
				 hc->name, rev, rha);
	hc->hcca = base + DMA_HCCA;
	hc->eds = (struct ohci_ed *)(base + DMA_EDS);
	hc->tails = (struct ohci_td *)(base + DMA_TAILS);
	hc->td = (struct ohci_td *)(base + DMA_TDS);
	hc->setup = base + DMA_SETUP;
	hc->bounce = base + DMA_BOUNCE;
	memset(base, 0, DMA_BOUNCE);
	legacy_handoff(hc, note, notelen);
	if (hc_reset_and_run(hc, err, errlen))
		return -1;
	ports_power(hc);
	return 0;
}

int ohci_idle(struct ohci_hc *hc, char *err, size_t errlen)
{
	(void)err, (void)errlen;
	wr(hc, OHCI_HCCONTROL, rd(hc, OHCI_HCCONTROL) & ~(OHCI_CTRL_CLE | OHCI_CTRL_BLE | OHCI_CTRL_PLE));
	return 0;
}

/* ---- endpoints and transfers ---- */

/* An idle endpoint: its ED with nothing queued (HeadP = TailP = its dummy TD). */
static void ep_init(struct ohci_dev *od, struct ohci_ep *ep, unsigned which, uint32_t info)
{
	struct ohci_hc *hc = od->hc;
	unsigned i = (unsigned)(od - hc->devs) * EPS_PER_DEV + which;

	ep->ed = &hc->eds[i];
	ep->tail = &hc->tails[i];
	ep->tail->info = ep->tail->cbp = ep->tail->next = ep->tail->be = 0;
	ep->ed->info = info;
	ep->ed->tailp = dma_phys_of(&hc->dma, ep->tail);
	ep->ed->headp = dma_phys_of(&hc->dma, ep->tail);
}

/* Put the ED at the head of the control or bulk list (the controller takes the new head at
 * its next pass through the list). */
static void ep_link(struct ohci_hc *hc, struct ohci_ep *ep, uint32_t head_reg)
{
	ep->ed->next = rd(hc, head_reg);
	__asm__ volatile("" ::: "memory");
	wr(hc, head_reg, dma_phys_of(&hc->dma, ep->ed));
}

static uint32_t ep_info(const struct ohci_dev *od, unsigned endpoint, uint16_t mps)
{
	return OHCI_ED_FA(od->usb.address) | OHCI_ED_EN(endpoint) | OHCI_ED_DIR_TD | OHCI_ED_MPS(mps);
}

/* TD i of a transfer, of len bytes at phys (len 0: no buffer), then the next TD or the
 * endpoint's tail; the condition code NotAccessed until the controller retires it. */
static void td_fill(struct ohci_hc *hc, unsigned i, uint32_t info, uint32_t phys, uint32_t len,
		    const struct ohci_td *next)
{
	struct ohci_td *td = &hc->td[i];
	td->cbp = len ? phys : 0;
	td->be = len ? phys + len - 1 : 0;
	td->next = dma_phys_of(&hc->dma, next);
	td->info = info | OHCI_TD_DI_NONE | (uint32_t)OHCI_CC_NOT_ACCESSED << OHCI_TD_CC_SHIFT;
}

static unsigned td_cc(const struct ohci_td *td)
{
	return td->info >> OHCI_TD_CC_SHIFT & OHCI_TD_CC_MASK;
}

static bool td_retired(const struct ohci_td *td)
{
	return (td_cc(td) & OHCI_CC_NOT_ACCESSED_MASK) != OHCI_CC_NOT_ACCESSED_MASK;  /* 4.3.3 */
}

/* Bytes a retired TD of len bytes at phys moved: all when its current buffer pointer is 0. */
static uint32_t td_moved(const struct ohci_td *td, uint32_t phys, uint32_t len)
{
	return td->cbp ? td->cbp - phys : len;
}

static const char *const cc_names[16] = {
	[0x1] = "a CRC error", [0x2] = "a bit stuffing error", [0x3] = "a data toggle mismatch",
	[0x5] = "no answer (device not responding)", [0x6] = "a PID check failure", [0x7] = "an unexpected PID",
	[0x8] = "data overrun (the device sent more than asked for)", [0x9] = "data underrun",
	[0xC] = "a buffer overrun (the controller could not reach memory in time)",
	[0xD] = "a buffer underrun (the controller could not reach memory in time)",
};

static int td_error(const char *what, unsigned cc, char *err, size_t errlen)
{
	if (cc == OHCI_CC_STALL) {
		fmt_error(err, errlen, "%s stalled", what);
		return USB_XFER_STALL;
	}
	return fmt_error(err, errlen, "%s on %s (condition code %u)", cc_names[cc] ? cc_names[cc] : "an error", what,
			 cc);
}

static bool dev_present(const struct ohci_dev *od, uint32_t *portsc)
{
	*portsc = rd(od->hc, OHCI_HCRHPORTSTATUS(od->port - 1));
	return (*portsc & (OHCI_PORT_CCS | OHCI_PORT_PES)) == (OHCI_PORT_CCS | OHCI_PORT_PES);
}

enum { TDS_DONE, TDS_ERROR, TDS_GONE, TDS_TIMEOUT };

static int poll_tds(const struct ohci_dev *od, unsigned n, unsigned polls, unsigned *at, uint32_t *portsc)
{
	const struct ohci_td *td = od->hc->td;

	struct poll_bound b;

	poll_bound_start(&b, polls);
	for (unsigned i = 0; !poll_bound_spent(&b); i++) {
		unsigned k = 0;
		for (; k < n && td_retired(&td[k]); k++) {
			*at = k;
			if (td_cc(&td[k]) != OHCI_CC_NO_ERROR)
				return TDS_ERROR;
		}
		if (k == n) {
			__asm__ volatile("" ::: "memory");
			return TDS_DONE;
		}
		if (i % PORT_CHECK_POLLS == PORT_CHECK_POLLS - 1 && !dev_present(od, portsc))
			return TDS_GONE;
		poll_pause();
	}
	return TDS_TIMEOUT;
}

/* Queue TDs 0..n-1 (chained to ep's tail) on ep's idle ED, tell the controller its list is
 * filled, and wait. A halted ED is made idle again, its toggle carry kept. */
static int run_tds(struct ohci_dev *od, struct ohci_ep *ep, unsigned n, bool bulk, unsigned polls, const char *what,
		   char *err, size_t errlen)
{
	struct ohci_hc *hc = od->hc;
	uint32_t portsc;
	unsigned at = 0;

	if (od->gone)
		return fmt_error(err, errlen, "the device is gone"), USB_XFER_GONE;
	if (od->dead)
		return fmt_error(err, errlen, "the device stopped answering earlier");
	if (!dev_present(od, &portsc)) {
		od->gone = true;
		return fmt_error(err, errlen, "the device is gone (HcRhPortStatus 0x%08x)", portsc), USB_XFER_GONE;
	}
	uint32_t ctl = rd(hc, OHCI_HCCONTROL);
	if ((ctl & (OHCI_CTRL_CLE | OHCI_CTRL_BLE)) != (OHCI_CTRL_CLE | OHCI_CTRL_BLE))
		wr(hc, OHCI_HCCONTROL, ctl | OHCI_CTRL_CLE | OHCI_CTRL_BLE);
	__asm__ volatile("" ::: "memory");
	ep->ed->headp = dma_phys_of(&hc->dma, &hc->td[0]) | (ep->ed->headp & OHCI_ED_HEAD_CARRY);
	wr(hc, OHCI_HCCOMMANDSTATUS, bulk ? OHCI_CMD_BLF : OHCI_CMD_CLF);
	int r = poll_tds(od, n, polls, &at, &portsc);
	status_clear(hc);
	switch (r) {
	case TDS_DONE:
		return 0;
	case TDS_ERROR:
		/* the controller halted the ED (4.3.3): its remaining TDs are taken back */
		ep->ed->headp = dma_phys_of(&hc->dma, ep->tail) | (ep->ed->headp & OHCI_ED_HEAD_CARRY);
		return td_error(what, td_cc(&hc->td[at]), err, errlen);
	case TDS_GONE:
		od->gone = true;
		ep->ed->info |= OHCI_ED_SKIP;
		return fmt_error(err, errlen, "the device is gone (HcRhPortStatus 0x%08x)", portsc), USB_XFER_GONE;
	default:
		od->dead = true;
		ep->ed->info |= OHCI_ED_SKIP;
		return fmt_error(err, errlen, "timeout: %s did not finish within " POLLS_TEXT, what, POLLS_ARGS(polls));
	}
}

/* Setup (DATA0), the data stage in one TD from DATA1 (the controller splits it into
 * packets; a short IN packet ends it without error, buffer rounding) and the status stage
 * (DATA1, the other way): USB 2.0 8.5.3, OHCI 4.3.1. */
static int ohci_control(struct usb_dev *d, const struct usb_setup *setup, void *data, uint16_t len, uint32_t *done,
			char *err, size_t errlen)
{
	struct ohci_dev *od = d->hc_dev;
	struct ohci_hc *hc = od->hc;
	bool in = setup->request_type & USB_DIR_IN;
	unsigned n = 0;
	char what[48];

	if (done)
		*done = 0;
	if (len > OHCI_BOUNCE_BYTES)
		return fmt_error(err, errlen, "a control transfer of %u bytes (at most %u)", len, OHCI_BOUNCE_BYTES);
	memcpy(hc->setup, setup, sizeof(*setup));
	if (len && !in)
		memcpy(hc->bounce, data, len);
	od->ep0.ed->info = (od->ep0.ed->info & ~OHCI_ED_MPS(OHCI_ED_MPS_MASK)) | OHCI_ED_MPS(d->ep0_max_packet);
	td_fill(hc, n, OHCI_TD_DP_SETUP | OHCI_TD_T_DATA0, dma_phys_of(&hc->dma, hc->setup), sizeof(*setup), &hc->td[n + 1]);
	n++;
	if (len) {
		td_fill(hc, n, (in ? OHCI_TD_DP_IN | OHCI_TD_ROUNDING : OHCI_TD_DP_OUT) | OHCI_TD_T_DATA1,
			dma_phys_of(&hc->dma, hc->bounce), len, &hc->td[n + 1]);
		n++;
	}
	td_fill(hc, n, (in && len ? OHCI_TD_DP_OUT : OHCI_TD_DP_IN) | OHCI_TD_T_DATA1, 0, 0, od->ep0.tail);
	n++;
	usb_request_text(setup, what, sizeof(what));
	int r = run_tds(od, &od->ep0, n, false, CONTROL_POLLS, what, err, errlen);
	uint32_t moved = len && td_retired(&hc->td[1]) ? td_moved(&hc->td[1], dma_phys_of(&hc->dma, hc->bounce), len) : 0;
	if (in && moved)
		memcpy(data, hc->bounce, moved);
	if (done)
		*done = moved;
	return r;
}

/* len bytes in pieces of the bounce buffer, one TD each, the data toggle carried in the
 * ED from one to the next. A short IN piece ends the transfer. */
static int ohci_bulk(struct usb_dev *d, int in, void *buf, uint32_t len, uint32_t *done, char *err, size_t errlen)
{
	struct ohci_dev *od = d->hc_dev;
	struct ohci_hc *hc = od->hc;
	struct ohci_ep *ep = in ? &od->bulk_in : &od->bulk_out;
	uint32_t total = 0, phys = dma_phys_of(&hc->dma, hc->bounce);
	char what[40];

	*done = 0;
	if (!ep->ed)
		return fmt_error(err, errlen, "a bulk transfer before the endpoints were configured");
	bp_snprintf(what, sizeof(what), "bulk endpoint %u %s", in ? d->ep_in : d->ep_out, in ? "IN" : "OUT");
	while (total < len) {
		uint32_t n = len - total < OHCI_BOUNCE_BYTES ? len - total : OHCI_BOUNCE_BYTES;
		if (!in)
			memcpy(hc->bounce, (uint8_t *)buf + total, n);
		td_fill(hc, 0, (in ? OHCI_TD_DP_IN | OHCI_TD_ROUNDING : OHCI_TD_DP_OUT) | OHCI_TD_T_CARRY, phys, n,
			ep->tail);
		int r = run_tds(od, ep, 1, true, BULK_POLLS, what, err, errlen);
		uint32_t got = td_retired(&hc->td[0]) ? td_moved(&hc->td[0], phys, n) : 0;
		if (in && got)
			memcpy((uint8_t *)buf + total, hc->bounce, got);
		total += got;
		*done = total;
		if (r)
			return r;
		if (got < n)
			break;
	}
	return 0;
}

/* The two bulk endpoints' EDs, at DATA0, in the bulk list. */
static int ohci_configure_bulk(struct usb_dev *d, char *err, size_t errlen)
{
	struct ohci_dev *od = d->hc_dev;

	if (od->dead)
		return fmt_error(err, errlen, "the device stopped answering earlier");
	if (od->bulk_in.ed) {       /* already listed: reset them */
		od->bulk_in.ed->info = ep_info(od, d->ep_in, d->ep_in_max_packet);
		od->bulk_out.ed->info = ep_info(od, d->ep_out, d->ep_out_max_packet);
		od->bulk_in.ed->headp = dma_phys_of(&od->hc->dma, od->bulk_in.tail);
		od->bulk_out.ed->headp = dma_phys_of(&od->hc->dma, od->bulk_out.tail);
		return 0;
	}
	ep_init(od, &od->bulk_in, EP_BULK_IN, ep_info(od, d->ep_in, d->ep_in_max_packet));
	ep_init(od, &od->bulk_out, EP_BULK_OUT, ep_info(od, d->ep_out, d->ep_out_max_packet));
	ep_link(od->hc, &od->bulk_in, OHCI_HCBULKHEADED);
	ep_link(od->hc, &od->bulk_out, OHCI_HCBULKHEADED);
	return 0;
}

/* After CLEAR_FEATURE(ENDPOINT_HALT) the endpoint's toggle is DATA0: so is the ED's carry.
 * The ED is idle (transfers are synchronous), so it is ours to write. */
static int ohci_reset_bulk(struct usb_dev *d, int in, char *err, size_t errlen)
{
	struct ohci_dev *od = d->hc_dev;
	struct ohci_ep *ep = in ? &od->bulk_in : &od->bulk_out;

	if (!ep->ed)
		return fmt_error(err, errlen, "an endpoint reset before the endpoints were configured");
	ep->ed->headp = dma_phys_of(&od->hc->dma, ep->tail);
	return 0;
}

static int ohci_attach_child(struct usb_dev *hub, unsigned port, enum usb_speed speed, struct usb_dev **out,
			     char *err, size_t errlen);

static const struct usb_hc_ops ohci_ops = {
	.control = ohci_control,
	.configure_bulk = ohci_configure_bulk,
	.bulk = ohci_bulk,
	.reset_bulk = ohci_reset_bulk,
	.delay = usb_poll_delay,
	.attach_child = ohci_attach_child,
};

/* ---- ports and devices ---- */

/* Clear the port's change bits that read as set, and only those (7.4.4). */
static void port_ack(struct ohci_hc *hc, unsigned p)
{
	uint32_t changes = rd(hc, OHCI_HCRHPORTSTATUS(p)) & OHCI_PORT_CHANGES;
	if (changes)
		wr(hc, OHCI_HCRHPORTSTATUS(p), changes);
}

/* SetPortReset, then PortResetStatusChange; the controller enables the port itself. */
static bool port_reset(struct ohci_hc *hc, unsigned p)
{
	wr(hc, OHCI_HCRHPORTSTATUS(p), OHCI_PORT_PRS);
	if (!wait_reg(hc, OHCI_HCRHPORTSTATUS(p), OHCI_PORT_PRSC, OHCI_PORT_PRSC, PORT_RESET_POLLS))
		return false;
	port_ack(hc, p);
	poll_delay(RESET_RECOVERY_POLLS);
	uint32_t sc = rd(hc, OHCI_HCRHPORTSTATUS(p));
	return (sc & (OHCI_PORT_CCS | OHCI_PORT_PES)) == (OHCI_PORT_CCS | OHCI_PORT_PES);
}

/* At address 0 with 8-byte control packets: the next address (usb_set_address), then the
 * ED's new function address. */
static int dev_address(struct ohci_dev *od, char *err, size_t errlen)
{
	if (usb_set_address(&od->usb, od->hc->next_address, err, errlen))
		return -1;
	od->hc->next_address++;
	od->ep0.ed->info = (od->ep0.ed->info & ~OHCI_ED_FA_MASK) | OHCI_ED_FA(od->usb.address);
	return 0;
}

static int dev_attach(struct ohci_hc *hc, unsigned port, const char *where, struct usb_dev **out, char *msg,
		      size_t msglen)
{
	char why[USB_ERR_MAX];

	if (hc->ndevs == OHCI_DEVS_MAX || hc->next_address > ADDRESS_MAX)
		return fmt_error(msg, msglen, "%s: bareperf serves %u devices per controller", where, OHCI_DEVS_MAX);
	struct ohci_dev *od = &hc->devs[hc->ndevs];
	memset(od, 0, sizeof(*od));
	od->hc = hc;
	od->port = port;
	od->usb.ops = &ohci_ops;
	od->usb.hc = hc;
	od->usb.hc_dev = od;
	od->usb.speed = USB_SPEED_FULL;
	od->usb.ep0_max_packet = OHCI_FS_EP0_MAX_PACKET;
	str_copy(od->usb.where, where, sizeof(od->usb.where));
	ep_init(od, &od->ep0, EP_CONTROL, ep_info(od, 0, OHCI_FS_EP0_MAX_PACKET));
	ep_link(hc, &od->ep0, OHCI_HCCONTROLHEADED);
	hc->ndevs++;    /* its EDs stay listed, failed or not */
	if (dev_address(od, why, sizeof(why))) {
		od->dead = true;
		od->ep0.ed->info |= OHCI_ED_SKIP;
		return fmt_error(msg, msglen, "%s: %s", where, why);
	}
	*out = &od->usb;
	return 0;
}

enum ohci_port_state ohci_port_attach(struct ohci_hc *hc, unsigned port, struct usb_dev **out, char *msg,
				      size_t msglen)
{
	unsigned p = port - 1;
	uint32_t sc = rd(hc, OHCI_HCRHPORTSTATUS(p));
	char where[USB_WHERE_MAX];

	if (!(sc & OHCI_PORT_CCS))
		return OHCI_PORT_EMPTY;
	port_ack(hc, p);
	bp_snprintf(where, sizeof(where), "%s, port %u", hc->name, port);
	if (sc & OHCI_PORT_LSDA)
		return bp_snprintf(msg, msglen, "%s: a low-speed device, which bareperf does not serve", where),
		       OHCI_PORT_SKIPPED;
	if (!port_reset(hc, p)) {
		if (!(rd(hc, OHCI_HCRHPORTSTATUS(p)) & OHCI_PORT_CCS))
			return bp_snprintf(msg, msglen, "%s: the device left during the port reset", where),
			       OHCI_PORT_FAILED;
		return bp_snprintf(msg, msglen, "%s: the port is not enabled after its reset (HcRhPortStatus 0x%08x)",
				   where, rd(hc, OHCI_HCRHPORTSTATUS(p))), OHCI_PORT_FAILED;
	}
	return dev_attach(hc, port, where, out, msg, msglen) ? OHCI_PORT_FAILED : OHCI_PORT_DEVICE;
}

/* A full-speed device behind a full-speed hub is reached as on a root port. */
static int ohci_attach_child(struct usb_dev *hub, unsigned port, enum usb_speed speed, struct usb_dev **out,
			     char *err, size_t errlen)
{
	struct ohci_dev *hd = hub->hc_dev;
	char where[USB_WHERE_MAX];

	bp_snprintf(where, sizeof(where), "%s.%u", hub->where, port);
	if (speed != USB_SPEED_FULL)
		return fmt_error(err, errlen, "%s: a %s device behind a hub, which bareperf does not serve on OHCI",
				 where, speed == USB_SPEED_LOW ? "low-speed" : "high-speed");
	return dev_attach(hd->hc, hd->port, where, out, err, errlen);
}
