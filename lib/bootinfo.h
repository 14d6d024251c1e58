/*
 * The loader -> kernel hand-off. Any loader (UEFI today, a legacy-BIOS one later)
 * fills this and jumps to the kernel entry with its physical address in RDI. All
 * addresses are physical and below 4 GiB (the kernel identity-maps 0..4 GiB).
 */
#ifndef LIB_BOOTINFO_H
#define LIB_BOOTINFO_H
#include <stddef.h>
#include <stdint.h>

#define BOOTINFO_MAGIC    0x4f464e4952455042ull   /* "BPERINFO" little-endian */
#define BOOTINFO_VERSION  4         /* 2: firmware; cmdline_size, config_size (sources
                                       refused whole); 3: menu, fb_layout, identity;
                                       4: medium */

#define BI_MMAP_MAX       512
#define BI_CMDLINE_MAX    1024
#define BI_CONFIG_MAX     8192
#define BI_NOTE_MAX       512
#define BI_IDENTITY_MAX   512        /* /bareperf/results/IDENTITY (docs/results-area.md) */
#define BI_MENU_MAX       64         /* the boot menu's choice: "mode=selftest" */
#define BI_PAGE_SIZE      4096u      /* unit of mmap pages (UEFI's EFI_PAGE_SIZE) */

enum bi_mem_type {
	BI_MEM_USABLE = 1,          /* free RAM once boot services have exited */
	BI_MEM_RESERVED = 2,
	BI_MEM_ACPI_RECLAIM = 3,
	BI_MEM_ACPI_NVS = 4,
	BI_MEM_LOADER = 5,          /* kernel image, boot-info: in use */
	BI_MEM_MMIO = 6,
	BI_MEM_UNUSABLE = 7,
};

enum bi_firmware {
	BI_FIRMWARE_UEFI = 1,       /* boot/loader.c */
	BI_FIRMWARE_BIOS = 2,       /* GRUB i386-pc by Multiboot2: arch/x86/64/mb2-entry.asm */
};

/* How the kernel was handed over: by the UEFI loader (boot/loader.c, 0 as it zeroes the
 * struct), by Multiboot2 (GRUB) or by PVH (QEMU -kernel): arch/x86/<word>/mb2-entry.asm. */
enum bi_protocol {
	BI_PROTOCOL_UEFI = 0,
	BI_PROTOCOL_MULTIBOOT2 = 1,
	BI_PROTOCOL_PVH = 2,
};

/* What the kernel was booted from, as its loader knows it. Runs are saved only on a disk
 * (docs/results-area.md): a network boot has no medium of its own, a CD is read-only. */
enum bi_medium {
	BI_MEDIUM_DISK = 0,         /* a disk or stick, or not known (PVH) */
	BI_MEDIUM_NETWORK = 1,      /* PXE, HTTP boot, iPXE; GRUB over TFTP */
	BI_MEDIUM_CD = 2,
};
#define BI_MEDIUM_LAST BI_MEDIUM_CD

struct bi_mem_range {
	uint64_t base;
	uint64_t pages;             /* BI_PAGE_SIZE pages */
	uint32_t type;              /* enum bi_mem_type */
	uint32_t reserved;
};
_Static_assert(sizeof(struct bi_mem_range) == 24, "bi_mem_range layout");

#define BI_GOP_BLT_ONLY   3         /* bi_framebuffer.format: a GOP without a framebuffer */

struct bi_framebuffer {
	uint64_t base;              /* 0 when no GOP */
	uint64_t size;
	uint32_t width, height;
	uint32_t pixels_per_line;
	uint32_t format;            /* UEFI's: 0 RGBx, 1 BGRx, 2 bitmask, 3 blt-only (BIOS: 2) */
};
_Static_assert(sizeof(struct bi_framebuffer) == 32, "bi_framebuffer layout");

/* How the framebuffer's bytes hold pixels (or text cells): what lib/fbcon.h draws on. */
enum bi_fb_kind {
	BI_FB_NONE = 0,             /* nothing to draw on (no GOP, blt-only GOP, no tag) */
	BI_FB_RGB = 1,              /* direct colour, channels at *_pos, *_size bits wide */
	BI_FB_INDEXED = 2,          /* 8-bit palette indices */
	BI_FB_EGA_TEXT = 3,         /* 16-bit text cells; fb.width/height count cells */
};
#define BI_FB_PALETTE_MAX 256

struct bi_fb_layout {
	uint32_t kind;              /* enum bi_fb_kind */
	uint32_t pitch;             /* bytes from one line (text: row of cells) to the next */
	uint8_t bpp;
	uint8_t red_pos, red_size, green_pos, green_size, blue_pos, blue_size;
	uint8_t reserved;
	uint32_t palette_count;     /* indexed: entries of palette used */
	uint8_t palette[BI_FB_PALETTE_MAX][3];
	uint32_t reserved2;
};
_Static_assert(sizeof(struct bi_fb_layout) == 792, "bi_fb_layout layout");

