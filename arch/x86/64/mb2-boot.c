/*
 * The BIOS path's loader half in long mode (arch/x86/64/mb2-entry.asm comes first): turns
 * the Multiboot2 information (lib/mb2.c) or the PVH start information (lib/pvh.c) into
 * struct boot_info and enters the kernel exactly as the UEFI loader does, RDI = the
 * boot_info's physical address. The boot_info and the entry stub's page tables lie in the
 * image's .bss, which the map marks in use.
 */
#include "arch/x86/abi.h"
#include "arch/x86/cpu.h"
#include "lib/bootinfo.h"
#include "lib/mb2.h"
#include "lib/pvh.h"
#include "lib/pc-io.h"


extern char __kernel_start[], __kernel_end[];
void kernel_entry(struct boot_info *bi) __attribute__((noreturn));
void mb2_boot(uint32_t magic, uint32_t info_phys) __attribute__((noreturn));

static struct boot_info mb2_boot_info __attribute__((aligned(4096)));

static void serial_puts(const char *s)
{
	for (; *s; s++) {
		for (unsigned spins = 0; spins < 100000 && !(inb(UART_COM1 + UART_LSR) & UART_LSR_THRE); spins++)
			;
		outb(UART_COM1, *s);
	}
}

/* A malformed hand-over: say why on UART_COM1 (set up by GRUB or not, 115200 8N1 is the
 * kernel's default) and stop as the kernel stops on a fatal error. */
static __attribute__((noreturn)) void refuse(const char *protocol, const char *why)
{
	serial_puts("\r\nbareperf: ");
	serial_puts(protocol);
	serial_puts(" information unusable: ");
	serial_puts(why);
	serial_puts("\r\nbareperf: stopped (exit code 2)\r\n");
	uint32_t r[4];
	cpuid_count(1, 0, r);
	if (r[2] & CPUID_1_ECX_HYPERVISOR)
		outl(QEMU_DEBUG_EXIT_PORT, QEMU_DEBUG_EXIT_BASE + EXIT_CODE_FATAL);
	for (;;)
		halt();
}

void mb2_boot(uint32_t magic, uint32_t info_phys)
{
	struct boot_source src = {
		.info_phys = info_phys,
		.phys_to_virt = 0,          /* 0..4 GiB is identity-mapped */
		.kernel_phys = KERNEL_BIOS_PHYS,
		.kernel_size = (uint64_t)(__kernel_end - __kernel_start),
		.firmware = BI_FIRMWARE_BIOS,
	};
	char err[160];

	if (magic == PVH_START_MAGIC) {
		if (pvh_fill_boot_info(&src, &mb2_boot_info, err, sizeof(err)))
			refuse("PVH start", err);
	} else if (mb2_fill_boot_info(&src, &mb2_boot_info, err, sizeof(err))) {
		refuse("Multiboot2", err);
	}
	uintptr_t bi_phys = (uintptr_t)&mb2_boot_info - KERNEL_VBASE + KERNEL_BIOS_PHYS;
	kernel_entry((struct boot_info *)bi_phys);
}
