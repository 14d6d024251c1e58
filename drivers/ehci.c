#include "drivers/ehci.h"
#include "drivers/mmio.h"
#include "drivers/poll.h"
#include "lib/format.h"
#include "lib/str.h"

/* Waits are counted in polls, each after a read of port 0x80 (about 1 us on PC hardware,
 * the classic I/O delay, as drivers/ahci.c does). The times are USB 2.0's (7.1.7.3, 7.1.7.5, 9.2.6.3)
 * and EHCI's (2.3.1, 4.1) with a margin. */
#define HANDOFF_POLLS           (1000 * POLLS_PER_MS)   /* the BIOS gives the controller up */
#define HALT_POLLS              (100 * POLLS_PER_MS)    /* 16 micro-frames, 2 ms, by the spec */
#define RESET_POLLS             (500 * POLLS_PER_MS)
/* ASS follows ASE, IAA the doorbell, within a micro-frame or two on hardware. QEMU's
 * controller updates them from its main loop, which a busy host can keep waiting: 100 ms
 * of polls ran out in one run of make test on a busy 2-core host. */
#define SCHEDULE_POLLS          (1000 * POLLS_PER_MS)
#define PORT_POWER_POLLS        (20 * POLLS_PER_MS)
#define CONNECT_DEBOUNCE_POLLS  (100 * POLLS_PER_MS)    /* TATTDB */
#define PORT_RESET_HOLD_POLLS   (50 * POLLS_PER_MS)     /* TDRSTR for a root port */
#define PORT_RESET_END_POLLS    (100 * POLLS_PER_MS)    /* PR reads 0 within 2 ms */
#define RESET_RECOVERY_POLLS    (10 * POLLS_PER_MS)     /* TRSTRCY */
#define CONTROL_POLLS           (1000 * POLLS_PER_MS)
#define BULK_POLLS              (5000 * POLLS_PER_MS)   /* a stick may take seconds to write */
#define PORT_CHECK_POLLS        1024                    /* a transfer looks at its port */
#define EXTCAPS_MAX             16                      /* links followed in the list */
#define QTD_CERR_RETRIES        3
#define ADDRESS_MAX             127
#define ITC_ONE_MS              8       /* interrupt threshold, micro-frames: the default (2.3.1) */

/* The queue heads: the head, then EP0, bulk IN and bulk OUT of each device slot. */
enum { QH_EP0, QH_BULK_IN, QH_BULK_OUT, QH_PER_DEV };

/* The page of queue heads and qTDs at the start of the DMA memory, then the bounce buffer. */
#define DMA_QH_POOL             0
#define DMA_QHS                 (1 + QH_PER_DEV * EHCI_DEVS_MAX)
#define DMA_QTDS                2048
#define DMA_SETUP               (DMA_QTDS + EHCI_QTDS * sizeof(struct ehci_qtd))
#define DMA_BOUNCE              EHCI_PAGE
_Static_assert(DMA_QHS * sizeof(struct ehci_qh) <= DMA_QTDS, "queue heads overlap the qTDs");
_Static_assert(DMA_SETUP + sizeof(struct usb_setup) <= EHCI_PAGE, "the first page overflows");
_Static_assert(EHCI_BOUNCE_BYTES <= EHCI_QTD_BUFFERS * EHCI_PAGE, "one qTD reaches the whole bounce buffer");

static uint32_t cap_rd(const struct ehci_hc *hc, uint32_t off)
{
	return mmio_read32(hc->cap + off);
}

static uint32_t op_rd(const struct ehci_hc *hc, uint32_t off)
{
	return mmio_read32(hc->op + off);
}

static void op_wr(struct ehci_hc *hc, uint32_t off, uint32_t v)
{
	mmio_write32(hc->op + off, v);
}

/* Clears the USBSTS status bits of mask that read as set (2.3.2: write 1 to clear), and
 * only those: Bochs' EHCI toggles each bit written as 1, so a bit written that read as 0
 * would be set. Linux's ehci-hcd writes back what it read in the same way. */
static void sts_ack(struct ehci_hc *hc, uint32_t mask)
{
	uint32_t set = op_rd(hc, EHCI_USBSTS) & mask & EHCI_STS_RWC_ALL;
	if (set)
		op_wr(hc, EHCI_USBSTS, set);
}

/* Writes PORTSC with set and without clear, its change bits (2.3.9: write 1 to clear)
 * written as 0 but those of ack that read as set, which are cleared. */
static void port_write_ack(struct ehci_hc *hc, unsigned p, uint32_t set, uint32_t clear, uint32_t ack)
{
	uint32_t sc = op_rd(hc, EHCI_PORTSC(p));
	op_wr(hc, EHCI_PORTSC(p), (sc & ~EHCI_PORT_RWC & ~clear) | set | (sc & ack & EHCI_PORT_RWC));
}

