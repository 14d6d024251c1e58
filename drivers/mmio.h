/*
 * Loads and stores of memory-mapped registers, port I/O (UHCI's registers) and the port 0x80
 * read that paces polls, for the drivers that the host tests run against a fake controller
 * (drivers/xhci.c, drivers/ehci.c, drivers/uhci.c, drivers/ohci.c). The host library builds them with BAREPERF_FAKE_HW (Makefile): each
 * access is then a call into the test's fake (tests/unit/fake-hw.c), which sees every read
 * and write in order, as the controller would.
 */
#ifndef DRIVERS_MMIO_H
#define DRIVERS_MMIO_H
#include <stdint.h>

#ifdef BAREPERF_FAKE_HW
uint8_t mmio_read8(const volatile void *p);
uint32_t mmio_read32(const volatile void *p);
void mmio_write8(volatile void *p, uint8_t v);
void mmio_write32(volatile void *p, uint32_t v);
uint8_t inb(uint16_t port);
/* Port I/O other than the poll delay (drivers/uhci.c's registers) */
uint16_t inw(uint16_t port);
uint32_t inl(uint16_t port);
void outw(uint16_t port, uint16_t v);
void outl(uint16_t port, uint32_t v);
void outb(uint16_t port, uint8_t v);
#else
#include "arch/x86/cpu.h"

static inline uint8_t mmio_read8(const volatile void *p)
{
	return *(const volatile uint8_t *)p;
}

static inline uint32_t mmio_read32(const volatile void *p)
{
	return *(const volatile uint32_t *)p;
}

static inline void mmio_write8(volatile void *p, uint8_t v)
{
	*(volatile uint8_t *)p = v;
}

static inline void mmio_write32(volatile void *p, uint32_t v)
{
	*(volatile uint32_t *)p = v;
}
#endif

#endif
