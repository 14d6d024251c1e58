/*
 * The printf family without libc or floating point. The conversions behave as C's
 * printf does for them (C11 7.21.6.1); %p always prints 0x and 16 hex digits so that
 * addresses line up in register dumps. A conversion we do not know is printed as
 * written and consumes no argument.
 */
#include <stdbool.h>
#include <stdint.h>
#include "lib/format.h"
#include "lib/str.h"

#define FLAG_LEFT   0x01u      /* '-' */
#define FLAG_ZERO   0x02u      /* '0' */
#define FLAG_PLUS   0x04u      /* '+' */
#define FLAG_SPACE  0x08u      /* ' ' */
#define FLAG_ALT    0x10u      /* '#' */

/* Caps a written width or precision so that counting it cannot overflow an int. */
#define FIELD_MAX   (1 << 24)

enum fmt_length { LEN_NONE, LEN_HH, LEN_H, LEN_L, LEN_LL, LEN_Z, LEN_J, LEN_T };

struct fmt_spec {
	unsigned flags;
	int width;              /* 0 = none */
	int prec;               /* -1 = none */
	bool width_star, prec_star;
	enum fmt_length length;
	char conv;
};

struct fmt_sink {
	fmt_putc_fn putc;
	void *ctx;
	int count;
};

static void emit(struct fmt_sink *s, char c)
{
	s->putc(s->ctx, c);
	s->count++;
}

static void emit_repeat(struct fmt_sink *s, char c, int n)
{
	while (n-- > 0)
		emit(s, c);
}

static void emit_span(struct fmt_sink *s, const char *p, const char *end)
{
	while (p < end)
		emit(s, *p++);
}

static int parse_field(const char **pp)
{
	const char *p = *pp;
	int v = 0;

	while (*p >= '0' && *p <= '9') {
		if (v < FIELD_MAX)
			v = v * 10 + (*p - '0');
		p++;
	}
	*pp = p;
	return v > FIELD_MAX ? FIELD_MAX : v;
}

/* Reads flags, width, precision and length after '%'; *pp is left on the conversion
 * character (possibly NUL). Nothing is taken from the argument list here. */
static void parse_spec(const char **pp, struct fmt_spec *sp)
{
	const char *p = *pp;

	*sp = (struct fmt_spec){ .prec = -1, .length = LEN_NONE };
	for (;; p++) {
		if (*p == '-')
			sp->flags |= FLAG_LEFT;
		else if (*p == '0')
			sp->flags |= FLAG_ZERO;
		else if (*p == '+')
			sp->flags |= FLAG_PLUS;
		else if (*p == ' ')
			sp->flags |= FLAG_SPACE;
		else if (*p == '#')
			sp->flags |= FLAG_ALT;
		else
			break;
	}
	if (*p == '*') {
		sp->width_star = true;
		p++;
	} else {
		sp->width = parse_field(&p);
	}
	if (*p == '.') {
		p++;
		if (*p == '*') {
			sp->prec_star = true;
			p++;
		} else {
			sp->prec = parse_field(&p);
		}
	}
	switch (*p) {
	case 'h':
		p++;
		sp->length = LEN_H;
		if (*p == 'h') {
			p++;
			sp->length = LEN_HH;
		}
		break;
	case 'l':
		p++;
		sp->length = LEN_L;
		if (*p == 'l') {
			p++;
			sp->length = LEN_LL;
		}
		break;
	case 'z': p++; sp->length = LEN_Z; break;
	case 'j': p++; sp->length = LEN_J; break;
	case 't': p++; sp->length = LEN_T; break;
	default: break;
	}
	sp->conv = *p;
	*pp = p;
}

static bool conv_known(char c)
{
	switch (c) {
	case 'd': case 'i': case 'u': case 'x': case 'X': case 'o':
	case 'c': case 's': case 'p': case '%':
		return true;
	default:
		return false;
	}
}

static long long arg_signed(va_list *ap, enum fmt_length len)
{
	switch (len) {
	case LEN_HH: return (signed char)va_arg(*ap, int);
	case LEN_H:  return (short)va_arg(*ap, int);
	case LEN_L:  return va_arg(*ap, long);
	case LEN_LL: return va_arg(*ap, long long);
	case LEN_Z:  return (long long)va_arg(*ap, size_t);     /* the signed size_t */
	case LEN_J:  return va_arg(*ap, intmax_t);
	case LEN_T:  return va_arg(*ap, ptrdiff_t);
	default:     return va_arg(*ap, int);
	}
}