static void port_write(struct ehci_hc *hc, unsigned p, uint32_t set, uint32_t clear)
{
	port_write_ack(hc, p, set, clear, 0);
}

/* Wait until (operational register & mask) == want; false when the polls run out. */
static bool wait_op(const struct ehci_hc *hc, uint32_t off, uint32_t mask, uint32_t want, unsigned polls)
{
	struct poll_bound b;

	for (poll_bound_start(&b, polls); !poll_bound_spent(&b);) {
		if ((op_rd(hc, off) & mask) == want)
			return true;
		poll_pause();
	}
	return false;
}

/* ---- taking the controller ---- */

/* USB legacy support (2.1.7, 5.1): set HC OS Owned, wait for HC BIOS Owned to clear, then
 * turn the SMIs off. A BIOS that keeps its semaphore is overruled, with a note. */
static void legacy_handoff(struct ehci_hc *hc, const struct pci_dev *pci, char *note, size_t notelen)
{
	unsigned off = cap_rd(hc, EHCI_HCCPARAMS) >> EHCI_HCC_EECP_SHIFT & EHCI_HCC_EECP_MASK;

	for (unsigned n = 0; off >= EHCI_EXTCAP_FIRST && n < EXTCAPS_MAX; n++) {
		uint32_t v = pci_dev_read32(pci, off);
		if ((v & EHCI_EXTCAP_ID_MASK) != EHCI_EXTCAP_LEGACY) {
			off = v >> EHCI_EXTCAP_NEXT_SHIFT & EHCI_EXTCAP_NEXT_MASK;
			continue;
		}
		pci_write32(pci->bus, pci->dev, pci->fn, off, v | EHCI_USBLEGSUP_OS_OWNED);
		struct poll_bound b;
		poll_bound_start(&b, HANDOFF_POLLS);
		while ((pci_dev_read32(pci, off) & EHCI_USBLEGSUP_BIOS_OWNED) && !poll_bound_spent(&b))
			poll_pause();
		if (pci_dev_read32(pci, off) & EHCI_USBLEGSUP_BIOS_OWNED) {
			fmt_text(note, notelen, "%s: the BIOS kept the controller (USBLEGSUP 0x%08x) for " POLLS_TEXT
				 "; taken anyway", hc->name, pci_dev_read32(pci, off), POLLS_ARGS(HANDOFF_POLLS));
			pci_write32(pci->bus, pci->dev, pci->fn, off,
				    (pci_dev_read32(pci, off) & ~EHCI_USBLEGSUP_BIOS_OWNED) | EHCI_USBLEGSUP_OS_OWNED);
		}
		uint32_t ctl = pci_dev_read32(pci, off + EHCI_USBLEGCTLSTS);
		pci_write32(pci->bus, pci->dev, pci->fn, off + EHCI_USBLEGCTLSTS,
			    (ctl & ~EHCI_USBLEGCTLSTS_SMI_ENABLES) | EHCI_USBLEGCTLSTS_SMI_RWC);
		return;
	}
}

/* Stop the controller, reset it (2.3.1: HCRESET only while halted). */
static int hc_reset(struct ehci_hc *hc, char *err, size_t errlen)
{
	op_wr(hc, EHCI_USBCMD, op_rd(hc, EHCI_USBCMD) & ~(EHCI_CMD_RS | EHCI_CMD_ASE | EHCI_CMD_PSE));
	if (!wait_op(hc, EHCI_USBSTS, EHCI_STS_HCHALTED, EHCI_STS_HCHALTED, HALT_POLLS))
		return fmt_error(err, errlen, "%s: the controller does not halt (USBSTS 0x%08x)", hc->name,
				 op_rd(hc, EHCI_USBSTS));
	op_wr(hc, EHCI_USBCMD, EHCI_CMD_HCRESET);
	if (!wait_op(hc, EHCI_USBCMD, EHCI_CMD_HCRESET, 0, RESET_POLLS))
		return fmt_error(err, errlen, "%s: the controller reset does not finish", hc->name);
	return 0;
}

static struct ehci_qh *qh_of(struct ehci_hc *hc, unsigned slot, unsigned which)
{
	return &hc->qh_pool[1 + QH_PER_DEV * slot + which];
}

/* A queue head with nothing to do: no qTD, inactive overlay. */
static void qh_init(struct ehci_qh *qh, uint32_t chars)
{
	qh->chars = chars;
	qh->caps = EHCI_QH_MULT_ONE;
	qh->current = 0;
	qh->overlay.next = EHCI_LINK_TERMINATE;
	qh->overlay.alt_next = EHCI_LINK_TERMINATE;
	qh->overlay.token = 0;
}

