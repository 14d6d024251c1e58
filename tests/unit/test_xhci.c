/*
 * drivers/xhci.c against a fake controller: a register block whose every access the fake
 * sees (tests/unit/fake-hw.h), DMA memory in an arena at made-up physical addresses, and a
 * controller that runs the command ring, the event ring and endpoint 0's transfer ring
 * far enough to bring a device up (xHCI 1.2, 4.2-4.6). QEMU's xHCI has 32-byte contexts
 * and asks for no scratchpad buffers; Bochs's and most real ones have 64-byte contexts
 * (HCCPARAMS1.CSZ) and ask for some: this is where the driver's handling of both is tested.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "drivers/usb.h"
#include "drivers/xhci.h"
#include "tests/unit/fake-hw.h"

#define REGS_BYTES      0x3000u
#define CAPLEN          0x20u
#define RT_OFF          0x1000u
#define DB_OFF          0x2000u
#define NPORTS          4u
#define NSLOTS          8u
#define DEV_ADDRESS_OF(slot) ((slot) + 4u)      /* the address the fake gives a slot */

#define OP(r)           (CAPLEN + (r))
#define IR0(r)          (RT_OFF + XHCI_IR0 + (r))

/* Bits software writes 1 to clear (xHCI 1.2 5.4.2 USBSTS, 5.4.8 PORTSC, Table 5-27); a 1
 * written to PORTSC.PED disables the port. Spelled out here, from the specification, not
 * taken from the driver's header. */
#define STS_RW1C        ((1u << 2) | (1u << 3) | (1u << 4) | (1u << 10))
#define PORTSC_PED      (1u << 1)
#define PORTSC_RW1C     (0x7Fu << 17)

/* Endpoint context states (6.2.3) and completion codes (6.4.5) the fake uses */
#define EP_RUNNING      1u
#define EP_HALTED       2u
#define EP_STOPPED      3u
#define CC_PARAMETER    17u
#define CC_TRB_ERROR    5u

static uint32_t regs[REGS_BYTES / 4] __attribute__((aligned(4096)));

/* DMA memory: an arena the driver's allocator hands out, at physical address PHYS_BASE. */
#define ARENA_BYTES     (1u << 20)
#define PHYS_BASE       0x30000000ull
static uint8_t arena[ARENA_BYTES] __attribute__((aligned(65536)));
static uint32_t arena_used;

static int fake_alloc(uint64_t size, uint64_t align, struct dma_region *out)
{
	uint64_t at = (arena_used + align - 1) & ~(align - 1);
	if (at + size > ARENA_BYTES)
		return -1;
	memset(arena + at, 0xA5, size);         /* the driver must clear what it relies on */
	out->virt = arena + at;
	out->phys = PHYS_BASE + at;
	out->size = size;
	arena_used = (uint32_t)(at + size);
	return 0;
}

/* What the controller reads at phys, size bytes of it: in the arena, or the test fails. */
static void *dma(uint64_t phys, uint64_t size)
{
	if (phys < PHYS_BASE || phys + size > PHYS_BASE + arena_used)
		fail_msg("the controller was given physical address 0x%llx (%llu bytes), outside the "
			 "memory the driver allocated", (unsigned long long)phys, (unsigned long long)size);
	return arena + (phys - PHYS_BASE);
}

/* ---------------------------------------------------------------- the fake controller */

static struct {
	unsigned ctx;                           /* context bytes: 64 with CSZ, else 32 */
	uint64_t cmd_deq;
	uint32_t cmd_ccs;
	uint64_t ev_base;
	uint32_t ev_size, ev_enq, ev_pcs;
	uint64_t ep0_deq[NSLOTS + 1];
	uint32_t ep0_ccs[NSLOTS + 1];
	unsigned next_slot;
	uint8_t device_desc[USB_DEVICE_DESC_BYTES];
	/* what the commands read from the input context, at the controller's stride */
	bool addressed, evaluated;
	uint32_t addr_icc[2], addr_slot[4], addr_ep0[5], eval_icc[2], eval_ep0[5];
	unsigned reset_ep0, set_deq0;
	/* RW1C discipline */
	uint32_t last_usbsts, last_portsc[NPORTS + 1];
	unsigned status_writes, portsc_writes, violations;
	char violation[256];
} fx;

