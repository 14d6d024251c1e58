/* drivers/mmio.h and drivers/pci.h for the drivers built with BAREPERF_FAKE_HW: every access
 * goes to the fake device the test set (tests/unit/fake-hw.h). */
#define BAREPERF_FAKE_HW        /* drivers/mmio.h: the functions this file defines */
#include "tests/unit/fake-hw.h"
#include <stdio.h>
#include <stdlib.h>
#include "drivers/mmio.h"
#include "drivers/pci.h"

struct fake_hw *fake_hw;

/* The offset of p in the fake's register block; an access outside it ends the test. */
static uint32_t offset_of(const volatile void *p, unsigned size)
{
	uintptr_t a = (uintptr_t)p, base = fake_hw ? (uintptr_t)fake_hw->regs : 0;
	if (!fake_hw || a < base || a + size > base + fake_hw->len) {
		fprintf(stderr, "fake-hw: a %u-byte access at %p, outside the register block\n", size, (void *)p);
		abort();
	}
	return (uint32_t)(a - base);
}

uint32_t mmio_read32(const volatile void *p)
{
	return fake_hw->read32(offset_of(p, 4));
}

uint8_t mmio_read8(const volatile void *p)
{
	uint32_t off = offset_of(p, 1);
	return (uint8_t)(fake_hw->read32(off & ~3u) >> (8 * (off & 3)));
}

void mmio_write32(volatile void *p, uint32_t v)
{
	fake_hw->write32(offset_of(p, 4), v);
}

void mmio_write8(volatile void *p, uint8_t v)
{
	uint32_t off = offset_of(p, 1), shift = 8 * (off & 3);
	if (fake_hw->write8) {
		fake_hw->write8(off, v);
		return;
	}
	uint32_t old = fake_hw->read32(off & ~3u);
	fake_hw->write32(off & ~3u, (old & ~(0xFFu << shift)) | (uint32_t)v << shift);
}

/* The offset of an I/O access in the fake's port range; one outside it ends the test. */
static uint16_t io_offset(uint16_t port, unsigned size)
{
	if (!fake_hw || !fake_hw->io_read || port < fake_hw->io_base ||
	    port + size > (unsigned)fake_hw->io_base + fake_hw->io_len) {
		fprintf(stderr, "fake-hw: a %u-byte access to I/O port 0x%04x, outside the fake's ports\n", size, port);
		abort();
	}
	return (uint16_t)(port - fake_hw->io_base);
}

uint8_t inb(uint16_t port)
{
	if (port == 0x80) {
		if (fake_hw && fake_hw->delay)
			fake_hw->delay();
		return 0xFF;
	}
	return (uint8_t)fake_hw->io_read(io_offset(port, 1), 1);
}

uint16_t inw(uint16_t port)
{
	return (uint16_t)fake_hw->io_read(io_offset(port, 2), 2);
}

uint32_t inl(uint16_t port)
{
	return fake_hw->io_read(io_offset(port, 4), 4);
}

void outb(uint16_t port, uint8_t v)
{
	fake_hw->io_write(io_offset(port, 1), 1, v);
}

void outw(uint16_t port, uint16_t v)
{
	fake_hw->io_write(io_offset(port, 2), 2, v);
}

void outl(uint16_t port, uint32_t v)
{
	fake_hw->io_write(io_offset(port, 4), 4, v);
}

uint32_t pci_read32(uint8_t bus, uint8_t dev, uint8_t fn, uint16_t off)
{
	(void)bus, (void)dev, (void)fn;
	return fake_hw && fake_hw->pci_read32 ? fake_hw->pci_read32(off) : 0xFFFFFFFFu;
}

void pci_write32(uint8_t bus, uint8_t dev, uint8_t fn, uint16_t off, uint32_t v)
{
	(void)bus, (void)dev, (void)fn;
	if (fake_hw && fake_hw->pci_write32)
		fake_hw->pci_write32(off, v);
}
