/*
 * bareperf UEFI loader (BOOTX64.EFI). The only code that sees gnu-efi.
 *
 * It loads the embedded kernel ELF (linked in the top 2 GiB, -mcmodel=kernel) into
 * memory below 4 GiB, gathers what the kernel needs into a struct boot_info (memory
 * map, ACPI RSDP, GOP framebuffer, load options, bareperf.cfg), exits boot services
 * and jumps. For the jump it copies the firmware's top-level page table and adds one
 * entry mapping the kernel's high addresses; the kernel replaces all of it at once.
 */
#include <efi.h>
#include <efilib.h>

#include "arch/x86/abi.h"
#include "boot/pxe.h"
#include "lib/bits.h"
#include "lib/bootinfo.h"
#include "lib/bootmenu.h"

extern const unsigned char kernel_elf_start[], kernel_elf_end[];

#define BELOW_4G       0xffffffffull
#define CR4_LA57       (1ull << 12)
#define EXIT_TRIES     8
#define FAIL_PAUSE_S   5        /* a failure's message stays up this long before power-off */
#define MENU_POLLS_PER_SECOND 10
#define EFI_TIMER_UNITS_PER_SECOND 10000000     /* SetTimer counts 100 ns (UEFI 2.9, 7.1) */

/* ELF64 as much as the loader needs (System V gABI). */
#define ELF_MAGIC      0x464c457fu
#define ELFCLASS64     2
#define EM_X86_64      62
#define PT_LOAD        1
struct elf64_ehdr {
	UINT32 magic; UINT8 class, data, version, osabi, pad[8];
	UINT16 type, machine; UINT32 version2; UINT64 entry, phoff, shoff;
	UINT32 flags; UINT16 ehsize, phentsize, phnum, shentsize, shnum, shstrndx;
};
struct elf64_phdr {
	UINT32 type, flags; UINT64 offset, vaddr, paddr, filesz, memsz, align;
};

static struct boot_info *bi;

static void note(const char *msg)
{
	UINTN len = 0;
	while (bi->note[len] && len < BI_NOTE_MAX - 1)
		len++;
	for (const char *sep = len ? "; " : ""; *sep && len < BI_NOTE_MAX - 1; sep++)
		bi->note[len++] = *sep;
	while (*msg && len < BI_NOTE_MAX - 1)
		bi->note[len++] = *msg++;
	bi->note[len] = 0;
}

static EFI_STATUS alloc_below_4g(UINTN pages, EFI_PHYSICAL_ADDRESS *addr)
{
	*addr = BELOW_4G;
	return uefi_call_wrapper(BS->AllocatePages, 4, AllocateMaxAddress, EfiLoaderData,
				 pages, addr);
}

/* Copy PT_LOAD segments to one 2 MiB-aligned physical block; returns entry point. */
static EFI_STATUS load_kernel(UINT64 *entry)
{
	const struct elf64_ehdr *eh = (const void *)kernel_elf_start;
	UINTN blob = kernel_elf_end - kernel_elf_start;

	if (blob < sizeof(*eh) || eh->magic != ELF_MAGIC || eh->class != ELFCLASS64 ||
	    eh->machine != EM_X86_64 || eh->phentsize != sizeof(struct elf64_phdr) ||
	    eh->phoff + (UINT64)eh->phnum * sizeof(struct elf64_phdr) > blob) {
		Print(L"bareperf: embedded kernel is not a valid x86-64 ELF\n");
		return EFI_LOAD_ERROR;
	}
	const struct elf64_phdr *ph = (const void *)(kernel_elf_start + eh->phoff);
	UINT64 lo = ~0ull, hi = 0;
	for (UINTN i = 0; i < eh->phnum; i++) {
		if (ph[i].type != PT_LOAD)
			continue;
		if (ph[i].vaddr < KERNEL_VBASE || ph[i].offset + ph[i].filesz > blob) {
			Print(L"bareperf: kernel segment %d out of range\n", i);
			return EFI_LOAD_ERROR;
		}
		if (ph[i].vaddr < lo)
			lo = ph[i].vaddr;
		if (ph[i].vaddr + ph[i].memsz > hi)
			hi = ph[i].vaddr + ph[i].memsz;
	}
	if (lo != KERNEL_VBASE || hi <= lo) {
		Print(L"bareperf: kernel must start at 0x%lx\n", KERNEL_VBASE);
		return EFI_LOAD_ERROR;
	}
	UINT64 size = (hi - lo + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);
	UINTN pages = size / PAGE_SIZE + LARGE_PAGE_SIZE / PAGE_SIZE;
	EFI_PHYSICAL_ADDRESS block;
	EFI_STATUS err = alloc_below_4g(pages, &block);
	if (err != EFI_SUCCESS) {
		Print(L"bareperf: no memory below 4 GiB for the kernel (%r)\n", err);
		return err;
	}
	UINT64 phys = (block + LARGE_PAGE_SIZE - 1) & ~(LARGE_PAGE_SIZE - 1);
	/* The firmware's SetMem and CopyMem (UEFI 2.9, 7.4), not gnu-efi's, which go a byte
	 * at a time: the image is some 15 MiB, most of it .bss (the CPUs' stacks). */
	uefi_call_wrapper(BS->SetMem, 3, (void *)phys, size, 0);
	for (UINTN i = 0; i < eh->phnum; i++)
		if (ph[i].type == PT_LOAD)
			uefi_call_wrapper(BS->CopyMem, 3, (void *)(phys + ph[i].vaddr - lo),
					  (void *)(kernel_elf_start + ph[i].offset), ph[i].filesz);
	bi->kernel_phys = phys;
	bi->kernel_size = size;
	*entry = eh->entry;
	return EFI_SUCCESS;
}

