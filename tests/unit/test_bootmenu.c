/* lib/bootmenu.c: the menu's keys, boot.menu read as the kernel reads it, SMBIOS. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/bootmenu.h"
#include "lib/config.h"

static void test_entries(void **state)
{
	(void)state;
	/* The default adds nothing; every other entry is one mode the kernel knows. */
	assert_int_equal(bootmenu_count, 6);
	assert_string_equal(bootmenu_entries[0].config, "");
	static const char *modes[] = { "mode=run", "mode=selftest", "mode=pmucheck",
				       "mode=c2c", "mode=detect" };
	for (unsigned i = 1; i < bootmenu_count; i++) {
		struct bp_config cfg;
		assert_string_equal(bootmenu_entries[i].config, modes[i - 1]);
		config_defaults(&cfg);
		cfg.mode = CFG_MODE_LIST;
		assert_int_equal(config_apply(&cfg, "menu", bootmenu_entries[i].config,
					      strlen(bootmenu_entries[i].config), NULL, NULL), 0);
		assert_int_not_equal(cfg.mode, CFG_MODE_LIST);
	}
}

static void test_keys(void **state)
{
	(void)state;
	struct bootmenu m = { 0, 0 };
	assert_int_equal(bootmenu_key(&m, BOOTMENU_OTHER, 0), 0);
	assert_int_equal(m.waiting, 1);                 /* any key stops the countdown */
	assert_int_equal(m.selected, 0);
	bootmenu_key(&m, BOOTMENU_UP, 0);
	assert_int_equal(m.selected, 0);                /* no wrap at the top */
	bootmenu_key(&m, BOOTMENU_DOWN, 0);
	bootmenu_key(&m, BOOTMENU_DOWN, 0);
	assert_int_equal(m.selected, 2);
	for (int i = 0; i < 10; i++)
		bootmenu_key(&m, BOOTMENU_DOWN, 0);
	assert_int_equal(m.selected, bootmenu_count - 1);       /* nor at the bottom */
	assert_int_equal(bootmenu_key(&m, BOOTMENU_ENTER, 0), 1);
	assert_int_equal(m.selected, bootmenu_count - 1);
	/* no entry 0 or 7: nothing boots, the selection stays */
	assert_int_equal(bootmenu_key(&m, BOOTMENU_DIGIT, 0), 0);
	assert_int_equal(bootmenu_key(&m, BOOTMENU_DIGIT, bootmenu_count + 1), 0);
	assert_int_equal(m.selected, bootmenu_count - 1);
	/* a digit boots its entry at once */
	assert_int_equal(bootmenu_key(&m, BOOTMENU_DIGIT, 2), 1);
	assert_int_equal(m.selected, 1);
}

/* Each digit key 1..N boots its own entry, from whatever was selected before; every other
 * digit boots nothing and leaves the selection where it was. Keys go through
 * bootmenu_input_of, as the loader reads them. */
static void test_every_digit(void **state)
{
	(void)state;
	for (unsigned from = 0; from < bootmenu_count; from++) {
		for (unsigned d = 1; d <= bootmenu_count; d++) {
			struct bootmenu m = { from, 0 };
			unsigned digit = 99;
			assert_int_equal(bootmenu_input_of(0, (uint16_t)('0' + d), &digit), BOOTMENU_DIGIT);
			if (digit != d)
				fail_msg("key '%c' reads as digit %u", '0' + d, digit);
			if (bootmenu_key(&m, BOOTMENU_DIGIT, digit) != 1)
				fail_msg("digit %u (entry %u selected) does not boot", d, from + 1);
			if (m.selected != d - 1)
				fail_msg("digit %u (entry %u selected) boots entry %u", d, from + 1,
					 m.selected + 1);
			assert_int_equal(m.waiting, 1);
		}
		static const unsigned out_of_range[] = { 0, 7, 8, 9, 10, 0x7fffffffu, 0xffffffffu };
		for (unsigned i = 0; i < sizeof(out_of_range) / sizeof(out_of_range[0]); i++) {
			unsigned d = out_of_range[i];
			struct bootmenu m = { from, 0 };
			if (d >= 1 && d <= bootmenu_count)
				continue;
			if (bootmenu_key(&m, BOOTMENU_DIGIT, d) != 0)
				fail_msg("digit %u boots, with %u entries", d, bootmenu_count);
			if (m.selected != from)
				fail_msg("digit %u moves the selection from entry %u to %u", d, from + 1,
					 m.selected + 1);
			assert_int_equal(m.waiting, 1);         /* it still stops the countdown */
		}
	}
	/* bootmenu_count + 1 is out of range whatever N is */
	struct bootmenu m = { 0, 0 };
	assert_int_equal(bootmenu_key(&m, BOOTMENU_DIGIT, bootmenu_count + 1), 0);
	assert_int_equal(m.selected, 0);
}

