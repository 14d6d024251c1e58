/* The boot menu's entries and the decisions around it; see lib/bootmenu.h. */
#include "lib/bootmenu.h"
#include "lib/bytes.h"
#include "lib/cfg-lex.h"

/* SMBIOS (DMTF DSP0134 3.x): entry points 5.2.1 and 5.2.2, structure header 6.1.2,
 * OEM strings 7.12, end-of-table 7.45. */
#define SMBIOS2_TABLE_LEN   0x16        /* u16 structure table length */
#define SMBIOS2_TABLE_ADDR  0x18        /* u32 structure table address */
#define SMBIOS3_TABLE_MAX   0x0c        /* u32 structure table maximum size */
#define SMBIOS3_TABLE_ADDR  0x10        /* u64 structure table address */
#define SMBIOS_HEADER_LEN   4           /* type, length, handle */
#define SMBIOS_TYPE_OEM     11
#define SMBIOS_TYPE_END     127

const struct bootmenu_entry bootmenu_entries[] = {
	{ "run       (or the mode bareperf.cfg sets)", "" },
	{ "run       measure the payloads", "mode=run" },
	{ "selftest  check the kernel and the measuring engine", "mode=selftest" },
	{ "pmucheck  check the performance counters", "mode=pmucheck" },
	{ "c2c       cross-core latency and bandwidth", "mode=c2c" },
	{ "detect    report the CPU and PMU, measure nothing", "mode=detect" },
};
const unsigned bootmenu_count = sizeof(bootmenu_entries) / sizeof(bootmenu_entries[0]);

enum bootmenu_input bootmenu_input_of(uint16_t scan, uint16_t ch, unsigned *digit)
{
	*digit = 0;
	if (scan == BOOTMENU_SCAN_UP)
		return BOOTMENU_UP;
	if (scan == BOOTMENU_SCAN_DOWN)
		return BOOTMENU_DOWN;
	if (ch == BOOTMENU_CHAR_CR || ch == BOOTMENU_CHAR_LF)
		return BOOTMENU_ENTER;
	if (ch >= '0' && ch <= '9') {
		*digit = (unsigned)(ch - '0');
		return BOOTMENU_DIGIT;
	}
	return BOOTMENU_OTHER;
}

int bootmenu_key(struct bootmenu *m, enum bootmenu_input in, unsigned digit)
{
	m->waiting = 1;
	switch (in) {
	case BOOTMENU_UP:
		if (m->selected > 0)
			m->selected--;
		return 0;
	case BOOTMENU_DOWN:
		if (m->selected + 1 < bootmenu_count)
			m->selected++;
		return 0;
	case BOOTMENU_DIGIT:            /* boots its entry at once, as GRUB's hotkeys do */
		if (digit < 1 || digit > bootmenu_count)
			return 0;
		m->selected = digit - 1;
		return 1;
	case BOOTMENU_ENTER:
		return 1;
	default:
		return 0;
	}
}

/* ------------------------------------------------ boot.menu in bareperf.cfg */

static char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* value (quotes removed) as on/off: 1, 0, or -1. */
static int on_off(const char *v, size_t vlen)
{
	if (vlen == 2 && lower(v[0]) == 'o' && lower(v[1]) == 'n')
		return 1;
	if (vlen == 3 && lower(v[0]) == 'o' && lower(v[1]) == 'f' && lower(v[2]) == 'f')
		return 0;
	return -1;
}

/* value as seconds for boot.menu_timeout: a decimal or 0x hexadecimal number from 0 to
 * BOOTMENU_SECONDS_MAX (as the kernel's number keys read it), or -1. */
static int seconds(const char *v, size_t vlen)
{
	unsigned base = 10, n = 0;
	size_t i = 0;

	if (vlen > 2 && v[0] == '0' && lower(v[1]) == 'x') {
		base = 16;
		i = 2;
	}
	if (i == vlen)
		return -1;
	for (; i < vlen; i++) {
		char c = lower(v[i]);
		unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0') :
			     base == 16 && c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10) : base;
		if (d >= base)
			return -1;
		n = n * base + d;
		if (n > BOOTMENU_SECONDS_MAX)
			return -1;
	}
	return (int)n;
}

#define VALUE_MAX 8     /* longer values are none that on_off or seconds accept */

/* The last value of key in text that value_of takes (0 or more), or -1; none when the
 * kernel refuses the source whole (lib/cfg-lex.h). */