/*
 * Page table for the jump: the firmware's PML4 copied, plus PML4[511] -> PDPT[510] ->
 * 2 MiB pages covering the kernel. Firmware tables are read, never written.
 */
static EFI_STATUS build_jump_tables(UINT64 *cr3_out)
{
	UINT64 cr3, cr4;
	__asm__ volatile("mov %%cr3, %0; mov %%cr4, %1" : "=r"(cr3), "=r"(cr4));
	if (cr4 & CR4_LA57) {
		Print(L"bareperf: firmware runs 5-level paging, not supported\n");
		return EFI_UNSUPPORTED;
	}
	EFI_PHYSICAL_ADDRESS tables;
	EFI_STATUS err = alloc_below_4g(3, &tables);
	if (err != EFI_SUCCESS)
		return err;
	UINT64 *pml4 = (UINT64 *)tables, *pdpt = pml4 + 512, *pd = pml4 + 1024;
	CopyMem(pml4, (void *)(cr3 & PTE_ADDR), PAGE_SIZE);
	SetMem(pdpt, 2 * PAGE_SIZE, 0);
	pml4[511] = (UINT64)pdpt | PTE_P | PTE_W;
	pdpt[510] = (UINT64)pd | PTE_P | PTE_W;
	UINT64 n = (bi->kernel_size + LARGE_PAGE_SIZE - 1) / LARGE_PAGE_SIZE;
	if (n > 512)
		return EFI_BAD_BUFFER_SIZE;
	for (UINT64 i = 0; i < n; i++)
		pd[i] = (bi->kernel_phys + i * LARGE_PAGE_SIZE) | PTE_P | PTE_W | PTE_PS;
	*cr3_out = (UINT64)pml4;
	return EFI_SUCCESS;
}

/* Load options longer than the buffer are refused whole (cmdline_size says how long they
 * were; the kernel reports it), never cut: a cut entry would apply half a value. */
static void get_load_options(EFI_LOADED_IMAGE *li)
{
	CHAR16 *opt = li->LoadOptions;
	UINTN n = li->LoadOptionsSize / sizeof(CHAR16), chars = 0;
	for (; opt && chars < n && opt[chars]; chars++) {
		/* Boot managers pass binary data here too; keep it only if it is printable text. */
		if (opt[chars] < 0x20 && opt[chars] != '\t' && opt[chars] != '\n' && opt[chars] != '\r')
			return;
		if (opt[chars] >= 0x7f) {
			note("load options not ASCII text, ignored");
			return;
		}
	}
	bi->cmdline_size = chars > 0xffffffffu ? 0xffffffffu : (UINT32)chars;
	if (BI_CMDLINE_REFUSED(bi))
		return;
	for (UINTN i = 0; i < chars; i++)
		bi->cmdline[i] = (char)opt[i];
	bi->cmdline[chars] = 0;
	bi->cmdline_len = chars;
}

