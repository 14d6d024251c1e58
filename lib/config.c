/*
 * bareperf.cfg / command-line configuration: a table of keys, each with a parser that
 * either stores a checked value or says what is wrong, and a printer for the report.
 * docs/config.md is the user's reference for the same table.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "lib/bench-config.h"
#include "lib/bootmenu.h"
#include "lib/config.h"
#include "lib/format.h"
#include "lib/pc-io.h"
#include "lib/str.h"
#include "lib/util.h"

#define CFG_KEY_MAX     32      /* longest key kept for messages and lookup */
#define CFG_EXCERPT     48      /* bytes of user text quoted in a message */
#define CFG_MSG_MAX     320
#define CFG_SUGGEST_MAX 2       /* "did you mean" up to this edit distance */

#define SIZE_MIN (4 * SIZE_K)
#define SIZE_MAX_BYTES SIZE_G


struct cfg_word {
	const char *word;
	unsigned value;
};

struct cfg_key;
/* Checks and stores one value; on failure writes the reason to why and returns -1. */
typedef int (*cfg_parse_fn)(const struct cfg_key *k, struct bp_config *cfg, const char *v,
			    size_t len, char *why, size_t whylen);
/* Writes the value as config_report prints it. */
typedef void (*cfg_show_fn)(const struct cfg_key *k, const struct bp_config *cfg, char *buf,
			    size_t buflen);

struct cfg_key {
	const char *name;
	cfg_parse_fn parse;
	cfg_show_fn show;
	size_t offset;                  /* field in struct bp_config */
	unsigned width;                 /* its size in bytes (numbers and words) */
	uint64_t min, max;              /* numbers */
	const struct cfg_word *words;   /* words, NULL-terminated */
};

#define FIELD(f) .offset = offsetof(struct bp_config, f), \
		 .width = sizeof(((struct bp_config *)0)->f)

/* ------------------------------------------------------------ small helpers */

/* Quotes at most CFG_EXCERPT bytes of user text, cut at a UTF-8 character boundary. */
static const char *excerpt(const char *s, size_t len, char *buf, size_t buflen)
{
	size_t n = len;
	const char *more = "";

	if (n > CFG_EXCERPT) {
		n = CFG_EXCERPT;
		while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
			n--;
		more = "...";
	}
	bp_snprintf(buf, buflen, "%.*s%s", (int)n, s, more);
	return buf;
}

static void store_uint(struct bp_config *cfg, const struct cfg_key *k, uint64_t v)
{
	unsigned char *p = (unsigned char *)cfg + k->offset;

	switch (k->width) {
	case 1: { uint8_t x = (uint8_t)v; memcpy(p, &x, 1); break; }
	case 2: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); break; }
	case 4: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); break; }
	default: memcpy(p, &v, 8); break;
	}
}

static uint64_t load_uint(const struct bp_config *cfg, const struct cfg_key *k)
{
	const unsigned char *p = (const unsigned char *)cfg + k->offset;

	switch (k->width) {
	case 1: { uint8_t x; memcpy(&x, p, 1); return x; }
	case 2: { uint16_t x; memcpy(&x, p, 2); return x; }
	case 4: { uint32_t x; memcpy(&x, p, 4); return x; }
	default: { uint64_t x; memcpy(&x, p, 8); return x; }
	}
}

/* True when s is written like a number (so a parse failure can only be overflow). */
/* Splits a comma list: returns the length of the next item starting at *pos and moves
 * *pos past its comma; *more is false after the last item. */
static size_t list_next(const char *v, size_t len, size_t *pos, bool *more)
{
	size_t start = *pos, i = start;

	while (i < len && v[i] != ',')
		i++;
	*more = i < len;
	*pos = i + 1;
	return i - start;
}

static bool word_equal(const char *word, const char *v, size_t len)
{
	return strlen(word) == len && str_ncasecmp(word, v, len) == 0;
}

/* ------------------------------------------------------------ key kinds */

/* Checks a number against the key's range without storing it. */
static int check_number(const struct cfg_key *k, const char *v, size_t len, uint64_t *out,
			char *why, size_t whylen)
{
	char ex[CFG_EXCERPT + 4];
	const char *problem = NULL;

	if (str_to_u64(v, len, out) != 0)
		problem = str_looks_numeric(v, len) ? "out of range" : "is not a number";
	else if (*out < k->min || *out > k->max)
		problem = "out of range";
	if (problem) {
		bp_snprintf(why, whylen, "%s=%s %s (%llu..%llu)", k->name,
			    excerpt(v, len, ex, sizeof(ex)), problem, (unsigned long long)k->min,
			    (unsigned long long)k->max);
		return -1;
	}
	return 0;
}

static int parse_number(const struct cfg_key *k, struct bp_config *cfg, const char *v,
			size_t len, char *why, size_t whylen)
{
	uint64_t n;

	if (check_number(k, v, len, &n, why, whylen) != 0)
		return -1;
	store_uint(cfg, k, n);
	return 0;
}

static void show_number(const struct cfg_key *k, const struct bp_config *cfg, char *buf,
			size_t buflen)
{
	bp_snprintf(buf, buflen, "%llu", (unsigned long long)load_uint(cfg, k));
}

static const char *cfg_word_at(const void *words, size_t i)
{
	return ((const struct cfg_word *)words)[i].word;
}

