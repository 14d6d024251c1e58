/*
 * drivers/uhci.c against a fake controller (tests/unit/fake-hw.h): I/O registers whose every
 * read and write the fake sees, a legacy support register in PCI configuration space, and a
 * frame list the fake walks at each poll delay (UHCI Design Guide 1.1, 3.1-3.4), running TDs
 * depth first for a full-speed device on root port 1: its control endpoint (8-byte packets)
 * and a bulk IN and a bulk OUT endpoint (64-byte packets), each with the device's own data
 * toggle. Status registers are checked on each write: their write-1-to-clear bits may be
 * written 1 only where the last read found them set.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "drivers/uhci.h"
#include "drivers/usb.h"
#include "tests/unit/fake-hw.h"

#define IO_BASE         0xC040u
#define NPORTS          2u
#define DEV_PORT        0u      /* 0-based: the device */
#define EP_IN           1u
#define EP_OUT          2u
#define BULK_MPS        64u

/* From the design guide, not the driver's header: USBSTS 5:0 and PORTSC 1 and 3 are
 * write-1-to-clear (2.1.2, 2.1.7); LEGSUP 15 and 11:8 (PIIX4 datasheet). */
#define STS_RWC         0x3Fu
#define PORTSC_RWC      0x000Au
#define LEGSUP_RWC      0x8F00u

static uint16_t io[UHCI_IO_BYTES / 2];
static uint32_t flbase;
static uint8_t arena[UHCI_DMA_BYTES] __attribute__((aligned(4096)));
#define PHYS_BASE       0x00300000u

static void *dma(uint32_t phys, uint32_t size)
{
	if (phys < PHYS_BASE || phys + size > PHYS_BASE + sizeof(arena))
		fail_msg("the controller was given physical address 0x%08x (%u bytes), outside the DMA memory", phys,
			 size);
	return arena + (phys - PHYS_BASE);
}

struct td_seen {
	uint8_t pid, ep;
	bool toggle;
	uint32_t maxlen;
};

static struct {
	uint16_t last_usbsts, last_portsc[NPORTS];
	uint32_t legsup, legsup_read;
	unsigned violations, delays, tds_run;
	char violation[1024];
	uint8_t address;
	struct usb_setup setup;
	uint32_t data_off;              /* of the control data stage */
	bool toggle_in, toggle_out;     /* the device's bulk toggles */
	bool nak_all, stall_in;
	uint8_t in_data[512], out_data[512];
	uint32_t in_len, out_len;
	struct td_seen seen[64];
	unsigned nseen;
} fx;

static const uint8_t device_desc[USB_DEVICE_DESC_BYTES] = {
	18, USB_DT_DEVICE, 0x10, 0x01, 0, 0, 0, 8, 0x81, 0x07, 0x51, 0x55, 0x00, 0x01, 1, 2, 3, 1,
};