/* Bytes left in fh, read and dropped, to say how long a refused file was. */
static UINT64 count_rest(EFI_FILE_HANDLE fh)
{
	static UINT8 chunk[4096];
	UINT64 total = 0;
	for (;;) {
		UINTN n = sizeof(chunk);
		if (uefi_call_wrapper(fh->Read, 3, fh, &n, chunk) != EFI_SUCCESS || n == 0)
			return total;
		total += n;
	}
}

/* bareperf.cfg from the boot device's file system. FALSE when it has none (or no file
 * system: a network boot but through iPXE, which shows its downloads as files). */
static BOOLEAN read_config(EFI_LOADED_IMAGE *li)
{
	EFI_FILE_HANDLE root = LibOpenRoot(li->DeviceHandle), fh;
	if (!root)
		return FALSE;
	EFI_STATUS err = uefi_call_wrapper(root->Open, 5, root, &fh, L"\\bareperf.cfg",
					   EFI_FILE_MODE_READ, 0);
	if (err != EFI_SUCCESS) {
		uefi_call_wrapper(root->Close, 1, root);
		return FALSE;
	}
	/* A file longer than the buffer is refused whole: config_size says how long it is,
	 * config stays empty, and the kernel reports it as a configuration error. */
	UINTN size = BI_CONFIG_MAX - 1;
	err = uefi_call_wrapper(fh->Read, 3, fh, &size, bi->config);
	if (err == EFI_SUCCESS) {
		bi->config_size = size;
		if (size == BI_CONFIG_MAX - 1)
			bi->config_size += count_rest(fh);
		if (BI_CONFIG_REFUSED(bi)) {
			SetMem(bi->config, BI_CONFIG_MAX, 0);
		} else {
			bi->config_len = size;
			bi->config[size] = 0;
		}
	} else {
		note("bareperf.cfg could not be read");
	}
	uefi_call_wrapper(fh->Close, 1, fh);
	uefi_call_wrapper(root->Close, 1, root);
	return TRUE;
}

/* A note of up to three parts. */
static void note3(const char *a, const char *b, const char *c)
{
	char msg[BI_NOTE_MAX / 2];
	const char *parts[] = { a, b, c };
	UINTN n = 0;
	for (UINTN i = 0; i < 3; i++)
		for (const char *p = parts[i]; p && *p && n + 1 < sizeof(msg); p++)
			msg[n++] = *p;
	msg[n] = 0;
	note(msg);
}

/* After a network boot, bareperf.cfg from the TFTP server, beside the boot file. A file
 * too long is refused whole, as on a disk; a missing one leaves the defaults. */
static void read_config_from_server(EFI_LOADED_IMAGE *li)
{
	char where[PXE_WHERE_MAX];
	UINT64 size;
	EFI_STATUS err = pxe_read_beside_bootfile(li->DeviceHandle, "bareperf.cfg", bi->config,
						  BI_CONFIG_MAX - 1, &size, where, sizeof(where));

	switch (err) {
	case EFI_SUCCESS:
		bi->config_size = size;
		bi->config_len = (UINT32)size;
		bi->config[size] = 0;
		note3("bareperf.cfg from ", where, NULL);
		return;
	case EFI_BUFFER_TOO_SMALL:
		bi->config_size = size;
		SetMem(bi->config, BI_CONFIG_MAX, 0);
		note3("bareperf.cfg from ", where, NULL);
		return;
	case EFI_NOT_FOUND:
		note3("no bareperf.cfg at ", where, ": the defaults apply");
		return;
	case EFI_UNSUPPORTED:
		note3("bareperf.cfg not fetched from the network (", where, ")");
		return;
	default:
		SetMem(bi->config, BI_CONFIG_MAX, 0);
		note3("bareperf.cfg at ", where, " could not be read: the defaults apply");
	}
}

static void get_rsdp(void)
{
	EFI_GUID acpi20 = ACPI_20_TABLE_GUID;
	void *t = NULL;
	if (LibGetSystemConfigurationTable(&acpi20, &t) == EFI_SUCCESS && t) {
		bi->rsdp = (UINT64)t;
		bi->rsdp_revision = 2;
	} else if (LibGetSystemConfigurationTable(&AcpiTableGuid, &t) == EFI_SUCCESS && t) {
		bi->rsdp = (UINT64)t;
		bi->rsdp_revision = 0;
	}
}

