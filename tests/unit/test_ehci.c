/*
 * drivers/ehci.c against a fake controller (tests/unit/fake-hw.h): operational registers
 * whose every read and write the fake sees, and an asynchronous schedule the fake walks at
 * each poll delay, running the qTDs of a high-speed device on root port 1 (EHCI 1.0, 4.8,
 * 4.10) and a full-speed one on port 2. The status registers are checked on each write:
 * their write-1-to-clear bits may be written 1 only where the last read found them set.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "drivers/ehci.h"
#include "drivers/usb.h"
#include "tests/unit/fake-hw.h"

#define REGS_BYTES      EHCI_MMIO_BYTES
#define CAPLEN          0x20u
#define NPORTS          4u
#define OP(r)           (CAPLEN + (r))
#define HS_PORT         1u      /* 1-based: a high-speed device */
#define FS_PORT         2u      /* a full-speed device: the companion's */
#define NO_CSC_PORT     3u      /* a high-speed device whose connect change was already seen */

/* Write-1-to-clear bits (EHCI 1.0 2.3.2 USBSTS 5:0, 2.3.9 PORTSC CSC, PEC, OCC), spelled out
 * here from the specification, not taken from the driver's header. */
#define STS_RWC         0x3Fu
#define PORTSC_RWC      ((1u << 1) | (1u << 3) | (1u << 5))
#define PORTSC_LS_J     (2u << 10)

static uint32_t regs[REGS_BYTES / 4] __attribute__((aligned(256)));
static uint8_t arena[EHCI_DMA_BYTES] __attribute__((aligned(4096)));
#define PHYS_BASE       0x00200000u

static void *dma(uint32_t phys, uint32_t size)
{
	if (phys < PHYS_BASE || phys + size > PHYS_BASE + sizeof(arena))
		fail_msg("the controller was given physical address 0x%08x (%u bytes), outside the DMA "
			 "memory", phys, size);
	return arena + (phys - PHYS_BASE);
}

static struct {
	uint32_t last_usbsts, last_portsc[NPORTS];
	unsigned usbsts_writes, portsc_writes, violations;
	char violation[1024];           /* each, "; " between */
	bool hs_device[NPORTS];         /* by 0-based port */
	uint8_t address[NPORTS];        /* each device's USB address */
	struct usb_setup setup;
	unsigned setups, iaa_rings;
	uint8_t device_desc[USB_DEVICE_DESC_BYTES];
} fx;

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

static uint32_t *reg(uint32_t op_off)
{
	return &regs[OP(op_off) / 4];
}

static int port_of(uint32_t off)
{
	for (unsigned p = 0; p < NPORTS; p++)
		if (off == OP(EHCI_PORTSC(p)))
			return (int)p;
	return -1;
}

static uint32_t fake_read32(uint32_t off)
{
	uint32_t v = regs[off / 4];
	if (off == OP(EHCI_USBSTS))
		fx.last_usbsts = v;
	if (port_of(off) >= 0)
		fx.last_portsc[port_of(off)] = v;
	return v;
}

static void write_usbcmd(uint32_t v)
{
	uint32_t *sts = reg(EHCI_USBSTS);
	if (v & EHCI_CMD_HCRESET) {
		*reg(EHCI_USBCMD) = EHCI_CMD_ITC(8);
		*sts = EHCI_STS_HCHALTED;
		*reg(EHCI_CONFIGFLAG) = 0;
		return;
	}
	*reg(EHCI_USBCMD) = v & ~EHCI_CMD_IAAD;
	*sts = v & EHCI_CMD_RS ? *sts & ~EHCI_STS_HCHALTED : *sts | EHCI_STS_HCHALTED;
	*sts = v & EHCI_CMD_ASE ? *sts | EHCI_STS_ASS : *sts & ~EHCI_STS_ASS;
	if ((v & EHCI_CMD_IAAD) && (*sts & EHCI_STS_ASS)) {
		fx.iaa_rings++;
		*sts |= EHCI_STS_IAA;           /* the doorbell answered (4.8.2) */
	}
}

