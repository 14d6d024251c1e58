#include "drivers/uhci.h"
#include "drivers/mmio.h"
#include "drivers/poll.h"
#include "lib/format.h"
#include "lib/str.h"

/* Waits are counted in polls, each after a read of port 0x80 (about 1 us), as drivers/ehci.c
 * does. The times are USB 2.0's (7.1.7.3, 7.1.7.5, 9.2.6.3) with a margin. */
#define HALT_POLLS              (100 * POLLS_PER_MS)    /* a frame, by the guide (2.1.2) */
#define RESET_POLLS             (100 * POLLS_PER_MS)
#define CONNECT_DEBOUNCE_POLLS  (100 * POLLS_PER_MS)    /* TATTDB */
#define PORT_RESET_HOLD_POLLS   (50 * POLLS_PER_MS)     /* TDRSTR for a root port */
#define PORT_ENABLE_POLLS       (100 * POLLS_PER_MS)
#define PORT_ENABLE_TRIES       10
#define RESET_RECOVERY_POLLS    (10 * POLLS_PER_MS)     /* TRSTRCY */
#define RESUME_RECOVERY_POLLS   (10 * POLLS_PER_MS)     /* TRSMRCY */
#define CONTROL_POLLS           (1000 * POLLS_PER_MS)
#define BULK_POLLS              (5000 * POLLS_PER_MS)   /* a stick may take seconds to write */
#define PORT_CHECK_POLLS        1024
#define TD_CERR_RETRIES         3
#define ADDRESS_MAX             127

/* The second page: the queue head, the setup packet, then the TDs. */
#define DMA_FRAMES              0
#define DMA_QH                  UHCI_PAGE
#define DMA_SETUP               (DMA_QH + sizeof(struct uhci_qh))
#define DMA_TDS                 (DMA_SETUP + 16)
#define DMA_BOUNCE              (2 * UHCI_PAGE)
_Static_assert(DMA_TDS + UHCI_TDS * sizeof(struct uhci_td) <= DMA_BOUNCE, "the TDs overflow their page");

static uint16_t rd16(const struct uhci_hc *hc, uint16_t off)
{
	return inw((uint16_t)(hc->io + off));
}

static void wr16(struct uhci_hc *hc, uint16_t off, uint16_t v)
{
	outw((uint16_t)(hc->io + off), v);
}

static bool wait16(const struct uhci_hc *hc, uint16_t off, uint16_t mask, uint16_t want, unsigned polls)
{
	struct poll_bound b;

	for (poll_bound_start(&b, polls); !poll_bound_spent(&b);) {
		if ((rd16(hc, off) & mask) == want)
			return true;
		poll_pause();
	}
	return false;
}

/* Clear USBSTS's event bits that are set, and only those (HCHalted, write-1-to-clear as
 * well, stays: it tells whether the controller runs). */
static void status_clear(struct uhci_hc *hc)
{
	uint16_t sts = rd16(hc, UHCI_USBSTS) & UHCI_STS_EVENTS;
	if (sts)
		wr16(hc, UHCI_USBSTS, sts);
}

/* ---- taking the controller ---- */

/* The firmware's legacy keyboard emulation and its SMIs off (LEGSUP enables cleared, the
 * trap status bits read as set cleared), and no PIRQ: bareperf polls. */
static void legacy_handoff(const struct pci_dev *pci)
{
	uint32_t v = pci_dev_read32(pci, UHCI_LEGSUP);
	uint32_t legsup = v & UHCI_LEGSUP_MASK, hi = v & ~UHCI_LEGSUP_MASK;

	legsup = (legsup & UHCI_LEGSUP_RWC) | (legsup & ~(UHCI_LEGSUP_RWC | UHCI_LEGSUP_SMI_ENABLES | UHCI_LEGSUP_PIRQ));
	pci_write32(pci->bus, pci->dev, pci->fn, UHCI_LEGSUP, hi | legsup);
}