static int parse_word(const struct cfg_key *k, struct bp_config *cfg, const char *v,
		      size_t len, char *why, size_t whylen)
{
	char ex[CFG_EXCERPT + 4], value[CFG_KEY_MAX];
	const char *nearest = NULL;

	for (const struct cfg_word *w = k->words; w->word; w++) {
		if (word_equal(w->word, v, len)) {
			store_uint(cfg, k, w->value);
			return 0;
		}
	}
	if (len < sizeof(value)) {
		memcpy(value, v, len);
		value[len] = '\0';
		nearest = str_nearest(value, cfg_word_at, k->words, CFG_SUGGEST_MAX,
				      STR_NEAREST_BELOW_NAME_LEN | STR_NEAREST_BELOW_WORD_LEN);
	}
	int n = bp_snprintf(why, whylen, "%s=%s is not one of ", k->name,
			    excerpt(v, len, ex, sizeof(ex)));
	for (const struct cfg_word *w = k->words; w->word && n >= 0 && (size_t)n < whylen; w++)
		n += bp_snprintf(why + n, whylen - (size_t)n, "%s%s", w == k->words ? "" : "|",
				 w->word);
	if (nearest && n >= 0 && (size_t)n < whylen)
		bp_snprintf(why + n, whylen - (size_t)n, " (did you mean '%s'?)", nearest);
	return -1;
}

static void show_word(const struct cfg_key *k, const struct bp_config *cfg, char *buf,
		      size_t buflen)
{
	uint64_t v = load_uint(cfg, k);

	for (const struct cfg_word *w = k->words; w->word; w++) {
		if (w->value == v) {
			bp_snprintf(buf, buflen, "%s", w->word);
			return;
		}
	}
	bp_snprintf(buf, buflen, "%llu", (unsigned long long)v);
}

/* payloads= and events=: stored as written; the payload catalogue and the event parser
 * judge the names. Only the shape of the list is checked here. */
static int parse_list(const struct cfg_key *k, struct bp_config *cfg, const char *v,
		      size_t len, char *why, size_t whylen)
{
	char ex[CFG_EXCERPT + 4];

	if (len >= CFG_LIST_MAX) {
		bp_snprintf(why, whylen, "%s list is too long (%zu characters, at most %u)",
			    k->name, len, CFG_LIST_MAX - 1);
		return -1;
	}
	size_t pos = 0;
	bool more = true;
	while (more) {
		if (list_next(v, len, &pos, &more) == 0) {
			bp_snprintf(why, whylen, "%s=%s has an empty item (write name,name,...)",
				    k->name, excerpt(v, len, ex, sizeof(ex)));
			return -1;
		}
	}
	char *dst = (char *)cfg + k->offset;
	memcpy(dst, v, len);
	dst[len] = '\0';
	return 0;
}

/* payloads=: a list; once given, the user benchmarks no longer run alone by default. */
static int parse_payloads(const struct cfg_key *k, struct bp_config *cfg, const char *v,
			  size_t len, char *why, size_t whylen)
{
	if (parse_list(k, cfg, v, len, why, whylen) != 0)
		return -1;
	cfg->payloads_set = true;
	return 0;
}

/* partner.load=: a list (kernel/placement.c judges the names) of at most
 * CFG_PARTNER_LOADS_MAX items, taken or refused whole. */
static int parse_partner_load(const struct cfg_key *k, struct bp_config *cfg, const char *v,
			      size_t len, char *why, size_t whylen)
{
	char ex[CFG_EXCERPT + 4];
	unsigned items = 1;

	for (size_t i = 0; i < len; i++)
		items += v[i] == ',';
	if (items > CFG_PARTNER_LOADS_MAX && len < CFG_LIST_MAX) {
		bp_snprintf(why, whylen, "%s=%s: %u items, more than the %u one run takes (one run "
			    "of the plan each)", k->name, excerpt(v, len, ex, sizeof(ex)), items,
			    CFG_PARTNER_LOADS_MAX);
		return -1;
	}
	return parse_list(k, cfg, v, len, why, whylen);
}

/* A name such as a libpfm4 PMU model: letters, digits, '_' and '-', fitting the field. */
static int parse_name(const struct cfg_key *k, struct bp_config *cfg, const char *v,
		      size_t len, char *why, size_t whylen)
{
	char ex[CFG_EXCERPT + 4];

	if (len == 0 || len >= k->width) {
		bp_snprintf(why, whylen, "%s=%s: a name of 1 to %u characters is expected",
			    k->name, excerpt(v, len, ex, sizeof(ex)), k->width - 1);
		return -1;
	}
	for (size_t i = 0; i < len; i++) {
		char c = v[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '-')) {
			bp_snprintf(why, whylen, "%s=%s: '%c' is not allowed in a name", k->name,
				    excerpt(v, len, ex, sizeof(ex)), c);
			return -1;
		}
	}
	char *dst = (char *)cfg + k->offset;
	memcpy(dst, v, len);
	dst[len] = '\0';
	return 0;
}

/* sample.event=: one event in the events= language (checked when the PMU is known), or
 * "none" to turn sampling off. */
static int parse_sample_event(const struct cfg_key *k, struct bp_config *cfg, const char *v,
			      size_t len, char *why, size_t whylen)
{
	char ex[CFG_EXCERPT + 4];
	char *dst = (char *)cfg + k->offset;
	if (len == 0 || len >= k->width) {
		bp_snprintf(why, whylen, "%s=%s: one event of 1 to %u characters is expected",
			    k->name, excerpt(v, len, ex, sizeof(ex)), k->width - 1);
		return -1;
	}
	if (len == 4 && !memcmp(v, "none", 4)) {
		dst[0] = '\0';
		return 0;
	}
	memcpy(dst, v, len);
	dst[len] = '\0';
	return 0;
}

static void show_sample_event(const struct cfg_key *k, const struct bp_config *cfg, char *buf,
			      size_t buflen)
{
	const char *s = (const char *)cfg + k->offset;
	bp_snprintf(buf, buflen, "%s", *s ? s : "none");
}

/* A value that contains a separator is quoted so the report reads back as the same value. */
static void show_list(const struct cfg_key *k, const struct bp_config *cfg, char *buf,
		      size_t buflen)
{
	const char *s = (const char *)cfg + k->offset;
	bool quote = false;

	for (const char *p = s; *p; p++)
		if (cfg_ends_entry(*p))
			quote = true;
	bp_snprintf(buf, buflen, quote ? "\"%s\"" : "%s", s);
}