/* The GOP mode's pixel format for the kernel's screen console. 32-bit pixels in each
 * format with a framebuffer (UEFI 2.9, 12.9: EFI_GRAPHICS_PIXEL_FORMAT); a blt-only GOP
 * has none, and kind stays BI_FB_NONE. */
static void fb_layout_of(const EFI_GRAPHICS_OUTPUT_MODE_INFORMATION *info, struct bi_fb_layout *l)
{
	switch (info->PixelFormat) {
	case PixelRedGreenBlueReserved8BitPerColor:
		*l = (struct bi_fb_layout){ .red_pos = 0, .green_pos = 8, .blue_pos = 16 };
		l->red_size = l->green_size = l->blue_size = 8;
		break;
	case PixelBlueGreenRedReserved8BitPerColor:
		*l = (struct bi_fb_layout){ .red_pos = 16, .green_pos = 8, .blue_pos = 0 };
		l->red_size = l->green_size = l->blue_size = 8;
		break;
	case PixelBitMask:
		mask_field(info->PixelInformation.RedMask, &l->red_pos, &l->red_size);
		mask_field(info->PixelInformation.GreenMask, &l->green_pos, &l->green_size);
		mask_field(info->PixelInformation.BlueMask, &l->blue_pos, &l->blue_size);
		break;
	default:
		return;
	}
	if (!bi->fb.base)
		return;
	l->kind = BI_FB_RGB;
	l->bpp = 32;
	l->pitch = info->PixelsPerScanLine * 4;
}

static void get_framebuffer(void)
{
	EFI_GRAPHICS_OUTPUT_PROTOCOL *gop = NULL;
	if (LibLocateProtocol(&GraphicsOutputProtocol, (void **)&gop) != EFI_SUCCESS || !gop ||
	    !gop->Mode || !gop->Mode->Info)
		return;
	bi->fb.base = gop->Mode->FrameBufferBase;
	bi->fb.size = gop->Mode->FrameBufferSize;
	bi->fb.width = gop->Mode->Info->HorizontalResolution;
	bi->fb.height = gop->Mode->Info->VerticalResolution;
	bi->fb.pixels_per_line = gop->Mode->Info->PixelsPerScanLine;
	bi->fb.format = gop->Mode->Info->PixelFormat;
	fb_layout_of(gop->Mode->Info, &bi->fb_layout);
}

/* ---------------------------------------------------------------- the boot menu */

/* The SMBIOS OEM string a virtual machine sets (BOOTMENU_OEM_OFF; scripts/qemu-run sets it
 * unless asked for the menu): nobody is at this machine's keyboard or screen. */
static BOOLEAN smbios_unattended(void)
{
	void *eps = NULL;
	UINT64 table;
	UINT32 size;

	if (LibGetSystemConfigurationTable(&SMBIOS3TableGuid, &eps) == EFI_SUCCESS && eps) {
		if (bootmenu_smbios_table(eps, BOOTMENU_SMBIOS3_EPS_LEN, &table, &size))
			return FALSE;
	} else if (LibGetSystemConfigurationTable(&SMBIOSTableGuid, &eps) == EFI_SUCCESS && eps) {
		if (bootmenu_smbios_table(eps, BOOTMENU_SMBIOS2_EPS_LEN, &table, &size))
			return FALSE;
	} else {
		return FALSE;
	}
	return table && table < BELOW_4G && bootmenu_smbios_off((const UINT8 *)table, size);
}

/* boot.menu and boot.menu_timeout from bareperf.cfg and the load options. */
static struct bootmenu_settings menu_settings(void)
{
	struct bootmenu_settings m;
	bootmenu_settings(bi->config, bi->config_len, bi->cmdline, bi->cmdline_len, &m);
	return m;
}

/* boot.menu=off (or a countdown of 0), or an unattended virtual machine. */
static BOOLEAN menu_switched_off(void)
{
	return !menu_settings().shown || smbios_unattended();
}