static unsigned long long arg_unsigned(va_list *ap, enum fmt_length len)
{
	switch (len) {
	case LEN_HH: return (unsigned char)va_arg(*ap, unsigned);
	case LEN_H:  return (unsigned short)va_arg(*ap, unsigned);
	case LEN_L:  return va_arg(*ap, unsigned long);
	case LEN_LL: return va_arg(*ap, unsigned long long);
	case LEN_Z:  return va_arg(*ap, size_t);
	case LEN_J:  return va_arg(*ap, uintmax_t);
	case LEN_T:  return (unsigned long long)va_arg(*ap, ptrdiff_t);
	default:     return va_arg(*ap, unsigned);
	}
}

/* sign is 0 or the character to put before the digits; prefix is "", "0x" or "0X". */
static void put_number(struct fmt_sink *s, const struct fmt_spec *sp, unsigned long long mag,
		       char sign, const char *prefix, unsigned base, bool upper)
{
	const char *digit_chars = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char digits[24];        /* 64 bits in octal is 22 digits */
	int ndigits = 0;

	/* C: a zero value with precision 0 produces no digits. */
	if (!(mag == 0 && sp->prec == 0)) {
		do {
			digits[ndigits++] = digit_chars[mag % base];
			mag /= base;
		} while (mag != 0);
	}
	int zeros = sp->prec > ndigits ? sp->prec - ndigits : 0;
	/* C: '#' with o raises the precision just enough that the first digit is 0. */
	if (base == 8 && (sp->flags & FLAG_ALT) && zeros == 0 &&
	    (ndigits == 0 || digits[ndigits - 1] != '0'))
		zeros = 1;
	int prefix_len = sign ? 1 : 0;
	for (const char *p = prefix; *p; p++)
		prefix_len++;
	int body = prefix_len + zeros + ndigits;
	int pad = sp->width > body ? sp->width - body : 0;

	if (!(sp->flags & FLAG_LEFT) && !((sp->flags & FLAG_ZERO) && sp->prec < 0))
		emit_repeat(s, ' ', pad);
	if (sign)
		emit(s, sign);
	for (const char *p = prefix; *p; p++)
		emit(s, *p);
	if (!(sp->flags & FLAG_LEFT) && (sp->flags & FLAG_ZERO) && sp->prec < 0)
		emit_repeat(s, '0', pad);
	emit_repeat(s, '0', zeros);
	while (ndigits > 0)
		emit(s, digits[--ndigits]);
	if (sp->flags & FLAG_LEFT)
		emit_repeat(s, ' ', pad);
}

static void put_text(struct fmt_sink *s, const struct fmt_spec *sp, const char *str, int len)
{
	int pad = sp->width > len ? sp->width - len : 0;

	if (!(sp->flags & FLAG_LEFT))
		emit_repeat(s, ' ', pad);
	emit_span(s, str, str + len);
	if (sp->flags & FLAG_LEFT)
		emit_repeat(s, ' ', pad);
}

static void put_conversion(struct fmt_sink *s, struct fmt_spec *sp, va_list *ap)
{
	switch (sp->conv) {
	case 'd':
	case 'i': {
		long long v = arg_signed(ap, sp->length);
		/* Negate in unsigned arithmetic so that INT64_MIN needs no special case. */
		unsigned long long mag = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
		char sign = v < 0 ? '-' : (sp->flags & FLAG_PLUS) ? '+' :
			    (sp->flags & FLAG_SPACE) ? ' ' : 0;
		put_number(s, sp, mag, sign, "", 10, false);
		break;
	}
	case 'u':
		put_number(s, sp, arg_unsigned(ap, sp->length), 0, "", 10, false);
		break;
	case 'o':
		put_number(s, sp, arg_unsigned(ap, sp->length), 0, "", 8, false);
		break;
	case 'x':
	case 'X': {
		unsigned long long v = arg_unsigned(ap, sp->length);
		const char *prefix = "";
		if ((sp->flags & FLAG_ALT) && v != 0)
			prefix = sp->conv == 'x' ? "0x" : "0X";
		put_number(s, sp, v, 0, prefix, 16, sp->conv == 'X');
		break;
	}
	case 'p': {
		uintptr_t v = (uintptr_t)va_arg(*ap, void *);
		sp->prec = 16;
		put_number(s, sp, v, 0, "0x", 16, false);
		break;
	}
	case 'c': {
		char c = (char)va_arg(*ap, int);
		put_text(s, sp, &c, 1);
		break;
	}
	case 's': {
		const char *str = va_arg(*ap, const char *);
		int len = 0;
		if (!str)
			str = "(null)";
		/* Never read past the precision: the argument need not be NUL-terminated. */
		while ((sp->prec < 0 || len < sp->prec) && str[len])
			len++;
		put_text(s, sp, str, len);
		break;
	}
	case '%':
		emit(s, '%');
		break;
	default:
		break;
	}
}

