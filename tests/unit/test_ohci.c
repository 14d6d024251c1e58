/*
 * drivers/ohci.c against a fake controller (tests/unit/fake-hw.h): operational registers whose
 * every read and write the fake sees, and control and bulk lists of EDs that the fake walks
 * at each poll delay (OHCI 1.0a, 4.2-4.3, 6.4), splitting each general TD into packets of the
 * ED's size for a full-speed device on root port 1 (control packets of 8 bytes, bulk of 64),
 * the data toggle from the TD or the ED's carry, retired TDs moved to the done queue as the
 * controller does. Status registers are checked on each write: their write-1-to-clear bits
 * may be written 1 only where the last read found them set.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "drivers/ohci.h"
#include "drivers/usb.h"
#include "tests/unit/fake-hw.h"

#define NPORTS          3u
#define DEV_PORT        0u
#define EP_IN           1u
#define EP_OUT          2u
#define BULK_MPS        64u
#define SMM_RELEASE_DELAYS 500u /* the SMM driver's answer to OwnershipChangeRequest */

/* From the specification, not the driver's header: HcInterruptStatus 6:0 and 30 (7.1.4) and
 * HcRhPortStatus 20:16 (7.4.4) are write-1-to-clear. */
#define INT_RWC         0x4000007Fu
#define PORT_RWC        0x001F0000u

static uint32_t regs[OHCI_MMIO_BYTES / 4];
static uint8_t arena[OHCI_DMA_BYTES] __attribute__((aligned(4096)));
#define PHYS_BASE       0x00400000u

static void *dma(uint32_t phys, uint32_t size)
{
	if (phys < PHYS_BASE || phys + size > PHYS_BASE + sizeof(arena))
		fail_msg("the controller was given physical address 0x%08x (%u bytes), outside the DMA memory", phys,
			 size);
	return arena + (phys - PHYS_BASE);
}

struct td_seen {
	unsigned dp, t;
	uint32_t len;
};