static uint32_t *out_ctx(unsigned slot, unsigned index)
{
	const uint64_t *dcbaa = dma((uint64_t)regs[OP(XHCI_DCBAAP + 4) / 4] << 32 | regs[OP(XHCI_DCBAAP) / 4],
				    8 * (NSLOTS + 1));
	if (!dcbaa[slot])
		fail_msg("DCBAA[%u] is 0 for an addressed slot", slot);
	return (uint32_t *)((uint8_t *)dma(dcbaa[slot], XHCI_CONTEXTS * fx.ctx) + index * fx.ctx);
}

static void post_event(uint64_t param, uint32_t status, uint32_t control)
{
	struct xhci_trb *t = dma(fx.ev_base + (uint64_t)fx.ev_enq * XHCI_TRB_BYTES, XHCI_TRB_BYTES);
	t->param_lo = (uint32_t)param;
	t->param_hi = (uint32_t)(param >> 32);
	t->status = status;
	t->control = control | fx.ev_pcs;
	if (++fx.ev_enq == fx.ev_size) {
		fx.ev_enq = 0;
		fx.ev_pcs ^= 1;
	}
}

/* The next TRB the controller owns on a ring, following Link TRBs; NULL when none. */
static struct xhci_trb *ring_next(uint64_t *deq, uint32_t *ccs)
{
	for (int links = 0; links < 2; links++) {
		struct xhci_trb *t = dma(*deq, XHCI_TRB_BYTES);
		if ((t->control & XHCI_TRB_CYCLE) != *ccs)
			return NULL;
		if (XHCI_TRB_TYPE_OF(t->control) != XHCI_TRB_LINK)
			return t;
		*deq = (uint64_t)t->param_hi << 32 | (t->param_lo & ~0xFu);
		if (t->control & XHCI_TRB_TC)
			*ccs ^= 1;
	}
	return NULL;
}

static uint32_t address_device(unsigned slot, const uint8_t *in)
{
	const uint32_t *icc = (const uint32_t *)in, *sc = (const uint32_t *)(in + fx.ctx);
	const uint32_t *ep0 = (const uint32_t *)(in + 2 * fx.ctx);
	fx.addressed = true;
	memcpy(fx.addr_icc, icc, sizeof(fx.addr_icc));
	memcpy(fx.addr_slot, sc, sizeof(fx.addr_slot));
	memcpy(fx.addr_ep0, ep0, sizeof(fx.addr_ep0));
	/* 4.6.5: a control endpoint 0 and a slot context with at least one entry */
	if (icc[1] != 3u || (sc[0] >> 27) < 1 || ((ep0[1] >> 3) & 7u) != XHCI_EP_TYPE_CONTROL)
		return CC_PARAMETER;
	uint32_t *os = out_ctx(slot, 0), *oe = out_ctx(slot, 1);
	memcpy(os, sc, fx.ctx);
	memcpy(oe, ep0, fx.ctx);
	os[3] = 2u << 27 | DEV_ADDRESS_OF(slot);        /* Addressed, USB device address */
	oe[0] = (oe[0] & ~7u) | EP_RUNNING;
	fx.ep0_deq[slot] = (uint64_t)ep0[3] << 32 | (ep0[2] & ~0xFu);
	fx.ep0_ccs[slot] = ep0[2] & 1u;
	return XHCI_CC_SUCCESS;
}