/* Stop, reset (HCRESET, which also resets the ports), no interrupts. */
static int hc_reset(struct uhci_hc *hc, char *err, size_t errlen)
{
	wr16(hc, UHCI_USBCMD, (uint16_t)(rd16(hc, UHCI_USBCMD) & ~UHCI_CMD_RS));
	if (!wait16(hc, UHCI_USBSTS, UHCI_STS_HCHALTED, UHCI_STS_HCHALTED, HALT_POLLS))
		return fmt_error(err, errlen, "%s: the controller does not halt (USBSTS 0x%04x)", hc->name,
				 rd16(hc, UHCI_USBSTS));
	wr16(hc, UHCI_USBCMD, UHCI_CMD_HCRESET);
	if (!wait16(hc, UHCI_USBCMD, UHCI_CMD_HCRESET, 0, RESET_POLLS))
		return fmt_error(err, errlen, "%s: the controller reset does not finish", hc->name);
	wr16(hc, UHCI_USBINTR, 0);
	status_clear(hc);
	return 0;
}

/* Run/Stop on, and the controller out of halt. A stopped controller sends no SOFs, and its
 * devices suspend themselves after 3 ms; the SOFs wake them, and they get the resume
 * recovery time (USB 2.0 7.1.7.7, TRSMRCY) before the first transfer. */
static int hc_run(struct uhci_hc *hc)
{
	uint16_t cmd = rd16(hc, UHCI_USBCMD);
	if ((cmd & UHCI_CMD_RS) && !(rd16(hc, UHCI_USBSTS) & UHCI_STS_HCHALTED))
		return 0;
	status_clear(hc);
	wr16(hc, UHCI_USBCMD, (uint16_t)(cmd | UHCI_CMD_RS | UHCI_CMD_CF | UHCI_CMD_MAXP));
	if (!wait16(hc, UHCI_USBSTS, UHCI_STS_HCHALTED, 0, HALT_POLLS))
		return -1;
	poll_delay(RESUME_RECOVERY_POLLS);
	return 0;
}

int uhci_idle(struct uhci_hc *hc, char *err, size_t errlen)
{
	wr16(hc, UHCI_USBCMD, (uint16_t)(rd16(hc, UHCI_USBCMD) & ~UHCI_CMD_RS));
	if (!wait16(hc, UHCI_USBSTS, UHCI_STS_HCHALTED, UHCI_STS_HCHALTED, HALT_POLLS))
		return fmt_error(err, errlen, "%s: the controller does not stop (USBSTS 0x%04x)", hc->name,
				 rd16(hc, UHCI_USBSTS));
	return 0;
}

/* Ports are told from the registers past them by the reserved bit 7 that reads 1 (2.1.7). */
static unsigned count_ports(const struct uhci_hc *hc)
{
	unsigned n = 0;
	while (n < UHCI_PORTS_MAX) {
		uint16_t sc = rd16(hc, UHCI_PORTSC(n));
		if (!(sc & UHCI_PORT_ALWAYS_1) || sc == UHCI_PORT_NONE)
			break;
		n++;
	}
	return n;
}

/* The frame list, every entry the one queue head, whose element list is empty (3.1, 3.3). */
static void schedule_init(struct uhci_hc *hc)
{
	uint8_t *base = hc->dma.virt;

	hc->frames = (volatile uint32_t *)(base + DMA_FRAMES);
	hc->qh = (struct uhci_qh *)(base + DMA_QH);
	hc->setup = base + DMA_SETUP;
	hc->td = (struct uhci_td *)(base + DMA_TDS);
	hc->bounce = base + DMA_BOUNCE;
	hc->qh->head = UHCI_LINK_TERMINATE;
	hc->qh->element = UHCI_LINK_TERMINATE;
	for (unsigned i = 0; i < UHCI_FRAMES; i++)
		hc->frames[i] = dma_phys_of(&hc->dma, hc->qh) | UHCI_LINK_QH;
}