static void write_portsc(unsigned p, uint32_t v)
{
	uint32_t *r = reg(EHCI_PORTSC(p)), was = *r;
	fx.portsc_writes++;
	if (v & PORTSC_RWC & ~fx.last_portsc[p])
		violation("PORTSC%u written 0x%08x: clears change bits 0x%08x that it did not read as set "
			  "(read 0x%08x)", p + 1, v, v & PORTSC_RWC & ~fx.last_portsc[p], fx.last_portsc[p]);
	*r &= ~(v & PORTSC_RWC);
	uint32_t rw = EHCI_PORT_PR | EHCI_PORT_PP | EHCI_PORT_OWNER;
	*r = (*r & ~rw) | (v & rw);
	if (!(v & EHCI_PORT_PE))
		*r &= ~EHCI_PORT_PE;            /* software may disable, never enable (2.3.9) */
	if ((was & EHCI_PORT_PR) && !(v & EHCI_PORT_PR) && (*r & EHCI_PORT_CCS) && fx.hs_device[p])
		*r |= EHCI_PORT_PE;             /* the reset's end: a high-speed chirp enables it */
}

static void fake_write32(uint32_t off, uint32_t v)
{
	if (off == OP(EHCI_USBCMD))
		return write_usbcmd(v);
	if (off == OP(EHCI_USBSTS)) {
		fx.usbsts_writes++;
		if (v & STS_RWC & ~fx.last_usbsts)
			violation("USBSTS written 0x%08x: clears bits 0x%08x that it did not read as set "
				  "(read 0x%08x)", v, v & STS_RWC & ~fx.last_usbsts, fx.last_usbsts);
		*reg(EHCI_USBSTS) &= ~(v & STS_RWC);
		return;
	}
	if (port_of(off) >= 0)
		return write_portsc((unsigned)port_of(off), v);
	regs[off / 4] = v;
	if (off == OP(EHCI_CONFIGFLAG) && (v & EHCI_CONFIGFLAG_CF))
		for (unsigned p = 0; p < NPORTS; p++)
			*reg(EHCI_PORTSC(p)) &= ~EHCI_PORT_OWNER;       /* routed here (4.2) */
}

/* ---------------------------------------------------------------- the schedule */

/* The enabled port whose device answers USB address a, or -1. */
static int device_at(unsigned a)
{
	for (unsigned p = 0; p < NPORTS; p++)
		if (fx.hs_device[p] && (*reg(EHCI_PORTSC(p)) & EHCI_PORT_PE) && fx.address[p] == a)
			return (int)p;
	return -1;
}

/* One qTD on the bus: its token's bytes left and status, as the controller writes it back. */
static void run_qtd(const struct ehci_qh *qh, struct ehci_qtd *q)
{
	uint32_t pid = q->token >> 8 & 3u, len = q->token >> EHCI_QTD_BYTES_SHIFT & EHCI_QTD_BYTES_MASK;
	uint32_t left = 0, status = 0;
	int port = device_at(qh->chars & EHCI_QH_ADDR_MASK);
	if (port < 0) {
		status = EHCI_QTD_HALTED | EHCI_QTD_XACT_ERR;   /* nobody answers */
	} else if (pid == 2) {
		memcpy(&fx.setup, dma(q->buf[0], sizeof(fx.setup)), sizeof(fx.setup));
		fx.setups++;
	} else if (pid == 1 && len && fx.setup.request == USB_REQ_GET_DESCRIPTOR &&
		   fx.setup.value >> 8 == USB_DT_DEVICE) {
		uint32_t n = len < sizeof(fx.device_desc) ? len : sizeof(fx.device_desc);
		memcpy(dma(q->buf[0], n), fx.device_desc, n);
		left = len - n;
	} else if (len == 0 && fx.setup.request == USB_REQ_SET_ADDRESS) {
		fx.address[port] = (uint8_t)fx.setup.value;     /* the status stage ends it */
	}
	q->token = (q->token & ~(EHCI_QTD_ACTIVE | EHCI_QTD_BYTES(EHCI_QTD_BYTES_MASK))) |
		   EHCI_QTD_BYTES(left) | status;
}