static uint32_t evaluate_context(unsigned slot, const uint8_t *in)
{
	const uint32_t *icc = (const uint32_t *)in, *ep0 = (const uint32_t *)(in + 2 * fx.ctx);
	fx.evaluated = true;
	memcpy(fx.eval_icc, icc, sizeof(fx.eval_icc));
	memcpy(fx.eval_ep0, ep0, sizeof(fx.eval_ep0));
	if (icc[1] & 1u << 1) {
		uint32_t *oe = out_ctx(slot, 1);
		oe[1] = (oe[1] & 0xFFFFu) | (ep0[1] & 0xFFFF0000u);
	}
	return XHCI_CC_SUCCESS;
}

static uint32_t run_command(const struct xhci_trb *t, unsigned *slot)
{
	uint64_t param = (uint64_t)t->param_hi << 32 | t->param_lo;
	*slot = XHCI_TRB_SLOT_OF(t->control);
	switch (XHCI_TRB_TYPE_OF(t->control)) {
	case XHCI_TRB_ENABLE_SLOT:
		*slot = ++fx.next_slot;
		return XHCI_CC_SUCCESS;
	case XHCI_TRB_ADDRESS_DEVICE:
		return address_device(*slot, dma(param, (XHCI_CONTEXTS + 1) * fx.ctx));
	case XHCI_TRB_EVALUATE_CTX:
		return evaluate_context(*slot, dma(param, (XHCI_CONTEXTS + 1) * fx.ctx));
	case XHCI_TRB_RESET_EP:
		if (XHCI_TRB_EP_OF(t->control) != 1 || (out_ctx(*slot, 1)[0] & 7u) != EP_HALTED)
			return 19;                      /* context state error */
		fx.reset_ep0++;
		out_ctx(*slot, 1)[0] = (out_ctx(*slot, 1)[0] & ~7u) | EP_STOPPED;
		return XHCI_CC_SUCCESS;
	case XHCI_TRB_SET_TR_DEQUEUE:
		if (XHCI_TRB_EP_OF(t->control) != 1 || (out_ctx(*slot, 1)[0] & 7u) != EP_STOPPED)
			return 19;
		fx.set_deq0++;
		fx.ep0_deq[*slot] = param & ~0xFull;
		fx.ep0_ccs[*slot] = (uint32_t)param & 1u;
		return XHCI_CC_SUCCESS;
	case XHCI_TRB_CONFIGURE_EP:
		return XHCI_CC_SUCCESS;
	default:
		return CC_TRB_ERROR;
	}
}

static void ring_commands(void)
{
	struct xhci_trb *t;
	while ((t = ring_next(&fx.cmd_deq, &fx.cmd_ccs))) {
		uint64_t at = fx.cmd_deq;
		unsigned slot;
		fx.cmd_deq += XHCI_TRB_BYTES;
		uint32_t cc = run_command(t, &slot);
		post_event(at, cc << 24, XHCI_TRB_TYPE(XHCI_TRB_COMMAND_EVENT) | XHCI_TRB_SLOT(slot));
	}
}

static void transfer_event(uint64_t at, unsigned slot, uint32_t cc, uint32_t residual)
{
	post_event(at, cc << 24 | residual, XHCI_TRB_TYPE(XHCI_TRB_TRANSFER_EVENT) | XHCI_TRB_SLOT(slot) |
		   XHCI_TRB_EP(1));
}

/* Endpoint 0: GET_DESCRIPTOR(DEVICE) answered from device_desc; GET_DESCRIPTOR(CONFIG)
 * stalls, and halts the endpoint (4.10.2.1). */