/* Start or stop the asynchronous schedule (4.8: ASE, followed by ASS; ASE changes only once
 * ASS has followed the last change). */
static int schedule_run(struct ehci_hc *hc, bool on)
{
	uint32_t cmd = op_rd(hc, EHCI_USBCMD), want = on ? EHCI_STS_ASS : 0;

	if (!wait_op(hc, EHCI_USBSTS, EHCI_STS_ASS, (cmd & EHCI_CMD_ASE) ? EHCI_STS_ASS : 0, SCHEDULE_POLLS))
		return -1;
	if ((op_rd(hc, EHCI_USBSTS) & EHCI_STS_ASS) == want)
		return 0;
	op_wr(hc, EHCI_USBCMD, on ? cmd | EHCI_CMD_ASE : cmd & ~EHCI_CMD_ASE);
	return wait_op(hc, EHCI_USBSTS, EHCI_STS_ASS, want, SCHEDULE_POLLS) ? 0 : -1;
}

int ehci_idle(struct ehci_hc *hc, char *err, size_t errlen)
{
	if (schedule_run(hc, false))
		return fmt_error(err, errlen, "%s: the asynchronous schedule does not stop", hc->name);
	return 0;
}

/* The asynchronous schedule (4.8): a head queue head linked to itself, never active, with
 * the controller running; the schedule itself is checked to start and stop. */
static int schedule_start(struct ehci_hc *hc, char *err, size_t errlen)
{
	uint8_t *base = hc->dma.virt;

	hc->qh_pool = (struct ehci_qh *)(base + DMA_QH_POOL);
	hc->qtd = (struct ehci_qtd *)(base + DMA_QTDS);
	hc->setup = base + DMA_SETUP;
	hc->bounce = base + DMA_BOUNCE;
	memset((void *)hc->qh_pool, 0, DMA_QHS * sizeof(struct ehci_qh));
	hc->head = &hc->qh_pool[0];
	qh_init(hc->head, EHCI_QH_HEAD | EHCI_QH_EPS_HIGH);
	hc->head->overlay.token = EHCI_QTD_HALTED;
	hc->head->link = dma_phys_of(&hc->dma, hc->head) | EHCI_LINK_TYPE_QH;
	if (cap_rd(hc, EHCI_HCCPARAMS) & EHCI_HCC_AC64)
		op_wr(hc, EHCI_CTRLDSSEGMENT, 0);
	op_wr(hc, EHCI_USBINTR, 0);
	sts_ack(hc, EHCI_STS_RWC_ALL);
	op_wr(hc, EHCI_ASYNCLISTADDR, dma_phys_of(&hc->dma, hc->head));
	op_wr(hc, EHCI_USBCMD, EHCI_CMD_ITC(ITC_ONE_MS) | EHCI_CMD_RS);
	if (!wait_op(hc, EHCI_USBSTS, EHCI_STS_HCHALTED, 0, HALT_POLLS))
		return fmt_error(err, errlen, "%s: the controller does not start (USBSTS 0x%08x)", hc->name,
				 op_rd(hc, EHCI_USBSTS));
	if (schedule_run(hc, true) || schedule_run(hc, false))
		return fmt_error(err, errlen, "%s: the asynchronous schedule does not start and stop", hc->name);
	return 0;
}

/* Route every port to this controller (CONFIGFLAG; a reset gave them to the companions),
 * power them where software switches power, and let connections settle. */
static void ports_route(struct ehci_hc *hc)
{
	op_wr(hc, EHCI_CONFIGFLAG, EHCI_CONFIGFLAG_CF);
	if (cap_rd(hc, EHCI_HCSPARAMS) & EHCI_HCS_PPC) {
		for (unsigned p = 0; p < hc->nports; p++)
			port_write(hc, p, EHCI_PORT_PP, 0);
		poll_delay(PORT_POWER_POLLS);
	}
	poll_delay(CONNECT_DEBOUNCE_POLLS);
}