static int parse_sizes(const struct cfg_key *k, struct bp_config *cfg, const char *v,
		       size_t len, char *why, size_t whylen)
{
	char ex[CFG_EXCERPT + 4], item_ex[CFG_EXCERPT + 4];
	uint64_t sizes[CFG_SIZES_MAX];
	unsigned count = 0;
	size_t pos = 0;
	bool more = true;

	while (more) {
		size_t start = pos;
		size_t ilen = list_next(v, len, &pos, &more);
		const char *item = v + start;
		uint64_t bytes = 0;
		if (count == CFG_SIZES_MAX) {
			bp_snprintf(why, whylen, "%s= has more than %u sizes", k->name, CFG_SIZES_MAX);
			return -1;
		}
		if (ilen == 0) {
			bp_snprintf(why, whylen, "%s=%s has an empty item (write 4K,64K,...)",
				    k->name, excerpt(v, len, ex, sizeof(ex)));
			return -1;
		}
		int r = str_to_size(item, ilen, &bytes);
		if (r < 0) {
			bp_snprintf(why, whylen,
				    "%s=%s: '%s' is not a size (a number with optional K, M or G suffix)",
				    k->name, excerpt(v, len, ex, sizeof(ex)),
				    excerpt(item, ilen, item_ex, sizeof(item_ex)));
			return -1;
		}
		if (r > 0 || bytes < SIZE_MIN || bytes > SIZE_MAX_BYTES) {
			bp_snprintf(why, whylen, "%s=%s: '%s' out of range (4K..1G)", k->name,
				    excerpt(v, len, ex, sizeof(ex)),
				    excerpt(item, ilen, item_ex, sizeof(item_ex)));
			return -1;
		}
		sizes[count++] = bytes;
	}
	memcpy(cfg->sizes, sizes, count * sizeof(sizes[0]));
	cfg->nsizes = count;
	return 0;
}

/* One size in its largest exact unit, after sep. */
static int show_size(char *buf, size_t buflen, const char *sep, uint64_t b)
{
	if (b != 0 && b % SIZE_G == 0)
		return bp_snprintf(buf, buflen, "%s%lluG", sep, (unsigned long long)(b / SIZE_G));
	if (b != 0 && b % SIZE_M == 0)
		return bp_snprintf(buf, buflen, "%s%lluM", sep, (unsigned long long)(b / SIZE_M));
	if (b != 0 && b % SIZE_K == 0)
		return bp_snprintf(buf, buflen, "%s%lluK", sep, (unsigned long long)(b / SIZE_K));
	return bp_snprintf(buf, buflen, "%s%llu", sep, (unsigned long long)b);
}

static void show_sizes(const struct cfg_key *k, const struct bp_config *cfg, char *buf,
		       size_t buflen)
{
	size_t n = 0;

	(void)k;
	buf[0] = '\0';
	for (unsigned i = 0; i < cfg->nsizes && i < CFG_SIZES_MAX && n < buflen; i++)
		n += (size_t)show_size(buf + n, buflen - n, i ? "," : "", cfg->sizes[i]);
}

/* The four PC COM ports' conventional I/O bases. */
static const struct cfg_word com_ports[] = {
	{ "com1", UART_COM1 }, { "com2", UART_COM2 }, { "com3", UART_COM3 }, { "com4", UART_COM4 }, { NULL, 0 },
};
static const struct cfg_word serial_words[] = {
	{ "auto", CFG_SERIAL_AUTO }, { "spcr", CFG_SERIAL_SPCR }, { "pci", CFG_SERIAL_PCI }, { NULL, 0 },
};
/* A memory-mapped UART's prefixes, as Linux's earlycon writes them. */
static const struct cfg_word mmio_prefixes[] = {
	{ "mmio:", CFG_SERIAL_MMIO }, { "mmio32:", CFG_SERIAL_MMIO32 }, { NULL, 0 },
};
#define PCI_BUS_LAST 0xff
#define PCI_DEV_LAST 0x1f
#define PCI_FN_LAST  7

/* Hex digits v[*pos..] up to the first non-digit, at most max; false when there are none
 * or too many. */
static bool hex_field(const char *v, size_t len, size_t *pos, unsigned max, unsigned *out)
{
	size_t start = *pos;
	unsigned n = 0;

	for (; *pos < len && str_hex_digit(v[*pos]) >= 0; (*pos)++) {
		n = n * 16 + (unsigned)str_hex_digit(v[*pos]);
		if (n > max)
			return false;
	}
	*out = n;
	return *pos > start;
}

/* bus:dev.fn in hex, as lspci prints it (00:1f.3). */
static bool parse_pci_address(struct bp_config *cfg, const char *v, size_t len)
{
	size_t pos = 0;
	unsigned bus, dev, fn;

	if (!hex_field(v, len, &pos, PCI_BUS_LAST, &bus) || pos >= len || v[pos++] != ':' ||
	    !hex_field(v, len, &pos, PCI_DEV_LAST, &dev) || pos >= len || v[pos++] != '.' ||
	    !hex_field(v, len, &pos, PCI_FN_LAST, &fn) || pos != len)
		return false;
	cfg->serial_kind = CFG_SERIAL_PCI_AT;
	cfg->serial_pci_bus = (uint8_t)bus;
	cfg->serial_pci_dev = (uint8_t)dev;
	cfg->serial_pci_fn = (uint8_t)fn;
	return true;
}

/* mmio:ADDRESS or mmio32:ADDRESS: 1 when v is one, 0 when it is not, -1 (with why) when
 * the address is wrong. */