int uhci_open(struct uhci_hc *hc, const struct pci_dev *pci, uint16_t io, const struct dma_region *dma, char *err,
	      size_t errlen)
{
	hc->io = io;
	hc->dma = *dma;
	hc->ndevs = 0;
	hc->next_address = 1;
	if (dma->size < UHCI_DMA_BYTES || dma->phys % UHCI_PAGE || dma->phys + dma->size > (1ull << 32))
		return fmt_error(err, errlen, "%s: DMA memory too small, misaligned or above 4 GiB", hc->name);
	legacy_handoff(pci);
	if (hc_reset(hc, err, errlen))
		return -1;
	hc->nports = count_ports(hc);
	if (hc->nports == 0)
		return fmt_error(err, errlen, "%s: no root ports (PORTSC1 0x%04x)", hc->name, rd16(hc, UHCI_PORTSC(0)));
	schedule_init(hc);
	outl((uint16_t)(hc->io + UHCI_FLBASEADD), dma_phys_of(&hc->dma, hc->frames));
	wr16(hc, UHCI_FRNUM, 0);
	outb((uint16_t)(hc->io + UHCI_SOFMOD), UHCI_SOFMOD_DEFAULT);
	if (hc_run(hc))
		return fmt_error(err, errlen, "%s: the controller does not start (USBSTS 0x%04x)", hc->name,
				 rd16(hc, UHCI_USBSTS));
	poll_delay(CONNECT_DEBOUNCE_POLLS);
	return 0;
}

/* ---- transfers ---- */

/* TD i of the chain: its link to the next one, depth first, or the end. */
static void td_fill(struct uhci_hc *hc, unsigned i, bool last, uint32_t status, uint32_t token, uint32_t buf)
{
	struct uhci_td *td = &hc->td[i];
	td->link = last ? UHCI_LINK_TERMINATE : dma_phys_of(&hc->dma, &hc->td[i + 1]) | UHCI_LINK_DEPTH;
	td->buffer = buf;
	td->token = token;
	td->status = status | UHCI_TD_CERR(TD_CERR_RETRIES) | UHCI_TD_ACTIVE;
}

/* Bytes a finished TD moved (ActLen, n - 1 with 0x7FF for none). */
static uint32_t td_moved(const struct uhci_td *td)
{
	return ((td->status & UHCI_TD_ACTLEN_MASK) + 1) & UHCI_TD_ACTLEN_MASK;
}

static uint32_t td_asked(const struct uhci_td *td)
{
	return ((td->token >> UHCI_TOKEN_MAXLEN_SHIFT & UHCI_TOKEN_MAXLEN_MASK) + 1) & UHCI_TOKEN_MAXLEN_MASK;
}

static uint32_t td_status_base(const struct uhci_dev *ud)
{
	return ud->usb.speed == USB_SPEED_LOW ? UHCI_TD_LS : 0;
}

static uint32_t td_token(const struct uhci_dev *ud, uint32_t pid, unsigned ep, bool toggle, uint32_t len)
{
	return pid | UHCI_TOKEN_ADDR(ud->usb.address) | UHCI_TOKEN_ENDPT(ep) | (toggle ? UHCI_TOKEN_TOGGLE : 0) |
	       UHCI_TOKEN_MAXLEN(len);
}

static const struct {
	uint32_t bit;
	const char *what;
} error_reasons[] = {
	{ UHCI_TD_DBUF_ERR, "a data buffer error (the controller could not reach memory in time)" },
	{ UHCI_TD_BABBLE, "babble (the device sent more than asked for)" },
	{ UHCI_TD_CRC_TIMEOUT, "transaction errors (no answer, a bad CRC or a timeout, 3 times)" },
	{ UHCI_TD_BITSTUFF, "bit stuffing errors" },
};

static int td_error(const char *what, uint32_t status, char *err, size_t errlen)
{
	for (unsigned i = 0; i < sizeof(error_reasons) / sizeof(error_reasons[0]); i++)
		if (status & error_reasons[i].bit)
			return fmt_error(err, errlen, "%s on %s (TD status 0x%08x)", error_reasons[i].what, what, status);
	fmt_error(err, errlen, "%s stalled", what);
	return USB_XFER_STALL;
}