/* The other keys the firmware gives. */
static void test_input_of(void **state)
{
	(void)state;
	unsigned digit = 99;
	assert_int_equal(bootmenu_input_of(BOOTMENU_SCAN_UP, 0, &digit), BOOTMENU_UP);
	assert_int_equal(digit, 0);
	assert_int_equal(bootmenu_input_of(BOOTMENU_SCAN_DOWN, 0, &digit), BOOTMENU_DOWN);
	assert_int_equal(bootmenu_input_of(0, BOOTMENU_CHAR_CR, &digit), BOOTMENU_ENTER);
	assert_int_equal(bootmenu_input_of(0, BOOTMENU_CHAR_LF, &digit), BOOTMENU_ENTER);
	for (unsigned c = 0; c < 0x80; c++) {
		enum bootmenu_input in = bootmenu_input_of(0, (uint16_t)c, &digit);
		if (c >= '0' && c <= '9') {
			assert_int_equal(in, BOOTMENU_DIGIT);
			assert_int_equal(digit, c - '0');
		} else if (c != BOOTMENU_CHAR_CR && c != BOOTMENU_CHAR_LF) {
			assert_int_equal(in, BOOTMENU_OTHER);
			assert_int_equal(digit, 0);
		}
	}
	/* a fullwidth digit (U+FF13) and an escape with a character are no digits */
	assert_int_equal(bootmenu_input_of(0, 0xFF13, &digit), BOOTMENU_OTHER);
	assert_int_equal(bootmenu_input_of(0x0017, 0, &digit), BOOTMENU_OTHER);
	/* '0' reads as digit 0, which boots nothing */
	struct bootmenu m = { 2, 0 };
	assert_int_equal(bootmenu_input_of(0, '0', &digit), BOOTMENU_DIGIT);
	assert_int_equal(bootmenu_key(&m, BOOTMENU_DIGIT, digit), 0);
	assert_int_equal(m.selected, 2);
}

static int setting(const char *text)
{
	return bootmenu_cfg_setting(text, strlen(text));
}

static void test_cfg_setting(void **state)
{
	(void)state;
	assert_int_equal(setting(""), -1);
	assert_int_equal(setting("mode=selftest reps=5"), -1);
	assert_int_equal(setting("boot.menu=off"), 0);
	assert_int_equal(setting("boot.menu=on"), 1);
	assert_int_equal(setting("boot.menu = OFF\n"), 0);
	assert_int_equal(setting("reps=5;boot.menu=\"off\";mode=run"), 0);
	assert_int_equal(setting("boot.menu=off\nboot.menu=on"), 1);     /* the last wins */
	assert_int_equal(setting("boot.menu=off boot.menu=maybe"), 0);   /* a bad one is skipped */
	assert_int_equal(setting("# boot.menu=off\n"), -1);
	assert_int_equal(setting("reps=5 # boot.menu=off"), -1);
	assert_int_equal(setting("boot.menu=offf"), -1);
	assert_int_equal(setting("Boot.menu=off"), -1);                  /* keys match exactly */
	assert_int_equal(setting("xboot.menu=off"), -1);
	assert_int_equal(setting("boot.menu=\"off"), -1);                /* unterminated quote */
	assert_int_equal(setting("boot.menu\n=off"), -1);
	assert_int_equal(bootmenu_cfg_setting("boot.menu=off\0\0", 15), 0);
	assert_int_equal(bootmenu_cfg_setting("boot.menu=off\0x", 15), -1);  /* refused source */
	assert_int_equal(setting("boot.menu=off\x01"), -1);
	assert_int_equal(setting("\xef\xbb\xbf" "boot.menu=off"), 0);          /* a BOM first */
	assert_int_equal(setting("boot.menu=off # caf\xc3\xa9"), 0);         /* UTF-8 */
	assert_int_equal(setting("boot.menu=off # caf\xe9"), -1);             /* Latin-1: refused */
	assert_int_equal(setting("boot.menu=off # \xc0\xaf"), -1);           /* overlong */
	assert_int_equal(setting("boot.menu=off # \xed\xa0\x80"), -1);       /* a surrogate */
	assert_int_equal(bootmenu_cfg_setting(NULL, 0), -1);
}

