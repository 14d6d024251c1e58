/*
 * The boot menu's logic, shared by the UEFI loader (boot/loader.c, which draws it on the
 * firmware console) and the host tests; GRUB's menu (scripts/mkimage) offers the same
 * entries. Pure code without libc: the loader links it as it is.
 */
#ifndef LIB_BOOTMENU_H
#define LIB_BOOTMENU_H
#include <stddef.h>
#include <stdint.h>

#define BOOTMENU_SECONDS   5            /* countdown before the default entry boots */
#define BOOTMENU_SECONDS_MAX 60         /* boot.menu_timeout's largest */
/* The SMBIOS OEM string (type 11) with which a virtual machine skips the menu. */
#define BOOTMENU_OEM_OFF   "bareperf:boot.menu=off"

struct bootmenu_entry {
	const char *title;
	const char *config;     /* configuration text passed to the kernel; "" for none */
};

/* Entry 0, the default, adds nothing: the mode is bareperf.cfg's (run unless it sets
 * one). The others pass mode=NAME, which overrides bareperf.cfg's. */
extern const struct bootmenu_entry bootmenu_entries[];
extern const unsigned bootmenu_count;

enum bootmenu_input { BOOTMENU_UP, BOOTMENU_DOWN, BOOTMENU_ENTER, BOOTMENU_DIGIT,
		      BOOTMENU_OTHER };

struct bootmenu {
	unsigned selected;      /* index into bootmenu_entries */
	int waiting;            /* 1 once a key has stopped the countdown */
};

/* EFI_INPUT_KEY (UEFI Specification, EFI_SIMPLE_TEXT_INPUT_PROTOCOL.ReadKeyStroke): the
 * scan codes of the "EFI Scan Codes" table and the UCS-2 characters the menu reads. */
#define BOOTMENU_SCAN_UP   0x0001
#define BOOTMENU_SCAN_DOWN 0x0002
#define BOOTMENU_CHAR_LF   0x000A
#define BOOTMENU_CHAR_CR   0x000D

/* A key as the firmware gives it: up, down, Enter (CR or LF), a digit ('0'..'9', its
 * value in *digit), or another key. */
enum bootmenu_input bootmenu_input_of(uint16_t scan, uint16_t ch, unsigned *digit);

/* One key: any key stops the countdown; up/down move (without wrapping), Enter chooses,
 * digit d (1..N) chooses entry d - 1 at once. Returns 1 when the selected entry is to boot. */
int bootmenu_key(struct bootmenu *m, enum bootmenu_input in, unsigned digit);

/* What bareperf.cfg's text says of boot.menu, read by the rules config_apply uses (the
 * last valid boot.menu=on|off wins): 1 on, 0 off, -1 not set (or a source the kernel
 * refuses whole: too long, a NUL or another control character inside, not UTF-8). */
int bootmenu_cfg_setting(const char *text, size_t len);

/* What it says of boot.menu_timeout, by the same rules: the countdown's seconds (0 to
 * BOOTMENU_SECONDS_MAX; 0 boots the default at once), or -1 not set. */
int bootmenu_cfg_seconds(const char *text, size_t len);

/* The menu's settings from every source the loader reads, the later winning as in the
 * kernel: bareperf.cfg, then the load options after the image's name (cfg_image_word). */
struct bootmenu_settings {
	int shown;              /* 0: boot.menu=off, or a countdown of 0 */
	unsigned seconds;       /* the countdown, BOOTMENU_SECONDS unless set */
};
void bootmenu_settings(const char *cfg, size_t cfg_len, const char *options, size_t options_len,
		       struct bootmenu_settings *out);

/* Entry point lengths (DSP0134 5.2.1, 5.2.2): what bootmenu_smbios_table needs to read. */
#define BOOTMENU_SMBIOS2_EPS_LEN 0x1f
#define BOOTMENU_SMBIOS3_EPS_LEN 0x18

/* An SMBIOS entry point (DMTF DSP0134 5.2.1 "_SM_", 5.2.2 "_SM3_"): where the structure
 * table is and how long it is (for SMBIOS 3, its maximum size). 0, or -1 when it is
 * neither anchor. `len` is how many bytes of the entry point can be read. */
int bootmenu_smbios_table(const void *eps, size_t len, uint64_t *table, uint32_t *size);

/* Whether the structure table holds an OEM strings structure (type 11, DSP0134 7.12)
 * with the string BOOTMENU_OEM_OFF. Reads no byte outside table[0..len). */
int bootmenu_smbios_off(const uint8_t *table, size_t len);

#endif