static bool dev_present(const struct uhci_dev *ud, uint16_t *portsc)
{
	*portsc = rd16(ud->hc, UHCI_PORTSC(ud->port - 1));
	return (*portsc & (UHCI_PORT_CCS | UHCI_PORT_PE)) == (UHCI_PORT_CCS | UHCI_PORT_PE);
}

enum { TDS_DONE, TDS_SHORT, TDS_ERROR, TDS_GONE, TDS_TIMEOUT };

/* Wait until TDs from..n-1 are done, or one ends in an error or short (an IN TD with SPD:
 * the controller then leaves the queue where it is, 3.2.2); *at gets that TD. */
static int poll_tds(const struct uhci_dev *ud, unsigned from, unsigned n, unsigned polls, unsigned *at,
		    uint16_t *portsc)
{
	const struct uhci_td *td = ud->hc->td;

	struct poll_bound b;

	poll_bound_start(&b, polls);
	for (unsigned i = 0; !poll_bound_spent(&b); i++) {
		unsigned k = from;
		for (; k < n && !(td[k].status & UHCI_TD_ACTIVE); k++) {
			*at = k;
			if (td[k].status & UHCI_TD_ERRORS)
				return TDS_ERROR;
			if (td_moved(&td[k]) < td_asked(&td[k]) && k < n - 1)
				return TDS_SHORT;
		}
		if (k == n) {
			__asm__ volatile("" ::: "memory");
			return TDS_DONE;
		}
		if (i % PORT_CHECK_POLLS == PORT_CHECK_POLLS - 1 && !dev_present(ud, portsc))
			return TDS_GONE;
		poll_pause();
	}
	return TDS_TIMEOUT;
}

/* Hand TDs from..n-1 to the queue head and wait for them; the queue head is empty again
 * after. *at: the TD that ended the chain (short or in error) or n - 1. */
static int run_tds(struct uhci_dev *ud, unsigned from, unsigned n, unsigned polls, const char *what, unsigned *at,
		   char *err, size_t errlen)
{
	struct uhci_hc *hc = ud->hc;
	uint16_t portsc;

	*at = from;
	if (ud->gone)
		return fmt_error(err, errlen, "the device is gone"), USB_XFER_GONE;
	if (ud->dead)
		return fmt_error(err, errlen, "the device stopped answering earlier");
	if (!dev_present(ud, &portsc)) {
		ud->gone = true;
		return fmt_error(err, errlen, "the device is gone (PORTSC 0x%04x)", portsc), USB_XFER_GONE;
	}
	if (hc_run(hc))
		return fmt_error(err, errlen, "the controller does not run (USBSTS 0x%04x)", rd16(hc, UHCI_USBSTS));
	__asm__ volatile("" ::: "memory");
	hc->qh->element = dma_phys_of(&hc->dma, &hc->td[from]);
	int r = poll_tds(ud, from, n, polls, at, &portsc);
	hc->qh->element = UHCI_LINK_TERMINATE;
	switch (r) {
	case TDS_DONE:
		*at = n - 1;
		return 0;
	case TDS_SHORT:
		return 1;
	case TDS_ERROR:
		return td_error(what, hc->td[*at].status, err, errlen);
	case TDS_GONE:
		ud->gone = true;
		return fmt_error(err, errlen, "the device is gone (PORTSC 0x%04x)", portsc), USB_XFER_GONE;
	default:
		/* the controller may still hold the TD: stopped, it lets go of it (2.1.2) */
		uhci_idle(hc, err, errlen);
		ud->dead = true;
		return fmt_error(err, errlen, "timeout: %s did not finish within " POLLS_TEXT, what, POLLS_ARGS(polls));
	}
}

/* Setup (DATA0), the data stage in packets of the endpoint's size from DATA1 on, IN packets
 * with SPD, and the status stage (DATA1, the other way; USB 2.0 8.5.3). A short IN data
 * stage goes on to the status stage. */
