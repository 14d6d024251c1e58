/* mode=c2c: the cross-core tests of lib/c2c.h on pairs of CPUs (docs/c2c.md). */
#ifndef KERNEL_C2C_MODE_H
#define KERNEL_C2C_MODE_H

/* Runs the tests c2c.tests= names on the pairs c2c= names; returns the exit code for
 * platform_stop. With fewer than two CPUs online each test is an @skip. */
int c2c_main(void);

#endif