static int secs(const char *text)
{
	return bootmenu_cfg_seconds(text, strlen(text));
}

static void test_cfg_seconds(void **state)
{
	(void)state;
	assert_int_equal(secs(""), -1);
	assert_int_equal(secs("boot.menu=off"), -1);                     /* another key */
	assert_int_equal(secs("boot.menu_timeout=1"), 1);
	assert_int_equal(secs("boot.menu_timeout = \"12\" # s"), 12);
	assert_int_equal(secs("boot.menu_timeout=0"), 0);
	assert_int_equal(secs("boot.menu_timeout=60"), 60);              /* BOOTMENU_SECONDS_MAX */
	assert_int_equal(secs("boot.menu_timeout=61"), -1);
	assert_int_equal(secs("boot.menu_timeout=0x0A"), 10);
	assert_int_equal(secs("boot.menu_timeout=007"), 7);
	assert_int_equal(secs("boot.menu_timeout=0x"), -1);
	assert_int_equal(secs("boot.menu_timeout=-1"), -1);
	assert_int_equal(secs("boot.menu_timeout=1s"), -1);
	assert_int_equal(secs("boot.menu_timeout="), -1);
	assert_int_equal(secs("boot.menu_timeout=99999999999999999999"), -1);
	assert_int_equal(secs("boot.menu_timeout=3\nboot.menu_timeout=4"), 4);   /* the last wins */
	assert_int_equal(secs("boot.menu_timeout=3 boot.menu_timeout=x"), 3);    /* a bad one is skipped */
	assert_int_equal(secs("boot.menu_timeouts=3"), -1);
	assert_int_equal(bootmenu_cfg_seconds("boot.menu_timeout=2\0x", 21), -1);  /* refused source */
	assert_int_equal(BOOTMENU_SECONDS_MAX, 60);
}

/* The loader must read boot.menu as the kernel does, whatever else is wrong in the text
 * (a source the kernel refuses whole leaves the default, on). Sources are built from
 * fragments that exercise the syntax (separators, comments, quotes, near-miss keys and
 * values, bytes that make a source not text). */
