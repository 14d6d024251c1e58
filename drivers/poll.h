/* How the storage drivers wait: they poll a register, reading I/O port 0x80 between polls,
 * the classic ISA delay of about 1 us on PC hardware. Under emulation a read is far faster
 * (issue 32: two 5,000,000-poll timeouts within a 1.06 s QEMU boot), so polls are no clock: a
 * timeout message gives the polls and what they take at 1 us each, never a time it did
 * not measure. */
#ifndef DRIVERS_POLL_H
#define DRIVERS_POLL_H

#define POLL_DELAY_PORT         0x80
#define POLLS_PER_MS            1000u   /* at 1 us a poll */

/* "... within " POLLS_TEXT, POLLS_ARGS(n): "5000000 polls (5000 ms at 1 us a poll)" */
#define POLLS_TEXT              "%u polls (%u ms at 1 us a poll)"
#define POLLS_ARGS(n)           (unsigned)(n), (unsigned)((n) / POLLS_PER_MS)

#endif
