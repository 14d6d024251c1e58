#include "arch/x86/msr-io.h"
#include "arch/x86/msr.h"

static int hw_read(void *ctx, uint32_t msr, uint64_t *val)
{
	const struct msr_observer *obs = ctx;
	int vec = rdmsr_safe(msr, val);
	if (obs && obs->fn)
		obs->fn(obs->ctx, false, msr, *val, vec);
	return vec;
}

static int hw_write(void *ctx, uint32_t msr, uint64_t val)
{
	const struct msr_observer *obs = ctx;
	int vec = wrmsr_safe(msr, val);
	if (obs && obs->fn)
		obs->fn(obs->ctx, true, msr, val, vec);
	return vec;
}

struct msr_io msr_io_hardware(const struct msr_observer *obs)
{
	return (struct msr_io){ .read = hw_read, .write = hw_write, .ctx = (void *)obs };
}

int pmc_read_safe(uint32_t index, uint64_t *val)
{
	return rdpmc_safe(index, val);
}