/* The countdown: boot.menu_timeout, else BOOTMENU_SECONDS. */
static UINTN menu_seconds(void)
{
	return menu_settings().seconds;
}

/* The line below the entries: the countdown, or how to choose once it stopped. */
static void menu_draw_status(const struct bootmenu *m, UINTN row, UINTN seconds)
{
	SIMPLE_TEXT_OUTPUT_INTERFACE *out = ST->ConOut;
	uefi_call_wrapper(out->SetCursorPosition, 3, out, 0, row + bootmenu_count);
	if (m->waiting)
		Print(L"Up/down choose, Enter boots; 1-%d boot that entry.            \n",
		      bootmenu_count);
	else
		Print(L"Entry 1 boots in %d s; any key stops the countdown.           \n", seconds);
}

static void menu_draw(const struct bootmenu *m, UINTN row, UINTN seconds)
{
	SIMPLE_TEXT_OUTPUT_INTERFACE *out = ST->ConOut;
	for (unsigned i = 0; i < bootmenu_count; i++) {
		uefi_call_wrapper(out->SetCursorPosition, 3, out, 0, row + i);
		uefi_call_wrapper(out->SetAttribute, 2, out, i == m->selected ?
				  EFI_TEXT_ATTR(EFI_BLACK, EFI_LIGHTGRAY) :
				  EFI_TEXT_ATTR(EFI_LIGHTGRAY, EFI_BLACK));
		Print(L"%c %d  %a", i == m->selected ? '>' : ' ', i + 1, bootmenu_entries[i].title);
		uefi_call_wrapper(out->SetAttribute, 2, out, EFI_TEXT_ATTR(EFI_LIGHTGRAY, EFI_BLACK));
		Print(L"  \n");
	}
	menu_draw_status(m, row, seconds);
}

/* lib/bootmenu.c reads keys without gnu-efi's headers: the same codes. */
_Static_assert(SCAN_UP == BOOTMENU_SCAN_UP && SCAN_DOWN == BOOTMENU_SCAN_DOWN &&
	       CHAR_CARRIAGE_RETURN == BOOTMENU_CHAR_CR && CHAR_LINEFEED == BOOTMENU_CHAR_LF,
	       "EFI_INPUT_KEY codes");

/* The menu's clock: a periodic timer event of MENU_POLLS_PER_SECOND ticks, or NULL where
 * the firmware has none to give (menu_wait then stalls). */
static EFI_EVENT menu_tick_start(void)
{
	EFI_EVENT tick;
	if (uefi_call_wrapper(BS->CreateEvent, 5, EVT_TIMER, 0, NULL, NULL, &tick) != EFI_SUCCESS)
		return NULL;
	if (uefi_call_wrapper(BS->SetTimer, 3, tick, TimerPeriodic,
			      (UINT64)EFI_TIMER_UNITS_PER_SECOND / MENU_POLLS_PER_SECOND) != EFI_SUCCESS) {
		uefi_call_wrapper(BS->CloseEvent, 1, tick);
		return NULL;
	}
	return tick;
}

/* Until a key comes or the next tick, whichever is first, with the CPU idle: the firmware
 * halts it in WaitForEvent, where Stall would spin (a whole core under a VM). Returns
 * whether a tick's time has passed. */
static BOOLEAN menu_wait(SIMPLE_INPUT_INTERFACE *in, EFI_EVENT tick)
{
	EFI_EVENT events[2] = { in->WaitForKey, tick };
	UINTN which;
	if (tick && in->WaitForKey &&
	    uefi_call_wrapper(BS->WaitForEvent, 3, 2, events, &which) == EFI_SUCCESS)
		return which == 1;
	uefi_call_wrapper(BS->Stall, 1, 1000000 / MENU_POLLS_PER_SECOND);
	return TRUE;
}

/* The same choices as GRUB's menu, on the firmware console: the default boots after
 * boot.menu_timeout seconds (BOOTMENU_SECONDS by default) unless a key stops the
 * countdown. The choice's configuration text goes to the kernel in boot_info's menu. An
 * input device that fails boots the selection. */