static struct {
	uint32_t last_intsts, last_port[NPORTS];
	unsigned violations, delays, ocr_writes, ocr_at, lpsc_writes;
	bool smm_keeps;
	char violation[1024];
	uint8_t address;
	struct usb_setup setup;
	uint32_t data_off;
	bool toggle_in, toggle_out, nak_all, stall_in;
	uint8_t in_data[512], out_data[512];
	uint32_t in_len, out_len;
	struct td_seen seen[32];
	unsigned nseen;
	uint32_t done_head;
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

static uint32_t *reg(uint32_t off)
{
	return &regs[off / 4];
}

static int port_of(uint32_t off)
{
	for (unsigned p = 0; p < NPORTS; p++)
		if (off == OHCI_HCRHPORTSTATUS(p))
			return (int)p;
	return -1;
}

static uint32_t fake_read32(uint32_t off)
{
	uint32_t v = regs[off / 4];
	if (off == OHCI_HCINTERRUPTSTATUS)
		fx.last_intsts = v;
	if (port_of(off) >= 0)
		fx.last_port[port_of(off)] = v;
	return v;
}

/* HcRhPortStatus: each 1 written is an action (7.4.4). */
static void write_port(unsigned p, uint32_t v)
{
	uint32_t *r = reg(OHCI_HCRHPORTSTATUS(p));
	if (v & PORT_RWC & ~fx.last_port[p])
		violation("HcRhPortStatus%u written 0x%08x: clears change bits 0x%08x it did not read as set (read "
			  "0x%08x)", p + 1, v, v & PORT_RWC & ~fx.last_port[p], fx.last_port[p]);
	*r &= ~(v & PORT_RWC);
	if (v & OHCI_PORT_PPS)
		*r |= OHCI_PORT_PPS;
	if ((v & OHCI_PORT_PRS) && (*r & OHCI_PORT_CCS)) {
		*r |= OHCI_PORT_PES | OHCI_PORT_PRSC;   /* the reset, over at once */
		if (p == DEV_PORT)
			fx.address = 0;
	}
	if (v & OHCI_PORT_CCS)
		*r &= ~OHCI_PORT_PES;                   /* ClearPortEnable */
}

static void fake_write32(uint32_t off, uint32_t v)
{
	if (off == OHCI_HCCOMMANDSTATUS) {
		if (v & OHCI_CMD_OCR) {
			fx.ocr_writes++;
			fx.ocr_at = fx.delays;
		}
		if (v & OHCI_CMD_HCR) {
			*reg(OHCI_HCCONTROL) = OHCI_CTRL_HCFS_SUSPEND;  /* after the reset (7.1.2) */
			*reg(OHCI_HCFMINTERVAL) = 0x2EDFu;
		}
		*reg(off) |= v & (OHCI_CMD_CLF | OHCI_CMD_BLF);
		return;
	}
	if (off == OHCI_HCINTERRUPTSTATUS) {
		if (v & INT_RWC & ~fx.last_intsts)
			violation("HcInterruptStatus written 0x%08x: clears bits 0x%08x it did not read as set (read "
				  "0x%08x)", v, v & INT_RWC & ~fx.last_intsts, fx.last_intsts);
		*reg(off) &= ~(v & INT_RWC);
		return;
	}
	if (off == OHCI_HCRHSTATUS) {
		if (v & OHCI_RHS_LPSC) {
			fx.lpsc_writes++;
			for (unsigned p = 0; p < NPORTS; p++)
				*reg(OHCI_HCRHPORTSTATUS(p)) |= OHCI_PORT_PPS;
		}
		return;
	}
	if (port_of(off) >= 0)
		return write_port((unsigned)port_of(off), v);
	if (off == OHCI_HCCONTROL && (regs[off / 4] & OHCI_CTRL_IR) && !(v & OHCI_CTRL_IR) && !fx.ocr_writes)
		violation("HcControl.IR cleared without an ownership change request");
	regs[off / 4] = v;
}

/* ---------------------------------------------------------------- the device */

static uint32_t control_packet(unsigned dp, uint8_t *buf, uint32_t len, uint32_t *n)
{
	*n = 0;
	if (dp == 0) {
		memcpy(&fx.setup, buf, sizeof(fx.setup));
		fx.data_off = 0;
		*n = sizeof(fx.setup);
		return OHCI_CC_NO_ERROR;
	}
	if (dp == 2 && (fx.setup.request_type & USB_DIR_IN) && fx.setup.request == USB_REQ_GET_DESCRIPTOR) {
		uint32_t want = fx.setup.length < sizeof(device_desc) ? fx.setup.length : sizeof(device_desc);
		uint32_t left = want > fx.data_off ? want - fx.data_off : 0;
		*n = left < len ? left : len;
		memcpy(buf, device_desc + fx.data_off, *n);
		fx.data_off += *n;
		return OHCI_CC_NO_ERROR;
	}
	if (dp == 2 && fx.setup.request == USB_REQ_SET_ADDRESS)
		fx.address = (uint8_t)fx.setup.value;
	if (dp == 2 && fx.setup.request == USB_REQ_CLEAR_FEATURE && fx.setup.index == (USB_DIR_IN | EP_IN)) {
		fx.stall_in = false;
		fx.toggle_in = false;
	}
	return OHCI_CC_NO_ERROR;
}

static uint32_t bulk_packet(unsigned dp, unsigned ep, bool toggle, uint8_t *buf, uint32_t len, uint32_t *n)
{
	bool in = dp == 2;
	bool *dev_toggle = in ? &fx.toggle_in : &fx.toggle_out;
	*n = 0;
	if (ep != (in ? EP_IN : EP_OUT))
		return 5;       /* device not responding */
	if (in && fx.stall_in)
		return OHCI_CC_STALL;
	if (toggle != *dev_toggle)
		violation("bulk %s endpoint %u: a DATA%u packet where the device expects DATA%u", in ? "IN" : "OUT", ep,
			  toggle, *dev_toggle);
	*dev_toggle = !*dev_toggle;
	if (in) {
		*n = fx.in_len < len ? fx.in_len : len;
		memcpy(buf, fx.in_data + (sizeof(fx.in_data) - fx.in_len), *n);
		fx.in_len -= *n;
	} else {
		*n = len;
		if (fx.out_len + len <= sizeof(fx.out_data))
			memcpy(fx.out_data + fx.out_len, buf, len);
		fx.out_len += len;
	}
	return OHCI_CC_NO_ERROR;
}

/* The TD at the ED's head, packet by packet; retired to the done queue, or left (a NAK). */
static void run_td(struct ohci_ed *ed)
{
	struct ohci_td *td = dma(ed->headp & OHCI_ED_PTR_MASK, sizeof(*td));
	unsigned dp = td->info >> 19 & 3u, t = td->info >> 24 & 3u, ep = ed->info >> 7 & 0xFu;
	uint32_t mps = ed->info >> 16 & 0x7FFu, cc = OHCI_CC_NO_ERROR;
	bool toggle = t & 2 ? t & 1 : (ed->headp & OHCI_ED_HEAD_CARRY) != 0;
	uint32_t len = td->cbp ? td->be - td->cbp + 1 : 0;

	if (fx.nak_all)
		return;
	if (fx.nseen < sizeof(fx.seen) / sizeof(fx.seen[0]))
		fx.seen[fx.nseen++] = (struct td_seen){ dp, t, len };
	bool present = (*reg(OHCI_HCRHPORTSTATUS(DEV_PORT)) & OHCI_PORT_PES) && (ed->info & 0x7Fu) == fx.address;
	uint32_t off = 0;
	do {
		uint32_t piece = len - off < mps ? len - off : mps, n = 0;
		uint8_t *buf = piece ? dma(td->cbp + off, piece) : NULL;
		cc = !present ? 5 : ep == 0 ? control_packet(dp, buf, piece, &n) : bulk_packet(dp, ep, toggle, buf, piece, &n);
		if (cc != OHCI_CC_NO_ERROR)
			break;
		toggle = !toggle;
		off += n;
		if (n < piece) {
			if (!(td->info & OHCI_TD_ROUNDING))
				cc = 9;         /* data underrun */
			break;
		}
	} while (off < len);
	td->cbp = cc == OHCI_CC_NO_ERROR && off == len ? 0 : td->cbp + off;
	td->info = (td->info & ~(0xFu << 28 | 3u << 24)) | cc << 28 | (2u | toggle) << 24;
	uint32_t next = td->next, carry = toggle ? OHCI_ED_HEAD_CARRY : 0;
	td->next = fx.done_head;        /* retired: onto the done queue (6.4.4) */
	fx.done_head = (uint32_t)((uint8_t *)td - arena) + PHYS_BASE;
	ed->headp = (next & OHCI_ED_PTR_MASK) | carry | (cc != OHCI_CC_NO_ERROR ? OHCI_ED_HEAD_HALTED : 0);
	*reg(OHCI_HCINTERRUPTSTATUS) |= OHCI_INT_WDH;
}

static void run_list(uint32_t head, uint32_t filled)
{
	if (!(*reg(OHCI_HCCOMMANDSTATUS) & filled))
		return;
	*reg(OHCI_HCCOMMANDSTATUS) &= ~filled;
	for (unsigned n = 0; head && n < 16; n++) {
		struct ohci_ed *ed = dma(head & OHCI_ED_PTR_MASK, sizeof(*ed));
		while (!(ed->info & OHCI_ED_SKIP) && !(ed->headp & OHCI_ED_HEAD_HALTED) &&
		       (ed->headp & OHCI_ED_PTR_MASK) != (ed->tailp & OHCI_ED_PTR_MASK) && !fx.nak_all)
			run_td(ed);
		if (fx.nak_all)
			*reg(OHCI_HCCOMMANDSTATUS) |= filled;
		head = ed->next;
	}
}

static void fake_delay(void)
{
	fx.delays++;
	uint32_t *ctl = reg(OHCI_HCCONTROL);
	if ((*ctl & OHCI_CTRL_IR) && fx.ocr_writes && !fx.smm_keeps && fx.delays - fx.ocr_at >= SMM_RELEASE_DELAYS)
		*ctl &= ~OHCI_CTRL_IR;          /* the SMM driver lets go */
	if ((*ctl & OHCI_CTRL_HCFS_MASK) != OHCI_CTRL_HCFS_OPER)
		return;
	if (*ctl & OHCI_CTRL_CLE)
		run_list(*reg(OHCI_HCCONTROLHEADED), OHCI_CMD_CLF);
	if (*ctl & OHCI_CTRL_BLE)
		run_list(*reg(OHCI_HCBULKHEADED), OHCI_CMD_BLF);
}

static struct fake_hw ohci_fake = {
	.regs = (volatile uint8_t *)regs, .len = sizeof(regs),
	.read32 = fake_read32, .write32 = fake_write32, .delay = fake_delay,
};

/* ---------------------------------------------------------------- the tests */

static struct ohci_hc hc;
static char msg[256], note[256];

static void fake_reset(void)
{
	memset(regs, 0, sizeof(regs));
	memset(&fx, 0, sizeof(fx));
	memset(arena, 0xA5, sizeof(arena));
	*reg(OHCI_HCREVISION) = 0x10;
	/* an SMM driver runs it: operational, interrupts routed to SMI, an event pending */
	*reg(OHCI_HCCONTROL) = OHCI_CTRL_IR | OHCI_CTRL_HCFS_OPER | OHCI_CTRL_CLE;
	*reg(OHCI_HCINTERRUPTSTATUS) = 1u << 2;
	*reg(OHCI_HCFMINTERVAL) = 11990u;       /* tuned by the firmware to the board's clock */
	*reg(OHCI_HCRHDESCRIPTORA) = NPORTS | 1u << OHCI_RHA_POTPGT_SHIFT;     /* switched, ganged */
	*reg(OHCI_HCRHPORTSTATUS(DEV_PORT)) = OHCI_PORT_CCS | OHCI_PORT_CSC;
	for (unsigned i = 0; i < sizeof(fx.in_data); i++)
		fx.in_data[i] = (uint8_t)(i * 5 + 1);
	fake_hw = &ohci_fake;
}

static void open_controller(void)
{
	const struct dma_region d = { .virt = arena, .phys = PHYS_BASE, .size = sizeof(arena) };
	memset(&hc, 0, sizeof(hc));
	snprintf(hc.name, sizeof(hc.name), "OHCI 00:02.0");
	if (ohci_open(&hc, (volatile uint8_t *)regs, &d, note, sizeof(note), msg, sizeof(msg)))
		fail_msg("ohci_open: %s", msg);
}

static struct usb_dev *attach(void)
{
	struct usb_dev *d = NULL;
	if (ohci_port_attach(&hc, DEV_PORT + 1, &d, msg, sizeof(msg)) != OHCI_PORT_DEVICE)
		fail_msg("port %u: %s", DEV_PORT + 1, msg);
	return d;
}

/* The SMM driver asked (OwnershipChangeRequest) and waited for; then the reset, the HCCA,
 * the firmware's frame interval kept, UsbOperational and the root hub's power. */
static void test_handoff_and_start(void **state)
{
	(void)state;
	fake_reset();
	open_controller();
	assert_int_equal(fx.ocr_writes, 1);
	assert_string_equal(note, "");
	uint32_t ctl = *reg(OHCI_HCCONTROL);
	assert_int_equal(ctl & OHCI_CTRL_IR, 0);
	assert_int_equal(ctl & OHCI_CTRL_HCFS_MASK, OHCI_CTRL_HCFS_OPER);
	assert_int_equal(*reg(OHCI_HCHCCA), PHYS_BASE);
	assert_int_equal(*reg(OHCI_HCFMINTERVAL) & 0x3FFFu, 11990);   /* kept through the reset */
	assert_int_equal(*reg(OHCI_HCFMINTERVAL) >> 16 & 0x7FFFu, (11990 - 210) * 6 / 7);
	assert_int_equal(*reg(OHCI_HCFMINTERVAL) >> 31, 1);             /* FIT toggled */
	assert_int_equal(fx.lpsc_writes, 1);
	assert_int_equal(hc.nports, NPORTS);
	assert_int_equal(ohci_port_attach(&hc, 2, &(struct usb_dev *){ 0 }, msg, sizeof(msg)), OHCI_PORT_EMPTY);
	if (fx.violations)
		fail_msg("%s", fx.violation);
}

/* An SMM driver that never lets go: overruled after a bounded wait, with a note. */
static void test_handoff_bounded(void **state)
{
	(void)state;
	fake_reset();
	fx.smm_keeps = true;
	open_controller();
	if (!strstr(note, "kept the controller"))
		fail_msg("no note: '%s'", note);
	assert_true(fx.delays >= 1000u * 1000u && fx.delays < 1300u * 1000u);
	assert_int_equal(*reg(OHCI_HCCONTROL) & OHCI_CTRL_HCFS_MASK, OHCI_CTRL_HCFS_OPER);
}

/* A control transfer is a SETUP TD (DATA0), one data TD from DATA1 with buffer rounding for
 * IN, and a status TD the other way (DATA1); a short data stage still gets its status stage. */
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
	static const struct td_seen want[] = { { 0, 2, 8 }, { 2, 3, 18 }, { 1, 3, 0 } };
	assert_int_equal(fx.nseen, 3);
	for (unsigned i = 0; i < 3; i++) {
		assert_int_equal(fx.seen[i].dp, want[i].dp);
		assert_int_equal(fx.seen[i].t, want[i].t);
		assert_int_equal(fx.seen[i].len, want[i].len);
	}
	fx.nseen = 0;
	if (usb_get_descriptor(d, USB_DT_DEVICE, 0, buf, sizeof(buf), &done, msg, sizeof(msg)))
		fail_msg("a short GET_DESCRIPTOR: %s", msg);
	assert_int_equal(done, USB_DEVICE_DESC_BYTES);
	assert_int_equal(fx.nseen, 3);
	assert_int_equal(fx.seen[2].dp, 1);
	if (fx.violations)
		fail_msg("%s", fx.violation);
}