static void test_cfg_agrees_with_kernel(void **state)
{
	(void)state;
	static const char *frag[] = {
		"boot.menu", "=", "off", "on", "OFF", " ", "\n", ";", "#", "\"", "reps=3",
		"mode=detect", "boot.menu=off", "boot.menu=on", "\t", " = ", "boot.men",
		"u", "x", "\r\n", "\xef\xbb\xbf", "\xc3\xa9", "\xe9", "\x01",
		"boot.menu_timeout=", "1", "60", "61", "0x3", "_timeout",
	};
	const unsigned nfrag = sizeof(frag) / sizeof(frag[0]);
	unsigned seed = 12345, compared = 0, set = 0;
	for (unsigned n = 0; n < 20000; n++) {
		char text[256] = "";
		unsigned parts = 1 + (seed >> 16) % 10;
		for (unsigned p = 0; p < parts; p++) {
			seed = seed * 1103515245u + 12345u;
			strcat(text, frag[(seed >> 16) % nfrag]);
		}
		struct bp_config cfg;
		config_defaults(&cfg);
		cfg.boot_menu = 1;
		int errors = config_apply(&cfg, "t", text, strlen(text), NULL, NULL);
		int ours = bootmenu_cfg_setting(text, strlen(text));
		compared += errors == 0;
		set += ours >= 0;
		if (ours != -1 && ours != cfg.boot_menu)
			fail_msg("'%s': loader says %d, kernel %d", text, ours, cfg.boot_menu);
		if (ours == -1 && !cfg.boot_menu)
			fail_msg("'%s': loader sees no setting, kernel has off", text);
		int seconds = bootmenu_cfg_seconds(text, strlen(text));
		if (seconds != -1 && (uint32_t)seconds != cfg.boot_menu_timeout)
			fail_msg("'%s': loader's countdown %d s, kernel's %u", text, seconds, cfg.boot_menu_timeout);
		if (seconds == -1 && cfg.boot_menu_timeout != BOOTMENU_SECONDS)
			fail_msg("'%s': loader sees no countdown, kernel has %u", text, cfg.boot_menu_timeout);
	}
	assert_true(compared > 1000);           /* texts the kernel takes without an error */
	assert_true(set > 500);                 /* texts with a valid boot.menu */
}

/* An SMBIOS structure: type, formatted area of flen bytes, then the strings given. */
static size_t put_struct(uint8_t *t, uint8_t type, uint8_t flen, const char **strs)
{
	size_t o = 0;
	memset(t, 0, flen);
	t[0] = type;
	t[1] = flen;
	o = flen;
	if (!strs || !strs[0]) {
		t[o++] = 0;
		t[o++] = 0;
		return o;
	}
	for (; *strs; strs++) {
		strcpy((char *)t + o, *strs);
		o += strlen(*strs) + 1;
	}
	t[o++] = 0;
	return o;
}

/* The menu's settings from bareperf.cfg and the load options: the load options win, and
 * the image's name that firmware puts first in them is not an entry. */
static void test_settings(void **state)
{
	(void)state;
	static const struct {
		const char *cfg, *options;
		int shown;
		unsigned seconds;
	} cases[] = {
		{ NULL, NULL, 1, BOOTMENU_SECONDS },
		{ "", "BOOTX64.EFI", 1, BOOTMENU_SECONDS },
		{ "boot.menu=off", NULL, 0, BOOTMENU_SECONDS },
		{ NULL, "BOOTX64.EFI boot.menu=off", 0, BOOTMENU_SECONDS },
		{ NULL, "fs0:\\EFI\\BOOT\\BOOTX64.EFI boot.menu_timeout=0", 0, 0 },
		{ NULL, "boot.menu_timeout=7 mode=detect", 1, 7 },
		{ "boot.menu=off boot.menu_timeout=9", "x.efi boot.menu=on", 1, 9 },
		{ "boot.menu=on", "x.efi boot.menu=off", 0, BOOTMENU_SECONDS },
		{ "boot.menu_timeout=3", "x.efi boot.menu_timeout=12", 1, 12 },
		{ "boot.menu_timeout=3", "x.efi boot.menu_timeout=99", 1, 3 },
		{ NULL, "x.efi boot.menu=off\001", 1, BOOTMENU_SECONDS },     /* refused whole */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct bootmenu_settings m;
		const char *c = cases[i].cfg, *o = cases[i].options;
		bootmenu_settings(c, c ? strlen(c) : 0, o, o ? strlen(o) : 0, &m);
		if (m.shown != cases[i].shown || m.seconds != cases[i].seconds)
			fail_msg("cfg '%s', options '%s': shown %d, %u s; want %d, %u s", c ? c : "",
				 o ? o : "", m.shown, m.seconds, cases[i].shown, cases[i].seconds);
	}
}