int ehci_open(struct ehci_hc *hc, const struct pci_dev *pci, volatile uint8_t *regs, const struct dma_region *dma,
	      char *note, size_t notelen, char *err, size_t errlen)
{
	note[0] = 0;
	hc->cap = regs;
	hc->op = regs + (cap_rd(hc, EHCI_CAPLENGTH_HCIVERSION) & EHCI_CAPLENGTH_MASK);
	hc->dma = *dma;
	hc->ndevs = 0;
	hc->next_address = 1;
	uint32_t hcs = cap_rd(hc, EHCI_HCSPARAMS);
	hc->nports = hcs & EHCI_HCS_N_PORTS_MASK;
	hc->ncompanions = hcs >> EHCI_HCS_N_CC_SHIFT & EHCI_HCS_N_CC_MASK;
	if (dma->size < EHCI_DMA_BYTES || dma->phys % EHCI_PAGE || dma->phys + dma->size > (1ull << 32))
		return fmt_error(err, errlen, "%s: DMA memory too small, misaligned or above 4 GiB", hc->name);
	if ((uintptr_t)hc->op - (uintptr_t)regs < EHCI_HCCPARAMS + 4 ||
	    (uintptr_t)hc->op - (uintptr_t)regs + EHCI_PORTSC(hc->nports) > EHCI_MMIO_BYTES || hc->nports == 0)
		return fmt_error(err, errlen, "%s: implausible capability registers (CAPLENGTH/HCIVERSION 0x%08x, "
				 "HCSPARAMS 0x%08x)", hc->name, cap_rd(hc, EHCI_CAPLENGTH_HCIVERSION), hcs);
	legacy_handoff(hc, pci, note, notelen);
	if (hc_reset(hc, err, errlen) || schedule_start(hc, err, errlen))
		return -1;
	ports_route(hc);
	return 0;
}

/* ---- queue heads in the schedule ---- */

/* Insert qh after the head (4.8.1: safe even while the schedule runs). */
static void qh_link(struct ehci_hc *hc, struct ehci_qh *qh)
{
	qh->link = hc->head->link;
	__asm__ volatile("" ::: "memory");
	hc->head->link = dma_phys_of(&hc->dma, qh) | EHCI_LINK_TYPE_QH;
}

/* The queue head a horizontal link points to: one of ours, or NULL. */
static struct ehci_qh *qh_at(struct ehci_hc *hc, uint32_t link)
{
	uint32_t pool = dma_phys_of(&hc->dma, hc->qh_pool), addr = link & EHCI_LINK_ADDR_MASK;

	if ((link & EHCI_LINK_TERMINATE) || addr < pool || (addr - pool) % sizeof(struct ehci_qh) ||
	    (addr - pool) / sizeof(struct ehci_qh) >= DMA_QHS)
		return NULL;
	return &hc->qh_pool[(addr - pool) / sizeof(struct ehci_qh)];
}

/* Take qh out of the schedule and, while the schedule runs, wait until the controller holds
 * no copy of it (4.8.2: the async advance doorbell). */
static int qh_unlink(struct ehci_hc *hc, struct ehci_qh *qh)
{
	struct ehci_qh *prev = hc->head;

	for (unsigned n = 0; prev && qh_at(hc, prev->link) != qh && n < DMA_QHS; n++)
		prev = qh_at(hc, prev->link);
	if (!prev || qh_at(hc, prev->link) != qh)
		return -1;
	prev->link = qh->link;
	if (!(op_rd(hc, EHCI_USBSTS) & EHCI_STS_ASS))
		return 0;       /* the controller is not walking the list */
	sts_ack(hc, EHCI_STS_IAA);
	op_wr(hc, EHCI_USBCMD, op_rd(hc, EHCI_USBCMD) | EHCI_CMD_IAAD);
	if (!wait_op(hc, EHCI_USBSTS, EHCI_STS_IAA, EHCI_STS_IAA, SCHEDULE_POLLS))
		return -1;
	sts_ack(hc, EHCI_STS_IAA);
	return 0;
}

/* ---- transfers ---- */

/* A qTD of len bytes at phys (within one qTD's reach of a page boundary). */
static void qtd_fill(struct ehci_hc *hc, struct ehci_qtd *q, uint32_t token, uint32_t len, uint32_t phys,
		     const struct ehci_qtd *next, const struct ehci_qtd *alt)
{
	q->next = next ? dma_phys_of(&hc->dma, next) : EHCI_LINK_TERMINATE;
	q->alt_next = alt ? dma_phys_of(&hc->dma, alt) : EHCI_LINK_TERMINATE;
	q->buf[0] = phys;
	for (unsigned i = 1; i < EHCI_QTD_BUFFERS; i++)
		q->buf[i] = (phys & ~(EHCI_PAGE - 1)) + i * EHCI_PAGE;
	for (unsigned i = 0; i < EHCI_QTD_BUFFERS; i++)
		q->buf_hi[i] = 0;
	q->token = token | EHCI_QTD_BYTES(len) | EHCI_QTD_CERR(QTD_CERR_RETRIES) | EHCI_QTD_ACTIVE;
}

static uint32_t qtd_left(const struct ehci_qtd *q)
{
	return q->token >> EHCI_QTD_BYTES_SHIFT & EHCI_QTD_BYTES_MASK;
}

