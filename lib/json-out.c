/* JSON text into a caller's buffer (lib/json-out.h). */
#include "lib/json-out.h"
#include <stdarg.h>
#include "lib/format.h"
#include "lib/stats.h"

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

int json_escape(const char *s, char *buf, size_t len)
{
	size_t o = 0;
	if (len == 0)
		return -1;
	for (; *s && o + 7 < len; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\') {
			buf[o++] = '\\';
			buf[o++] = (char)c;
		} else if (c < 0x20) {
			o += (size_t)bp_snprintf(buf + o, len - o, "\\u%04x", c);
		} else {
			buf[o++] = (char)c;
		}
	}
	buf[o] = 0;
	return *s ? -1 : (int)o;
}
