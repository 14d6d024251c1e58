/* JSON text into a caller's buffer (lib/json-out.h). */
#include "lib/json-out.h"
#include <stdarg.h>
#include "lib/format.h"
#include "lib/stats.h"
#include "lib/str.h"

struct json_out json_out_start(char *buf, size_t len)
{
	if (len)
		buf[0] = '\0';
	return (struct json_out){ buf, len, 0, len == 0 };
}

static void mark_full(struct json_out *j)
{
	j->full = true;
	j->pos = j->len - 1;
}

void json_put(struct json_out *j, const char *fmt, ...)
{
	if (j->full)
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = bp_vsnprintf(j->buf + j->pos, j->len - j->pos, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= j->len - j->pos)
		mark_full(j);
	else
		j->pos += (size_t)n;
}

void json_put_str(struct json_out *j, const char *s)
{
	json_put(j, "\"");
	if (j->full)
		return;
	int n = json_escape(s, j->buf + j->pos, j->len - j->pos);
	if (n < 0) {
		mark_full(j);
		return;
	}
	j->pos += (size_t)n;
	json_put(j, "\"");
}

void json_put_milli(struct json_out *j, int64_t milli)
{
	char num[32];
	stats_fmt_milli(num, sizeof(num), milli);
	json_put(j, "%s", num);
}

int json_out_end(const struct json_out *j)
{
	return j->full ? -1 : (int)j->pos;
}

/* The length of the well-formed UTF-8 character at s (Unicode 15.0, 3.9 Table 3-7: no
 * overlong forms, no surrogates, nothing past U+10FFFF), or 0 when s does not start one. */
static size_t utf8_char_len(const unsigned char *s)
{
	unsigned char c = s[0];
	size_t n;
	unsigned char lo = 0x80, hi = 0xbf;     /* the second byte's range */

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

int json_escape(const char *s, char *buf, size_t len)
{
	size_t o = 0;
	if (len == 0)
		return -1;
	while (*s && o + 7 < len) {
		unsigned char c = (unsigned char)*s;
		size_t n = utf8_char_len((const unsigned char *)s);
		if (c == '"' || c == '\\') {
			buf[o++] = '\\';
			buf[o++] = (char)c;
		} else if (c < 0x20) {
			o += (size_t)bp_snprintf(buf + o, len - o, "\\u%04x", c);
		} else if (n == 0) {
			/* not UTF-8: U+REPLACEMENT CHARACTER, one per byte */
			o += (size_t)bp_snprintf(buf + o, len - o, "\\ufffd");
			n = 1;
		} else {
			memcpy(buf + o, s, n);
			o += n;
		}
		s += n;
	}
	buf[o] = 0;
	return *s ? -1 : (int)o;
}