static int uhci_control(struct usb_dev *d, const struct usb_setup *setup, void *data, uint16_t len, uint32_t *done,
			char *err, size_t errlen)
{
	struct uhci_dev *ud = d->hc_dev;
	struct uhci_hc *hc = ud->hc;
	bool in = setup->request_type & USB_DIR_IN;
	uint32_t mps = d->ep0_max_packet, base = td_status_base(ud), moved = 0;
	unsigned n = 0, at;
	char what[48];

	if (done)
		*done = 0;
	if (len > UHCI_BOUNCE_BYTES || (len + mps - 1) / mps + 2 > UHCI_TDS)
		return fmt_error(err, errlen, "a control transfer of %u bytes in packets of %u (at most %u TDs)", len,
				 mps, UHCI_TDS);
	memcpy(hc->setup, setup, sizeof(*setup));
	if (len && !in)
		memcpy(hc->bounce, data, len);
	td_fill(hc, n++, false, base, td_token(ud, UHCI_PID_SETUP, 0, false, sizeof(*setup)), dma_phys_of(&hc->dma, hc->setup));
	for (uint32_t off = 0; off < len; off += mps, n++) {
		uint32_t piece = len - off < mps ? len - off : mps;
		td_fill(hc, n, false, base | (in ? UHCI_TD_SPD : 0),
			td_token(ud, in ? UHCI_PID_IN : UHCI_PID_OUT, 0, (n & 1) != 0, piece),
			dma_phys_of(&hc->dma, hc->bounce + off));
	}
	unsigned status = n++;
	td_fill(hc, status, true, base | UHCI_TD_IOC, td_token(ud, in && len ? UHCI_PID_OUT : UHCI_PID_IN, 0, true, 0),
		0);
	usb_request_text(setup, what, sizeof(what));
	int r = run_tds(ud, 0, n, CONTROL_POLLS, what, &at, err, errlen);
	if (r == 1)             /* a short data stage: on to the status stage */
		r = run_tds(ud, status, n, CONTROL_POLLS, what, &at, err, errlen);
	for (unsigned k = 1; k < status && !(hc->td[k].status & UHCI_TD_ACTIVE); k++)
		moved += td_moved(&hc->td[k]);
	if (in && moved)
		memcpy(data, hc->bounce, moved);
	if (done)
		*done = moved;
	return r;
}

/* One piece of a bulk transfer, within the bounce buffer: TDs of the endpoint's packet size,
 * the data toggle carried from one to the next and kept in the device. */
static int bulk_piece(struct uhci_dev *ud, int in, uint32_t n, uint32_t *got, const char *what, char *err,
		      size_t errlen)
{
	struct uhci_hc *hc = ud->hc;
	struct usb_dev *d = &ud->usb;
	uint32_t mps = in ? d->ep_in_max_packet : d->ep_out_max_packet;
	bool *toggle = in ? &ud->toggle_in : &ud->toggle_out;
	unsigned ntd = 0, at;

	for (uint32_t off = 0; off < n; off += mps, ntd++) {
		uint32_t piece = n - off < mps ? n - off : mps;
		td_fill(hc, ntd, off + piece >= n, td_status_base(ud) | (in ? UHCI_TD_SPD : 0),
			td_token(ud, in ? UHCI_PID_IN : UHCI_PID_OUT, in ? d->ep_in : d->ep_out, *toggle ^ (ntd & 1), piece),
			dma_phys_of(&hc->dma, hc->bounce + off));
	}
	int r = run_tds(ud, 0, ntd, BULK_POLLS, what, &at, err, errlen);
	unsigned finished = 0;
	*got = 0;
	for (unsigned k = 0; k < ntd && !(hc->td[k].status & (UHCI_TD_ACTIVE | UHCI_TD_ERRORS)); k++) {
		*got += td_moved(&hc->td[k]);
		finished++;
	}
	*toggle ^= finished & 1;
	return r < 0 ? r : 0;
}

