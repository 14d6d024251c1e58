/*
 * The one reader of the configuration syntax (docs/config.md): it checks a source's text
 * and splits it into key=value entries. The kernel (lib/config.c), the UEFI loader's boot
 * menu (lib/bootmenu.c) and the host tool that writes grub.cfg's menu settings
 * (scripts/host/bareperf-menu-settings.c) all read bareperf.cfg through it, so they
 * cannot disagree on where an entry starts or what its value is.
 *
 * Entries are separated by blanks (space, tab, CR), ';' and newlines; '#' starts a
 * comment to the end of the line; blanks may surround '='; double quotes group
 * characters, separators included, and are not part of the value. A UTF-8 byte-order
 * mark before the first entry is skipped. Pure code without libc.
 */
#ifndef LIB_CFG_LEX_H
#define LIB_CFG_LEX_H
#include <stdbool.h>
#include <stddef.h>

#define CFG_SOURCE_MAX 8191     /* bytes in one source; a longer one is refused whole */

/* Why a source's text is refused whole (cfg_text_check). */
enum cfg_text_fault {
	CFG_TEXT_OK = 0,
	CFG_TEXT_TOO_LONG,      /* more than CFG_SOURCE_MAX bytes */
	CFG_TEXT_CONTROL,       /* a control byte other than tab, CR and LF (NUL included) */
	CFG_TEXT_NOT_UTF8,      /* not UTF-8 (RFC 3629: no overlong forms or surrogates) */
};

struct cfg_text_check {
	enum cfg_text_fault fault;
	unsigned char byte;     /* CONTROL, NOT_UTF8: the first byte at fault */
	size_t offset;          /* and its offset */
	unsigned line;          /* and its line, from 1 */
};

/* Checks a source: trailing NULs (a C string's terminator) are dropped from *len first.
 * Returns CFG_TEXT_OK, or the fault (also in *c), in which case none of it applies. */
enum cfg_text_fault cfg_text_check(const char *text, size_t *len, struct cfg_text_check *c);

struct cfg_lexer {
	const char *text;
	size_t len, pos;
	unsigned line;
};

struct cfg_entry {
	const char *key;        /* in the text; klen may be 0 ('=value' with no key) */
	size_t klen;
	bool has_eq;            /* key=value; without '=', a key alone (an error to callers) */
	bool unterminated;      /* a quote not closed on the entry's line */
	size_t vlen;            /* the value's length with its quotes removed */
	unsigned line;          /* where the entry starts, from 1 */
};

/* Starts reading text[0..len), which cfg_text_check has accepted. */
void cfg_lex_init(struct cfg_lexer *lx, const char *text, size_t len);

/* The next entry, or false at the end of the text. Its value, quotes removed, goes into
 * value[0..size) (NUL-terminated where it fits); e->vlen is its whole length, so a value
 * of size bytes or more did not fit. */
bool cfg_lex_next(struct cfg_lexer *lx, struct cfg_entry *e, char *value, size_t size);

/* Firmware and boot managers put the image's path or file name first in the load options
 * they give a UEFI application (the UEFI shell, iPXE's chain and kernel, GRUB's
 * chainloader), before the options for it. Returns the offset just past such a first word
 * (which is text[start..end) in *start, *end), or 0 where the first word is not one. A word
 * is the image's when it has no '=' and names a file: it holds '/', '\\' or ':', or ends in
 * ".efi" (any case). It may be double-quoted (a path with blanks). */
size_t cfg_image_word(const char *text, size_t len, size_t *start, size_t *end);

/* Whether c ends an unquoted key or value (a blank, newline, ';' or '#'): a value with one
 * must be quoted to read back whole. */
bool cfg_ends_entry(char c);

/* Whether an entry's key is name. */
bool cfg_key_is(const struct cfg_entry *e, const char *name);

#endif