static int parse_mmio(const struct cfg_key *k, struct bp_config *cfg, const char *v, size_t len,
		      char *why, size_t whylen)
{
	char ex[CFG_EXCERPT + 4];
	uint64_t a;

	for (const struct cfg_word *w = mmio_prefixes; w->word; w++) {
		size_t n = strlen(w->word);
		if (len < n || str_ncasecmp(w->word, v, n) != 0)
			continue;
		if (str_to_u64(v + n, len - n, &a) != 0 || a == 0) {
			bp_snprintf(why, whylen, "%s=%s: the address after '%s' is not a number from 1",
				    k->name, excerpt(v, len, ex, sizeof(ex)), w->word);
			return -1;
		}
		cfg->serial_kind = (enum cfg_serial)w->value;
		cfg->serial_mmio = a;
		return 1;
	}
	return 0;
}

static int parse_port(const struct cfg_key *k, struct bp_config *cfg, const char *v,
		      size_t len, char *why, size_t whylen)
{
	char ex[CFG_EXCERPT + 4];
	uint64_t n;
	int mmio;

	for (const struct cfg_word *w = serial_words; w->word; w++) {
		if (word_equal(w->word, v, len)) {
			cfg->serial_kind = (enum cfg_serial)w->value;
			return 0;
		}
	}
	for (const struct cfg_word *w = com_ports; w->word; w++) {
		if (word_equal(w->word, v, len)) {
			cfg->serial_kind = CFG_SERIAL_IO;
			cfg->serial_port = (uint16_t)w->value;
			return 0;
		}
	}
	mmio = parse_mmio(k, cfg, v, len, why, whylen);
	if (mmio != 0)
		return mmio < 0 ? -1 : 0;
	if (parse_pci_address(cfg, v, len))
		return 0;
	if (str_to_u64(v, len, &n) != 0 || n < k->min || n > k->max) {
		bp_snprintf(why, whylen,
			    "%s=%s is not auto, spcr, pci, com1..com4, an I/O port number (0x%llx..0x%llx), "
			    "a PCI address (bus:dev.fn, e.g. 00:1f.3) or mmio:ADDRESS (mmio32: for 32-bit "
			    "registers)", k->name, excerpt(v, len, ex, sizeof(ex)),
			    (unsigned long long)k->min, (unsigned long long)k->max);
		return -1;
	}
	cfg->serial_kind = CFG_SERIAL_IO;
	cfg->serial_port = (uint16_t)n;
	return 0;
}

static void show_port(const struct cfg_key *k, const struct bp_config *cfg, char *buf,
		      size_t buflen)
{
	(void)k;
	switch (cfg->serial_kind) {
	case CFG_SERIAL_IO:
		bp_snprintf(buf, buflen, "0x%x", cfg->serial_port);
		break;
	case CFG_SERIAL_PCI_AT:
		bp_snprintf(buf, buflen, "%02x:%02x.%x", cfg->serial_pci_bus, cfg->serial_pci_dev,
			    cfg->serial_pci_fn);
		break;
	case CFG_SERIAL_MMIO:
	case CFG_SERIAL_MMIO32:
		bp_snprintf(buf, buflen, "%s0x%llx", cfg->serial_kind == CFG_SERIAL_MMIO ? "mmio:" : "mmio32:",
			    (unsigned long long)cfg->serial_mmio);
		break;
	default:
		for (const struct cfg_word *w = serial_words; w->word; w++)
			if (w->value == (unsigned)cfg->serial_kind)
				str_copy(buf, w->word, buflen);
		break;
	}
}

static int parse_baud(const struct cfg_key *k, struct bp_config *cfg, const char *v,
		      size_t len, char *why, size_t whylen)
{
	char ex[CFG_EXCERPT + 4];
	uint64_t n;

	if (check_number(k, v, len, &n, why, whylen) != 0)
		return -1;
	if (UART_BASE_BAUD % n != 0) {
		bp_snprintf(why, whylen,
			    "%s=%s does not divide %u (the UART's base rate); try 115200, 57600, "
			    "38400, 19200 or 9600", k->name, excerpt(v, len, ex, sizeof(ex)),
			    UART_BASE_BAUD);
		return -1;
	}
	cfg->serial_baud = (uint32_t)n;
	cfg->serial_baud_given = true;
	return 0;
}

static int parse_trace(const struct cfg_key *k, struct bp_config *cfg, const char *v,
		       size_t len, char *why, size_t whylen)
{
	char ex[CFG_EXCERPT + 4], item_ex[CFG_EXCERPT + 4];
	bool trace_msr = cfg->trace_msr;
	size_t pos = 0;
	bool more = true;

	while (more) {
		size_t start = pos;
		size_t ilen = list_next(v, len, &pos, &more);
		if (word_equal("msr", v + start, ilen)) {
			trace_msr = true;
		} else if (word_equal("none", v + start, ilen)) {
			trace_msr = false;
		} else {
			bp_snprintf(why, whylen, "%s=%s: '%s' is not a trace item (msr|none)",
				    k->name, excerpt(v, len, ex, sizeof(ex)),
				    excerpt(v + start, ilen, item_ex, sizeof(item_ex)));
			return -1;
		}
	}
	cfg->trace_msr = trace_msr;
	return 0;
}

static void show_trace(const struct cfg_key *k, const struct bp_config *cfg, char *buf,
		       size_t buflen)
{
	(void)k;
	bp_snprintf(buf, buflen, "%s", cfg->trace_msr ? "msr" : "none");
}

static const struct cfg_word partner_words[] = {
	{ "auto", CFG_PARTNER_AUTO }, { "none", CFG_PARTNER_NONE }, { NULL, 0 },
};

