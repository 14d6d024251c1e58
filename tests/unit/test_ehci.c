/*
 * drivers/ehci.c's writes to USBSTS and PORTSC against a model of the controller's
 * operational registers (EHCI 1.0 2.3.2, 2.3.9: their status and change bits are write 1
 * to clear). The driver runs as in the kernel, its register accesses going to the model
 * (EHCI_OP_REGS_MODEL), its port I/O delays to a stub. Two kinds of controller: one exact
 * to the spec, and Bochs' EHCI, which toggles each USBSTS bit written as 1. Every write
 * is checked as it happens:
 *   - a USBSTS write may carry only status bits that read as set (0x3F written blindly
 *     sets the others on Bochs: the asynchronous advance bit among them);
 *   - a PORTSC write may carry a change bit only where it reads as set, and only the port
 *     attach acknowledges one (CSC, on its own port): powering and resetting ports clear
 *     none by accident.
 * No device answers: control transfers time out, which also takes the device's queue heads
 * out of the schedule through the async advance doorbell.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

/* arch/x86/cpu.h's port I/O stays out: the driver's poll delay (a read of port 0x80) is
 * this stub's. */
#define ARCH_X86_CPU_H
static inline uint8_t inb(uint16_t port)
{
	(void)port;
	return 0;
}

struct ehci_hc;
#define EHCI_OP_REGS_MODEL
static uint32_t op_rd(const struct ehci_hc *hc, uint32_t off);
static void op_wr(struct ehci_hc *hc, uint32_t off, uint32_t v);
#include "drivers/ehci.c"

#define NPORTS          4
#define CAPLENGTH       0x20
#define STS_USBINT      (1u << 0)
#define STS_PCD         (1u << 2)       /* port change detect */
#define PORT_RO         (EHCI_PORT_CCS | EHCI_PORT_LS_MASK << EHCI_PORT_LS_SHIFT)

enum model_kind { MODEL_SPEC, MODEL_BOCHS };

static struct {
	enum model_kind kind;
	uint32_t cmd, sts, portsc[NPORTS];
	uint32_t other[EHCI_MMIO_BYTES / 4];
	uint32_t sts_after_reset;           /* status bits the reset leaves set */
	uint32_t acked[NPORTS];             /* change bits each port's writes cleared */
	char wrong[256];                    /* the first wrong write, or "" */
} m;

static uint8_t cap[EHCI_MMIO_BYTES] __attribute__((aligned(4)));
static uint8_t dma_mem[EHCI_DMA_BYTES] __attribute__((aligned(4096)));
static struct ehci_hc hc;
static char note[200], err[200];

/* drivers/pci.c's config space: no extended capabilities (HCCPARAMS.EECP 0) are read. */
uint32_t pci_read32(uint8_t bus, uint8_t dev, uint8_t fn, uint16_t off)
{
	(void)bus, (void)dev, (void)fn, (void)off;
	return 0;
}

void pci_write32(uint8_t bus, uint8_t dev, uint8_t fn, uint16_t off, uint32_t v)
{
	(void)bus, (void)dev, (void)fn, (void)off, (void)v;
}

static void wrong(const char *fmt, ...)
{
	va_list ap;
	if (m.wrong[0])
		return;
	va_start(ap, fmt);
	vsnprintf(m.wrong, sizeof(m.wrong), fmt, ap);
	va_end(ap);
}

static int port_of(uint32_t off)
{
	if (off < EHCI_PORTSC(0) || off >= EHCI_PORTSC(NPORTS) || off % 4)
		return -1;
	return (int)(off - EHCI_PORTSC(0)) / 4;
}

static uint32_t op_rd(const struct ehci_hc *h, uint32_t off)
{
	(void)h;
	int p = port_of(off);
	if (off == EHCI_USBCMD)
		return m.cmd;
	if (off == EHCI_USBSTS)
		return m.sts;
	return p >= 0 ? m.portsc[p] : m.other[off / 4];
}

