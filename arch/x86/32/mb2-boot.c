/*
 * The i686 kernel's start in C (arch/x86/32/mb2-entry.asm comes first): checks that the
 * CPU has what this kernel needs, turns the Multiboot2 information into struct
 * boot_info (lib/mb2.c) and calls kernel_main. Paging is off and the image sits at its
 * link address, so every address is physical. A CPU that cannot run bareperf gets one
 * line on COM1 and the screen, and a stop.
 */
#include <stdbool.h>
#include "arch/x86/abi.h"
#include "arch/x86/cpu.h"
#include "lib/bootinfo.h"
#include "lib/mb2.h"
#include "lib/pc-io.h"

#define VGA_TEXT     0xb8000u     /* colour text mode, 80x25: GRUB leaves it on */
#define CPUID1_EDX_TSC (1u << 4)
#define CPUID1_EDX_MSR (1u << 5)
#define CPUID1_EDX_PSE  (1u << 3)
#define CPUID1_EDX_PAE  (1u << 6)
#define CPUID1_EDX_CMOV (1u << 15)

extern char __kernel_start[], __kernel_end[];
void kernel_main(struct boot_info *bi) __attribute__((noreturn));
void mb2_boot(uint32_t magic, uint32_t mbi_phys) __attribute__((noreturn));

static struct boot_info mb2_boot_info __attribute__((aligned(4096)));

static void serial_puts(const char *s)
{
	static volatile uint16_t *const screen = (volatile uint16_t *)VGA_TEXT;
	static unsigned col;
	for (; *s; s++) {
		for (unsigned spins = 0; spins < 100000 && !(inb(UART_COM1 + UART_LSR) & UART_LSR_THRE); spins++)
			;
		outb(UART_COM1, *s);
		if (*s >= 0x20 && col < 80 * 25)
			screen[col++] = 0x0f00 | (uint8_t)*s;     /* white on black */
	}
}

/* QEMU is known by its fw_cfg signature (docs/specs/fw_cfg.rst), whatever CPUID says. */
static bool qemu_fw_cfg(void)
{
	char sig[4];
	outw(QEMU_FW_CFG_PORT_SEL, 0);
	for (int i = 0; i < 4; i++)
		sig[i] = (char)inb(QEMU_FW_CFG_PORT_DATA);
	return sig[0] == 'Q' && sig[1] == 'E' && sig[2] == 'M' && sig[3] == 'U';
}

/* Say why in one line, then stop as the kernel stops on a fatal error: through
 * isa-debug-exit under QEMU, else halt for good. */
static __attribute__((noreturn)) void refuse(const char *why)
{
	/* COM1 at 115200 8N1, FIFOs on: the kernel's UART driver has not run yet. */
	outb(UART_COM1 + UART_IER, 0);
	outb(UART_COM1 + UART_LCR, UART_LCR_DLAB);
	outb(UART_COM1 + UART_DLL, 1);
	outb(UART_COM1 + UART_DLM, 0);
	outb(UART_COM1 + UART_LCR, UART_LCR_8N1);
	outb(UART_COM1 + UART_FCR, UART_FCR_ENABLE_CLEAR);
	serial_puts("\r\nbareperf: ");
	serial_puts(why);
	serial_puts(" Stopped.\r\n");
	if (qemu_fw_cfg())
		outl(QEMU_DEBUG_EXIT_PORT, QEMU_DEBUG_EXIT_BASE + EXIT_CODE_FATAL);
	for (;;) {
		irq_disable();
		halt();
	}
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

void mb2_boot(uint32_t magic, uint32_t mbi_phys)
{
	if (magic != MB2_LOADER_MAGIC)
		refuse("not started by a Multiboot2 loader (EAX lacks 0x36d76289).");
	check_cpu();
	struct mb2_source src = {
		.mbi_phys = mbi_phys,
		.phys_to_virt = 0,          /* paging is off */
		.kernel_phys = (uintptr_t)__kernel_start,
		.kernel_size = (uint64_t)(__kernel_end - __kernel_start),
		.firmware = BI_FIRMWARE_BIOS,
	};
	char err[160];
	static char line[200];

	if (mb2_fill_boot_info(&src, &mb2_boot_info, err, sizeof(err))) {
		unsigned n = 0;
		for (const char *p = "Multiboot2 information unusable: "; *p; p++)
			line[n++] = *p;
		for (const char *p = err; *p && n < sizeof(line) - 1; p++)
			line[n++] = *p;
		line[n] = 0;
		refuse(line);
	}
	kernel_main(&mb2_boot_info);
}