static int last_setting(const char *text, size_t len, const char *key_name,
			int (*value_of)(const char *v, size_t vlen))
{
	struct cfg_text_check check;
	struct cfg_lexer lx;
	struct cfg_entry e;
	char value[VALUE_MAX];
	int setting = -1;

	if (!text || cfg_text_check(text, &len, &check) != CFG_TEXT_OK)
		return -1;
	cfg_lex_init(&lx, text, len);
	while (cfg_lex_next(&lx, &e, value, sizeof(value))) {
		if (!e.has_eq || e.unterminated || e.vlen > sizeof(value) ||
		    !cfg_key_is(&e, key_name))
			continue;       /* an error to the kernel, or another key: nothing set */
		int v = value_of(value, e.vlen);
		if (v >= 0)
			setting = v;
	}
	return setting;
}

int bootmenu_cfg_setting(const char *text, size_t len)
{
	return last_setting(text, len, "boot.menu", on_off);
}

int bootmenu_cfg_seconds(const char *text, size_t len)
{
	return last_setting(text, len, "boot.menu_timeout", seconds);
}

void bootmenu_settings(const char *cfg, size_t cfg_len, const char *options, size_t options_len,
		       struct bootmenu_settings *out)
{
	size_t start, end, skip = cfg_image_word(options, options_len, &start, &end);
	const char *opt = options ? options + skip : 0;
	size_t opt_len = options ? options_len - skip : 0;
	int menu = bootmenu_cfg_setting(opt, opt_len), s = bootmenu_cfg_seconds(opt, opt_len);

	if (menu < 0)
		menu = bootmenu_cfg_setting(cfg, cfg_len);
	if (s < 0)
		s = bootmenu_cfg_seconds(cfg, cfg_len);
	out->seconds = s >= 0 ? (unsigned)s : BOOTMENU_SECONDS;
	out->shown = menu != 0 && out->seconds != 0;
}

/* ------------------------------------------------ SMBIOS OEM strings */

static int same_bytes(const uint8_t *a, const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i] != (uint8_t)b[i])
			return 0;
	return 1;
}

int bootmenu_smbios_table(const void *eps, size_t len, uint64_t *table, uint32_t *size)
{
	const uint8_t *p = eps;
	if (len >= BOOTMENU_SMBIOS3_EPS_LEN && same_bytes(p, "_SM3_", 5)) {
		*size = (uint32_t)get_le(p + SMBIOS3_TABLE_MAX, 4);
		*table = (uint64_t)(uint32_t)get_le(p + SMBIOS3_TABLE_ADDR + 4, 4) << 32 |
			 (uint32_t)get_le(p + SMBIOS3_TABLE_ADDR, 4);
		return 0;
	}
	if (len >= BOOTMENU_SMBIOS2_EPS_LEN && same_bytes(p, "_SM_", 4)) {
		*size = (uint32_t)get_le(p + SMBIOS2_TABLE_LEN, 2);
		*table = (uint32_t)get_le(p + SMBIOS2_TABLE_ADDR, 4);
		return 0;
	}
	return -1;
}

/* Where the structure at off ends, its strings included (6.1.3: each string ends with a
 * NUL, one more NUL ends the set; a structure without strings ends with two NULs); 0 when
 * it runs past len. *found says whether it is an OEM strings structure holding want. */
static size_t structure_end(const uint8_t *table, size_t len, size_t off, int *found)
{
	static const char want[] = BOOTMENU_OEM_OFF;
	uint8_t type = table[off], flen = table[off + 1];
	size_t s = off + flen;

	if (flen < SMBIOS_HEADER_LEN || s + 1 >= len)
		return 0;
	if (table[s] == 0)
		return table[s + 1] == 0 ? s + 2 : 0;
	while (table[s] != 0) {
		size_t start = s;
		while (s < len && table[s])
			s++;
		if (s + 1 >= len)
			return 0;
		if (type == SMBIOS_TYPE_OEM && s - start == sizeof(want) - 1 &&
		    same_bytes(table + start, want, sizeof(want) - 1))
			*found = 1;
		s++;
	}
	return s + 1;
}

int bootmenu_smbios_off(const uint8_t *table, size_t len)
{
	size_t off = 0;
	int found = 0;

	while (off + SMBIOS_HEADER_LEN <= len && !found) {
		size_t end = structure_end(table, len, off, &found);
		if (!end || table[off] == SMBIOS_TYPE_END)
			break;
		off = end;
	}
	return found;
}