/* Why a qTD halted (3.5.3), the first that applies; with none of these and errors left in
 * CERR, the endpoint returned STALL. */
static const struct {
	uint32_t bit;
	const char *what;
} halt_reasons[] = {
	{ EHCI_QTD_BUFFER_ERR, "a data buffer error (the controller could not reach memory in time)" },
	{ EHCI_QTD_BABBLE, "babble (the device sent more than asked for)" },
	{ EHCI_QTD_MISSED_UFRAME, "a missed micro-frame" },
	{ EHCI_QTD_XACT_ERR, "transaction errors (no answer, a bad CRC or a timeout, 3 times)" },
};

static int halted(const char *what, uint32_t token, char *err, size_t errlen)
{
	for (unsigned i = 0; i < sizeof(halt_reasons) / sizeof(halt_reasons[0]); i++)
		if (token & halt_reasons[i].bit)
			return fmt_error(err, errlen, "%s on %s (qTD token 0x%08x)", halt_reasons[i].what, what,
					 token);
	if (token >> EHCI_QTD_CERR_SHIFT & EHCI_QTD_CERR_MASK) {
		fmt_error(err, errlen, "%s stalled", what);
		return USB_XFER_STALL;
	}
	return fmt_error(err, errlen, "%s halted (qTD token 0x%08x)", what, token);
}

/* The device stopped answering: its queue heads leave the schedule, and every later
 * transfer fails at once. */
static void dev_kill(struct ehci_dev *ed)
{
	struct ehci_qh *qhs[] = { ed->ep0, ed->bulk_in, ed->bulk_out };

	ed->dead = true;
	for (unsigned i = 0; i < sizeof(qhs) / sizeof(qhs[0]); i++)
		if (qhs[i])
			qh_unlink(ed->hc, qhs[i]);
}

/* The device's port still connected and enabled; a stick pulled out answers nothing, and
 * its transfers end at once rather than at the timeout. */
static bool dev_present(const struct ehci_dev *ed, uint32_t *portsc)
{
	*portsc = op_rd(ed->hc, EHCI_PORTSC(ed->port - 1));
	return (*portsc & (EHCI_PORT_CCS | EHCI_PORT_PE)) == (EHCI_PORT_CCS | EHCI_PORT_PE);
}

enum { QTDS_DONE, QTDS_HALTED, QTDS_GONE, QTDS_TIMEOUT };

/* Wait until the last of q[0..n-1] is done or one halts (its token in *halted_token), the
 * port being looked at every PORT_CHECK_POLLS polls. */
static int poll_qtds(const struct ehci_dev *ed, const struct ehci_qtd *q, unsigned n, unsigned polls,
		     uint32_t *halted_token, uint32_t *portsc)
{
	struct poll_bound b;
	poll_bound_start(&b, polls);
	for (unsigned i = 0; !poll_bound_spent(&b); i++) {
		unsigned k = 0;
		while (k < n && !(q[k].token & (EHCI_QTD_ACTIVE | EHCI_QTD_HALTED)))
			k++;
		if (k == n) {
			__asm__ volatile("" ::: "memory");
			return QTDS_DONE;
		}
		if (q[k].token & EHCI_QTD_HALTED) {
			*halted_token = q[k].token;
			return QTDS_HALTED;
		}
		if (i % PORT_CHECK_POLLS == PORT_CHECK_POLLS - 1 && !dev_present(ed, portsc))
			return QTDS_GONE;
		poll_pause();
	}
	return QTDS_TIMEOUT;
}

/* A device whose port lost it: out of the schedule, and USB_XFER_GONE from now on. */
static int dev_gone(struct ehci_dev *ed, uint32_t portsc, char *err, size_t errlen)
{
	dev_kill(ed);
	ed->gone = true;
	return fmt_error(err, errlen, "the device is gone (PORTSC 0x%08x)", portsc), USB_XFER_GONE;
}

/* Hand the chain q[0..n-1] to qh, whose overlay is idle, with the schedule running (it runs
 * on until ehci_idle), and wait until the last qTD is done or one halts. A halted queue head
 * is made idle again, its data toggle kept. */