static void ring_ep0(unsigned slot)
{
	struct xhci_trb *t;
	struct usb_setup setup = { 0 };
	uint32_t *ep0 = out_ctx(slot, 1);
	if ((ep0[0] & 7u) == EP_STOPPED)
		ep0[0] = (ep0[0] & ~7u) | EP_RUNNING;   /* a doorbell restarts it (4.6.9) */
	while ((t = ring_next(&fx.ep0_deq[slot], &fx.ep0_ccs[slot]))) {
		uint64_t at = fx.ep0_deq[slot];
		uint32_t type = XHCI_TRB_TYPE_OF(t->control);
		if ((ep0[0] & 7u) != EP_RUNNING)
			return;
		fx.ep0_deq[slot] += XHCI_TRB_BYTES;
		if (type == XHCI_TRB_SETUP) {
			uint64_t raw = (uint64_t)t->param_hi << 32 | t->param_lo;
			memcpy(&setup, &raw, sizeof(setup));
		} else if (type == XHCI_TRB_DATA) {
			uint32_t len = t->status & 0x1FFFFu, n = 0;
			if (setup.request == USB_REQ_GET_DESCRIPTOR && setup.value >> 8 == USB_DT_CONFIG) {
				ep0[0] = (ep0[0] & ~7u) | EP_HALTED;
				transfer_event(at, slot, XHCI_CC_STALL, len);
				return;
			}
			if (setup.request == USB_REQ_GET_DESCRIPTOR && setup.value >> 8 == USB_DT_DEVICE) {
				n = len < sizeof(fx.device_desc) ? len : sizeof(fx.device_desc);
				memcpy(dma((uint64_t)t->param_hi << 32 | t->param_lo, n), fx.device_desc, n);
			}
			if (t->control & XHCI_TRB_IOC)
				transfer_event(at, slot, n < len ? XHCI_CC_SHORT_PACKET : XHCI_CC_SUCCESS, len - n);
		} else if (t->control & XHCI_TRB_IOC) {
			transfer_event(at, slot, XHCI_CC_SUCCESS, 0);
		}
	}
}