/* Bulk TDs take their toggle from the ED's carry, which goes on from one transfer to the
 * next as the device's does; after a stall and CLEAR_FEATURE(ENDPOINT_HALT) both are DATA0. */
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
	if (d->ops->bulk(d, 1, buf, 31, &done, msg, sizeof(msg)) || done != 31)
		fail_msg("bulk IN: %s", msg);
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

/* Every HcInterruptStatus and HcRhPortStatus write clears only the bits the last read found
 * set: from the SMM driver's pending event through the port's reset, addressing and idling. */
static void test_status_writes_clear_only_what_was_set(void **state)
{
	(void)state;
	fake_reset();
	open_controller();
	attach();
	assert_int_equal(ohci_idle(&hc, msg, sizeof(msg)), 0);
	assert_int_equal(*reg(OHCI_HCCONTROL) & (OHCI_CTRL_CLE | OHCI_CTRL_BLE), 0);
	if (fx.violations)
		fail_msg("%u status writes broke the write-1-to-clear rule: %s", fx.violations, fx.violation);
}

/* A device that NAKs every packet: the control transfer ends with a timeout after its
 * second of polls; the device is then given up, its ED skipped. */
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
	assert_true(polls >= 1000u * 1000u && polls <= 1200u * 1000u);
	before = fx.delays;
	fx.nak_all = false;
	assert_int_not_equal(usb_get_descriptor(d, USB_DT_DEVICE, 0, buf, sizeof(buf), &done, msg, sizeof(msg)), 0);
	assert_true(fx.delays - before < 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_handoff_and_start),
		cmocka_unit_test(test_handoff_bounded),
		cmocka_unit_test(test_control_td_chain),
		cmocka_unit_test(test_bulk_toggles),
		cmocka_unit_test(test_status_writes_clear_only_what_was_set),
		cmocka_unit_test(test_timeout_bounded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
