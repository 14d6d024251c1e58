/*
 * The configuration syntax's one reader (lib/cfg-lex.h): the text check and the split
 * into entries.
 */
#include "lib/cfg-lex.h"
#include <stdint.h>

/* Bytes in the UTF-8 sequence at s[i] (RFC 3629 section 3: no overlong forms, no
 * surrogates, nothing past U+10FFFF), or 0 when it is not one. */
static size_t utf8_length(const unsigned char *s, size_t i, size_t n)
{
	static const struct { unsigned char mask, lead; uint32_t min; } forms[] = {
		{ 0xe0, 0xc0, 0x80 }, { 0xf0, 0xe0, 0x800 }, { 0xf8, 0xf0, 0x10000 },
	};

	if (s[i] < 0x80)
		return 1;
	for (size_t f = 0; f < sizeof(forms) / sizeof(forms[0]); f++) {
		if ((s[i] & forms[f].mask) != forms[f].lead)
			continue;
		uint32_t cp = s[i] & (unsigned char)~forms[f].mask;
		for (size_t j = 1; j <= f + 1; j++) {
			if (i + j >= n || (s[i + j] & 0xc0) != 0x80)
				return 0;
			cp = cp << 6 | (s[i + j] & 0x3f);
		}
		if (cp < forms[f].min || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
			return 0;
		return f + 2;
	}
	return 0;
}

static bool is_control(unsigned char c)
{
	return (c < 0x20 && c != '\t' && c != '\r' && c != '\n') || c == 0x7f;
}

enum cfg_text_fault cfg_text_check(const char *text, size_t *len, struct cfg_text_check *c)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t n = text ? *len : 0;

	*c = (struct cfg_text_check){ .fault = CFG_TEXT_OK, .line = 1 };
	if (n > CFG_SOURCE_MAX) {
		c->fault = CFG_TEXT_TOO_LONG;
		return c->fault;
	}
	while (n > 0 && s[n - 1] == '\0')
		n--;
	for (size_t i = 0; i < n;) {
		size_t k = utf8_length(s, i, n);
		if (k == 0 || is_control(s[i])) {
			c->fault = k == 0 ? CFG_TEXT_NOT_UTF8 : CFG_TEXT_CONTROL;
			c->byte = s[i];
			c->offset = i;
			return c->fault;
		}
		if (s[i] == '\n')
			c->line++;
		i += k;
	}
	*len = n;
	return CFG_TEXT_OK;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

bool cfg_ends_entry(char c)
{
	return is_blank(c) || c == '\n' || c == ';' || c == '#';
}

void cfg_lex_init(struct cfg_lexer *lx, const char *text, size_t len)
{
	const unsigned char *s = (const unsigned char *)text;

	*lx = (struct cfg_lexer){ .text = text, .len = text ? len : 0, .line = 1 };
	if (lx->len >= 3 && s[0] == 0xef && s[1] == 0xbb && s[2] == 0xbf)
		lx->pos = 3;    /* UTF-8 byte-order mark (Windows Notepad writes one) */
}

/* Steps over separators and comments to the next entry's first byte; false at the end. */
static bool skip_to_entry(struct cfg_lexer *lx)
{
	while (lx->pos < lx->len) {
		char c = lx->text[lx->pos];
		if (c == '#') {
			while (lx->pos < lx->len && lx->text[lx->pos] != '\n')
				lx->pos++;
			continue;
		}
		if (c == '\n')
			lx->line++;
		else if (!is_blank(c) && c != ';')
			return true;
		lx->pos++;
	}
	return false;
}

/* The value after '=': up to a separator outside quotes or the end of the line. */
static void read_value(struct cfg_lexer *lx, struct cfg_entry *e, char *value, size_t size)
{
	bool quoted = false;

	while (lx->pos < lx->len && is_blank(lx->text[lx->pos]))
		lx->pos++;
	while (lx->pos < lx->len) {
		char c = lx->text[lx->pos];
		if (c == '\n' || (!quoted && cfg_ends_entry(c)))
			break;
		if (c == '"')
			quoted = !quoted;
		else if (e->vlen++ < size)
			value[e->vlen - 1] = c;
		lx->pos++;
	}
	e->unterminated = quoted;
}

bool cfg_lex_next(struct cfg_lexer *lx, struct cfg_entry *e, char *value, size_t size)
{
	*e = (struct cfg_entry){ 0 };
	if (!skip_to_entry(lx))
		return false;
	e->line = lx->line;
	e->key = lx->text + lx->pos;
	while (lx->pos < lx->len && !cfg_ends_entry(lx->text[lx->pos]) && lx->text[lx->pos] != '=')
		lx->pos++;
	e->klen = (size_t)(lx->text + lx->pos - e->key);
	size_t eq = lx->pos;
	while (eq < lx->len && is_blank(lx->text[eq]))
		eq++;
	e->has_eq = eq < lx->len && lx->text[eq] == '=';
	if (e->has_eq) {
		lx->pos = eq + 1;
		read_value(lx, e, value, size);
	}
	if (e->vlen < size)
		value[e->vlen] = '\0';
	return true;
}

bool cfg_key_is(const struct cfg_entry *e, const char *name)
{
	size_t i = 0;

	while (i < e->klen && name[i] == e->key[i])
		i++;
	return i == e->klen && name[i] == '\0';
}

static char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* Whether w[0..n) names a file: a path, a drive or device prefix, or a ".efi" name. */
static bool names_file(const char *w, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (w[i] == '/' || w[i] == '\\' || w[i] == ':')
			return true;
	return n > 4 && w[n - 4] == '.' && lower(w[n - 3]) == 'e' && lower(w[n - 2]) == 'f' &&
	       lower(w[n - 1]) == 'i';
}

size_t cfg_image_word(const char *text, size_t len, size_t *start, size_t *end)
{
	size_t i = 0, s, e;

	if (!text)
		return 0;
	while (i < len && (is_blank(text[i]) || text[i] == '\n'))
		i++;
	bool quoted = i < len && text[i] == '"';
	s = i += quoted;
	while (i < len && text[i] != '\n' && (quoted ? text[i] != '"' : !cfg_ends_entry(text[i])))
		i++;
	e = i;
	if (quoted && (i++ == len || text[e] != '"'))
		return 0;               /* unterminated: the lexer says so */
	for (size_t k = s; k < e; k++)
		if (text[k] == '=' || text[k] == '"')
			return 0;
	size_t next = i;
	while (next < len && is_blank(text[next]))
		next++;
	if (e == s || (i < len && !cfg_ends_entry(text[i])) || (next < len && text[next] == '=') ||
	    !names_file(text + s, e - s))
		return 0;               /* a key (key=value, "a b"=c), or no file name */
	*start = s;
	*end = e;
	return i;
}
