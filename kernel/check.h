/* PASS/FAIL/SKIP lines and the closing "N passed, N failed" (kvm-unit-tests style). */
#ifndef KERNEL_CHECK_H
#define KERNEL_CHECK_H
#include <stdbool.h>

struct check_counts { unsigned passed, failed, skipped; };
extern struct check_counts checks;

/* Prints "PASS: name" or "FAIL: name (why)"; why is printf-formatted. Returns ok. */
bool check(bool ok, const char *name, const char *why_fmt, ...)
	__attribute__((format(printf, 3, 4)));
void check_skip(const char *name, const char *why_fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prints the summary line; returns PLATFORM_EXIT_OK or PLATFORM_EXIT_FAIL. */
int check_summary(void);

#endif