/* partner=auto|none|N */
static int parse_partner(const struct cfg_key *k, struct bp_config *cfg, const char *v,
			 size_t len, char *why, size_t whylen)
{
	uint64_t n;
	for (const struct cfg_word *w = partner_words; w->word; w++)
		if (word_equal(w->word, v, len)) {
			cfg->partner = w->value;
			return 0;
		}
	if (check_number(k, v, len, &n, why, whylen) != 0) {
		size_t at = strlen(why);
		bp_snprintf(why + at, whylen - at, "; or auto|none");
		return -1;
	}
	cfg->partner = (unsigned)n;
	return 0;
}

static void show_partner(const struct cfg_key *k, const struct bp_config *cfg, char *buf,
			 size_t buflen)
{
	(void)k;
	for (const struct cfg_word *w = partner_words; w->word; w++)
		if (cfg->partner == w->value) {
			bp_snprintf(buf, buflen, "%s", w->word);
			return;
		}
	bp_snprintf(buf, buflen, "%u", cfg->partner);
}

/* ------------------------------------------------------------ cross-core keys */

/* c2c=all, or pairs A-B of CPU numbers: A starts each exchange, B answers. */
static int parse_c2c_pair(const char *item, size_t ilen, uint8_t pair[2])
{
	size_t dash = 0;
	uint64_t a, b;

	while (dash < ilen && item[dash] != '-')
		dash++;
	if (dash == 0 || dash + 1 >= ilen || str_to_u64(item, dash, &a) != 0 ||
	    str_to_u64(item + dash + 1, ilen - dash - 1, &b) != 0)
		return -1;
	if (a >= CFG_C2C_CPUS || b >= CFG_C2C_CPUS)
		return -2;
	pair[0] = (uint8_t)a;
	pair[1] = (uint8_t)b;
	return 0;
}

static int parse_c2c_pairs(const struct cfg_key *k, struct bp_config *cfg, const char *v,
			   size_t len, char *why, size_t whylen)
{
	char ex[CFG_EXCERPT + 4], item_ex[CFG_EXCERPT + 4];
	uint8_t pairs[CFG_C2C_PAIRS_MAX][2];
	unsigned n = 0;
	size_t pos = 0;
	bool more = true;

	if (word_equal("all", v, len)) {
		cfg->c2c_npairs = 0;
		return 0;
	}
	while (more) {
		size_t start = pos;
		size_t ilen = list_next(v, len, &pos, &more);
		const char *item = v + start, *problem = NULL;
		if (n == CFG_C2C_PAIRS_MAX) {
			bp_snprintf(why, whylen, "%s= has more than %u pairs (c2c=all measures every "
				    "pair)", k->name, CFG_C2C_PAIRS_MAX);
			return -1;
		}
		int r = parse_c2c_pair(item, ilen, pairs[n]);
		if (r == -1)
			problem = "is not a pair of CPU numbers (write A-B, e.g. 0-1, or all)";
		else if (r == -2)
			problem = "names a CPU past 63";
		else if (pairs[n][0] == pairs[n][1])
			problem = "pairs a CPU with itself";
		for (unsigned i = 0; !problem && i < n; i++)
			if (pairs[i][0] == pairs[n][0] && pairs[i][1] == pairs[n][1])
				problem = "is given twice";
		if (problem) {
			bp_snprintf(why, whylen, "%s=%s: '%s' %s", k->name,
				    excerpt(v, len, ex, sizeof(ex)),
				    excerpt(item, ilen, item_ex, sizeof(item_ex)), problem);
			return -1;
		}
		n++;
	}
	memcpy(cfg->c2c_pairs, pairs, sizeof(pairs[0]) * n);
	cfg->c2c_npairs = n;
	return 0;
}

static void show_c2c_pairs(const struct cfg_key *k, const struct bp_config *cfg, char *buf,
			   size_t buflen)
{
	size_t n = 0;

	(void)k;
	if (cfg->c2c_npairs == 0) {
		bp_snprintf(buf, buflen, "all");
		return;
	}
	buf[0] = '\0';
	for (unsigned i = 0; i < cfg->c2c_npairs && i < CFG_C2C_PAIRS_MAX && n < buflen; i++)
		n += (size_t)bp_snprintf(buf + n, buflen - n, "%s%u-%u", i ? "," : "",
					 cfg->c2c_pairs[i][0], cfg->c2c_pairs[i][1]);
}

/* The report's names; "all" also selects the three. */
static const struct cfg_word c2c_test_words[] = {
	{ "c2c_latency", CFG_C2C_LATENCY }, { "false_sharing", CFG_C2C_FALSE_SHARING },
	{ "shared_bw", CFG_C2C_SHARED_BW },
	{ "all", CFG_C2C_LATENCY | CFG_C2C_FALSE_SHARING | CFG_C2C_SHARED_BW }, { NULL, 0 },
};

static int parse_c2c_tests(const struct cfg_key *k, struct bp_config *cfg, const char *v,
			   size_t len, char *why, size_t whylen)
{
	char ex[CFG_EXCERPT + 4], item_ex[CFG_EXCERPT + 4];
	unsigned tests = 0;
	size_t pos = 0;
	bool more = true;

	while (more) {
		size_t start = pos;
		size_t ilen = list_next(v, len, &pos, &more);
		const struct cfg_word *w = c2c_test_words;
		while (w->word && !word_equal(w->word, v + start, ilen))
			w++;
		if (!w->word) {
			bp_snprintf(why, whylen, "%s=%s: '%s' is not a test "
				    "(c2c_latency|false_sharing|shared_bw|all)", k->name,
				    excerpt(v, len, ex, sizeof(ex)),
				    excerpt(v + start, ilen, item_ex, sizeof(item_ex)));
			return -1;
		}
		tests |= w->value;
	}
	cfg->c2c_tests = tests;
	return 0;
}

