/* kernel_main: boot-info -> CPU state -> detection -> configuration -> the chosen mode. */
#include "kernel/kernel.h"
#include "arch/x86/desc.h"
#include "arch/x86/paging.h"
#include "arch/x86/run.h"
#include "arch/x86/setup.h"
#include "arch/x86/traps.h"
#include "drivers/lapic.h"
#include "drivers/pit.h"
#include "drivers/qemu-fwcfg.h"
#include "drivers/uart16550.h"
#include "kernel/c2c-mode.h"
#include "kernel/console.h"
#include "kernel/engine.h"
#include "kernel/lava-report.h"
#include "kernel/mem.h"
#include "kernel/platform.h"
#include "kernel/screen-ui.h"
#include "kernel/serial-console.h"
#include "kernel/pmucheck.h"
#include "kernel/smp.h"
#include "kernel/storage.h"
#include "lib/format.h"
#include "lib/str.h"

#define FWCFG_CONFIG_NAME "opt/bareperf/config"

struct kernel_state kernel;
const char kernel_version[] = BAREPERF_VERSION;     /* one copy: serial and screen agree */
static char fwcfg_config[CFG_SOURCE_MAX + 1];
_Static_assert(BI_CONFIG_MAX - 1 == CFG_SOURCE_MAX, "bareperf.cfg and --config: one limit");

/* Printed now, on the console there is; kept for the @error records, which
 * report_config_errors prints once the machine-readable output starts. */
static void config_error(void *ctx, const char *msg)
{
	(void)ctx;
	kprintf("config error: %s\n", msg);
	if (kernel.config_errors < KERNEL_CONFIG_ERRORS_KEPT)
		str_copy(kernel.config_error_msg[kernel.config_errors], msg,
			 sizeof(kernel.config_error_msg[0]));
	kernel.config_errors++;
}

/* The sources that were there, in the order applied, for the report's
 * boot.config_sources line: "bareperf.cfg, menu (mode=selftest), --config". */
static char config_sources[BI_CMDLINE_MAX + BI_MENU_MAX + 96];


static void note_source(const char *origin, const char *text, bool refused)
{
	size_t len = strnlen(config_sources, sizeof(config_sources));
	bp_snprintf(config_sources + len, sizeof(config_sources) - len, "%s%s%s%s%s",
		    len ? ", " : "", origin, text ? " (" : refused ? " (refused)" : "",
		    text ? text : "", text ? ")" : "");
}

/* The Multiboot2 command line is what the image's GRUB menu passes (its entries write
 * mode=...; editing one in GRUB still makes it the menu's); UEFI has load options; PVH
 * has the loader's command line (QEMU's -append). */
static const char *cmdline_origin(const struct boot_info *bi)
{
	switch (bi->protocol) {
	case BI_PROTOCOL_MULTIBOOT2: return "menu";
	case BI_PROTOCOL_PVH:        return "cmdline";
	default:                     return "load options";
	}
}

/* The command line; UEFI load options without the image's name that firmware and boot
 * managers put first (lib/cfg-lex.h cfg_image_word), which the report names. */
static void apply_cmdline(const struct boot_info *bi, const char *origin, bool shown)
{
	size_t start = 0, end = 0, skip = 0;
	char what[96];

	if (bi->protocol == BI_PROTOCOL_UEFI)
		skip = cfg_image_word(bi->cmdline, bi->cmdline_len, &start, &end);
	config_apply(&kernel.cfg, origin, bi->cmdline + skip, bi->cmdline_len - skip,
		     config_error, 0);
	if (skip) {
		bp_snprintf(what, sizeof(what), "after the image name %.*s%s",
			    (int)(end - start > 48 ? 48 : end - start), bi->cmdline + start,
			    end - start > 48 ? "..." : "");
		note_source(origin, what, false);
	} else {
		note_source(origin, shown ? bi->cmdline : 0, false);
	}
}

/* Sources in order, a later value overriding an earlier one: bareperf.cfg, the command
 * line (UEFI load options or GRUB's menu), the UEFI loader's menu, --config (fw_cfg). */