static void boot_menu(void)
{
	SIMPLE_INPUT_INTERFACE *in = ST->ConIn;
	struct bootmenu m = { 0, 0 };
	UINTN seconds = menu_seconds(), polls = seconds * MENU_POLLS_PER_SECOND;
	EFI_EVENT tick;

	if (!in || !ST->ConOut) {
		note("no firmware console: boot menu skipped");
		return;
	}
	if (menu_switched_off())
		return;
	uefi_call_wrapper(in->Reset, 2, in, FALSE);     /* keys pressed before it showed */
	Print(L"\nbareperf boot menu\n");
	for (unsigned i = 0; i <= bootmenu_count; i++)
		Print(L"\n");          /* room below, scrolled now: the rows stay put */
	UINTN row = ST->ConOut->Mode->CursorRow - (bootmenu_count + 1);
	menu_draw(&m, row, seconds);
	tick = menu_tick_start();
	for (;;) {
		EFI_INPUT_KEY key;
		unsigned digit = 0;
		EFI_STATUS err = uefi_call_wrapper(in->ReadKeyStroke, 2, in, &key);
		if (err == EFI_SUCCESS) {
			enum bootmenu_input input = bootmenu_input_of(key.ScanCode, key.UnicodeChar, &digit);
			if (bootmenu_key(&m, input, digit))
				break;
			menu_draw(&m, row, 0);
			continue;
		}
		if (err != EFI_NOT_READY)
			break;
		if (!m.waiting) {
			if (polls == 0)
				break;
			if (polls % MENU_POLLS_PER_SECOND == 0)
				menu_draw_status(&m, row, polls / MENU_POLLS_PER_SECOND);
		}
		if (menu_wait(in, tick) && !m.waiting)
			polls--;
	}
	if (tick)
		uefi_call_wrapper(BS->CloseEvent, 1, tick);
	const char *config = bootmenu_entries[m.selected].config;
	for (UINTN i = 0; config[i] && i < BI_MENU_MAX - 1; i++)
		bi->menu[i] = config[i];
	Print(L"bareperf: %a\n", bootmenu_entries[m.selected].title);
}

static UINT32 mem_type(UINT32 efi_type)
{
	switch (efi_type) {
	case EfiConventionalMemory:
	case EfiBootServicesCode:
	case EfiBootServicesData:
	case EfiLoaderCode:         /* this loader: dead once the kernel runs */
		return BI_MEM_USABLE;
	case EfiLoaderData:         /* kernel image, boot-info, jump tables */
		return BI_MEM_LOADER;
	case EfiACPIReclaimMemory:
		return BI_MEM_ACPI_RECLAIM;
	case EfiACPIMemoryNVS:
		return BI_MEM_ACPI_NVS;
	case EfiMemoryMappedIO:
	case EfiMemoryMappedIOPortSpace:
		return BI_MEM_MMIO;
	case EfiUnusableMemory:
		return BI_MEM_UNUSABLE;
	default:
		return BI_MEM_RESERVED;
	}
}

/* Convert the final UEFI map (after ExitBootServices; no calls allowed). */
static void convert_map(const UINT8 *map, UINTN size, UINTN desc_size)
{
	UINT32 n = 0;
	for (UINTN off = 0; off + desc_size <= size; off += desc_size) {
		const EFI_MEMORY_DESCRIPTOR *d = (const void *)(map + off);
		UINT32 type = mem_type(d->Type);
		if (n && bi->mmap[n - 1].type == type &&
		    bi->mmap[n - 1].base + bi->mmap[n - 1].pages * BI_PAGE_SIZE == d->PhysicalStart) {
			bi->mmap[n - 1].pages += d->NumberOfPages;
			continue;
		}
		if (n == BI_MMAP_MAX)
			break;
		bi->mmap[n].base = d->PhysicalStart;
		bi->mmap[n].pages = d->NumberOfPages;
		bi->mmap[n].type = type;
		bi->mmap[n].reserved = 0;
		n++;
	}
	bi->mmap_count = n;
}

typedef void (*kernel_entry_fn)(struct boot_info *) __attribute__((sysv_abi, noreturn));