static void show_c2c_tests(const struct cfg_key *k, const struct bp_config *cfg, char *buf,
			   size_t buflen)
{
	size_t n = 0;

	(void)k;
	buf[0] = '\0';
	for (const struct cfg_word *w = c2c_test_words; w->word && n < buflen; w++)
		if ((w->value & (w->value - 1)) == 0 && (cfg->c2c_tests & w->value))
			n += (size_t)bp_snprintf(buf + n, buflen - n, "%s%s", n ? "," : "", w->word);
}

/* c2c.size: one buffer size, whole cache lines, meant to fit the shared cache. */
static int parse_c2c_size(const struct cfg_key *k, struct bp_config *cfg, const char *v,
			  size_t len, char *why, size_t whylen)
{
	char ex[CFG_EXCERPT + 4];
	uint64_t bytes = 0;
	int r = str_to_size(v, len, &bytes);

	if (r < 0)
		bp_snprintf(why, whylen, "%s=%s is not a size (a number with optional K, M or G "
			    "suffix)", k->name, excerpt(v, len, ex, sizeof(ex)));
	else if (r > 0 || bytes < k->min || bytes > k->max)
		bp_snprintf(why, whylen, "%s=%s out of range (4K..256M)", k->name,
			    excerpt(v, len, ex, sizeof(ex)));
	else if (bytes % 64)
		bp_snprintf(why, whylen, "%s=%s is not a whole number of 64-byte lines", k->name,
			    excerpt(v, len, ex, sizeof(ex)));
	else {
		cfg->c2c_size = bytes;
		return 0;
	}
	return -1;
}

static void show_c2c_size(const struct cfg_key *k, const struct bp_config *cfg, char *buf,
			  size_t buflen)
{
	(void)k;
	show_size(buf, buflen, "", cfg->c2c_size);
}

/* ------------------------------------------------------------ the keys */

static const struct cfg_word mode_words[] = {
	{ "run", CFG_MODE_RUN }, { "selftest", CFG_MODE_SELFTEST }, { "detect", CFG_MODE_DETECT },
	{ "crashtest", CFG_MODE_CRASHTEST }, { "list", CFG_MODE_LIST },
	{ "crashstack", CFG_MODE_CRASHSTACK }, { "pmucheck", CFG_MODE_PMUCHECK },
	{ "c2c", CFG_MODE_C2C },
	{ NULL, 0 },
};
static const struct cfg_word cpl_words[] = {
	{ "0", CFG_CPL0 }, { "3", CFG_CPL3 }, { "both", CFG_CPL0 | CFG_CPL3 },
	{ "0,3", CFG_CPL0 | CFG_CPL3 }, { "3,0", CFG_CPL0 | CFG_CPL3 }, { NULL, 0 },
};
static const struct cfg_word format_words[] = {
	{ "both", CFG_FORMAT_BOTH }, { "human", CFG_FORMAT_HUMAN },
	{ "machine", CFG_FORMAT_MACHINE }, { NULL, 0 },
};
static const struct cfg_word insn_count_words[] = {
	{ "step", true }, { "off", false }, { NULL, 0 },
};
static const struct cfg_word thread_words[] = {
	{ "auto", CFG_NB_AUTO }, { "0", CFG_NB_T0 }, { "1", CFG_NB_T1 }, { "both", CFG_NB_BOTH },
	{ NULL, 0 },
};
static const struct cfg_word delivery_words[] = {
	{ "vector", false }, { "nmi", true }, { NULL, 0 },
};
static const struct cfg_word yes_no_words[] = {
	{ "yes", true }, { "no", false }, { NULL, 0 },
};
static const struct cfg_word save_words[] = {
	{ "auto", true }, { "off", false }, { NULL, 0 },
};
static const struct cfg_word on_off_words[] = {
	{ "on", true }, { "off", false }, { NULL, 0 },
};

#define NUMBER(lo, hi) .parse = parse_number, .show = show_number, .min = (lo), .max = (hi)
#define WORDS(w) .parse = parse_word, .show = show_word, .words = (w)

static const struct cfg_key cfg_keys[] = {
	{ .name = "mode",            FIELD(mode),           WORDS(mode_words) },
	{ .name = "payloads",        FIELD(payloads),       .parse = parse_payloads, .show = show_list },
	{ .name = "events",          FIELD(events),         .parse = parse_list, .show = show_list },
	{ .name = "cpl",             FIELD(cpls),           WORDS(cpl_words) },
	{ .name = "reps",            FIELD(reps),           NUMBER(1, 100000) },
	{ .name = "warmup",          FIELD(warmup),         NUMBER(0, 10000) },
	{ .name = "iters",           FIELD(iters),          NUMBER(1, 1000000000000ull) },
	{ .name = "sizes",           FIELD(sizes),          .parse = parse_sizes, .show = show_sizes },
	{ .name = "format",          FIELD(format),         WORDS(format_words) },
	{ .name = "serial.port",     FIELD(serial_port),    .parse = parse_port, .show = show_port,
	  .min = 1, .max = 0xffff },
	{ .name = "serial.baud",     FIELD(serial_baud),    .parse = parse_baud, .show = show_number,
	  .min = 1, .max = UART_BASE_BAUD },
	{ .name = "trace",           FIELD(trace_msr),      .parse = parse_trace, .show = show_trace },
	{ .name = "trim",            FIELD(trim_pct),       NUMBER(0, 25) },
	{ .name = "watchdog",        FIELD(watchdog_ms),    NUMBER(1, 600000) },
	{ .name = "insn_count",      FIELD(single_step),    WORDS(insn_count_words) },
	{ .name = "netburst.thread", FIELD(nb_thread),      WORDS(thread_words) },
	{ .name = "cpu",             FIELD(cpu),            NUMBER(0, CFG_CPU_MAX) },
	{ .name = "partner",         FIELD(partner),        .parse = parse_partner,
	  .show = show_partner, .min = 0, .max = CFG_CPU_MAX },
	{ .name = "partner.load",    FIELD(partner_load),   .parse = parse_partner_load,
	  .show = show_list },
	{ .name = "exit",            FIELD(exit_when_done), WORDS(yes_no_words) },
	{ .name = "save",            FIELD(save_auto),      WORDS(save_words) },
	{ .name = "pmu",             FIELD(pmu),            .parse = parse_name, .show = show_list },
	{ .name = "sample.event",    FIELD(sample_event),   .parse = parse_sample_event,
	  .show = show_sample_event },
	{ .name = "sample.period",   FIELD(sample_period),  NUMBER(1, 1ull << 47) },
	{ .name = "sample.delivery", FIELD(sample_nmi),     WORDS(delivery_words) },
	{ .name = "c2c",             FIELD(c2c_pairs),      .parse = parse_c2c_pairs,
	  .show = show_c2c_pairs },
	{ .name = "c2c.tests",       FIELD(c2c_tests),      .parse = parse_c2c_tests,
	  .show = show_c2c_tests },
	{ .name = "c2c.rounds",      FIELD(c2c_rounds),     NUMBER(1, 1000000) },
	{ .name = "c2c.increments",  FIELD(c2c_increments), NUMBER(1, 1000000000) },
	{ .name = "c2c.size",        FIELD(c2c_size),       .parse = parse_c2c_size,
	  .show = show_c2c_size, .min = SIZE_MIN, .max = 256 * SIZE_M },
	{ .name = "boot.menu",       FIELD(boot_menu),      WORDS(on_off_words) },
	{ .name = "boot.menu_timeout", FIELD(boot_menu_timeout), NUMBER(0, BOOTMENU_SECONDS_MAX) },
	{ .name = "lava",            FIELD(lava),           WORDS(on_off_words) },
};
#define CFG_NKEYS (ARRAY_SIZE(cfg_keys))