static void write_cmd(uint32_t v)
{
	if (v & EHCI_CMD_HCRESET) {
		m.cmd = EHCI_CMD_ITC(8);
		m.sts = EHCI_STS_HCHALTED | m.sts_after_reset;
		return;
	}
	m.cmd = v & ~EHCI_CMD_IAAD;
	m.sts = (v & EHCI_CMD_RS) ? m.sts & ~EHCI_STS_HCHALTED : m.sts | EHCI_STS_HCHALTED;
	m.sts = (v & EHCI_CMD_RS) && (v & EHCI_CMD_ASE) ? m.sts | EHCI_STS_ASS : m.sts & ~EHCI_STS_ASS;
	if (v & EHCI_CMD_IAAD)
		m.sts |= EHCI_STS_IAA;      /* the controller has let go of the unlinked heads */
}

static void write_sts(uint32_t v)
{
	uint32_t stray = v & ~m.sts & EHCI_STS_RWC_ALL;
	if (stray)
		wrong("USBSTS written 0x%08x while it read 0x%08x: bits 0x%02x read as 0 (Bochs' "
		      "EHCI sets them)", v, m.sts, stray);
	if (m.kind == MODEL_BOCHS)
		m.sts ^= v & EHCI_STS_RWC_ALL;
	else
		m.sts &= ~(v & EHCI_STS_RWC_ALL);
}

/* PORTSC (2.3.9): CCS and the line status read only; PE only cleared by software, set at
 * the end of a port reset (a high-speed device); the change bits cleared by a 1. */
static void write_portsc(int p, uint32_t v)
{
	uint32_t old = m.portsc[p], ack = v & EHCI_PORT_RWC;
	if (ack & ~old)
		wrong("PORTSC %d written 0x%08x while it read 0x%08x: change bits 0x%02x read as 0",
		      p + 1, v, old, ack & ~old);
	m.acked[p] |= ack & old;
	uint32_t sc = (old & PORT_RO) | (v & ~(PORT_RO | EHCI_PORT_RWC | EHCI_PORT_PE)) |
		      (old & EHCI_PORT_RWC & ~ack) | (old & v & EHCI_PORT_PE);
	if ((old & EHCI_PORT_PR) && !(v & EHCI_PORT_PR) && (old & EHCI_PORT_CCS))
		sc |= EHCI_PORT_PE;
	m.portsc[p] = sc;
}

static void op_wr(struct ehci_hc *h, uint32_t off, uint32_t v)
{
	(void)h;
	int p = port_of(off);
	if (off == EHCI_USBCMD)
		write_cmd(v);
	else if (off == EHCI_USBSTS)
		write_sts(v);
	else if (p >= 0)
		write_portsc(p, v);
	else
		m.other[off / 4] = v;
}

/* A controller of that kind after power-on: NPORTS ports with power switches, the given
 * port values. */
static void model_reset(enum model_kind kind, uint32_t sts_after_reset, const uint32_t portsc[NPORTS])
{
	memset(&m, 0, sizeof(m));
	memset(&hc, 0, sizeof(hc));
	m.kind = kind;
	m.sts_after_reset = sts_after_reset;
	m.sts = EHCI_STS_HCHALTED;
	memcpy(m.portsc, portsc, sizeof(m.portsc));
	memset(cap, 0, sizeof(cap));
	uint32_t caplength = CAPLENGTH | 0x0100u << 16, hcs = NPORTS | EHCI_HCS_PPC;
	memcpy(cap + EHCI_CAPLENGTH_HCIVERSION, &caplength, 4);
	memcpy(cap + EHCI_HCSPARAMS, &hcs, 4);
	snprintf(hc.name, sizeof(hc.name), "EHCI 00:1d.7");
}

