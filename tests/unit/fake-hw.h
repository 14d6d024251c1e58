/*
 * A fake device behind drivers/mmio.h (the drivers built with BAREPERF_FAKE_HW): the test
 * sets fake_hw to its device, whose hooks see each register read and write, each poll
 * delay (a read of port 0x80) and each PCI configuration access, in order.
 */
#ifndef TESTS_UNIT_FAKE_HW_H
#define TESTS_UNIT_FAKE_HW_H
#include <stdint.h>

struct fake_hw {
	volatile uint8_t *regs;         /* the register block the driver was given */
	uint32_t len;
	/* off: from regs, 4-byte aligned for the 32-bit hooks */
	uint32_t (*read32)(uint32_t off);
	void (*write32)(uint32_t off, uint32_t v);
	void (*write8)(uint32_t off, uint8_t v);        /* NULL: as a 32-bit read-modify-write */
	void (*delay)(void);                            /* may be NULL */
	uint32_t (*pci_read32)(uint16_t off);           /* NULL: all ones, no function */
	void (*pci_write32)(uint16_t off, uint32_t v);
	/* Port I/O at io_base..io_base + io_len - 1 (off from io_base; size 1, 2 or 4 bytes);
	 * an access elsewhere, but for the poll delay's port 0x80, ends the test. */
	uint16_t io_base, io_len;
	uint32_t (*io_read)(uint16_t off, unsigned size);
	void (*io_write)(uint16_t off, unsigned size, uint32_t v);
};

extern struct fake_hw *fake_hw;

#endif
