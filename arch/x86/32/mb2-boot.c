/*
 * The i686 kernel's start in C (arch/x86/32/mb2-entry.asm comes first): checks that the
 * CPU has what this kernel needs, turns the Multiboot2 information (lib/mb2.c) or the PVH
 * start information (lib/pvh.c) into struct boot_info and calls kernel_main. Paging is
 * off and the image sits at its link address, so every address is physical. A CPU that
 * cannot run bareperf is refused by kernel/boot-refusal.c: one line on COM1 and the
 * screen, and a stop. What the refusal runs is built for the i486 (Makefile
 * K32_I486_OBJ): it runs on such CPUs.
 */
#include <stdbool.h>
#include "arch/x86/abi.h"
#include "arch/x86/cpu.h"
#include "lib/bootinfo.h"
#include "lib/mb2.h"
#include "lib/pvh.h"
#include "lib/str.h"
#include "lib/pc-io.h"

#define CPUID1_EDX_TSC (1u << 4)
#define CPUID1_EDX_MSR (1u << 5)
#define CPUID1_EDX_PSE  (1u << 3)
#define CPUID1_EDX_PAE  (1u << 6)
#define CPUID1_EDX_CMOV (1u << 15)

extern char __kernel_start[], __kernel_end[];
void kernel_main(struct boot_info *bi) __attribute__((noreturn));
void boot_refuse(const struct boot_info *bi, const char *why) __attribute__((noreturn));
void mb2_boot(uint32_t magic, uint32_t info_phys) __attribute__((noreturn));

static struct boot_info mb2_boot_info __attribute__((aligned(4096)));
static uint32_t info_at;        /* the boot information, once EAX said which there is */
static uint32_t info_magic;     /* EAX at entry: MB2_LOADER_MAGIC or PVH_START_MAGIC */

static int fill_boot_info(char *err, size_t errlen)
{
	struct boot_source src = {
		.info_phys = info_at,
		.phys_to_virt = 0,          /* paging is off */
		.kernel_phys = (uintptr_t)__kernel_start,
		.kernel_size = (uint64_t)(__kernel_end - __kernel_start),
		.firmware = BI_FIRMWARE_BIOS,
	};
	if (info_magic == PVH_START_MAGIC)
		return pvh_fill_boot_info(&src, &mb2_boot_info, err, errlen);
	return mb2_fill_boot_info(&src, &mb2_boot_info, err, errlen);
}

/* Say why and stop (kernel/boot-refusal.c), with GRUB's framebuffer when the boot
 * information that names it can be read. */
static __attribute__((noreturn)) void refuse(const char *why)
{
	char err[160];
	boot_refuse(info_at && !fill_boot_info(err, sizeof(err)) ? &mb2_boot_info : NULL, why);
}

/* CPUID exists when EFLAGS.ID can be toggled (SDM Vol. 1 3.4.3.3). */
static bool has_cpuid(void)
{
	uint32_t before, after;
	__asm__ volatile("pushfl\n\t pop %0\n\t mov %0, %1\n\t xor %2, %1\n\t push %1\n\t popfl\n\t"
			 "pushfl\n\t pop %1\n\t push %0\n\t popfl"
			 : "=&r"(before), "=&r"(after) : "i"(RFLAGS_ID) : "cc");
	return (before ^ after) & RFLAGS_ID;
}

static void check_cpu(void)
{
	uint32_t r[4];
	if (!has_cpuid())
		refuse("this CPU has no CPUID instruction (a 386 or early 486); bareperf needs "
		       "CPUID, RDTSC and RDMSR.");
	cpuid_count(0, 0, r);
	uint32_t edx1 = 0;
	if (r[0] >= 1) {
		cpuid_count(1, 0, r);
		edx1 = r[3];
	}
	if (!(edx1 & CPUID1_EDX_TSC) || !(edx1 & CPUID1_EDX_MSR))
		refuse("this CPU has no time-stamp counter or no MSRs (CPUID.1:EDX bits 4 and 5); "
		       "bareperf needs RDTSC and RDMSR.");
	if (!(edx1 & CPUID1_EDX_CMOV))
		refuse("this CPU has no CMOV (CPUID.1:EDX bit 15): it is older than the P6 (a "
		       "Pentium/P5 has neither RDPMC at CPL 3 nor the P6 counter MSRs); the i686 "
		       "kernel is built for the Pentium Pro and later.");
	if (!(edx1 & CPUID1_EDX_PAE) && !(edx1 & CPUID1_EDX_PSE))
		refuse("this CPU has neither PAE nor 4 MiB pages (CPUID.1:EDX bits 6 and 3); "
		       "the i686 kernel needs one of them to map memory.");
}

void mb2_boot(uint32_t magic, uint32_t info_phys)
{
	if (magic != MB2_LOADER_MAGIC && magic != PVH_START_MAGIC)
		refuse("not started by a Multiboot2 loader (EAX lacks 0x36d76289).");
	info_at = info_phys;
	info_magic = magic;
	check_cpu();
	char err[160];
	static char line[200];

	if (fill_boot_info(err, sizeof(err))) {
		info_at = 0;            /* refuse() must not read it again */
		unsigned n = 0;
		const char *what = magic == PVH_START_MAGIC ? "PVH start information unusable: " :
			"Multiboot2 information unusable: ";
		for (const char *p = what; *p; p++)
			line[n++] = *p;
		for (const char *p = err; *p && n < sizeof(line) - 1; p++)
			line[n++] = *p;
		line[n] = 0;
		refuse(line);
	}
	kernel_main(&mb2_boot_info);
}
