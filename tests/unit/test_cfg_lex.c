/* lib/cfg-lex.c: the text check and the split into entries that the kernel, the UEFI
 * loader and the grub.cfg writer share. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/cfg-lex.h"

/* The entries of text as "line:key=value" (or "line:key" without '=', "line:key=\"..."
 * for an unterminated quote), joined by '|'. */
static const char *entries(const char *text, size_t len, size_t value_size)
{
	static char out[1024];
	char value[64];
	struct cfg_lexer lx;
	struct cfg_entry e;
	size_t n = 0;

	assert_true(value_size <= sizeof(value));
	out[0] = '\0';
	cfg_lex_init(&lx, text, len);
	while (cfg_lex_next(&lx, &e, value, value_size)) {
		n += (size_t)snprintf(out + n, sizeof(out) - n, "%s%u:%.*s", n ? "|" : "", e.line,
				      (int)e.klen, e.key);
		if (e.unterminated)
			n += (size_t)snprintf(out + n, sizeof(out) - n, "=\"...");
		else if (e.has_eq && e.vlen < value_size)
			n += (size_t)snprintf(out + n, sizeof(out) - n, "=%s", value);
		else if (e.has_eq)
			n += (size_t)snprintf(out + n, sizeof(out) - n, "=(%zu bytes)", e.vlen);
		assert_true(n < sizeof(out));
	}
	return out;
}

#define ENTRIES(s) entries(s, sizeof(s) - 1, 64)

static void test_separators(void **state)
{
	(void)state;
	assert_string_equal(ENTRIES(""), "");
	assert_string_equal(ENTRIES("a=1 b=2\tc=3;d=4\r\ne=5"), "1:a=1|1:b=2|1:c=3|1:d=4|2:e=5");
	assert_string_equal(ENTRIES("  a = 1 ;; b\t=\t2  "), "1:a=1|1:b=2");
	assert_string_equal(ENTRIES("a=1#b=2\n#c=3\nd=4 # e=5"), "1:a=1|3:d=4");
	assert_string_equal(ENTRIES("\n\n\na=1"), "4:a=1");
	assert_string_equal(ENTRIES("a\nb =\n=c"), "1:a|2:b=|3:=c");
	assert_string_equal(ENTRIES("a=b=c"), "1:a=b=c");
}

static void test_quotes(void **state)
{
	(void)state;
	assert_string_equal(ENTRIES("a=\"x y;z#w\" b=2"), "1:a=x y;z#w|1:b=2");
	assert_string_equal(ENTRIES("a=x\"1 2\"y"), "1:a=x1 2y");
	assert_string_equal(ENTRIES("a=\"\""), "1:a=");
	/* A quote ends at the line: the next line is entries of its own. */
	assert_string_equal(ENTRIES("a=\"x\nb=2"), "1:a=\"...|2:b=2");
}

static void test_bom(void **state)
{
	(void)state;
	assert_string_equal(ENTRIES("\xef\xbb\xbf" "boot.menu=off"), "1:boot.menu=off");
	/* Only before the first entry, and only whole. */
	assert_string_equal(ENTRIES("a=1\xef\xbb\xbf"), "1:a=1\xef\xbb\xbf");
	assert_string_equal(ENTRIES("\xef\xbb" "a=1"), "1:\xef\xbb" "a=1");
}

static void test_value_buffer(void **state)
{
	(void)state;
	/* A value that does not fit is measured whole; what fits is NUL-terminated. */
	assert_string_equal(entries("a=12345 b=1234", 14, 5), "1:a=(5 bytes)|1:b=1234");
	assert_string_equal(entries("a=\"1 2\"", 7, 4), "1:a=1 2");
	assert_string_equal(entries("a=1", 3, 0), "1:a=(1 bytes)");
}

static void test_key_is(void **state)
{
	(void)state;
	struct cfg_lexer lx;
	struct cfg_entry e;
	char v[8];
	cfg_lex_init(&lx, "boot.menu=on", 12);
	assert_true(cfg_lex_next(&lx, &e, v, sizeof(v)));
	assert_true(cfg_key_is(&e, "boot.menu"));
	assert_false(cfg_key_is(&e, "boot.men"));
	assert_false(cfg_key_is(&e, "boot.menu_timeout"));
	assert_false(cfg_lex_next(&lx, &e, v, sizeof(v)));
}

static enum cfg_text_fault check(const char *s, size_t len, size_t *kept, struct cfg_text_check *c)
{
	*kept = len;
	return cfg_text_check(s, kept, c);
}