void config_defaults(struct bp_config *cfg)
{
	static const uint64_t default_sizes[] = {
		4 * SIZE_K, 16 * SIZE_K, 64 * SIZE_K, 256 * SIZE_K,
		1 * SIZE_M, 4 * SIZE_M, 16 * SIZE_M, 64 * SIZE_M,
	};

	memset(cfg, 0, sizeof(*cfg));
	cfg->mode = CFG_MODE_RUN;
	str_copy(cfg->payloads, CFG_PAYLOADS_DEFAULT, sizeof(cfg->payloads));
	str_copy(cfg->events, "cycles,instructions", sizeof(cfg->events));
	cfg->cpls = CFG_CPL0 | CFG_CPL3;
	cfg->reps = 11;
	cfg->warmup = 2;
	cfg->iters = 1000;
	cfg->nsizes = ARRAY_SIZE(default_sizes);
	memcpy(cfg->sizes, default_sizes, sizeof(default_sizes));
	cfg->format = CFG_FORMAT_BOTH;
	cfg->serial_kind = CFG_SERIAL_AUTO;
	cfg->serial_port = UART_COM1;
	cfg->serial_baud = UART_BASE_BAUD;
	cfg->trace_msr = false;
	cfg->trim_pct = 0;
	cfg->watchdog_ms = 2000;
	cfg->single_step = true;
	cfg->nb_thread = CFG_NB_AUTO;
	cfg->cpu = 0;
	cfg->partner = CFG_PARTNER_AUTO;
	str_copy(cfg->partner_load, "idle", sizeof(cfg->partner_load));
	cfg->exit_when_done = true;
	cfg->save_auto = true;
	str_copy(cfg->pmu, "auto", sizeof(cfg->pmu));
	cfg->sample_period = 100000;
	cfg->c2c_npairs = 0;
	cfg->c2c_tests = CFG_C2C_LATENCY | CFG_C2C_FALSE_SHARING | CFG_C2C_SHARED_BW;
	cfg->c2c_rounds = 1000;
	cfg->c2c_increments = 1000000;
	cfg->c2c_size = SIZE_M;
	cfg->boot_menu = true;
	cfg->boot_menu_timeout = BOOTMENU_SECONDS;
	cfg->lava = false;
}

/* ------------------------------------------------------------ the parser */

struct cfg_parser {
	const char *origin;
	config_error_fn err;
	void *ctx;
	int errors;
};

static void report(struct cfg_parser *p, unsigned line, const char *why)
{
	char msg[CFG_MSG_MAX];

	p->errors++;
	if (!p->err)
		return;
	if (line)
		bp_snprintf(msg, sizeof(msg), "%s line %u: %s", p->origin, line, why);
	else
		bp_snprintf(msg, sizeof(msg), "%s: %s", p->origin, why);
	p->err(p->ctx, msg);
}

static const struct cfg_key *find_key(const char *key, size_t len)
{
	for (size_t i = 0; i < CFG_NKEYS; i++)
		if (strlen(cfg_keys[i].name) == len && strncmp(cfg_keys[i].name, key, len) == 0)
			return &cfg_keys[i];
	return NULL;
}

static const char *cfg_key_name_at(const void *ctx, size_t i)
{
	(void)ctx;
	return i < CFG_NKEYS ? cfg_keys[i].name : NULL;
}

static void unknown_key(struct cfg_parser *p, unsigned line, const char *key, size_t len)
{
	char why[CFG_MSG_MAX], ex[CFG_EXCERPT + 4], name[CFG_KEY_MAX];
	const char *nearest = NULL;

	if (len < sizeof(name)) {
		memcpy(name, key, len);
		name[len] = '\0';
		nearest = str_nearest(name, cfg_key_name_at, NULL, CFG_SUGGEST_MAX,
				      STR_NEAREST_BELOW_WORD_LEN);
	}
	if (nearest)
		bp_snprintf(why, sizeof(why), "unknown key '%s' (did you mean '%s'?)",
			    excerpt(key, len, ex, sizeof(ex)), nearest);
	else
		bp_snprintf(why, sizeof(why), "unknown key '%s' (see docs/config.md for the keys)",
			    excerpt(key, len, ex, sizeof(ex)));
	report(p, line, why);
}