static void load_config(const struct boot_info *bi)
{
	const char *cmdline = cmdline_origin(bi);
	bool shown = bi->protocol != BI_PROTOCOL_UEFI;    /* a menu choice or a command line */

	kernel.config_sources = config_sources;
	/* A source too long to hold is refused whole, never applied up to a cut. */
	config_defaults(&kernel.cfg);
	if (BI_CONFIG_REFUSED(bi)) {
		config_refuse("bareperf.cfg", bi->config_size, BI_CONFIG_MAX - 1, config_error, 0);
		note_source("bareperf.cfg", 0, true);
	} else if (bi->config_len) {
		config_apply(&kernel.cfg, "bareperf.cfg", bi->config, bi->config_len, config_error, 0);
		note_source("bareperf.cfg", 0, false);
	}
	if (BI_CMDLINE_REFUSED(bi)) {
		config_refuse(cmdline, bi->cmdline_size, BI_CMDLINE_MAX - 1, config_error, 0);
		note_source(cmdline, 0, true);
	} else if (bi->cmdline_len) {
		apply_cmdline(bi, cmdline, shown);
	}
	if (bi->menu[0]) {
		config_apply(&kernel.cfg, "menu", bi->menu, strnlen(bi->menu, BI_MENU_MAX),
			     config_error, 0);
		note_source("menu", bi->menu, false);
	}
	if (platform_is_qemu()) {
		long n = fwcfg_read_file(FWCFG_CONFIG_NAME, fwcfg_config, sizeof(fwcfg_config));
		/* Every byte read, NULs included: config_apply refuses a source with a NUL
		 * inside, as for bareperf.cfg, and accepts NULs at the very end. */
		if (n > CFG_SOURCE_MAX) {
			config_refuse("--config", (uint64_t)n, CFG_SOURCE_MAX, config_error, 0);
			note_source("--config", 0, true);
		} else if (n > 0) {
			config_apply(&kernel.cfg, "--config", fwcfg_config, (size_t)n, config_error, 0);
			note_source("--config", 0, false);
		}
	}
}

static void user_stack_init(void)
{
	uint64_t pa = mem_alloc_phys(USER_STACK_SIZE, PAGE_SIZE);
	/* The page below the stack stays unmapped: the user stack's guard page. */
	if (!pa || paging_map(USER_STACK_TOP - USER_STACK_SIZE, pa, USER_STACK_SIZE,
			      MAP_WRITE | MAP_USER)) {
		kprintf("FATAL: no memory for the user stack\n");
		platform_stop(PLATFORM_EXIT_FATAL);
	}
	run_set_user_stack(USER_STACK_TOP);
}

static __attribute__((noreturn)) void stop_after_fatal_trap(void)
{
	platform_stop(PLATFORM_EXIT_FATAL);
}

static const struct trap_hooks trap_hooks = { kvprintf, stop_after_fatal_trap };

/* Until the page tables are up: COM1, or the first of COM2-4 that answers (boards
 * without COM1 often have a header for another). Without any, output is kept for the
 * console kernel/serial-console.c finds later (the SPCR's UART, a PCI one). */
static void console_early_init(void)
{
	serial_console_early();
	trap_set_hooks(&trap_hooks);
	kprintf("\nbareperf %s\n", kernel_version);
	if (!uart_present())
		kprintf("console: no UART at COM1-COM4; the ACPI SPCR's or a PCI one gets this "
			"output once the kernel can reach them\n");
	else if (uart_port() != UART_COM1)
		kprintf("console: no UART at COM1; using port 0x%x\n", uart_port());
}

static void accept_boot_info(struct boot_info *bi)
{
	char err[160];

	if (bootinfo_validate(bi, err, sizeof(err))) {
		kprintf("FATAL: boot-info from the loader is unusable: %s\n", err);
		platform_stop(PLATFORM_EXIT_FATAL);
	}
	kernel.bi = bi;
	if (bi->note[0])
		kprintf("loader: %s\n", bi->note);
}

static void watchdog_init(void)
{
	static const struct watchdog_ops apic_wd = { lapic_watchdog_arm, lapic_watchdog_disarm,
						     VEC_APIC_TIMER, 0 };
	static const struct watchdog_ops pit_wd = { pit_watchdog_arm, pit_watchdog_disarm, VEC_PIT,
						    pit_watchdog_spent };
	const char *why = 0, *pit_why = 0;
	uint64_t apic_base = cpu_lapic_enable(&kernel.cpu);

	kernel.lapic = lapic_init(apic_base, &why);
	if (kernel.lapic) {
		kernel.watchdog = true;
		run_set_watchdog(&apic_wd);
		kprintf("sys.watchdog=apic-timer (%llu kHz)\n", (unsigned long long)(lapic_timer_hz() / 1000));
		return;
	}
	/* Without a local APIC the 8259 PIC interrupts the CPU directly, so the PIT can stop
	 * runs. Where an APIC exists, lapic_init has masked its LINT0: the PIC cannot. */
	if (!apic_base && pit_init(&pit_why)) {
		kernel.watchdog = true;
		run_set_watchdog(&pit_wd);
		kprintf("sys.watchdog=pit (%s; a run longer than 55 ms takes a PIT interrupt every "
			"55 ms)\n", why);
		return;
	}
	kprintf("sys.watchdog=none (%s%s%s): a payload that never ends is skipped\n", why,
		pit_why ? "; " : "", pit_why ? pit_why : "");
}