/* The queue head's chain of qTDs, to its end or a halt. */
static void run_qh(struct ehci_qh *qh)
{
	for (unsigned n = 0; n < 8 && !(qh->overlay.next & EHCI_LINK_TERMINATE); n++) {
		struct ehci_qtd *q = dma(qh->overlay.next & EHCI_LINK_ADDR_MASK, sizeof(*q));
		if (!(q->token & EHCI_QTD_ACTIVE))
			return;
		run_qtd(qh, q);
		qh->overlay.token = q->token;
		if (q->token & EHCI_QTD_HALTED)
			return;
		bool short_in = (q->token >> EHCI_QTD_BYTES_SHIFT & EHCI_QTD_BYTES_MASK) != 0;
		qh->overlay.next = short_in && !(q->alt_next & EHCI_LINK_TERMINATE) ? q->alt_next : q->next;
	}
}

/* A poll delay: a micro-frame or so, in which the controller walks the schedule. */
static void fake_delay(void)
{
	if (!(*reg(EHCI_USBCMD) & EHCI_CMD_ASE))
		return;
	uint32_t head = *reg(EHCI_ASYNCLISTADDR), at = head;
	for (unsigned n = 0; n < 16; n++) {
		struct ehci_qh *qh = dma(at & EHCI_LINK_ADDR_MASK, sizeof(*qh));
		run_qh(qh);
		at = qh->link & EHCI_LINK_ADDR_MASK;
		if (at == (head & EHCI_LINK_ADDR_MASK))
			break;
	}
}

static struct fake_hw ehci_fake = {
	.regs = (volatile uint8_t *)regs, .len = REGS_BYTES,
	.read32 = fake_read32, .write32 = fake_write32, .delay = fake_delay,
};

/* ---------------------------------------------------------------- the tests */

static struct ehci_hc hc;
static char msg[256], note[256];

static void fake_reset(void)
{
	memset(regs, 0, sizeof(regs));
	memset(&fx, 0, sizeof(fx));
	memset(arena, 0xA5, sizeof(arena));
	regs[0] = CAPLEN | 0x0100u << 16;
	regs[EHCI_HCSPARAMS / 4] = NPORTS | EHCI_HCS_PPC | 2u << EHCI_HCS_N_CC_SHIFT;
	*reg(EHCI_USBCMD) = EHCI_CMD_ITC(8);
	*reg(EHCI_USBSTS) = EHCI_STS_HCHALTED;
	for (unsigned p = 0; p < NPORTS; p++)
		*reg(EHCI_PORTSC(p)) = EHCI_PORT_OWNER;
	*reg(EHCI_PORTSC(HS_PORT - 1)) |= EHCI_PORT_CCS | EHCI_PORT_CSC | PORTSC_LS_J;
	*reg(EHCI_PORTSC(FS_PORT - 1)) |= EHCI_PORT_CCS | EHCI_PORT_CSC | PORTSC_LS_J;
	*reg(EHCI_PORTSC(NO_CSC_PORT - 1)) |= EHCI_PORT_CCS | PORTSC_LS_J;
	fx.hs_device[HS_PORT - 1] = fx.hs_device[NO_CSC_PORT - 1] = true;
	static const uint8_t desc[USB_DEVICE_DESC_BYTES] = {
		18, USB_DT_DEVICE, 0x00, 0x02, 0, 0, 0, 64, 0x81, 0x07, 0x51, 0x55, 0x00, 0x01, 1, 2, 3, 1,
	};
	memcpy(fx.device_desc, desc, sizeof(desc));
	fake_hw = &ehci_fake;
}

static void open_controller(void)
{
	static const struct pci_dev ich9 = { .bus = 0, .dev = 0x1d, .fn = 7, .vendor = 0x8086, .device = 0x293a };
	const struct dma_region d = { .virt = arena, .phys = PHYS_BASE, .size = sizeof(arena) };
	memset(&hc, 0, sizeof(hc));
	snprintf(hc.name, sizeof(hc.name), "EHCI 00:1d.7");
	if (ehci_open(&hc, &ich9, (volatile uint8_t *)regs, &d, note, sizeof(note), msg, sizeof(msg)))
		fail_msg("ehci_open: %s", msg);
}