static int run_qtds(struct ehci_dev *ed, struct ehci_qh *qh, unsigned n, unsigned polls, const char *what,
		    char *err, size_t errlen)
{
	struct ehci_hc *hc = ed->hc;
	uint32_t token = 0, portsc;

	if (ed->gone)
		return fmt_error(err, errlen, "the device is gone"), USB_XFER_GONE;
	if (ed->dead)
		return fmt_error(err, errlen, "the device stopped answering earlier");
	if (!dev_present(ed, &portsc))
		return dev_gone(ed, portsc, err, errlen);
	if (schedule_run(hc, true))
		return fmt_error(err, errlen, "the controller's asynchronous schedule does not start");
	__asm__ volatile("" ::: "memory");
	qh->overlay.next = dma_phys_of(&hc->dma, &hc->qtd[0]);
	switch (poll_qtds(ed, hc->qtd, n, polls, &token, &portsc)) {
	case QTDS_DONE:
		return 0;
	case QTDS_HALTED:
		qh->overlay.next = EHCI_LINK_TERMINATE;
		qh->overlay.alt_next = EHCI_LINK_TERMINATE;
		qh->overlay.token &= EHCI_QTD_TOGGLE;
		return halted(what, token, err, errlen);
	case QTDS_GONE:
		return dev_gone(ed, portsc, err, errlen);
	default:
		dev_kill(ed);
		return fmt_error(err, errlen, "timeout: %s did not finish within " POLLS_TEXT, what, POLLS_ARGS(polls));
	}
}

/* Setup, data (if any) and status stages (USB 2.0 8.5.3), toggles set in each qTD: the
 * data stage starts with DATA1, the status stage is DATA1. A short IN data stage goes on
 * to the status stage (the data qTD's alternate next). */
static int ehci_control(struct usb_dev *d, const struct usb_setup *setup, void *data, uint16_t len,
			uint32_t *done, char *err, size_t errlen)
{
	struct ehci_dev *ed = d->hc_dev;
	struct ehci_hc *hc = ed->hc;
	struct ehci_qtd *q = hc->qtd, *status = len ? &q[2] : &q[1];
	bool in = setup->request_type & USB_DIR_IN;
	char what[48];

	if (done)
		*done = 0;
	if (len > EHCI_BOUNCE_BYTES)
		return fmt_error(err, errlen, "a control transfer of %u bytes (at most %u)", len,
				 EHCI_BOUNCE_BYTES);
	memcpy(hc->setup, setup, sizeof(*setup));
	if (len && !in)
		memcpy(hc->bounce, data, len);
	qtd_fill(hc, &q[0], EHCI_QTD_PID_SETUP, sizeof(*setup), dma_phys_of(&hc->dma, hc->setup), &q[1], NULL);
	if (len)
		qtd_fill(hc, &q[1], (in ? EHCI_QTD_PID_IN : EHCI_QTD_PID_OUT) | EHCI_QTD_TOGGLE, len,
			 dma_phys_of(&hc->dma, hc->bounce), status, status);
	qtd_fill(hc, status, (in && len ? EHCI_QTD_PID_OUT : EHCI_QTD_PID_IN) | EHCI_QTD_TOGGLE | EHCI_QTD_IOC, 0,
		 0, NULL, NULL);
	usb_request_text(setup, what, sizeof(what));
	int r = run_qtds(ed, ed->ep0, len ? 3 : 2, CONTROL_POLLS, what, err, errlen);
	uint32_t moved = len ? len - qtd_left(&q[1]) : 0;
	if (in && moved)
		memcpy(data, hc->bounce, moved);
	if (done)
		*done = moved;
	return r;
}

/* len bytes in pieces of the bounce buffer, one qTD each; the queue head keeps the data
 * toggle (DTC 0). A short IN piece ends the transfer. */
