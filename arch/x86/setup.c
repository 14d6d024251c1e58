#include "arch/x86/setup.h"
#include "arch/x86/cpu.h"
#include "arch/x86/desc.h"
#include "arch/x86/msr.h"
#include "arch/x86/paging.h"
#include "arch/x86/run.h"

bool cpuid_hw_read(void *ctx, uint32_t leaf, uint32_t subleaf, uint32_t regs[4])
{
	(void)ctx;
	cpuid_count(leaf, subleaf, regs);
	return true;
}

void arch_init(const struct boot_info *bi, const struct cpu_info *ci)
{
	desc_init();
	paging_init(bi, ci);
	run_init(ci->syscall);
	/* SSE for payloads (the kernel's own C never uses it): SDM Vol. 3A 13.1.3. Every
	 * x86-64 CPU has FXSR and SSE; an i686 one may not, and there the CR4 bits are
	 * reserved (#GP if set). */
	write_cr0((read_cr0() & ~(CR0_EM | CR0_TS | CR0_AM)) | CR0_MP | CR0_NE);
	if (ci->fxsr)
		write_cr4(read_cr4() | CR4_OSFXSR | (ci->sse ? CR4_OSXMMEXCPT : 0));
}


uint64_t cpu_lapic_enable(const struct cpu_info *ci)
{
	if (!ci->apic || !ci->msr)
		return 0;
	uint64_t v = rdmsr(MSR_IA32_APIC_BASE);
	/* x2APIC mode where CPUID has it (SDM Vol. 3A 11.12.5: from xAPIC, set EXTD with
	 * the enable bit kept). Without it, firmware that handed over in x2APIC mode is
	 * taken back, which is legal only through disabled. A hypervisor may drop the EXTD
	 * write (QEMU TCG): cpu_lapic_x2apic reads back what holds. */
	if (ci->x2apic) {
		if (!(v & APIC_BASE_ENABLE))
			wrmsr(MSR_IA32_APIC_BASE, v |= APIC_BASE_ENABLE);
		if (!(v & APIC_BASE_EXTD))
			wrmsr(MSR_IA32_APIC_BASE, v | APIC_BASE_EXTD);
		return v & APIC_BASE_ADDR_MASK;
	}
	if (v & APIC_BASE_EXTD) {
		v &= ~(APIC_BASE_EXTD | APIC_BASE_ENABLE);
		wrmsr(MSR_IA32_APIC_BASE, v);
	}
	if (!(v & APIC_BASE_ENABLE))
		wrmsr(MSR_IA32_APIC_BASE, v | APIC_BASE_ENABLE);
	return v & APIC_BASE_ADDR_MASK;
}

bool cpu_lapic_x2apic(void)
{
	return rdmsr(MSR_IA32_APIC_BASE) & APIC_BASE_EXTD;
}

bool cpu_lfence_serializing(const struct cpu_info *ci)
{
	/* LFENCE came with SSE2 and is #UD without it (SDM Vol. 2A LFENCE): Pentium II/III,
	 * Athlon. Every x86-64 CPU has SSE2. */
	if (!ci->sse2)
		return false;
	if (ci->vendor == VENDOR_INTEL)
		return true;
	if (ci->vendor != VENDOR_AMD && ci->vendor != VENDOR_HYGON)
		return false;
	if (ci->family == 0xf || ci->family == 0x11)
		return true;
	uint64_t v;
	return rdmsr_safe(MSR_AMD64_DE_CFG, &v) == 0 && (v & DE_CFG_LFENCE_SERIALIZE);
}
