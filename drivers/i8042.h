/* The PC keyboard controller, polled (IBM PC/AT Technical Reference; Intel 8042). */
#ifndef DRIVERS_I8042_H
#define DRIVERS_I8042_H
#include <stdbool.h>

#define I8042_DATA_PORT     0x60
#define I8042_STATUS_PORT   0x64
#define I8042_STATUS_OBF    0x01    /* output buffer full: a byte to read at the data port */
#define I8042_NOTHING       0xff    /* an open bus: no controller decodes the port */

/* Reads and drops what the controller holds (at most a few bytes). */
void i8042_drain(void);
/* Waits, polling at most `polls` times, for a byte from the keyboard; true when one came. */
bool i8042_wait_byte(unsigned long polls);

#endif