static int uhci_bulk(struct usb_dev *d, int in, void *buf, uint32_t len, uint32_t *done, char *err, size_t errlen)
{
	struct uhci_dev *ud = d->hc_dev;
	struct uhci_hc *hc = ud->hc;
	uint32_t mps = in ? d->ep_in_max_packet : d->ep_out_max_packet, total = 0;
	char what[40];

	*done = 0;
	if (mps == 0 || mps > UHCI_MAXLEN_MAX)
		return fmt_error(err, errlen, "a bulk endpoint with a packet size of %u", mps);
	uint32_t chunk = UHCI_TDS * mps < UHCI_BOUNCE_BYTES ? UHCI_TDS * mps : UHCI_BOUNCE_BYTES / mps * mps;
	bp_snprintf(what, sizeof(what), "bulk endpoint %u %s", in ? d->ep_in : d->ep_out, in ? "IN" : "OUT");
	while (total < len) {
		uint32_t n = len - total < chunk ? len - total : chunk, got;
		if (!in)
			memcpy(hc->bounce, (uint8_t *)buf + total, n);
		int r = bulk_piece(ud, in, n, &got, what, err, errlen);
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

/* After CLEAR_FEATURE(ENDPOINT_HALT) the endpoint's toggle is DATA0 (USB 2.0 9.4.5). */
static int uhci_reset_bulk(struct usb_dev *d, int in, char *err, size_t errlen)
{
	struct uhci_dev *ud = d->hc_dev;
	(void)err, (void)errlen;
	if (in)
		ud->toggle_in = false;
	else
		ud->toggle_out = false;
	return 0;
}

/* A new configuration starts both bulk endpoints at DATA0 (USB 2.0 9.1.1.5). */
static int uhci_configure_bulk(struct usb_dev *d, char *err, size_t errlen)
{
	struct uhci_dev *ud = d->hc_dev;
	if (ud->dead)
		return fmt_error(err, errlen, "the device stopped answering earlier");
	ud->toggle_in = ud->toggle_out = false;
	return 0;
}

static int uhci_attach_child(struct usb_dev *hub, unsigned port, enum usb_speed speed, struct usb_dev **out,
			     char *err, size_t errlen);

static const struct usb_hc_ops uhci_ops = {
	.control = uhci_control,
	.configure_bulk = uhci_configure_bulk,
	.bulk = uhci_bulk,
	.reset_bulk = uhci_reset_bulk,
	.delay = usb_poll_delay,
	.attach_child = uhci_attach_child,
};

/* ---- ports and devices ---- */

/* PORTSC with set on and clear off; the change bits are written 0 (kept) and the reserved
 * ones 0, as the guide asks (2.1.7). */
static void port_write(struct uhci_hc *hc, unsigned p, uint16_t set, uint16_t clear)
{
	uint16_t sc = rd16(hc, UHCI_PORTSC(p)) & UHCI_PORT_RW;
	wr16(hc, UHCI_PORTSC(p), (uint16_t)((sc & ~clear) | set));
}

/* Clear the change bits read as set, and only those. */
static void port_ack(struct uhci_hc *hc, unsigned p)
{
	uint16_t sc = rd16(hc, UHCI_PORTSC(p));
	if (sc & UHCI_PORT_RWC)
		wr16(hc, UHCI_PORTSC(p), (uint16_t)((sc & UHCI_PORT_RW) | (sc & UHCI_PORT_RWC)));
}

/* Reset the port (PR held 50 ms), then enable it: UHCI does not enable a port by itself.
 * Some controllers drop the first enable while the connect change is still set, so it is
 * asked again, each time after the change bits are cleared. */
static bool port_reset(struct uhci_hc *hc, unsigned p)
{
	port_write(hc, p, UHCI_PORT_PR, UHCI_PORT_PE);
	poll_delay(PORT_RESET_HOLD_POLLS);
	port_write(hc, p, 0, UHCI_PORT_PR);
	if (!wait16(hc, UHCI_PORTSC(p), UHCI_PORT_PR, 0, PORT_ENABLE_POLLS))
		return false;
	for (unsigned try = 0; try < PORT_ENABLE_TRIES; try++) {
		port_ack(hc, p);
		port_write(hc, p, UHCI_PORT_PE, 0);
		if (wait16(hc, UHCI_PORTSC(p), UHCI_PORT_PE | UHCI_PORT_CCS, UHCI_PORT_PE | UHCI_PORT_CCS,
			   PORT_ENABLE_POLLS / PORT_ENABLE_TRIES)) {
			port_ack(hc, p);
			poll_delay(RESET_RECOVERY_POLLS);
			return true;
		}
		if (!(rd16(hc, UHCI_PORTSC(p)) & UHCI_PORT_CCS))
			return false;
	}
	return false;
}

/* At address 0 with 8-byte control packets: the next address (usb_set_address). */
static int dev_address(struct uhci_dev *ud, char *err, size_t errlen)
{
	if (usb_set_address(&ud->usb, ud->hc->next_address, err, errlen))
		return -1;
	ud->hc->next_address++;
	return 0;
}

static int dev_attach(struct uhci_hc *hc, unsigned port, enum usb_speed speed, const char *where,
		      struct usb_dev **out, char *msg, size_t msglen)
{
	char why[USB_ERR_MAX];

	if (hc->ndevs == UHCI_DEVS_MAX || hc->next_address > ADDRESS_MAX)
		return fmt_error(msg, msglen, "%s: bareperf serves %u devices per controller", where, UHCI_DEVS_MAX);
	struct uhci_dev *ud = &hc->devs[hc->ndevs];
	memset(ud, 0, sizeof(*ud));
	ud->hc = hc;
	ud->port = port;
	ud->usb.ops = &uhci_ops;
	ud->usb.hc = hc;
	ud->usb.hc_dev = ud;
	ud->usb.speed = speed;
	ud->usb.ep0_max_packet = UHCI_FS_EP0_MAX_PACKET;
	str_copy(ud->usb.where, where, sizeof(ud->usb.where));
	if (dev_address(ud, why, sizeof(why)))
		return fmt_error(msg, msglen, "%s: %s", where, why);
	hc->ndevs++;
	*out = &ud->usb;
	return 0;
}

enum uhci_port_state uhci_port_attach(struct uhci_hc *hc, unsigned port, struct usb_dev **out, char *msg,
				      size_t msglen)
{
	unsigned p = port - 1;
	uint16_t sc = rd16(hc, UHCI_PORTSC(p));
	char where[USB_WHERE_MAX];

	if (!(sc & UHCI_PORT_CCS))
		return UHCI_PORT_EMPTY;
	port_ack(hc, p);
	bp_snprintf(where, sizeof(where), "%s, port %u", hc->name, port);
	if (sc & UHCI_PORT_LSDA)
		return bp_snprintf(msg, msglen, "%s: a low-speed device, which bareperf does not serve", where),
		       UHCI_PORT_SKIPPED;
	if (!port_reset(hc, p)) {
		if (!(rd16(hc, UHCI_PORTSC(p)) & UHCI_PORT_CCS))
			return bp_snprintf(msg, msglen, "%s: the device left during the port reset", where),
			       UHCI_PORT_FAILED;
		return bp_snprintf(msg, msglen, "%s: the port is not enabled after its reset (PORTSC 0x%04x)", where,
				   rd16(hc, UHCI_PORTSC(p))), UHCI_PORT_FAILED;
	}
	return dev_attach(hc, port, USB_SPEED_FULL, where, out, msg, msglen) ? UHCI_PORT_FAILED : UHCI_PORT_DEVICE;
}

/* A full-speed device behind a full-speed hub is reached as on a root port; a low-speed one
 * would need preamble packets, which bareperf does not send. */
static int uhci_attach_child(struct usb_dev *hub, unsigned port, enum usb_speed speed, struct usb_dev **out,
			     char *err, size_t errlen)
{
	struct uhci_dev *hd = hub->hc_dev;
	char where[USB_WHERE_MAX];

	bp_snprintf(where, sizeof(where), "%s.%u", hub->where, port);
	if (speed != USB_SPEED_FULL)
		return fmt_error(err, errlen, "%s: a %s device behind a hub, which bareperf does not serve on UHCI",
				 where, speed == USB_SPEED_LOW ? "low-speed" : "high-speed");
	return dev_attach(hd->hc, hd->port, USB_SPEED_FULL, where, out, err, errlen);
}
