/* MSR access as the PMU backends see it (struct msr_io), and its hardware form:
 * RDMSR/WRMSR through the exception table, plus an optional observer that sees every
 * access (trace=msr). The host tests give the backends an MSR model instead. */
#ifndef ARCH_X86_MSR_IO_H
#define ARCH_X86_MSR_IO_H
#include <stdbool.h>
#include <stdint.h>

/* MSR access: return 0, or the exception vector that fired (13 = #GP). */
struct msr_io {
	int (*read)(void *ctx, uint32_t msr, uint64_t *val);
	int (*write)(void *ctx, uint32_t msr, uint64_t val);
	void *ctx;
};

struct msr_observer {
	/* write: true for WRMSR; vector: 0 or the exception it raised. */
	void (*fn)(void *ctx, bool write, uint32_t msr, uint64_t val, int vector);
	void *ctx;
};

/* An msr_io whose accesses are real and safe; obs may be NULL. */
struct msr_io msr_io_hardware(const struct msr_observer *obs);
/* RDPMC through the exception table, for the self-check. */
int pmc_read_safe(uint32_t index, uint64_t *val);

#endif