/* The boot_info page, below 4 GiB where the kernel's early page tables reach it. */
static EFI_STATUS boot_info_alloc(void)
{
	EFI_PHYSICAL_ADDRESS bi_addr;
	UINTN bi_pages = (sizeof(struct boot_info) + PAGE_SIZE - 1) / PAGE_SIZE;
	EFI_STATUS err = alloc_below_4g(bi_pages, &bi_addr);
	if (err != EFI_SUCCESS) {
		Print(L"bareperf: cannot allocate boot-info: %r\n", err);
		return err;
	}
	bi = (struct boot_info *)bi_addr;
	SetMem(bi, sizeof(*bi), 0);
	bi->magic = BOOTINFO_MAGIC;
	bi->version = BOOTINFO_VERSION;
	bi->size = sizeof(*bi);
	bi->firmware = BI_FIRMWARE_UEFI;
	return EFI_SUCCESS;
}

/* /bareperf/results/IDENTITY from the boot partition, whole: it tells the kernel which
 * medium is this image's (docs/results-area.md). Absent or longer than BI_IDENTITY_MAX:
 * none, and the kernel saves nothing. */
static void read_identity(EFI_LOADED_IMAGE *li)
{
	EFI_FILE_HANDLE root = LibOpenRoot(li->DeviceHandle), fh;
	if (!root)
		return;
	EFI_STATUS err = uefi_call_wrapper(root->Open, 5, root, &fh, L"\\bareperf\\results\\IDENTITY",
					   EFI_FILE_MODE_READ, 0);
	if (err != EFI_SUCCESS) {
		uefi_call_wrapper(root->Close, 1, root);
		return;
	}
	UINTN size = BI_IDENTITY_MAX;
	err = uefi_call_wrapper(fh->Read, 3, fh, &size, bi->identity);
	if (err != EFI_SUCCESS || (size == BI_IDENTITY_MAX && count_rest(fh) != 0)) {
		SetMem(bi->identity, BI_IDENTITY_MAX, 0);
		note("/bareperf/results/IDENTITY could not be read or is too long");
	} else {
		bi->identity_len = size;
	}
	uefi_call_wrapper(fh->Close, 1, fh);
	uefi_call_wrapper(root->Close, 1, root);
}

/* Load options, bareperf.cfg, ACPI and the framebuffer into boot_info. */
static EFI_STATUS gather_boot_info(EFI_HANDLE image)
{
	EFI_LOADED_IMAGE *li = NULL;
	EFI_STATUS err = uefi_call_wrapper(BS->HandleProtocol, 3, image, &LoadedImageProtocol,
					   (void **)&li);
	if (err != EFI_SUCCESS) {
		Print(L"bareperf: no loaded-image protocol: %r\n", err);
		return err;
	}
	get_load_options(li);
	bi->medium = boot_medium(li->DeviceHandle);
	if (!read_config(li) && bi->medium == BI_MEDIUM_NETWORK)
		read_config_from_server(li);
	if (bi->medium == BI_MEDIUM_DISK) {
		read_identity(li);      /* a network or CD boot keeps no runs: it needs none */
		/* As GRUB says it from the same ISO (scripts/mkiso's /bareperf/on-disk). */
		if (!bi->identity_len && boot_disk_is_iso9660(li->DeviceHandle))
			note("booted from the ISO image on a disk: its file system (ISO 9660) holds no "
			     "results area");
	}
	get_rsdp();
	get_framebuffer();
	return EFI_SUCCESS;
}

/* Reads the final memory map and exits boot services with it, retrying while the map
 * key goes stale. On success *map holds the map the firmware handed over. *called: whether
 * ExitBootServices was called, after which a failure may print nothing (UEFI 2.9, 7.4:
 * the firmware may have shut boot services down in part). */
