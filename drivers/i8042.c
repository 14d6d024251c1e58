#include "drivers/i8042.h"
#include "arch/x86/cpu.h"

#define DRAIN_MAX 32                /* the controller and keyboard buffer hold far fewer */

static bool byte_waiting(void)
{
	uint8_t st = inb(I8042_STATUS_PORT);
	return st != I8042_NOTHING && (st & I8042_STATUS_OBF);
}

void i8042_drain(void)
{
	for (unsigned i = 0; i < DRAIN_MAX && byte_waiting(); i++)
		(void)inb(I8042_DATA_PORT);
}

bool i8042_wait_byte(unsigned long polls)
{
	for (unsigned long i = 0; i < polls; i++) {
		if (byte_waiting()) {
			(void)inb(I8042_DATA_PORT);
			return true;
		}
		cpu_relax();
	}
	return false;
}