int fmt_vformat(fmt_putc_fn putc, void *ctx, const char *fmt, va_list ap)
{
	struct fmt_sink s = { .putc = putc, .ctx = ctx, .count = 0 };
	va_list args;

	va_copy(args, ap);
	for (const char *p = fmt; *p;) {
		if (*p != '%') {
			emit(&s, *p++);
			continue;
		}
		const char *start = p++;
		struct fmt_spec sp;
		parse_spec(&p, &sp);
		if (!conv_known(sp.conv)) {
			/* Print the unknown specification as written; a trailing lone '%'
			 * prints itself too. */
			if (*p)
				p++;
			emit_span(&s, start, p);
			continue;
		}
		p++;
		if (sp.width_star) {
			int w = va_arg(args, int);
			if (w < 0) {
				sp.flags |= FLAG_LEFT;
				w = w < -FIELD_MAX ? FIELD_MAX : -w;
			}
			sp.width = w > FIELD_MAX ? FIELD_MAX : w;
		}
		if (sp.prec_star) {
			int pr = va_arg(args, int);
			sp.prec = pr < 0 ? -1 : pr > FIELD_MAX ? FIELD_MAX : pr;
		}
		put_conversion(&s, &sp, &args);
	}
	va_end(args);
	return s.count;
}

int fmt_format(fmt_putc_fn putc, void *ctx, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int n = fmt_vformat(putc, ctx, fmt, ap);
	va_end(ap);
	return n;
}

struct buf_sink {
	char *buf;
	size_t size;
	size_t pos;
};

static void buf_putc(void *ctx, char c)
{
	struct buf_sink *b = ctx;

	if (b->pos + 1 < b->size)
		b->buf[b->pos] = c;
	b->pos++;
}

int bp_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct buf_sink b = { .buf = buf, .size = size, .pos = 0 };
	int n = fmt_vformat(buf_putc, &b, fmt, ap);

	if (size > 0)
		buf[b.pos < size ? b.pos : size - 1] = '\0';
	return n;
}

int bp_snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int n = bp_vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

#define CUT_MARK     "..."
#define CUT_MARK_LEN 3

/* buf (size bytes) holds the start of a longer text: end it at the last word that fits,
 * then "...", so no word is cut in two. A text of one word longer than buf is cut in it. */
static void cut_at_word(char *buf, size_t size)
{
	if (size < CUT_MARK_LEN + 1)
		return;
	size_t at = size - 1 - CUT_MARK_LEN, p = at;
	while (p > 0 && buf[p] != ' ')
		p--;
	if (p > 0)
		at = p;
	/* no separator left dangling before the mark: "x; ..." reads as "x..." */
	while (at > 0 && (buf[at - 1] == ' ' || buf[at - 1] == ';' || buf[at - 1] == ':' || buf[at - 1] == ','))
		at--;
	/* a text cut before (a reason inside this one) keeps its one mark */
	if (at >= CUT_MARK_LEN && memcmp(buf + at - CUT_MARK_LEN, CUT_MARK, CUT_MARK_LEN) == 0)
		at -= CUT_MARK_LEN;
	memcpy(buf + at, CUT_MARK, CUT_MARK_LEN + 1);
}

int fmt_vtext(char *buf, size_t size, const char *fmt, va_list ap)
{
	int n = bp_vsnprintf(buf, size, fmt, ap);

	if (size > 0 && (size_t)n >= size)
		cut_at_word(buf, size);
	return n;
}

int fmt_text(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int n = fmt_vtext(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

int fmt_append(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	size_t len = strlen(buf);

	if (len + 1 >= size)
		return 0;
	va_start(ap, fmt);
	int n = bp_vsnprintf(buf + len, size - len, fmt, ap);
	va_end(ap);
	if (len + (size_t)n >= size)
		cut_at_word(buf, size);
	return n;
}

int fmt_error(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (err && errlen)
		fmt_vtext(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}