static int ehci_bulk(struct usb_dev *d, int in, void *buf, uint32_t len, uint32_t *done, char *err, size_t errlen)
{
	struct ehci_dev *ed = d->hc_dev;
	struct ehci_hc *hc = ed->hc;
	struct ehci_qh *qh = in ? ed->bulk_in : ed->bulk_out;
	uint32_t total = 0;
	char what[40];

	*done = 0;
	if (!qh)
		return fmt_error(err, errlen, "a bulk transfer before the endpoints were configured");
	bp_snprintf(what, sizeof(what), "bulk endpoint %u %s", in ? d->ep_in : d->ep_out, in ? "IN" : "OUT");
	while (total < len) {
		uint32_t n = len - total < EHCI_BOUNCE_BYTES ? len - total : EHCI_BOUNCE_BYTES;
		if (!in)
			memcpy(hc->bounce, (uint8_t *)buf + total, n);
		qtd_fill(hc, &hc->qtd[0], (in ? EHCI_QTD_PID_IN : EHCI_QTD_PID_OUT) | EHCI_QTD_IOC, n,
			 dma_phys_of(&hc->dma, hc->bounce), NULL, NULL);
		int r = run_qtds(ed, qh, 1, BULK_POLLS, what, err, errlen);
		uint32_t got = n - qtd_left(&hc->qtd[0]);
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

static void bulk_qh_init(struct ehci_dev *ed, struct ehci_qh *qh, uint8_t ep, uint16_t max_packet)
{
	qh_init(qh, EHCI_QH_ADDR(ed->usb.address) | EHCI_QH_ENDPT(ep) | EHCI_QH_EPS_HIGH |
		EHCI_QH_MAXPKT(max_packet));
}

/* Queue heads for the interface's two bulk endpoints, in the schedule. */
static int ehci_configure_bulk(struct usb_dev *d, char *err, size_t errlen)
{
	struct ehci_dev *ed = d->hc_dev;
	struct ehci_hc *hc = ed->hc;
	unsigned slot = (unsigned)(ed - hc->devs);

	if (ed->dead)
		return fmt_error(err, errlen, "the device stopped answering earlier");
	if (ed->bulk_in && (qh_unlink(hc, ed->bulk_in) || qh_unlink(hc, ed->bulk_out)))
		return fmt_error(err, errlen, "the controller does not answer the async advance doorbell");
	ed->bulk_in = qh_of(hc, slot, QH_BULK_IN);
	ed->bulk_out = qh_of(hc, slot, QH_BULK_OUT);
	bulk_qh_init(ed, ed->bulk_in, d->ep_in, d->ep_in_max_packet);
	bulk_qh_init(ed, ed->bulk_out, d->ep_out, d->ep_out_max_packet);
	qh_link(hc, ed->bulk_in);
	qh_link(hc, ed->bulk_out);
	return 0;
}

/* After CLEAR_FEATURE(ENDPOINT_HALT) the device's toggle is DATA0: so is the queue head's.
 * The queue head is idle (transfers are synchronous), so its overlay is ours to write. */
static int ehci_reset_bulk(struct usb_dev *d, int in, char *err, size_t errlen)
{
	struct ehci_dev *ed = d->hc_dev;
	struct ehci_qh *qh = in ? ed->bulk_in : ed->bulk_out;

	if (!qh)
		return fmt_error(err, errlen, "an endpoint reset before the endpoints were configured");
	qh->overlay.next = EHCI_LINK_TERMINATE;
	qh->overlay.alt_next = EHCI_LINK_TERMINATE;
	qh->overlay.token = 0;
	return 0;
}

static int ehci_attach_child(struct usb_dev *hub, unsigned port, enum usb_speed speed, struct usb_dev **out,
			     char *err, size_t errlen);

static const struct usb_hc_ops ehci_ops = {
	.control = ehci_control,
	.configure_bulk = ehci_configure_bulk,
	.bulk = ehci_bulk,
	.reset_bulk = ehci_reset_bulk,
	.delay = usb_poll_delay,
	.attach_child = ehci_attach_child,
};

/* ---- ports and devices ---- */

/* Hand a full- or low-speed device to the companion controller (4.2.2). */
static enum ehci_port_state port_release(struct ehci_hc *hc, unsigned port, const char *speed, char *msg,
					 size_t msglen)
{
	port_write(hc, port - 1, EHCI_PORT_OWNER, 0);
	if (hc->ncompanions)
		bp_snprintf(msg, msglen, "%s, port %u: a %s device, left to the companion controller (bareperf "
			    "serves only high-speed devices on EHCI)", hc->name, port, speed);
	else
		bp_snprintf(msg, msglen, "%s, port %u: a %s device, which this controller (without companion "
			    "controllers) cannot serve", hc->name, port, speed);
	return EHCI_PORT_SKIPPED;
}

/* Reset the port (hold PR 50 ms, then clear it) and report whether it is enabled: a
 * high-speed device (4.2.2). */
static bool port_reset(struct ehci_hc *hc, unsigned p)
{
	port_write(hc, p, EHCI_PORT_PR, EHCI_PORT_PE);
	poll_delay(PORT_RESET_HOLD_POLLS);
	port_write(hc, p, 0, EHCI_PORT_PR);
	if (!wait_op(hc, EHCI_PORTSC(p), EHCI_PORT_PR, 0, PORT_RESET_END_POLLS))
		return false;
	poll_delay(RESET_RECOVERY_POLLS);
	return (op_rd(hc, EHCI_PORTSC(p)) & (EHCI_PORT_PE | EHCI_PORT_CCS)) == (EHCI_PORT_PE | EHCI_PORT_CCS);
}

/* At address 0: the next address (usb_set_address); EP0's queue head then leaves the
 * schedule to take it (4.8.2). */
static int dev_address(struct ehci_dev *ed, char *err, size_t errlen)
{
	struct ehci_hc *hc = ed->hc;

	if (usb_set_address(&ed->usb, hc->next_address, err, errlen))
		return -1;
	hc->next_address++;
	if (qh_unlink(hc, ed->ep0))
		return fmt_error(err, errlen, "the controller does not answer the async advance doorbell");
	ed->ep0->chars = (ed->ep0->chars & ~EHCI_QH_ADDR_MASK) | EHCI_QH_ADDR(ed->usb.address);
	qh_link(hc, ed->ep0);
	return 0;
}

/* A high-speed device just reset on root port port (or behind a hub there): the next
 * device slot, EP0 at address 0, then its address. 0 with *out ready, or -1 with the
 * reason (naming where) in msg. */
static int dev_attach(struct ehci_hc *hc, unsigned port, const char *where, struct usb_dev **out, char *msg,
		      size_t msglen)
{
	unsigned slot = hc->ndevs;
	char why[USB_ERR_MAX];

	if (slot == EHCI_DEVS_MAX || hc->next_address > ADDRESS_MAX)
		return fmt_error(msg, msglen, "%s: bareperf serves %u devices per controller", where, EHCI_DEVS_MAX);
	struct ehci_dev *ed = &hc->devs[slot];
	memset(ed, 0, sizeof(*ed));
	ed->hc = hc;
	ed->port = port;
	ed->usb.ops = &ehci_ops;
	ed->usb.hc = hc;
	ed->usb.hc_dev = ed;
	ed->usb.speed = USB_SPEED_HIGH;
	ed->usb.ep0_max_packet = USB_HS_EP0_MAX_PACKET;
	str_copy(ed->usb.where, where, sizeof(ed->usb.where));
	ed->ep0 = qh_of(hc, slot, QH_EP0);
	qh_init(ed->ep0, EHCI_QH_ADDR(0) | EHCI_QH_ENDPT(0) | EHCI_QH_EPS_HIGH | EHCI_QH_DTC |
		EHCI_QH_MAXPKT(USB_HS_EP0_MAX_PACKET));
	qh_link(hc, ed->ep0);
	if (dev_address(ed, why, sizeof(why))) {
		if (!ed->dead)
			qh_unlink(hc, ed->ep0);
		return fmt_error(msg, msglen, "%s: %s", where, why);
	}
	hc->ndevs++;
	*out = &ed->usb;
	return 0;
}

enum ehci_port_state ehci_port_attach(struct ehci_hc *hc, unsigned port, struct usb_dev **out, char *msg,
				      size_t msglen)
{
	unsigned p = port - 1;
	uint32_t sc = op_rd(hc, EHCI_PORTSC(p));
	char where[USB_WHERE_MAX];

	if (!(sc & EHCI_PORT_CCS) || (sc & EHCI_PORT_OWNER))
		return EHCI_PORT_EMPTY;
	port_write_ack(hc, p, 0, 0, EHCI_PORT_CSC);
	if ((sc >> EHCI_PORT_LS_SHIFT & EHCI_PORT_LS_MASK) == EHCI_PORT_LS_K)
		return port_release(hc, port, "low-speed", msg, msglen);
	if (!port_reset(hc, p)) {
		if (!(op_rd(hc, EHCI_PORTSC(p)) & EHCI_PORT_CCS))
			return bp_snprintf(msg, msglen, "%s, port %u: the device left during the port reset",
					   hc->name, port), EHCI_PORT_FAILED;
		return port_release(hc, port, "full-speed", msg, msglen);
	}
	bp_snprintf(where, sizeof(where), "%s, port %u", hc->name, port);
	return dev_attach(hc, port, where, out, msg, msglen) ? EHCI_PORT_FAILED : EHCI_PORT_DEVICE;
}

/* A device behind a hub on a root port (drivers/usb-hub.c reset the hub's port): a
 * high-speed one is addressed as on a root port, and is then reached through the hub
 * without the controller knowing it (4.12: only full- and low-speed devices need the hub's
 * transaction translator, in split transactions, which bareperf does not drive). Intel's
 * EHCIs from the 5 Series on have such a hub on every root port (the rate-matching hub). */
static int ehci_attach_child(struct usb_dev *hub, unsigned port, enum usb_speed speed, struct usb_dev **out,
			     char *err, size_t errlen)
{
	struct ehci_dev *hd = hub->hc_dev;
	char where[USB_WHERE_MAX];

	bp_snprintf(where, sizeof(where), "%s.%u", hub->where, port);
	if (speed != USB_SPEED_HIGH)
		return fmt_error(err, errlen, "%s: a %s device behind a hub, which bareperf does not serve on EHCI "
				 "(split transactions)", where, speed == USB_SPEED_LOW ? "low-speed" : "full-speed");
	return dev_attach(hd->hc, hd->port, where, out, err, errlen);
}