static EFI_STATUS exit_boot_services(EFI_HANDLE image, UINT8 **map, UINTN *map_size,
				     UINTN *desc_size, BOOLEAN *called)
{
	UINTN key, buf_size = 0;
	UINT32 desc_version;
	EFI_STATUS err;

	*map = NULL;
	*map_size = 0;
	*called = FALSE;
	for (UINT32 tries = 0;;) {
		if (tries == EXIT_TRIES)
			return EFI_ABORTED;
		*map_size = buf_size;
		err = uefi_call_wrapper(BS->GetMemoryMap, 5, map_size, (EFI_MEMORY_DESCRIPTOR *)*map,
					&key, desc_size, &desc_version);
		if (err == EFI_BUFFER_TOO_SMALL) {
			/* Room for the entries our own allocation adds. */
			if (*map) {
				err = uefi_call_wrapper(BS->FreePool, 1, *map);
				if (err != EFI_SUCCESS) {
					if (!*called)
						Print(L"bareperf: cannot free the memory map: %r\n",
						      err);
					return err;
				}
			}
			buf_size = *map_size + 8 * *desc_size;
			err = uefi_call_wrapper(BS->AllocatePool, 3, EfiLoaderData, buf_size,
						(void **)map);
			if (err != EFI_SUCCESS) {
				if (!*called)
					Print(L"bareperf: cannot allocate memory map: %r\n", err);
				return err;
			}
			continue;
		}
		if (err != EFI_SUCCESS) {
			if (!*called)
				Print(L"bareperf: GetMemoryMap: %r\n", err);
			return err;
		}
		/* Nothing may be printed or allocated between here and ExitBootServices. */
		tries++;
		*called = TRUE;
		err = uefi_call_wrapper(BS->ExitBootServices, 2, image, key);
		if (err == EFI_SUCCESS) {
			bi->exit_tries = tries;
			return EFI_SUCCESS;
		}
		if (err != EFI_INVALID_PARAMETER) /* stale key: re-read the map and retry */
			return err;
	}
}

/* Ends a boot whose kernel cannot start, after the message that says why. Returning to
 * the firmware would leave the machine in its next boot option or its shell (OVMF's waits
 * for a key, so a test run would wait out its timeout): the boot fails where a person and
 * QEMU see it, by powering off (QEMU exits with status 0; scripts/qemu-run reports it),
 * after a pause to read it unless the machine is an unattended virtual one.
 * With boot services gone in part (after ExitBootServices) it only powers off; the reset
 * data carries the reason for firmware that logs it (UEFI 2.9, 8.5.1). */
static EFI_STATUS fail_boot(EFI_STATUS err, BOOLEAN boot_services)
{
	static CHAR16 reason[] = L"bareperf: the kernel cannot be started";
	if (boot_services && smbios_unattended()) {
		Print(L"%s; powering off\n", reason);
	} else if (boot_services) {
		/* Time for a person to read the message. */
		Print(L"%s; powering off in %d seconds\n", reason, FAIL_PAUSE_S);
		uefi_call_wrapper(BS->Stall, 1, (UINTN)FAIL_PAUSE_S * 1000000);
	}
	uefi_call_wrapper(RT->ResetSystem, 4, EfiResetShutdown, err, sizeof(reason), reason);
	return err;         /* ResetSystem does not return */
}

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *systab)
{
	InitializeLib(image, systab);
	Print(L"bareperf loader\n");

	EFI_STATUS err = boot_info_alloc();
	if (err != EFI_SUCCESS)
		return fail_boot(err, TRUE);
	err = gather_boot_info(image);
	if (err != EFI_SUCCESS)
		return fail_boot(err, TRUE);
	boot_menu();

	UINT64 entry, cr3;
	err = load_kernel(&entry);
	if (err != EFI_SUCCESS)
		return fail_boot(err, TRUE);
	err = build_jump_tables(&cr3);
	if (err != EFI_SUCCESS) {
		Print(L"bareperf: cannot build page tables: %r\n", err);
		return fail_boot(err, TRUE);
	}

	/* The kernel draws on a framebuffer it can reach (identity-mapped below 4 GiB). */
	if (bi->fb_layout.kind != BI_FB_NONE && bi->fb.base + bi->fb.size <= (1ull << 32))
		Print(L"bareperf: starting the kernel; results go to the serial port (COM1, 115200 8N1,\n"
		      L"          or as bareperf.cfg says) and to this screen\n");
	else
		Print(L"bareperf: starting the kernel; results go to the serial port (COM1, 115200 8N1,\n"
		      L"          or as bareperf.cfg says), not to this screen\n");

	UINT8 *map;
	UINTN map_size, desc_size;
	BOOLEAN called;
	err = exit_boot_services(image, &map, &map_size, &desc_size, &called);
	if (err != EFI_SUCCESS)
		return fail_boot(err, !called);
	convert_map(map, map_size, desc_size);
	__asm__ volatile("cli; mov %0, %%cr3" : : "r"(cr3) : "memory");
	((kernel_entry_fn)entry)(bi);
}
