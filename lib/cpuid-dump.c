/* The AIDA64/InstLatx64 CPUID dump reader (lib/cpuid-dump.h). */
#include <stddef.h>
#include "lib/cpuid-dump.h"
#include "lib/format.h"
#include "lib/str.h"
#include "lib/util.h"

/* Exactly 8 hex digits at p (within end) into *out; returns the end of them or NULL. */
static const char *parse_hex32(const char *p, const char *end, uint32_t *out)
{
	uint32_t v = 0;
	int i;

	if (end - p < 8)
		return NULL;
	for (i = 0; i < 8; i++) {
		int d = str_hex_digit(p[i]);

		if (d < 0)
			return NULL;
		v = (v << 4) | (uint32_t)d;
	}
	*out = v;
	return p + 8;
}

static const char *skip_blanks(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

/*
 * One line: "CPUID LLLLLLLL: AAAAAAAA-BBBBBBBB-CCCCCCCC-DDDDDDDD" with an optional
 * "[SL nn]" among the bracketed notes after it. libcpuid's copies write a tab instead
 * of the colon. Returns false for anything else.
 */
static bool parse_cpuid_line(const char *p, const char *end, struct cpuid_dump_entry *e,
			     bool *has_subleaf)
{
	int i;

	while (end > p && end[-1] == '\r')       /* CRLF files */
		end--;
	p = skip_blanks(p, end);
	if (end - p < 6 || memcmp(p, "CPUID", 5) != 0 || (p[5] != ' ' && p[5] != '\t'))
		return false;
	p = skip_blanks(p + 5, end);
	p = parse_hex32(p, end, &e->leaf);
	if (p == NULL)
		return false;
	if (p < end && *p == ':')
		p++;
	else if (p >= end || (*p != ' ' && *p != '\t'))
		return false;
	p = skip_blanks(p, end);
	for (i = 0; i < 4; i++) {
		if (i > 0) {
			if (p >= end || *p != '-')
				return false;
			p++;
		}
		p = parse_hex32(p, end, &e->regs[i]);
		if (p == NULL)
			return false;
	}
	if (p < end && *p != ' ' && *p != '\t')
		return false;

	*has_subleaf = false;
	e->subleaf = 0;
	for (;;) {
		unsigned v = 0, digits = 0;

		p = skip_blanks(p, end);
		if (end - p < 4 || memcmp(p, "[SL ", 4) != 0) {
			/* A note such as "[GenuineIntel]": skip it and look on. */
			if (p >= end || *p != '[')
				break;
			while (p < end && *p != ']')
				p++;
			if (p < end)
				p++;
			continue;
		}
		p += 4;
		while (p < end && str_hex_digit(*p) >= 0 && digits < 8) {
			v = (v << 4) | (unsigned)str_hex_digit(*p);
			p++;
			digits++;
		}
		if (digits > 0 && p < end && *p == ']') {
			e->subleaf = v;
			*has_subleaf = true;
		}
		break;
	}
	return true;
}

int cpuid_dump_parse(struct cpuid_dump *d, const char *text, unsigned long len,
		     char *err, unsigned long errlen)
{
	const char *p = text, *end = text + len;

	d->count = 0;
	while (p < end && d->count < CPUID_DUMP_MAX) {
		const char *eol = p;
		struct cpuid_dump_entry e;
		bool has_subleaf;

		while (eol < end && *eol != '\n')
			eol++;
		if (parse_cpuid_line(p, eol, &e, &has_subleaf)) {
			const struct cpuid_dump_entry *prev = d->count ? &d->e[d->count - 1] : NULL;

			/* A second leaf 0 is the next logical CPU's block. */
			if (e.leaf == 0 && d->count > 0)
				break;
			/* Untagged repeats of one leaf are its subleaves 0, 1, 2... */
			if (!has_subleaf && prev != NULL && prev->leaf == e.leaf)
				e.subleaf = prev->subleaf + 1;
			d->e[d->count++] = e;
		}
		p = eol < end ? eol + 1 : end;
	}
	if (d->count == 0) {
		if (err != NULL && errlen > 0)
			bp_snprintf(err, errlen,
				    "no CPUID lines found (expected 'CPUID 00000000: EAX-EBX-ECX-EDX')");
		return -1;
	}
	return (int)d->count;
}

bool cpuid_dump_read(void *dump, uint32_t leaf, uint32_t subleaf, uint32_t regs[4])
{
	const struct cpuid_dump *d = dump;
	const struct cpuid_dump_entry *only = NULL;
	unsigned i, seen = 0;

	for (i = 0; i < d->count; i++) {
		const struct cpuid_dump_entry *e = &d->e[i];

		if (e->leaf != leaf)
			continue;
		if (e->subleaf == subleaf) {
			memcpy(regs, e->regs, sizeof(e->regs));
			return true;
		}
		only = e;
		seen++;
	}
	/* A leaf without subleaves ignores ECX, as the CPU does. */
	if (seen == 1 && only->subleaf == 0) {
		memcpy(regs, only->regs, sizeof(only->regs));
		return true;
	}
	return false;
}