struct boot_info {
	uint64_t magic;
	uint32_t version;
	uint32_t size;              /* sizeof(struct boot_info) as the loader knew it */
	uint64_t kernel_phys;       /* where the kernel image was loaded */
	uint64_t kernel_size;       /* bytes, including bss */
	uint64_t rsdp;              /* ACPI RSDP, 0 when not found */
	uint32_t rsdp_revision;     /* 0 = ACPI 1.0 table, 2 = ACPI 2.0+ */
	uint32_t mmap_count;
	struct bi_framebuffer fb;
	struct bi_mem_range mmap[BI_MMAP_MAX];
	uint32_t cmdline_len;       /* UEFI load options, converted to ASCII */
	uint32_t config_len;        /* bareperf.cfg from the ESP, 0 when absent */
	char cmdline[BI_CMDLINE_MAX];
	char config[BI_CONFIG_MAX];
	char note[BI_NOTE_MAX];     /* loader warnings to show the user ("" when none) */
	uint32_t exit_tries;        /* ExitBootServices attempts it took */
	/* A source too long for its buffer is refused whole, never cut: the loader leaves
	 * its text empty (length 0) and says here how long it was, for the kernel to report. */
	uint32_t cmdline_size;      /* load options' characters; > BI_CMDLINE_MAX - 1: refused */
	uint64_t config_size;       /* bareperf.cfg's bytes; > BI_CONFIG_MAX - 1: refused */
	uint32_t firmware;          /* enum bi_firmware: which firmware started the loader */
	uint32_t protocol;          /* enum bi_protocol: how the kernel was started */
	/* The UEFI loader's boot menu choice as configuration text ("mode=selftest"), NUL
	 * terminated; "" when the default was taken or no menu was shown. (GRUB passes its
	 * menu's choice as the Multiboot2 command line, in cmdline.) */
	char menu[BI_MENU_MAX];
	struct bi_fb_layout fb_layout;  /* the pixel format of fb (kind BI_FB_NONE: no screen) */
	/* The image's /bareperf/results/IDENTITY as the loader read it from the boot medium
	 * (GRUB: the module "bareperf.identity"); 0 bytes when absent or too long. */
	uint32_t identity_len;
	uint32_t reserved2;
	char identity[BI_IDENTITY_MAX];
	uint32_t medium;            /* enum bi_medium */
	uint32_t reserved3;
};
_Static_assert(offsetof(struct boot_info, fb) == 48, "boot_info layout");
_Static_assert(offsetof(struct boot_info, mmap) == 80, "boot_info layout");
_Static_assert(offsetof(struct boot_info, config_size) ==
	       80 + 24 * BI_MMAP_MAX + 8 + BI_CMDLINE_MAX + BI_CONFIG_MAX + BI_NOTE_MAX + 8,
	       "boot_info layout");
_Static_assert(offsetof(struct boot_info, firmware) ==
	       80 + 24 * BI_MMAP_MAX + 8 + BI_CMDLINE_MAX + BI_CONFIG_MAX + BI_NOTE_MAX + 16,
	       "boot_info layout");
_Static_assert(offsetof(struct boot_info, menu) ==
	       80 + 24 * BI_MMAP_MAX + 8 + BI_CMDLINE_MAX + BI_CONFIG_MAX + BI_NOTE_MAX + 24,
	       "boot_info layout");
_Static_assert(offsetof(struct boot_info, fb_layout) ==
	       80 + 24 * BI_MMAP_MAX + 8 + BI_CMDLINE_MAX + BI_CONFIG_MAX + BI_NOTE_MAX + 24 +
	       BI_MENU_MAX, "boot_info layout");
_Static_assert(offsetof(struct boot_info, identity) ==
	       80 + 24 * BI_MMAP_MAX + 8 + BI_CMDLINE_MAX + BI_CONFIG_MAX + BI_NOTE_MAX + 24 +
	       BI_MENU_MAX + 792 + 8, "boot_info layout");
_Static_assert(sizeof(struct boot_info) ==
	       80 + 24 * BI_MMAP_MAX + 8 + BI_CMDLINE_MAX + BI_CONFIG_MAX + BI_NOTE_MAX + 24 +
	       BI_MENU_MAX + 792 + 8 + BI_IDENTITY_MAX + 8, "boot_info layout");

/* Whether the loader refused a source for its length (see cmdline_size, config_size). */
#define BI_CMDLINE_REFUSED(bi) ((bi)->cmdline_size > BI_CMDLINE_MAX - 1)
#define BI_CONFIG_REFUSED(bi)  ((bi)->config_size > BI_CONFIG_MAX - 1)

/* Check what the kernel is handed before trusting it. Returns 0, or -1 with a reason. */
int bootinfo_validate(const struct boot_info *bi, char *err, size_t errlen);
/* "uefi" or "bios", as the report and @meta name the firmware. */
const char *bootinfo_firmware_name(const struct boot_info *bi);
/* "uefi", "multiboot2" or "pvh": how the kernel was started (boot.protocol). */
const char *bootinfo_protocol_name(const struct boot_info *bi);
/* disk, network or cd (enum bi_medium); unknown for PVH, which has no medium. */
const char *bootinfo_medium_name(const struct boot_info *bi);
/* Bytes of usable RAM in the map. */
uint64_t bootinfo_usable_bytes(const struct boot_info *bi);

#endif
