/*
 * libFuzzer target: configuration text (lib/config.c) as the kernel receives it from
 * bareperf.cfg, the load options or fw_cfg: arbitrary bytes with an explicit length,
 * NULs and bytes that are not UTF-8 included. Besides the sanitizers it checks what
 * lib/config.h and docs/config.md promise: the return value counts the messages, every
 * value stays in its documented range, and the config_report lines read back as the
 * same configuration ("so it can be pasted back as a configuration"). And the UEFI loader
 * reads boot.menu from the same text as the kernel does (lib/bootmenu.c).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/bootmenu.h"
#include "lib/config.h"

#define MSG_MAX 320             /* CFG_MSG_MAX in lib/config.c */
#define REPORT_MAX (32 * (CFG_LIST_MAX + 64))

struct messages {
	int count;
};

struct report {
	char text[REPORT_MAX];
	size_t len;
};

static void fail(const char *what, const char *detail)
{
	fprintf(stderr, "fuzz_config: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
	abort();
}

static void count_message(void *ctx, const char *msg)
{
	struct messages *m = ctx;
	size_t n = strlen(msg);

	if (n == 0 || n >= MSG_MAX)
		fail("message empty or longer than its buffer", msg);
	m->count++;
}

/* Turns "cfg.key=value" report lines into "key=value" configuration lines. */
static void collect_line(void *ctx, const char *line)
{
	struct report *r = ctx;
	size_t n = strlen(line);

	if (strncmp(line, "cfg.", 4) != 0 || !strchr(line, '='))
		fail("report line is not cfg.KEY=VALUE", line);
	if (r->len + n - 4 + 1 >= sizeof(r->text))
		fail("report longer than expected", line);
	memcpy(r->text + r->len, line + 4, n - 4);
	r->len += n - 4;
	r->text[r->len++] = '\n';
}

static void check_string(const char *s, size_t size, const char *name)
{
	if (!memchr(s, '\0', size))
		fail("string field not terminated", name);
}

static void check_ranges(const struct bp_config *c)
{
	check_string(c->payloads, sizeof(c->payloads), "payloads");
	check_string(c->events, sizeof(c->events), "events");
	check_string(c->pmu, sizeof(c->pmu), "pmu");
	if (c->mode > CFG_MODE_CRASHSTACK || c->format > CFG_FORMAT_MACHINE)
		fail("mode or format out of its enum", NULL);
	if (c->cpls == 0 || (c->cpls & ~(CFG_CPL0 | CFG_CPL3)))
		fail("cpl out of range", NULL);
	if (c->reps < 1 || c->reps > 100000 || c->warmup > 10000)
		fail("reps or warmup out of range", NULL);
	if (c->iters < 1 || c->iters > 1000000000000ull)
		fail("iters out of range", NULL);
	if (c->nsizes < 1 || c->nsizes > CFG_SIZES_MAX)
		fail("sizes count out of range", NULL);
	for (unsigned i = 0; i < c->nsizes; i++)
		if (c->sizes[i] < 4096 || c->sizes[i] > (1ull << 30))
			fail("a size out of 4K..1G", NULL);
	if ((c->serial_kind == CFG_SERIAL_IO && c->serial_port == 0) ||
	    ((c->serial_kind == CFG_SERIAL_MMIO || c->serial_kind == CFG_SERIAL_MMIO32) &&
	     c->serial_mmio == 0) || c->serial_kind > CFG_SERIAL_MMIO32 ||
	    c->serial_baud == 0 || 115200 % c->serial_baud)
		fail("serial port or baud out of range", NULL);
	if (c->trim_pct > 25 || c->watchdog_ms < 1 || c->watchdog_ms > 600000)
		fail("trim or watchdog out of range", NULL);
	if (c->nb_thread > CFG_NB_AUTO)
		fail("netburst.thread out of range", NULL);
}

/* serial.port's value: the field its kind uses. */
static bool same_serial(const struct bp_config *a, const struct bp_config *b)
{
	if (a->serial_kind != b->serial_kind)
		return false;
	switch (a->serial_kind) {
	case CFG_SERIAL_IO:
		return a->serial_port == b->serial_port;
	case CFG_SERIAL_MMIO:
	case CFG_SERIAL_MMIO32:
		return a->serial_mmio == b->serial_mmio;
	case CFG_SERIAL_PCI_AT:
		return a->serial_pci_bus == b->serial_pci_bus && a->serial_pci_dev == b->serial_pci_dev &&
		       a->serial_pci_fn == b->serial_pci_fn;
	default:
		return true;
	}
}

static void check_same(const struct bp_config *a, const struct bp_config *b)
{
	if (a->mode != b->mode || strcmp(a->payloads, b->payloads) || strcmp(a->events, b->events) ||
	    a->cpls != b->cpls || a->reps != b->reps || a->warmup != b->warmup ||
	    a->iters != b->iters || a->nsizes != b->nsizes ||
	    memcmp(a->sizes, b->sizes, a->nsizes * sizeof(a->sizes[0])) ||
	    a->format != b->format || !same_serial(a, b) ||
	    a->serial_baud != b->serial_baud || a->trace_msr != b->trace_msr ||
	    a->trim_pct != b->trim_pct || a->watchdog_ms != b->watchdog_ms ||
	    a->single_step != b->single_step || a->nb_thread != b->nb_thread ||
	    a->exit_when_done != b->exit_when_done || strcmp(a->pmu, b->pmu) ||
	    a->boot_menu != b->boot_menu)
		fail("config_report output does not read back as the same configuration", NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct bp_config cfg, again;
	static struct report rep;
	struct messages msgs = { 0 };

	config_defaults(&cfg);
	int errors = config_apply(&cfg, "bareperf.cfg", (const char *)data, size,
				  count_message, &msgs);
	if (errors != msgs.count)
		fail("return value is not the number of messages", NULL);
	check_ranges(&cfg);
	/* The loader's reading of boot.menu must be the kernel's, whatever else is wrong in
	 * the text (not set, or a source refused whole: the default, on). */
	int menu = bootmenu_cfg_setting((const char *)data, size);
	if (menu == -1 ? !cfg.boot_menu : menu != cfg.boot_menu)
		fail("lib/bootmenu.c reads boot.menu otherwise than the kernel", NULL);

	rep.len = 0;
	config_report(&cfg, collect_line, &rep);
	msgs.count = 0;
	config_defaults(&again);
	if (config_apply(&again, "--config", rep.text, rep.len, count_message, &msgs) != 0) {
		rep.text[rep.len] = '\0';
		fail("config_report output has errors when read back", rep.text);
	}
	check_same(&cfg, &again);
	return 0;
}