static void violation(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void violation(const char *fmt, ...)
{
	va_list ap;
	if (fx.violations++)
		return;
	va_start(ap, fmt);
	vsnprintf(fx.violation, sizeof(fx.violation), fmt, ap);
	va_end(ap);
}

static uint32_t fake_read32(uint32_t off)
{
	uint32_t v = regs[off / 4];
	if (off == OP(XHCI_USBSTS))
		fx.last_usbsts = v;
	for (unsigned p = 1; p <= NPORTS; p++)
		if (off == OP(XHCI_PORTSC(p)))
			fx.last_portsc[p] = v;
	return v;
}

static void write_portsc(unsigned p, uint32_t v)
{
	uint32_t *r = &regs[OP(XHCI_PORTSC(p)) / 4];
	fx.portsc_writes++;
	if (v & PORTSC_PED)
		violation("PORTSC%u written 0x%08x: a 1 in PED disables the port", p, v);
	if (v & PORTSC_RW1C & ~fx.last_portsc[p])
		violation("PORTSC%u written 0x%08x: clears change bits 0x%08x that it did not read as set "
			  "(read 0x%08x)", p, v, v & PORTSC_RW1C & ~fx.last_portsc[p], fx.last_portsc[p]);
	*r &= ~(v & PORTSC_RW1C);
	*r = (*r & ~XHCI_PORTSC_PP) | (v & XHCI_PORTSC_PP);
	if ((v & XHCI_PORTSC_PR) && (*r & XHCI_PORTSC_CCS))
		*r |= XHCI_PORTSC_PED | XHCI_PORTSC_PRC;        /* the reset is over at once */
}

static void fake_write32(uint32_t off, uint32_t v)
{
	if (off == OP(XHCI_USBCMD)) {
		if (v & XHCI_USBCMD_HCRST) {
			regs[off / 4] = 0;
			regs[OP(XHCI_USBSTS) / 4] = XHCI_USBSTS_HCH;
			return;
		}
		regs[off / 4] = v;
		if (v & XHCI_USBCMD_RS)
			regs[OP(XHCI_USBSTS) / 4] &= ~XHCI_USBSTS_HCH;
		else
			regs[OP(XHCI_USBSTS) / 4] |= XHCI_USBSTS_HCH;
		return;
	}
	if (off == OP(XHCI_USBSTS)) {
		fx.status_writes++;
		if (v & STS_RW1C & ~fx.last_usbsts)
			violation("USBSTS written 0x%08x: clears bits 0x%08x that it did not read as set",
				  v, v & STS_RW1C & ~fx.last_usbsts);
		regs[off / 4] &= ~(v & STS_RW1C);
		return;
	}
	for (unsigned p = 1; p <= NPORTS; p++)
		if (off == OP(XHCI_PORTSC(p)))
			return write_portsc(p, v);
	regs[off / 4] = v;
	if (off == OP(XHCI_CRCR)) {
		fx.cmd_deq = v & ~0x3Fu;
		fx.cmd_ccs = v & XHCI_CRCR_RCS;
	} else if (off == OP(XHCI_CRCR + 4)) {
		fx.cmd_deq |= (uint64_t)v << 32;
	} else if (off == IR0(XHCI_ERSTBA + 4)) {
		/* the event ring starts with the write of ERSTBA (4.9.4): its one segment */
		const uint32_t *erst = dma((uint64_t)v << 32 | regs[IR0(XHCI_ERSTBA) / 4], 16);
		fx.ev_base = (uint64_t)erst[1] << 32 | erst[0];
		fx.ev_size = erst[2] & 0xFFFFu;
		fx.ev_enq = 0;
		fx.ev_pcs = 1;
	} else if (off == DB_OFF) {
		ring_commands();
	} else if (off > DB_OFF && off <= DB_OFF + 4 * NSLOTS) {
		if (v != 1)
			fail_msg("doorbell of slot %u rung for DCI %u: the fake runs endpoint 0 only",
				 (off - DB_OFF) / 4, v);
		ring_ep0((off - DB_OFF) / 4);
	}
}

static struct fake_hw xhci_fake = {
	.regs = (volatile uint8_t *)regs, .len = REGS_BYTES,
	.read32 = fake_read32, .write32 = fake_write32,
};

/* ---------------------------------------------------------------- the tests */

static struct xhci x;
static char err[256], note[256];

/* A controller with 64-byte contexts or not, asking for spb scratchpad buffers of pages of
 * 2^(12 + page_bit) bytes, with a device of port speed speed on root port 1 whose endpoint 0
 * takes packets of mps bytes. */
static void fake_reset(bool csz, unsigned spb, unsigned page_bit, uint32_t speed, uint8_t mps)
{
	memset(regs, 0, sizeof(regs));
	memset(&fx, 0, sizeof(fx));
	arena_used = 0;
	fx.ctx = csz ? 64 : 32;
	regs[0] = CAPLEN | 0x0100u << 16;
	regs[XHCI_HCSPARAMS1 / 4] = NPORTS << 24 | 1u << 8 | NSLOTS;
	regs[XHCI_HCSPARAMS2 / 4] = (spb >> 5) << 21 | (spb & 0x1Fu) << 27;
	regs[XHCI_HCCPARAMS1 / 4] = csz ? XHCI_HCC1_CSZ : 0;
	regs[XHCI_DBOFF / 4] = DB_OFF;
	regs[XHCI_RTSOFF / 4] = RT_OFF;
	regs[OP(XHCI_USBSTS) / 4] = XHCI_USBSTS_HCH;
	regs[OP(XHCI_PAGESIZE) / 4] = 1u << page_bit;
	for (unsigned p = 1; p <= NPORTS; p++)
		regs[OP(XHCI_PORTSC(p)) / 4] = XHCI_PORTSC_PP;
	regs[OP(XHCI_PORTSC(1)) / 4] |= XHCI_PORTSC_CCS | XHCI_PORTSC_CSC | speed << 10;
	static const uint8_t desc[USB_DEVICE_DESC_BYTES] = {
		18, USB_DT_DEVICE, 0x00, 0x02, 0, 0, 0, 64, 0x81, 0x07, 0x51, 0x55, 0x00, 0x01, 1, 2, 3, 1,
	};
	memcpy(fx.device_desc, desc, sizeof(desc));
	fx.device_desc[7] = mps;
	fake_hw = &xhci_fake;
}

static void open_controller(void)
{
	static const struct pci_dev nec = { .bus = 0, .dev = 4, .fn = 0, .vendor = 0x1033, .device = 0x0194 };
	if (xhci_open(&x, (volatile uint8_t *)regs, REGS_BYTES, &nec, fake_alloc, note, sizeof(note), err,
		      sizeof(err)))
		fail_msg("xhci_open: %s", err);
}

static struct usb_dev *attach_port1(void)
{
	struct usb_dev *d = NULL;
	int r = xhci_attach_port(&x, 1, &d, err, sizeof(err));
	if (r != 1)
		fail_msg("xhci_attach_port gave %d: %s", r, err);
	return d;
}

/* A full-speed device (endpoint 0 of 8 bytes until its descriptor says 64): Address Device,
 * then Evaluate Context, each read by the controller at its own context stride; then a
 * stall, after which the driver must find endpoint 0 halted in the output context. */
static void contexts_at_stride(bool csz)
{
	fake_reset(csz, 0, 0, XHCI_SPEED_FULL, 64);
	open_controller();
	struct usb_dev *d = attach_port1();
	assert_true(fx.addressed);
	/* input control context: add the slot and endpoint 0 */
	assert_int_equal(fx.addr_icc[1], 3);
	/* slot context, the second context: speed, one entry, root port 1 */
	assert_int_equal(fx.addr_slot[0] >> 20 & 0xFu, XHCI_SPEED_FULL);
	assert_int_equal(fx.addr_slot[0] >> 27, 1);
	assert_int_equal(fx.addr_slot[1] >> 16 & 0xFFu, 1);
	/* endpoint 0, the third: a control endpoint of 8 bytes, its ring with DCS 1 */
	assert_int_equal(fx.addr_ep0[1] >> 3 & 7u, XHCI_EP_TYPE_CONTROL);
	assert_int_equal(fx.addr_ep0[1] >> 16, 8);
	assert_int_equal(fx.addr_ep0[2] & 1u, 1);
	assert_true((fx.addr_ep0[2] & ~0xFu) != 0);
	assert_int_equal(d->address, DEV_ADDRESS_OF(1));
	/* Evaluate Context: endpoint 0 now takes 64 bytes */
	assert_true(fx.evaluated);
	assert_int_equal(fx.eval_icc[1], 1u << 1);
	assert_int_equal(fx.eval_ep0[1] >> 16, 64);
	assert_int_equal(d->ep0_max_packet, 64);

	/* A stalled request: the driver reads endpoint 0's state from the output context (at
	 * the stride) and restarts it; then the endpoint answers again. */
	uint8_t buf[USB_DEVICE_DESC_BYTES];
	uint32_t done = 0;
	assert_int_equal(usb_get_descriptor(d, USB_DT_CONFIG, 0, buf, 9, &done, err, sizeof(err)), USB_XFER_STALL);
	assert_int_equal(fx.reset_ep0, 1);
	assert_int_equal(fx.set_deq0, 1);
	memset(buf, 0, sizeof(buf));
	if (usb_get_descriptor(d, USB_DT_DEVICE, 0, buf, sizeof(buf), &done, err, sizeof(err)))
		fail_msg("endpoint 0 after the stall: %s", err);
	assert_int_equal(done, sizeof(buf));
	assert_memory_equal(buf, fx.device_desc, sizeof(buf));
}

static void test_contexts_64_bytes(void **state)
{
	(void)state;
	contexts_at_stride(true);
	assert_int_equal(x.ctx_bytes, 64);
}

static void test_contexts_32_bytes(void **state)
{
	(void)state;
	contexts_at_stride(false);
	assert_int_equal(x.ctx_bytes, 32);
}

static bool overlap(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return a < b + blen && b < a + alen;
}

/* HCSPARAMS2 asks for spb buffers (Max Scratchpad Bufs Hi and Lo, 5.3.4) of the page size
 * PAGESIZE gives: DCBAA[0] points at an array of that many page addresses (4.20, 6.6),
 * each a zeroed page of its own. */
static void scratchpads(unsigned spb, unsigned page_bit)
{
	uint64_t page = 4096ull << page_bit;
	fake_reset(true, spb, page_bit, XHCI_SPEED_HIGH, 64);
	open_controller();
	uint64_t dcbaap = (uint64_t)regs[OP(XHCI_DCBAAP + 4) / 4] << 32 | regs[OP(XHCI_DCBAAP) / 4];
	const uint64_t *dcbaa = dma(dcbaap, 8 * (NSLOTS + 1));
	if (spb == 0) {
		assert_true(dcbaa[0] == 0);
		return;
	}
	uint64_t arr_phys = dcbaa[0];
	if (arr_phys == 0)
		fail_msg("%u scratchpad buffers asked for, DCBAA[0] is 0", spb);
	assert_int_equal(arr_phys % 64, 0);
	const uint64_t *arr = dma(arr_phys, 8ull * spb);
	static uint8_t zero[16384];
	for (unsigned i = 0; i < spb; i++) {
		if (arr[i] % page)
			fail_msg("scratchpad %u at 0x%llx: not aligned to the %llu-byte page", i,
				 (unsigned long long)arr[i], (unsigned long long)page);
		assert_memory_equal(dma(arr[i], page), zero, page);
		assert_false(overlap(arr[i], page, dcbaap, 8 * (NSLOTS + 1)));
		assert_false(overlap(arr[i], page, arr_phys, 8ull * spb));
		assert_false(overlap(arr[i], page, fx.ev_base, 16ull * fx.ev_size));
		assert_false(overlap(arr[i], page, fx.cmd_deq, 16ull * XHCI_CMD_TRBS));
		for (unsigned j = 0; j < i; j++)
			if (overlap(arr[i], page, arr[j], page))
				fail_msg("scratchpads %u and %u overlap", j, i);
	}
}

static void test_scratchpads(void **state)
{
	(void)state;
	scratchpads(4, 0);              /* as Bochs asks */
	scratchpads(37, 0);             /* Hi 1, Lo 5 */
	scratchpads(2, 1);              /* 8 KiB pages */
	scratchpads(0, 0);
}

/* Every status register write clears only what the driver read as set, and never writes 1
 * to PORTSC.PED: through open, a port reset, addressing and a stall's recovery. */
static void test_status_writes(void **state)
{
	(void)state;
	fake_reset(true, 4, 0, XHCI_SPEED_HIGH, 64);
	open_controller();
	struct usb_dev *d = attach_port1();
	uint8_t buf[9];
	uint32_t done;
	assert_int_equal(usb_get_descriptor(d, USB_DT_CONFIG, 0, buf, 9, &done, err, sizeof(err)), USB_XFER_STALL);
	if (fx.violations)
		fail_msg("%u status writes broke the RW1C rule; the first: %s", fx.violations, fx.violation);
	assert_true(fx.portsc_writes >= 2);     /* the reset and the clearing of its changes */
	/* the port's changes were all cleared, the port is enabled */
	assert_int_equal(regs[OP(XHCI_PORTSC(1)) / 4] & PORTSC_RW1C, 0);
	assert_true(regs[OP(XHCI_PORTSC(1)) / 4] & XHCI_PORTSC_PED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_contexts_64_bytes),
		cmocka_unit_test(test_contexts_32_bytes),
		cmocka_unit_test(test_scratchpads),
		cmocka_unit_test(test_status_writes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