static void test_text_check(void **state)
{
	(void)state;
	struct cfg_text_check c;
	size_t n;

	assert_int_equal(check("a=1\n\xc3\xa9=2\t\r\n", 11, &n, &c), CFG_TEXT_OK);
	assert_int_equal(n, 11);
	assert_int_equal(check("a=1\0\0", 5, &n, &c), CFG_TEXT_OK);      /* trailing NULs */
	assert_int_equal(n, 3);
	assert_int_equal(check("a\n=\0x", 5, &n, &c), CFG_TEXT_CONTROL);
	assert_int_equal(c.byte, 0);
	assert_int_equal(c.offset, 3);
	assert_int_equal(c.line, 2);
	assert_int_equal(check("a=\x7f", 3, &n, &c), CFG_TEXT_CONTROL);
	assert_int_equal(check("a=\x07", 3, &n, &c), CFG_TEXT_CONTROL);
	/* Overlong, surrogate, past U+10FFFF, cut short, a lone continuation byte. */
	static const char *bad[] = { "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe2\x82",
				     "\x80", "\xff" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(check(bad[i], strlen(bad[i]), &n, &c), CFG_TEXT_NOT_UTF8);
		assert_int_equal(c.offset, 0);
	}
	assert_int_equal(check("\xf4\x8f\xbf\xbf", 4, &n, &c), CFG_TEXT_OK);   /* U+10FFFF */

	static char big[CFG_SOURCE_MAX + 1];
	memset(big, ' ', sizeof(big));
	assert_int_equal(check(big, CFG_SOURCE_MAX, &n, &c), CFG_TEXT_OK);
	assert_int_equal(check(big, CFG_SOURCE_MAX + 1, &n, &c), CFG_TEXT_TOO_LONG);
	assert_int_equal(check(NULL, 0, &n, &c), CFG_TEXT_OK);
	assert_int_equal(n, 0);
}

/* The image word cfg_image_word finds in s, or "-" for none; then what follows it. */
static const char *image_word(const char *s)
{
	static char out[256];
	size_t start = 0, end = 0, n = cfg_image_word(s, strlen(s), &start, &end);
	if (!n)
		return "-";
	assert_true(start < end && end <= n);
	snprintf(out, sizeof(out), "%.*s|%s", (int)(end - start), s + start, s + n);
	return out;
}

static void test_image_word(void **state)
{
	(void)state;
	/* As the UEFI shell, iPXE, GRUB's chainloader and boot entries put it first. */
	assert_string_equal(image_word("BOOTX64.EFI mode=pmucheck"), "BOOTX64.EFI| mode=pmucheck");
	assert_string_equal(image_word("bootx64.efi"), "bootx64.efi|");
	assert_string_equal(image_word("fs0:\\EFI\\BOOT\\BOOTX64.EFI reps=3"),
			    "fs0:\\EFI\\BOOT\\BOOTX64.EFI| reps=3");
	assert_string_equal(image_word("/EFI/BOOT/BOOTX64.EFI\tmode=detect"),
			    "/EFI/BOOT/BOOTX64.EFI|\tmode=detect");
	assert_string_equal(image_word("\\EFI\\bareperf mode=detect"), "\\EFI\\bareperf| mode=detect");
	assert_string_equal(image_word("  \"fs0:\\My Tools\\bp.efi\" mode=run"),
			    "fs0:\\My Tools\\bp.efi| mode=run");
	assert_string_equal(image_word("bp.efi;mode=run"), "bp.efi|;mode=run");
	/* Not an image's name: a setting, a word that names no file, a key before '='. */
	assert_string_equal(image_word("mode=detect BOOTX64.EFI"), "-");
	assert_string_equal(image_word("detect mode=run"), "-");
	assert_string_equal(image_word("a/b=c"), "-");
	assert_string_equal(image_word("x.efi = 3"), "-");
	assert_string_equal(image_word("\"a b.efi\"=3"), "-");
	assert_string_equal(image_word("\"a b.efi"), "-");
	assert_string_equal(image_word("a\"b.efi"), "-");
	assert_string_equal(image_word(".efi"), "-");
	assert_string_equal(image_word(""), "-");
	assert_string_equal(image_word("   "), "-");
	size_t s, e;
	assert_int_equal(cfg_image_word(NULL, 0, &s, &e), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_separators),
		cmocka_unit_test(test_quotes),
		cmocka_unit_test(test_bom),
		cmocka_unit_test(test_value_buffer),
		cmocka_unit_test(test_key_is),
		cmocka_unit_test(test_text_check),
		cmocka_unit_test(test_image_word),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