/* The controller taken and started, its ports routed to it; a high-speed device reset,
 * addressed and reached at its new address; a full-speed one handed to the companion. */
static void test_bring_up(void **state)
{
	(void)state;
	fake_reset();
	open_controller();
	assert_int_equal(*reg(EHCI_CONFIGFLAG) & EHCI_CONFIGFLAG_CF, 1);
	assert_true(*reg(EHCI_USBCMD) & EHCI_CMD_RS);
	assert_int_equal(hc.nports, NPORTS);

	struct usb_dev *d = NULL;
	if (ehci_port_attach(&hc, HS_PORT, &d, msg, sizeof(msg)) != EHCI_PORT_DEVICE)
		fail_msg("port %u: %s", HS_PORT, msg);
	assert_int_equal(d->address, 1);
	assert_int_equal(fx.address[HS_PORT - 1], 1);
	assert_true(fx.iaa_rings >= 1);         /* EP0 left the schedule to take the address */
	uint8_t buf[USB_DEVICE_DESC_BYTES] = { 0 };
	uint32_t done = 0;
	if (usb_get_descriptor(d, USB_DT_DEVICE, 0, buf, sizeof(buf), &done, msg, sizeof(msg)))
		fail_msg("GET_DESCRIPTOR at the new address: %s", msg);
	assert_int_equal(done, sizeof(buf));
	assert_memory_equal(buf, fx.device_desc, sizeof(buf));

	assert_int_equal(ehci_port_attach(&hc, FS_PORT, &d, msg, sizeof(msg)), EHCI_PORT_SKIPPED);
	assert_true(*reg(EHCI_PORTSC(FS_PORT - 1)) & EHCI_PORT_OWNER);
	assert_int_equal(ehci_port_attach(&hc, 4, &d, msg, sizeof(msg)), EHCI_PORT_EMPTY);
	assert_int_equal(ehci_idle(&hc, msg, sizeof(msg)), 0);
	assert_int_equal(*reg(EHCI_USBSTS) & EHCI_STS_ASS, 0);
}

/*
 * Every USBSTS and PORTSC write clears only the write-1-to-clear bits that the last read
 * of that register found set (EHCI 1.0 2.3.2, 2.3.9): a 1 written to a bit read as 0
 * throws away an event that came in between. Through open, the attach of each port (port 3's
 * device has no connect change left to clear), addressing (the async advance doorbell) and
 * idling.
 *
 * DEPENDS ON the change to drivers/ehci.c's USBSTS and PORTSC writes made in parallel on
 * another branch (write back only the bits read as set): until it is merged this test
 * fails here, on schedule_start's USBSTS write of all of 5:0 without a read, qh_unlink's
 * IAA write before ringing the doorbell, and ehci_port_attach's CSC write on port 3.
 * test_bring_up above does not depend on it.
 */
static void test_status_writes_clear_only_what_was_set(void **state)
{
	(void)state;
	fake_reset();
	*reg(EHCI_USBSTS) |= 1u << 2;           /* a port change pending from the firmware */
	open_controller();
	struct usb_dev *d;
	assert_int_equal(ehci_port_attach(&hc, HS_PORT, &d, msg, sizeof(msg)), EHCI_PORT_DEVICE);
	assert_int_equal(ehci_port_attach(&hc, FS_PORT, &d, msg, sizeof(msg)), EHCI_PORT_SKIPPED);
	assert_int_equal(ehci_port_attach(&hc, NO_CSC_PORT, &d, msg, sizeof(msg)), EHCI_PORT_DEVICE);
	assert_int_equal(ehci_idle(&hc, msg, sizeof(msg)), 0);
	assert_true(fx.portsc_writes >= 6);
	assert_true(fx.usbsts_writes >= 1);
	if (fx.violations)
		fail_msg("%u status writes broke the write-1-to-clear rule: %s", fx.violations, fx.violation);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bring_up),
		cmocka_unit_test(test_status_writes_clear_only_what_was_set),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