static int open_hc(void)
{
	struct pci_dev pci = { 0 };
	struct dma_region dma = { .virt = dma_mem, .phys = 0x100000, .size = sizeof(dma_mem) };
	return ehci_open(&hc, &pci, cap, &dma, note, sizeof(note), err, sizeof(err));
}

static const uint32_t connected = EHCI_PORT_CCS | EHCI_PORT_PP;

/* The reset leaves port change detect and USBINT set: opening clears them, on both kinds,
 * and writes USBSTS no bit that read as 0. */
static void test_usbsts_cleared_as_read(void **state)
{
	(void)state;
	static const uint32_t ports[NPORTS] = { 0 };
	for (int kind = MODEL_SPEC; kind <= MODEL_BOCHS; kind++) {
		model_reset(kind, STS_PCD | STS_USBINT, ports);
		assert_int_equal(open_hc(), 0);
		assert_string_equal(m.wrong, "");
		assert_int_equal(m.sts & EHCI_STS_RWC_ALL, 0);
		assert_false(m.sts & EHCI_STS_HCHALTED);
	}
}

/* Routing and powering the ports clears none of their change bits; the attach
 * acknowledges CSC on its own port and only there, resets the port, and the control
 * transfer that nobody answers times out. Its queue head leaves the schedule through the
 * doorbell: IAA acknowledged only once it is set. */
static void test_portsc_change_bits_kept(void **state)
{
	(void)state;
	const uint32_t ports[NPORTS] = {
		connected | EHCI_PORT_CSC | EHCI_PORT_PEC | EHCI_PORT_OCC,
		EHCI_PORT_CSC | EHCI_PORT_OCC,
		connected,
		EHCI_PORT_PEC,
	};
	for (int kind = MODEL_SPEC; kind <= MODEL_BOCHS; kind++) {
		model_reset(kind, STS_PCD, ports);
		assert_int_equal(open_hc(), 0);
		assert_string_equal(m.wrong, "");
		for (int p = 0; p < NPORTS; p++) {
			assert_int_equal(m.acked[p], 0);
			assert_true(m.portsc[p] & EHCI_PORT_PP);
		}
		struct usb_dev *dev = 0;
		char msg[200];
		enum ehci_port_state st = ehci_port_attach(&hc, 1, &dev, msg, sizeof(msg));
		assert_int_equal(st, EHCI_PORT_FAILED);
		assert_non_null(strstr(msg, "timeout: GET_DESCRIPTOR"));
		assert_string_equal(m.wrong, "");
		assert_int_equal(m.acked[0], EHCI_PORT_CSC);
		assert_int_equal(m.portsc[0] & EHCI_PORT_RWC, EHCI_PORT_PEC | EHCI_PORT_OCC);
		assert_int_equal(m.portsc[1] & EHCI_PORT_RWC, EHCI_PORT_CSC | EHCI_PORT_OCC);
		assert_int_equal(m.portsc[3] & EHCI_PORT_RWC, EHCI_PORT_PEC);
		assert_int_equal(m.sts & EHCI_STS_IAA, 0);
	}
}

/* A device whose connect change was acknowledged already (CSC reads 0): the attach writes
 * no change bit at all. */
static void test_attach_without_change(void **state)
{
	(void)state;
	const uint32_t ports[NPORTS] = { 0, 0, connected, 0 };
	for (int kind = MODEL_SPEC; kind <= MODEL_BOCHS; kind++) {
		model_reset(kind, 0, ports);
		assert_int_equal(open_hc(), 0);
		struct usb_dev *dev = 0;
		char msg[200];
		assert_int_equal(ehci_port_attach(&hc, 3, &dev, msg, sizeof(msg)), EHCI_PORT_FAILED);
		assert_string_equal(m.wrong, "");
		for (int p = 0; p < NPORTS; p++)
			assert_int_equal(m.acked[p], 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_usbsts_cleared_as_read),
		cmocka_unit_test(test_portsc_change_bits_kept),
		cmocka_unit_test(test_attach_without_change),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