static void test_smbios(void **state)
{
	(void)state;
	uint8_t t[512];
	size_t n = 0;
	const char *bios[] = { "EFI Development Kit II / OVMF", "0.0.0", NULL };
	const char *oem[] = { "io.systemd.credential:x=y", BOOTMENU_OEM_OFF, NULL };
	const char *other[] = { "bareperf:boot.menu=offx", "bareperf:boot.menu=of", NULL };

	n += put_struct(t + n, 0, 0x18, bios);
	n += put_struct(t + n, 1, 0x1b, NULL);
	size_t before_oem = n;
	n += put_struct(t + n, 11, 5, oem);
	n += put_struct(t + n, 127, 4, NULL);
	assert_int_equal(bootmenu_smbios_off(t, n), 1);
	/* cut anywhere inside the OEM structure's string: not found, no read past the end */
	for (size_t cut = 0; cut < n - 6; cut++) {
		uint8_t *copy = malloc(cut ? cut : 1);
		memcpy(copy, t, cut);
		int r = bootmenu_smbios_off(copy, cut);
		if (cut < before_oem + 5 + strlen(oem[0]) + 1 + strlen(BOOTMENU_OEM_OFF) + 2)
			assert_int_equal(r, 0);
		free(copy);
	}

	/* the string elsewhere than in type 11, or only similar ones: no */
	n = put_struct(t, 1, 0x1b, oem);
	n += put_struct(t + n, 11, 5, other);
	n += put_struct(t + n, 127, 4, NULL);
	assert_int_equal(bootmenu_smbios_off(t, n), 0);
	/* after the end-of-table structure: not looked at */
	n = put_struct(t, 127, 4, NULL);
	n += put_struct(t + n, 11, 5, oem);
	assert_int_equal(bootmenu_smbios_off(t, n), 0);
	/* a formatted area shorter than the header, or past the end */
	n = put_struct(t, 11, 5, oem);
	t[1] = 3;
	assert_int_equal(bootmenu_smbios_off(t, n), 0);
	t[1] = 255;
	assert_int_equal(bootmenu_smbios_off(t, n), 0);
	/* strings without their final NUL */
	n = put_struct(t, 11, 5, oem);
	assert_int_equal(bootmenu_smbios_off(t, n), 1);
	assert_int_equal(bootmenu_smbios_off(t, n - 2), 0);
}

static void test_smbios_entry_point(void **state)
{
	(void)state;
	uint8_t eps[32] = { 0 };
	uint64_t table = 0;
	uint32_t size = 0;

	memcpy(eps, "_SM_", 4);
	eps[0x16] = 0x34; eps[0x17] = 0x12;                     /* length 0x1234 */
	eps[0x18] = 0x00; eps[0x19] = 0xf0; eps[0x1a] = 0x0e; eps[0x1b] = 0x00;
	assert_int_equal(bootmenu_smbios_table(eps, BOOTMENU_SMBIOS2_EPS_LEN, &table, &size), 0);
	assert_int_equal(size, 0x1234);
	assert_true(table == 0xef000);
	/* too short to hold the table's address */
	assert_int_equal(bootmenu_smbios_table(eps, BOOTMENU_SMBIOS2_EPS_LEN - 1, &table, &size), -1);

	memset(eps, 0, sizeof(eps));
	memcpy(eps, "_SM3_", 5);
	eps[0x0c] = 0x00; eps[0x0d] = 0x10;                     /* max size 0x1000 */
	for (int i = 0; i < 8; i++)
		eps[0x10 + i] = (uint8_t)(0x10 + i);
	assert_int_equal(bootmenu_smbios_table(eps, BOOTMENU_SMBIOS3_EPS_LEN, &table, &size), 0);
	assert_int_equal(size, 0x1000);
	assert_true(table == 0x1716151413121110ull);

	memcpy(eps, "_DMI_", 5);
	assert_int_equal(bootmenu_smbios_table(eps, sizeof(eps), &table, &size), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_entries),
		cmocka_unit_test(test_keys),
		cmocka_unit_test(test_every_digit),
		cmocka_unit_test(test_input_of),
		cmocka_unit_test(test_cfg_setting),
		cmocka_unit_test(test_cfg_seconds),
		cmocka_unit_test(test_cfg_agrees_with_kernel),
		cmocka_unit_test(test_settings),
		cmocka_unit_test(test_smbios),
		cmocka_unit_test(test_smbios_entry_point),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