/* v holds the whole value (a source is at most CFG_SOURCE_MAX bytes); only bench.*
 * values may be longer than CFG_LIST_MAX. */
static void apply_entry(struct cfg_parser *p, struct bp_config *cfg, unsigned line,
			const char *key, size_t klen, bool has_eq, const char *v, size_t vlen)
{
	char why[CFG_MSG_MAX], ex[CFG_EXCERPT + 4];

	if (klen == 0) {
		bp_snprintf(why, sizeof(why), "'=%s' has no key (key=value)",
			    excerpt(v, vlen, ex, sizeof(ex)));
		report(p, line, why);
		return;
	}
	if (klen > 6 && strncmp(key, "bench.", 6) == 0) {
		if (bench_config_entry(cfg, key + 6, klen - 6, v, has_eq ? vlen : 0, why,
				       sizeof(why)))
			report(p, line, why);
		return;
	}
	const struct cfg_key *k = find_key(key, klen);
	if (!k) {
		unknown_key(p, line, key, klen);
		return;
	}
	if (!has_eq || vlen == 0) {
		bp_snprintf(why, sizeof(why), "'%s' needs a value (key=value)", k->name);
		report(p, line, why);
		return;
	}
	if (vlen > CFG_LIST_MAX) {
		bp_snprintf(why, sizeof(why), "'%s' value is too long (more than %u characters)",
			    k->name, CFG_LIST_MAX);
		report(p, line, why);
		return;
	}
	/* Parsers store nothing unless the whole value is good: a bad entry leaves the
	 * previous value in place. */
	if (k->parse(k, cfg, v, vlen, why, sizeof(why)) != 0)
		report(p, line, why);
}

/* Rejects a source whose text cfg_text_check refuses, saying where and why. Trailing NULs,
 * as a C string's terminator, end the text. */
static bool check_text(struct cfg_parser *p, const char *text, size_t *len)
{
	struct cfg_text_check c;
	char why[CFG_MSG_MAX];

	switch (cfg_text_check(text, len, &c)) {
	case CFG_TEXT_OK:
		return true;
	case CFG_TEXT_TOO_LONG:
		config_refuse(p->origin, *len, CFG_SOURCE_MAX, p->err, p->ctx);
		p->errors++;
		return false;
	case CFG_TEXT_CONTROL:
		bp_snprintf(why, sizeof(why), "not a text file (control byte 0x%02x at offset %zu); "
			    "source ignored", c.byte, c.offset);
		break;
	case CFG_TEXT_NOT_UTF8:
		bp_snprintf(why, sizeof(why), "not a text file (invalid UTF-8 byte 0x%02x at offset "
			    "%zu); source ignored", c.byte, c.offset);
		break;
	}
	report(p, c.line, why);
	return false;
}

int config_refuse(const char *origin, uint64_t size, uint64_t max, config_error_fn err,
		  void *ctx)
{
	struct cfg_parser p = { .origin = origin ? origin : "config", .err = err, .ctx = ctx };
	char why[CFG_MSG_MAX];

	bp_snprintf(why, sizeof(why), "%llu bytes, more than the %llu a source may have; "
		    "source ignored", (unsigned long long)size, (unsigned long long)max);
	report(&p, 0, why);
	return p.errors;
}

int config_apply(struct bp_config *cfg, const char *origin, const char *text, size_t len,
		 config_error_fn err, void *ctx)
{
	struct cfg_parser p = { .origin = origin ? origin : "config", .err = err, .ctx = ctx };
	char value[CFG_SOURCE_MAX + 1];         /* a source's longest value fits whole */
	struct cfg_lexer lx;
	struct cfg_entry e;

	/* Whole or not at all: an entry cut at a limit would apply half a value. */
	if (!check_text(&p, text, &len))
		return p.errors;
	cfg_lex_init(&lx, text, len);
	while (cfg_lex_next(&lx, &e, value, sizeof(value))) {
		if (e.unterminated) {
			char why[CFG_MSG_MAX], ex[CFG_EXCERPT + 4];
			bp_snprintf(why, sizeof(why), "unterminated quote in '%s' (close it with \" "
				    "on the same line)", excerpt(e.key, e.klen, ex, sizeof(ex)));
			report(&p, e.line, why);
			continue;
		}
		apply_entry(&p, cfg, e.line, e.key, e.klen, e.has_eq, value, e.vlen);
	}
	return p.errors;
}

void config_report(const struct bp_config *cfg, void (*emit)(void *ctx, const char *line),
		   void *ctx)
{
	char value[CFG_LIST_MAX + 8];
	char line[CFG_LIST_MAX + 40];

	for (size_t i = 0; i < CFG_NKEYS; i++) {
		const struct cfg_key *k = &cfg_keys[i];
		k->show(k, cfg, value, sizeof(value));
		bp_snprintf(line, sizeof(line), "cfg.%s=%s", k->name, value);
		emit(ctx, line);
	}
	for (unsigned i = 0; i < cfg->nbench && i < CFG_BENCH_MAX; i++)
		bench_config_report(&cfg->bench[i], emit, ctx);
}

int config_show_value(const struct bp_config *cfg, const char *key, char *buf, size_t buflen)
{
	for (size_t i = 0; i < CFG_NKEYS; i++) {
		if (strcmp(cfg_keys[i].name, key) == 0) {
			cfg_keys[i].show(&cfg_keys[i], cfg, buf, buflen);
			return 0;
		}
	}
	return -1;
}

const char *cfg_mode_name(enum cfg_mode mode)
{
	for (const struct cfg_word *w = mode_words; w->word; w++)
		if (w->value == (unsigned)mode)
			return w->word;
	return "?";
}