static void violation(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void violation(const char *fmt, ...)
{
	va_list ap;
	size_t n = strlen(fx.violation);
	if (fx.violations++ && n + 2 < sizeof(fx.violation))
		n += (size_t)snprintf(fx.violation + n, sizeof(fx.violation) - n, "; ");
	va_start(ap, fmt);
	if (n < sizeof(fx.violation))
		vsnprintf(fx.violation + n, sizeof(fx.violation) - n, fmt, ap);
	va_end(ap);
}

static uint16_t *reg(uint16_t off)
{
	return &io[off / 2];
}

static uint32_t io_read(uint16_t off, unsigned size)
{
	if (size == 4 && off == UHCI_FLBASEADD)
		return flbase;
	if (size != 2)
		fail_msg("a %u-byte read of I/O register 0x%02x", size, off);
	uint16_t v = *reg(off);
	if (off == UHCI_USBSTS)
		fx.last_usbsts = v;
	if (off >= UHCI_PORTSC(0) && off < UHCI_PORTSC(NPORTS))
		fx.last_portsc[(off - UHCI_PORTSC(0)) / 2] = v;
	return v;
}

static void write_usbcmd(uint16_t v)
{
	if (v & UHCI_CMD_HCRESET) {
		*reg(UHCI_USBCMD) = 0;
		*reg(UHCI_USBSTS) = UHCI_STS_HCHALTED;
		for (unsigned p = 0; p < NPORTS; p++)   /* the ports reset: the device connects anew */
			*reg(UHCI_PORTSC(p)) = UHCI_PORT_ALWAYS_1 | (p == DEV_PORT ? UHCI_PORT_CCS | UHCI_PORT_CSC : 0);
		return;
	}
	*reg(UHCI_USBCMD) = v;
	if (v & UHCI_CMD_RS)
		*reg(UHCI_USBSTS) &= (uint16_t)~UHCI_STS_HCHALTED;
	else
		*reg(UHCI_USBSTS) |= UHCI_STS_HCHALTED;
}

static void write_portsc(unsigned p, uint16_t v)
{
	uint16_t *r = reg(UHCI_PORTSC(p));
	if (v & PORTSC_RWC & ~fx.last_portsc[p])
		violation("PORTSC%u written 0x%04x: clears change bits 0x%04x it did not read as set (read 0x%04x)",
			  p + 1, v, v & PORTSC_RWC & ~fx.last_portsc[p], fx.last_portsc[p]);
	if (v & (UHCI_PORT_ALWAYS_1 | 0xE000u))
		violation("PORTSC%u written 0x%04x: reserved bits written 1", p + 1, v);
	*r &= (uint16_t)~(v & PORTSC_RWC);
	uint16_t rw = UHCI_PORT_PR | UHCI_PORT_SUSP | UHCI_PORT_RD;
	*r = (uint16_t)((*r & ~rw) | (v & rw));
	if (v & UHCI_PORT_PR)
		*r &= (uint16_t)~UHCI_PORT_PE;  /* held in reset: disabled */
	else if ((v & UHCI_PORT_PE) && (*r & UHCI_PORT_CCS))
		*r |= UHCI_PORT_PE;             /* software enables the port (2.1.7) */
	else if (!(v & UHCI_PORT_PE))
		*r &= (uint16_t)~UHCI_PORT_PE;
	if (p == DEV_PORT && (v & UHCI_PORT_PR))
		fx.address = 0;
}

static void io_write(uint16_t off, unsigned size, uint32_t v)
{
	if (off == UHCI_FLBASEADD && size == 4) {
		flbase = v;
		return;
	}
	if (off == UHCI_SOFMOD && size == 1)
		return;
	if (size != 2)
		fail_msg("a %u-byte write of I/O register 0x%02x", size, off);
	if (off == UHCI_USBCMD)
		return write_usbcmd((uint16_t)v);
	if (off == UHCI_USBSTS) {
		if (v & STS_RWC & ~fx.last_usbsts)
			violation("USBSTS written 0x%04x: clears bits 0x%04x it did not read as set (read 0x%04x)", v,
				  v & STS_RWC & ~fx.last_usbsts, fx.last_usbsts);
		*reg(UHCI_USBSTS) &= (uint16_t)~(v & STS_RWC);
		return;
	}
	if (off >= UHCI_PORTSC(0) && off < UHCI_PORTSC(NPORTS))
		return write_portsc((off - UHCI_PORTSC(0)) / 2, (uint16_t)v);
	*reg(off) = (uint16_t)v;
}

static uint32_t pci_read(uint16_t off)
{
	if (off == UHCI_LEGSUP) {
		fx.legsup_read = fx.legsup;
		return fx.legsup;
	}
	return 0;
}

static void pci_write(uint16_t off, uint32_t v)
{
	if (off != UHCI_LEGSUP)
		return;
	if (v & LEGSUP_RWC & ~fx.legsup_read)
		violation("LEGSUP written 0x%04x: clears bits 0x%04x it did not read as set", v,
			  v & LEGSUP_RWC & ~fx.legsup_read);
	fx.legsup = (fx.legsup & ~(v & LEGSUP_RWC) & LEGSUP_RWC) | (v & ~LEGSUP_RWC & 0xFFFFu) | (v & 0xFFFF0000u);
}

/* ---------------------------------------------------------------- the device */

/* One control-endpoint transaction; *n bytes moved, 0 or a status bit to set. */
static uint32_t ep0_transaction(uint8_t pid, void *buf, uint32_t maxlen, uint32_t *n)
{
	*n = 0;
	if (pid == UHCI_PID_SETUP) {
		memcpy(&fx.setup, buf, sizeof(fx.setup));
		fx.data_off = 0;
		*n = sizeof(fx.setup);
		return 0;
	}
	bool in = fx.setup.request_type & USB_DIR_IN;
	if (pid == UHCI_PID_IN && in && fx.setup.request == USB_REQ_GET_DESCRIPTOR &&
	    fx.setup.value >> 8 == USB_DT_DEVICE) {
		uint32_t want = fx.setup.length < sizeof(device_desc) ? fx.setup.length : sizeof(device_desc);
		uint32_t left = want > fx.data_off ? want - fx.data_off : 0;
		*n = left < maxlen ? left : maxlen;
		memcpy(buf, device_desc + fx.data_off, *n);
		fx.data_off += *n;
		return 0;
	}
	/* the status stage: the request takes effect */
	if (fx.setup.request == USB_REQ_SET_ADDRESS && pid == UHCI_PID_IN)
		fx.address = (uint8_t)fx.setup.value;
	if (fx.setup.request == USB_REQ_CLEAR_FEATURE && pid == UHCI_PID_IN && fx.setup.index == (USB_DIR_IN | EP_IN)) {
		fx.stall_in = false;
		fx.toggle_in = false;
	}
	return 0;
}

static uint32_t bulk_transaction(uint8_t pid, uint8_t ep, bool toggle, void *buf, uint32_t maxlen, uint32_t *n)
{
	bool in = pid == UHCI_PID_IN;
	bool *dev_toggle = in ? &fx.toggle_in : &fx.toggle_out;
	*n = 0;
	if (ep != (in ? EP_IN : EP_OUT))
		return UHCI_TD_CRC_TIMEOUT;
	if (in && fx.stall_in)
		return UHCI_TD_STALLED;
	if (toggle != *dev_toggle)
		violation("bulk %s endpoint %u: a DATA%u packet where the device expects DATA%u", in ? "IN" : "OUT", ep,
			  toggle, *dev_toggle);
	*dev_toggle = !*dev_toggle;
	if (in) {
		uint32_t left = fx.in_len;
		*n = left < maxlen ? left : maxlen;
		memcpy(buf, fx.in_data + (sizeof(fx.in_data) - fx.in_len), *n);
		fx.in_len -= *n;
	} else {
		*n = maxlen;
		if (fx.out_len + maxlen <= sizeof(fx.out_data))
			memcpy(fx.out_data + fx.out_len, buf, maxlen);
		fx.out_len += maxlen;
	}
	return 0;
}

/* A TD on the bus: its status written back as the controller does (3.2.2). False when the
 * queue stops there (an error, a NAK, a short packet with SPD). */
static bool run_td(struct uhci_td *td)
{
	uint8_t pid = td->token & 0xFFu, addr = td->token >> 8 & 0x7Fu, ep = td->token >> 15 & 0xFu;
	bool toggle = td->token & (1u << 19);
	uint32_t maxlen = ((td->token >> 21) + 1) & 0x7FFu, n = 0, err;

	if (fx.nseen < sizeof(fx.seen) / sizeof(fx.seen[0]))
		fx.seen[fx.nseen++] = (struct td_seen){ pid, ep, toggle, maxlen };
	fx.tds_run++;
	bool present = (*reg(UHCI_PORTSC(DEV_PORT)) & UHCI_PORT_PE) && addr == fx.address;
	if (!present)
		err = UHCI_TD_CRC_TIMEOUT;
	else if (fx.nak_all)
		return td->status |= UHCI_TD_NAK, false;
	else {
		void *buf = maxlen ? dma(td->buffer, maxlen) : NULL;
		err = ep == 0 ? ep0_transaction(pid, buf, maxlen, &n) : bulk_transaction(pid, ep, toggle, buf, maxlen, &n);
	}
	td->status = (td->status & ~(UHCI_TD_ACTIVE | UHCI_TD_ACTLEN_MASK | UHCI_TD_NAK)) | ((n - 1) & 0x7FFu) |
		     err | (err ? UHCI_TD_STALLED : 0);
	return !err && !((td->status & UHCI_TD_SPD) && n < maxlen);
}

/* A frame: the frame list's entry, a queue head, its element list depth first. */
static void fake_delay(void)
{
	fx.delays++;
	if (!(*reg(UHCI_USBCMD) & UHCI_CMD_RS))
		return;
	uint16_t frame = *reg(UHCI_FRNUM) & 0x3FFu;
	*reg(UHCI_FRNUM) = (uint16_t)((frame + 1) & 0x3FFu);
	uint32_t link = ((uint32_t *)dma(flbase, 4096))[frame];
	if (link & UHCI_LINK_TERMINATE)
		return;
	if (!(link & UHCI_LINK_QH))
		fail_msg("frame %u points to a TD (0x%08x), not a queue head", frame, link);
	struct uhci_qh *qh = dma(link & UHCI_LINK_ADDR_MASK, sizeof(*qh));
	for (unsigned k = 0; k < 300 && !(qh->element & UHCI_LINK_TERMINATE); k++) {
		if (qh->element & UHCI_LINK_QH)
			fail_msg("a queue head's element is a queue head");
		struct uhci_td *td = dma(qh->element & UHCI_LINK_ADDR_MASK, sizeof(*td));
		if (!(td->status & UHCI_TD_ACTIVE) || !run_td(td))
			return;
		qh->element = td->link;
		if (!(td->link & UHCI_LINK_DEPTH))
			return;
	}
}

static struct fake_hw uhci_fake = {
	.io_base = IO_BASE, .io_len = UHCI_IO_BYTES, .io_read = io_read, .io_write = io_write,
	.delay = fake_delay, .pci_read32 = pci_read, .pci_write32 = pci_write,
};

/* ---------------------------------------------------------------- the tests */

static struct uhci_hc hc;
static char msg[256];

static void fake_reset(void)
{
	memset(io, 0, sizeof(io));
	memset(&fx, 0, sizeof(fx));
	memset(arena, 0xA5, sizeof(arena));
	flbase = 0;
	*reg(UHCI_USBCMD) = UHCI_CMD_RS | UHCI_CMD_CF;  /* the BIOS runs it */
	*reg(UHCI_USBSTS) = UHCI_STS_USBINT;            /* with an interrupt pending */
	for (unsigned p = 0; p < NPORTS; p++)
		*reg(UHCI_PORTSC(p)) = UHCI_PORT_ALWAYS_1;
	*reg(UHCI_PORTSC(DEV_PORT)) |= UHCI_PORT_CCS | UHCI_PORT_PE;
	/* legacy keyboard emulation on, PIRQ on, a 60h read trapped: the BIOS's state */
	fx.legsup = 0x00BFu | 0x2000u | 0x0100u | 0x12340000u;
	for (unsigned i = 0; i < sizeof(fx.in_data); i++)
		fx.in_data[i] = (uint8_t)(i * 7 + 3);
	fake_hw = &uhci_fake;
}

static void open_controller(void)
{
	static const struct pci_dev piix4 = { .bus = 0, .dev = 7, .fn = 2, .vendor = 0x8086, .device = 0x7112 };
	const struct dma_region d = { .virt = arena, .phys = PHYS_BASE, .size = sizeof(arena) };
	memset(&hc, 0, sizeof(hc));
	snprintf(hc.name, sizeof(hc.name), "UHCI 00:07.2");
	if (uhci_open(&hc, &piix4, IO_BASE, &d, msg, sizeof(msg)))
		fail_msg("uhci_open: %s", msg);
}

static struct usb_dev *attach(void)
{
	struct usb_dev *d = NULL;
	if (uhci_port_attach(&hc, DEV_PORT + 1, &d, msg, sizeof(msg)) != UHCI_PORT_DEVICE)
		fail_msg("port %u: %s", DEV_PORT + 1, msg);
	return d;
}

/* The firmware's hold released: LEGSUP's SMI and trap enables and PIRQ off, its trap status
 * cleared, the upper half untouched; the controller reset and started on the frame list. */
static void test_handoff_and_start(void **state)
{
	(void)state;
	fake_reset();
	open_controller();
	assert_int_equal(fx.legsup & 0xFFFFu, 0);
	assert_int_equal(fx.legsup >> 16, 0x1234);
	assert_int_equal(hc.nports, NPORTS);
	assert_true(*reg(UHCI_USBCMD) & UHCI_CMD_RS);
	assert_int_equal(flbase, PHYS_BASE);
	assert_int_equal(*reg(UHCI_USBINTR), 0);
	assert_int_equal(uhci_port_attach(&hc, 2, &(struct usb_dev *){ 0 }, msg, sizeof(msg)), UHCI_PORT_EMPTY);
	assert_int_equal(uhci_idle(&hc, msg, sizeof(msg)), 0);
	assert_true(*reg(UHCI_USBSTS) & UHCI_STS_HCHALTED);
	if (fx.violations)
		fail_msg("%s", fx.violation);
}

/* A control transfer is a SETUP TD (DATA0), data TDs of the endpoint's packet size from
 * DATA1 on, and a status TD the other way (DATA1); a short data stage ends early and still
 * gets its status stage. */
static void test_control_td_chain(void **state)
{
	(void)state;
	fake_reset();
	open_controller();
	struct usb_dev *d = attach();
	assert_int_equal(d->address, 1);
	assert_int_equal(fx.address, 1);
	assert_int_equal(d->ep0_max_packet, 8);

	uint8_t buf[64] = { 0 };
	uint32_t done = 0;
	fx.nseen = 0;
	if (usb_get_descriptor(d, USB_DT_DEVICE, 0, buf, USB_DEVICE_DESC_BYTES, &done, msg, sizeof(msg)))
		fail_msg("GET_DESCRIPTOR: %s", msg);
	assert_int_equal(done, USB_DEVICE_DESC_BYTES);
	assert_memory_equal(buf, device_desc, sizeof(device_desc));
	static const struct td_seen want[] = {
		{ UHCI_PID_SETUP, 0, false, 8 }, { UHCI_PID_IN, 0, true, 8 }, { UHCI_PID_IN, 0, false, 8 },
		{ UHCI_PID_IN, 0, true, 2 }, { UHCI_PID_OUT, 0, true, 0 },
	};
	assert_int_equal(fx.nseen, sizeof(want) / sizeof(want[0]));
	for (unsigned i = 0; i < fx.nseen; i++) {
		assert_int_equal(fx.seen[i].pid, want[i].pid);
		assert_int_equal(fx.seen[i].toggle, want[i].toggle);
		assert_int_equal(fx.seen[i].maxlen, want[i].maxlen);
	}

	/* 64 asked, 18 there: the third IN packet is short, then the status stage */
	fx.nseen = 0;
	memset(buf, 0, sizeof(buf));
	if (usb_get_descriptor(d, USB_DT_DEVICE, 0, buf, sizeof(buf), &done, msg, sizeof(msg)))
		fail_msg("a short GET_DESCRIPTOR: %s", msg);
	assert_int_equal(done, USB_DEVICE_DESC_BYTES);
	assert_int_equal(fx.nseen, 5);
	assert_int_equal(fx.seen[4].pid, UHCI_PID_OUT);
	assert_true(fx.seen[4].toggle);
	if (fx.violations)
		fail_msg("%s", fx.violation);
}

/* Bulk packets carry the toggle on from one TD to the next and from one transfer to the
 * next, as the device expects; after a stall and CLEAR_FEATURE(ENDPOINT_HALT) both sides
 * start again at DATA0. */
static void test_bulk_toggles(void **state)
{
	(void)state;
	fake_reset();
	open_controller();
	struct usb_dev *d = attach();
	d->ep_in = EP_IN;
	d->ep_out = EP_OUT;
	d->ep_in_max_packet = d->ep_out_max_packet = BULK_MPS;
	assert_int_equal(d->ops->configure_bulk(d, msg, sizeof(msg)), 0);

	uint8_t buf[512];
	uint32_t done;
	fx.in_len = 2 * BULK_MPS + 8;           /* 3 packets: DATA0 1 0 */
	if (d->ops->bulk(d, 1, buf, sizeof(buf), &done, msg, sizeof(msg)))
		fail_msg("bulk IN: %s", msg);
	assert_int_equal(done, 2 * BULK_MPS + 8);
	assert_memory_equal(buf, fx.in_data + sizeof(fx.in_data) - done, done);
	fx.in_len = 31 + 10;                    /* one packet from DATA1, then one from DATA0 */
	if (d->ops->bulk(d, 1, buf, 31, &done, msg, sizeof(msg)))
		fail_msg("bulk IN: %s", msg);
	assert_int_equal(done, 31);
	if (d->ops->bulk(d, 1, buf, 10, &done, msg, sizeof(msg)) || done != 10)
		fail_msg("bulk IN: %s", msg);
	for (unsigned i = 0; i < 100; i++)
		buf[i] = (uint8_t)(0x40 + i);
	if (d->ops->bulk(d, 0, buf, 100, &done, msg, sizeof(msg)) || done != 100)
		fail_msg("bulk OUT: %s", msg);
	if (d->ops->bulk(d, 0, buf, 13, &done, msg, sizeof(msg)) || done != 13)
		fail_msg("bulk OUT: %s", msg);
	if (d->ops->bulk(d, 0, buf, 5, &done, msg, sizeof(msg)) || done != 5)     /* DATA1 */
		fail_msg("bulk OUT: %s", msg);
	assert_memory_equal(fx.out_data, buf, 100);
	assert_int_equal(fx.out_len, 118);

	fx.stall_in = true;
	fx.in_len = 100;
	assert_int_equal(d->ops->bulk(d, 1, buf, 64, &done, msg, sizeof(msg)), USB_XFER_STALL);
	struct usb_setup clear = { USB_RECIP_ENDPOINT, USB_REQ_CLEAR_FEATURE, USB_FEATURE_ENDPOINT_HALT,
				   USB_DIR_IN | EP_IN, 0 };
	if (d->ops->control(d, &clear, NULL, 0, NULL, msg, sizeof(msg)) ||
	    d->ops->reset_bulk(d, 1, msg, sizeof(msg)))
		fail_msg("CLEAR_FEATURE: %s", msg);
	if (d->ops->bulk(d, 1, buf, 64, &done, msg, sizeof(msg)) || done != 64)
		fail_msg("bulk IN after the stall: %s", msg);
	if (fx.violations)
		fail_msg("%s", fx.violation);
}

/* Every USBSTS, PORTSC and LEGSUP write clears only the write-1-to-clear bits that the last
 * read found set: from the BIOS's pending interrupt through the reset, the port's reset and
 * enable, addressing and idling. */
static void test_status_writes_clear_only_what_was_set(void **state)
{
	(void)state;
	fake_reset();
	open_controller();
	attach();
	assert_int_equal(uhci_idle(&hc, msg, sizeof(msg)), 0);
	if (fx.violations)
		fail_msg("%u status writes broke the write-1-to-clear rule: %s", fx.violations, fx.violation);
}

/* A device that NAKs every packet: the control transfer ends with a timeout after its
 * second of polls, not later; the device is then given up, and the next transfer fails at
 * once. */
static void test_timeout_bounded(void **state)
{
	(void)state;
	fake_reset();
	open_controller();
	struct usb_dev *d = attach();
	uint8_t buf[USB_DEVICE_DESC_BYTES];
	uint32_t done;
	fx.nak_all = true;
	unsigned before = fx.delays;
	assert_int_not_equal(usb_get_descriptor(d, USB_DT_DEVICE, 0, buf, sizeof(buf), &done, msg, sizeof(msg)), 0);
	unsigned polls = fx.delays - before;
	if (!strstr(msg, "timeout"))
		fail_msg("not a timeout: %s", msg);
	assert_true(polls >= 1000u * 1000u);
	assert_true(polls <= 1000u * 1000u + 200u * 1000u);
	assert_true(*reg(UHCI_USBSTS) & UHCI_STS_HCHALTED);
	before = fx.delays;
	fx.nak_all = false;
	assert_int_not_equal(usb_get_descriptor(d, USB_DT_DEVICE, 0, buf, sizeof(buf), &done, msg, sizeof(msg)), 0);
	assert_true(fx.delays - before < 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_handoff_and_start),
		cmocka_unit_test(test_control_td_chain),
		cmocka_unit_test(test_bulk_toggles),
		cmocka_unit_test(test_status_writes_clear_only_what_was_set),
		cmocka_unit_test(test_timeout_bounded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