/* The boot, CPU, PMU, protection and configuration facts every run log starts with. */
static void report_system(const struct boot_info *bi)
{
	kprintf("boot.firmware=%s\n", bootinfo_firmware_name(bi));
	kprintf("boot.protocol=%s\n", bootinfo_protocol_name(bi));
	kprintf("boot.medium=%s\n", bootinfo_medium_name(bi));
	kprintf("cpu.mode=%s\n", sizeof(void *) == 8 ? "long" : "protected");
	kprintf("boot.memory_mib=%llu\n", (unsigned long long)(bootinfo_usable_bytes(bi) >> 20));
	kprintf("boot.exit_tries=%u\n", bi->exit_tries);
	screen_report();
	kprintf("boot.config_sources=%s\n", config_sources[0] ? config_sources : "none");
	cpuinfo_report(&kernel.cpu, &kernel.pmu, console_line, 0);
	kprintf("sys.smep=%s\nsys.smap=%s\nsys.umip=%s\nsys.nx=%s\n", paging.smep ? "on" : "off",
		paging.smap ? "on" : "off", paging.umip ? "on" : "off",
		paging.nx ? "on" : paging.two_level ? "off (no PAE)" : "off");
	config_report(&kernel.cfg, console_line, 0);
}

static int run_mode(enum cfg_mode mode)
{
	int code = PLATFORM_EXIT_OK;
	switch (mode) {
	case CFG_MODE_SELFTEST:
		code = selftest_run();
		break;
	case CFG_MODE_DETECT:
		break;
	case CFG_MODE_CRASHTEST:
		if (sizeof(void *) == 8) {
			kprintf("crashtest: writing to a non-canonical address outside any fixup\n");
			*(volatile uint64_t *)0x8000000000000000ull = 1;
		} else {
			/* i686 has no non-canonical addresses: page 0 is unmapped instead. The
			 * address goes through a volatile so the compiler keeps the store. */
			static volatile uintptr_t page0;
			kprintf("crashtest: writing to the unmapped page 0 outside any fixup\n");
			*(volatile uint32_t *)page0 = 1;
		}
		kprintf("crashtest: FAIL: the write did not fault\n");
		code = PLATFORM_EXIT_FAIL;
		break;
	case CFG_MODE_CRASHSTACK:
		/* Push until the guard page below the kernel stack: the #PF cannot be delivered
		 * on that stack, so it becomes a #DF, which has a stack of its own (an IST stack
		 * on x86-64, a task gate on i686). */
		kprintf("crashtest: overflowing the kernel stack into its guard page\n");
		__asm__ volatile("1: push %0\n\t jmp 1b" : : "r"((uintptr_t)0) : "memory");
		break;
	case CFG_MODE_RUN:
		code = engine_main();
		break;
	case CFG_MODE_LIST:
		code = engine_list();
		break;
	case CFG_MODE_PMUCHECK:
		code = pmucheck_main();
		break;
	case CFG_MODE_C2C:
		code = c2c_main();
		break;
	}
	return code;
}

void kernel_main(struct boot_info *bi)
{
	/* The screen's log takes every line from the first: it shows the latest once the
	 * screen is found (screen_attach). */
	console_add_line_sink(screen_log_line);
	console_early_init();
	cpuinfo_decode(cpuid_hw_read, 0, &kernel.cpu, &kernel.pmu);
	platform_init();
	accept_boot_info(bi);
	screen_attach(bi);
	load_config(bi);

	arch_init(bi, &kernel.cpu);
	serial_console_choose(config_error);
	mem_init(bi);
	user_stack_init();
	watchdog_init();
	report_system(bi);
	storage_detect();
	smp_init();
	screen_start();
	report_config_errors();
	lava_report_start();

	int code = run_mode(kernel.cfg.mode);
	/* A configuration with mistakes ran what it could, but does not count as a pass. */
	if (code == PLATFORM_EXIT_OK && kernel.config_errors)
		code = PLATFORM_EXIT_FAIL;
	storage_save();
	/* After the save: a lab may power the machine off at LAVA's end line. */
	code = lava_report_end(code);
	if (!kernel.cfg.exit_when_done)
		platform_halt();
	platform_stop(code);
}
