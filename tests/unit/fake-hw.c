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

uint8_t inb(uint16_t port)
{
	if (port == 0x80 && fake_hw && fake_hw->delay)
		fake_hw->delay();
	return 0xFF;
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
