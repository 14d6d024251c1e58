/* lib/config.c: every key, the syntax, the messages, report round trips, and a fuzz loop. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "lib/config.h"
#include "lib/util.h"

#define MAX_MSGS 64

struct messages {
	unsigned count;
	char text[MAX_MSGS][400];
};

static void collect_error(void *ctx, const char *msg)
{
	struct messages *m = ctx;
	assert_non_null(msg);
	assert_true(msg[0] != '\0');
	if (m->count < MAX_MSGS)
		snprintf(m->text[m->count], sizeof(m->text[0]), "%s", msg);
	m->count++;
}

/* Applies text on top of defaults; returns the error count, checked against messages. */
static int apply(struct bp_config *cfg, const char *text, struct messages *msgs)
{
	memset(msgs, 0, sizeof(*msgs));
	int n = config_apply(cfg, "test.cfg", text, strlen(text), collect_error, msgs);
	assert_int_equal(n, (int)msgs->count);
	return n;
}

static void assert_configs_equal(const struct bp_config *a, const struct bp_config *b)
{
	assert_int_equal(a->mode, b->mode);
	assert_string_equal(a->payloads, b->payloads);
	assert_string_equal(a->events, b->events);
	assert_int_equal(a->cpls, b->cpls);
	assert_int_equal(a->reps, b->reps);
	assert_int_equal(a->warmup, b->warmup);
	assert_true(a->iters == b->iters);
	assert_int_equal(a->nsizes, b->nsizes);
	for (unsigned i = 0; i < a->nsizes; i++)
		assert_true(a->sizes[i] == b->sizes[i]);
	assert_int_equal(a->format, b->format);
	assert_int_equal(a->serial_kind, b->serial_kind);
	if (a->serial_kind == CFG_SERIAL_IO)
		assert_int_equal(a->serial_port, b->serial_port);
	if (a->serial_kind == CFG_SERIAL_MMIO || a->serial_kind == CFG_SERIAL_MMIO32)
		assert_true(a->serial_mmio == b->serial_mmio);
	if (a->serial_kind == CFG_SERIAL_PCI_AT) {
		assert_int_equal(a->serial_pci_bus, b->serial_pci_bus);
		assert_int_equal(a->serial_pci_dev, b->serial_pci_dev);
		assert_int_equal(a->serial_pci_fn, b->serial_pci_fn);
	}
	assert_int_equal(a->serial_baud, b->serial_baud);
	assert_int_equal(a->trace_msr, b->trace_msr);
	assert_int_equal(a->trim_pct, b->trim_pct);
	assert_int_equal(a->watchdog_ms, b->watchdog_ms);
	assert_int_equal(a->single_step, b->single_step);
	assert_int_equal(a->nb_thread, b->nb_thread);
	assert_int_equal(a->exit_when_done, b->exit_when_done);
	assert_int_equal(a->c2c_npairs, b->c2c_npairs);
	for (unsigned i = 0; i < a->c2c_npairs; i++)
		assert_memory_equal(a->c2c_pairs[i], b->c2c_pairs[i], 2);
	assert_int_equal(a->c2c_tests, b->c2c_tests);
	assert_int_equal(a->c2c_rounds, b->c2c_rounds);
	assert_int_equal(a->c2c_increments, b->c2c_increments);
	assert_true(a->c2c_size == b->c2c_size);
	assert_int_equal(a->boot_menu, b->boot_menu);
	assert_int_equal(a->boot_menu_timeout, b->boot_menu_timeout);
	assert_int_equal(a->lava, b->lava);
}

struct report_lines {
	unsigned count;
	char text[4096 * 2];
	size_t used;
};

/* Joins the report into one config text, dropping the "cfg." prefix. */
static void collect_line(void *ctx, const char *line)
{
	struct report_lines *r = ctx;
	assert_memory_equal(line, "cfg.", 4);
	size_t n = strlen(line + 4);
	assert_true(r->used + n + 2 < sizeof(r->text));
	memcpy(r->text + r->used, line + 4, n);
	r->used += n;
	r->text[r->used++] = '\n';
	r->text[r->used] = '\0';
	r->count++;
}

static void test_defaults_and_report(void **state)
{
	(void)state;
	struct bp_config cfg;
	struct report_lines r = { 0 };

	config_defaults(&cfg);
	assert_int_equal(cfg.mode, CFG_MODE_RUN);
	assert_string_equal(cfg.events, "cycles,instructions");
	assert_int_equal(cfg.cpls, CFG_CPL0 | CFG_CPL3);
	assert_int_equal(cfg.reps, 11);
	assert_int_equal(cfg.warmup, 2);
	assert_true(cfg.iters == 1000);
	assert_int_equal(cfg.nsizes, 8);
	for (unsigned i = 0; i < cfg.nsizes; i++)
		assert_true(cfg.sizes[i] == 4096ull << (2 * i));       /* 4K..64M, powers of 4 */
	assert_int_equal(cfg.serial_kind, CFG_SERIAL_AUTO);
	assert_int_equal(cfg.serial_baud, 115200);
	assert_false(cfg.serial_baud_given);
	assert_false(cfg.trace_msr);
	assert_int_equal(cfg.watchdog_ms, 2000);
	assert_true(cfg.single_step);
	assert_true(cfg.exit_when_done);
	assert_true(cfg.save_auto);

	config_report(&cfg, collect_line, &r);
	assert_int_equal(r.count, 33);
	assert_string_equal(r.text,
		"mode=run\npayloads=*\nevents=cycles,instructions\ncpl=both\nreps=11\nwarmup=2\n"
		"iters=1000\nsizes=4K,16K,64K,256K,1M,4M,16M,64M\nformat=both\nserial.port=auto\n"
		"serial.baud=115200\ntrace=none\ntrim=0\nwatchdog=2000\ninsn_count=step\n"
		"netburst.thread=auto\ncpu=0\npartner=auto\npartner.load=idle\nexit=yes\nsave=auto\npmu=auto\n"
		"sample.event=none\nsample.period=100000\nsample.delivery=vector\n"
		"c2c=all\nc2c.tests=c2c_latency,false_sharing,shared_bw\nc2c.rounds=1000\n"
		"c2c.increments=1000000\nc2c.size=1M\nboot.menu=on\nboot.menu_timeout=5\nlava=off\n");
}

static void test_sample_keys(void **state)
{
	(void)state;
	struct bp_config cfg;
	struct messages m;

	config_defaults(&cfg);
	assert_string_equal(cfg.sample_event, "");
	assert_int_equal(apply(&cfg, "sample.event=skl::INST_RETIRED:ANY_P:u sample.period=0x1000 "
			       "sample.delivery=nmi", &m), 0);
	assert_string_equal(cfg.sample_event, "skl::INST_RETIRED:ANY_P:u");
	assert_true(cfg.sample_period == 4096);
	assert_true(cfg.sample_nmi);
	assert_int_equal(apply(&cfg, "sample.period=0", &m), 1);
	assert_true(cfg.sample_period == 4096);
	assert_int_equal(apply(&cfg, "sample.delivery=smi", &m), 1);
	assert_int_equal(apply(&cfg, "sample.event=none sample.delivery=vector", &m), 0);
	assert_string_equal(cfg.sample_event, "");
	assert_false(cfg.sample_nmi);
}

static void test_cpu_partner_keys(void **state)
{
	(void)state;
	struct bp_config cfg;
	struct messages m;

	config_defaults(&cfg);
	assert_int_equal(cfg.cpu, 0);
	assert_int_equal(cfg.partner, CFG_PARTNER_AUTO);
	assert_string_equal(cfg.partner_load, "idle");
	assert_int_equal(apply(&cfg, "cpu=3 partner=2 partner.load=idle,spin", &m), 0);
	assert_int_equal(cfg.cpu, 3);
	assert_int_equal(cfg.partner, 2);
	assert_string_equal(cfg.partner_load, "idle,spin");
	assert_int_equal(apply(&cfg, "partner=none", &m), 0);
	assert_int_equal(cfg.partner, CFG_PARTNER_NONE);
	assert_int_equal(apply(&cfg, "partner=auto", &m), 0);
	assert_int_equal(cfg.partner, CFG_PARTNER_AUTO);
	assert_int_equal(apply(&cfg, "cpu=64", &m), 1);
	assert_string_equal(m.text[0], "test.cfg line 1: cpu=64 out of range (0..63)");
	assert_int_equal(apply(&cfg, "partner=sibling", &m), 1);
	assert_string_equal(m.text[0],
		"test.cfg line 1: partner=sibling is not a number (0..63); or auto|none");
	assert_int_equal(apply(&cfg, "partner.load=idle,", &m), 1);
	assert_int_equal(cfg.cpu, 3);                   /* the bad entries changed nothing */
	assert_string_equal(cfg.partner_load, "idle,spin");
	/* 8 loads fit; a list of 9 is refused whole, never run up to a cut */
	assert_int_equal(apply(&cfg, "partner.load=spin,idle,spin,idle,spin,idle,spin,idle", &m), 0);
	assert_string_equal(cfg.partner_load, "spin,idle,spin,idle,spin,idle,spin,idle");
	assert_int_equal(apply(&cfg, "partner.load=idle,spin,idle,spin,idle,spin,idle,spin,add_chain",
			       &m), 1);
	assert_string_equal(m.text[0], "test.cfg line 1: partner.load=idle,spin,idle,spin,idle,spin,"
			    "idle,spin,add_chai...: 9 items, more than the 8 one run takes (one run of "
			    "the plan each)");
	assert_string_equal(cfg.partner_load, "spin,idle,spin,idle,spin,idle,spin,idle");
}

static void test_boot_menu_key(void **state)
{
	(void)state;
	struct bp_config cfg;
	struct messages m;

	config_defaults(&cfg);
	assert_true(cfg.boot_menu);
	assert_int_equal(apply(&cfg, "boot.menu=off", &m), 0);
	assert_false(cfg.boot_menu);
	assert_int_equal(apply(&cfg, "boot.menu = ON", &m), 0);
	assert_true(cfg.boot_menu);
	assert_int_equal(apply(&cfg, "boot.menu=no", &m), 1);
	assert_string_equal(m.text[0], "test.cfg line 1: boot.menu=no is not one of on|off");
	assert_true(cfg.boot_menu);
	assert_int_equal(apply(&cfg, "boot.mneu=off", &m), 1);
	assert_string_equal(m.text[0], "test.cfg line 1: unknown key 'boot.mneu' (did you mean "
			    "'boot.menu'?)");
	assert_int_equal(cfg.boot_menu_timeout, 5);
	assert_int_equal(apply(&cfg, "boot.menu_timeout=1", &m), 0);
	assert_int_equal(cfg.boot_menu_timeout, 1);
	assert_int_equal(apply(&cfg, "boot.menu_timeout=61", &m), 1);
	assert_int_equal(cfg.boot_menu_timeout, 1);
	assert_int_equal(apply(&cfg, "boot.menu_timeout=0", &m), 0);
	assert_int_equal(cfg.boot_menu_timeout, 0);
}

static void test_lava_key(void **state)
{
	(void)state;
	struct bp_config cfg;
	struct messages m;
	config_defaults(&cfg);
	assert_false(cfg.lava);
	assert_int_equal(apply(&cfg, "lava=on", &m), 0);
	assert_true(cfg.lava);
	assert_int_equal(cfg.format, CFG_FORMAT_BOTH);      /* besides format=, not instead */
	assert_int_equal(apply(&cfg, "lava=yes", &m), 1);
	assert_string_equal(m.text[0], "test.cfg line 1: lava=yes is not one of on|off");
	assert_true(cfg.lava);
	assert_int_equal(apply(&cfg, "lava=off", &m), 0);
	assert_false(cfg.lava);
}

static void test_pmu_key(void **state)
{
	(void)state;
	struct bp_config cfg;
	struct messages m;

	config_defaults(&cfg);
	assert_string_equal(cfg.pmu, "auto");
	assert_int_equal(apply(&cfg, "pmu=skl", &m), 0);
	assert_string_equal(cfg.pmu, "skl");
	assert_int_equal(apply(&cfg, "pmu=amd64_fam19h_zen4", &m), 0);
	assert_string_equal(cfg.pmu, "amd64_fam19h_zen4");
	assert_int_equal(apply(&cfg, "pmu=sk/l", &m), 1);
	assert_non_null(strstr(m.text[0], "'/' is not allowed"));
	assert_string_equal(cfg.pmu, "amd64_fam19h_zen4");
	assert_int_equal(apply(&cfg, "pmu=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", &m), 1);
	assert_non_null(strstr(m.text[0], "a name of 1 to 31 characters"));
}

static void test_c2c_keys(void **state)
{
	(void)state;
	struct bp_config cfg;
	struct messages m;
	struct report_lines r = { 0 };

	config_defaults(&cfg);
	assert_int_equal(apply(&cfg, "c2c=0-1,2-0,63-5 c2c.tests=shared_bw,c2c_latency "
			       "c2c.rounds=50 c2c.increments=1000000000 c2c.size=32K", &m), 0);
	assert_int_equal(cfg.c2c_npairs, 3);
	assert_int_equal(cfg.c2c_pairs[0][0], 0);
	assert_int_equal(cfg.c2c_pairs[0][1], 1);
	assert_int_equal(cfg.c2c_pairs[1][0], 2);
	assert_int_equal(cfg.c2c_pairs[1][1], 0);
	assert_int_equal(cfg.c2c_pairs[2][0], 63);
	assert_int_equal(cfg.c2c_pairs[2][1], 5);
	assert_int_equal(cfg.c2c_tests, CFG_C2C_SHARED_BW | CFG_C2C_LATENCY);
	assert_int_equal(cfg.c2c_rounds, 50);
	assert_int_equal(cfg.c2c_increments, 1000000000);
	assert_true(cfg.c2c_size == 32768);
	config_report(&cfg, collect_line, &r);
	assert_non_null(strstr(r.text, "\nc2c=0-1,2-0,63-5\nc2c.tests=c2c_latency,shared_bw\n"
			       "c2c.rounds=50\nc2c.increments=1000000000\nc2c.size=32K\n"));
	assert_int_equal(apply(&cfg, "c2c=ALL c2c.tests=all c2c.size=4160", &m), 0);
	assert_int_equal(cfg.c2c_npairs, 0);
	assert_int_equal(cfg.c2c_tests, CFG_C2C_LATENCY | CFG_C2C_FALSE_SHARING | CFG_C2C_SHARED_BW);
	assert_true(cfg.c2c_size == 4160);

	/* Each bad value is one message and leaves the earlier value. */
	assert_int_equal(apply(&cfg, "c2c=1-2", &m), 0);
	static const struct { const char *text, *msg; } bad[] = {
		{ "c2c=0-1,1", "test.cfg line 1: c2c=0-1,1: '1' is not a pair of CPU numbers "
		  "(write A-B, e.g. 0-1, or all)" },
		{ "c2c=0-64", "test.cfg line 1: c2c=0-64: '0-64' names a CPU past 63" },
		{ "c2c=3-3", "test.cfg line 1: c2c=3-3: '3-3' pairs a CPU with itself" },
		{ "c2c=0-1,2-3,0-1", "test.cfg line 1: c2c=0-1,2-3,0-1: '0-1' is given twice" },
		{ "c2c=-1", "test.cfg line 1: c2c=-1: '-1' is not a pair of CPU numbers "
		  "(write A-B, e.g. 0-1, or all)" },
		{ "c2c.tests=c2c_latency,false", "test.cfg line 1: c2c.tests=c2c_latency,false: "
		  "'false' is not a test (c2c_latency|false_sharing|shared_bw|all)" },
		{ "c2c.rounds=0", "test.cfg line 1: c2c.rounds=0 out of range (1..1000000)" },
		{ "c2c.size=100", "test.cfg line 1: c2c.size=100 out of range (4K..256M)" },
		{ "c2c.size=4100", "test.cfg line 1: c2c.size=4100 is not a whole number of 64-byte "
		  "lines" },
		{ "c2c.size=1X", "test.cfg line 1: c2c.size=1X is not a size (a number with "
		  "optional K, M or G suffix)" },
	};
	for (unsigned i = 0; i < ARRAY_SIZE(bad); i++) {
		assert_int_equal(apply(&cfg, bad[i].text, &m), 1);
		assert_string_equal(m.text[0], bad[i].msg);
	}
	assert_int_equal(cfg.c2c_npairs, 1);
	assert_int_equal(cfg.c2c_pairs[0][0], 1);
	assert_int_equal(cfg.c2c_rounds, 50);

	/* 64 pairs fit (0-1 .. 0-63, 1-0); a 65th (2-0) does not. */
	char many[1024];
	size_t o = (size_t)snprintf(many, sizeof(many), "c2c=");
	for (unsigned i = 1; i <= 63; i++)
		o += (size_t)snprintf(many + o, sizeof(many) - o, "0-%u,", i);
	o += (size_t)snprintf(many + o, sizeof(many) - o, "1-0,2-0");
	assert_int_equal(apply(&cfg, many, &m), 1);
	assert_string_equal(m.text[0], "test.cfg line 1: c2c= has more than 64 pairs (c2c=all "
			    "measures every pair)");
	many[o - 4] = '\0';                     /* without ",2-0" */
	assert_int_equal(apply(&cfg, many, &m), 0);
	assert_int_equal(cfg.c2c_npairs, 64);
	assert_int_equal(cfg.c2c_pairs[63][0], 1);
}

static void test_every_key(void **state)
{
	(void)state;
	struct bp_config cfg;
	struct messages m;

	config_defaults(&cfg);
	assert_int_equal(apply(&cfg,
		"mode=selftest\npayloads=add_chain,mem_*\nevents=skl::INST_RETIRED:ANY_P,cycles\n"
		"cpl=3\nreps=100000\nwarmup=0\niters=0x100\nsizes=4k,1M,1G\nformat=machine\n"
		"serial.port=com4\nserial.baud=9600\ntrace=msr\ntrim=25\nwatchdog=600000\n"
		"insn_count=off\nnetburst.thread=both\nexit=no\n", &m), 0);
	assert_int_equal(cfg.mode, CFG_MODE_SELFTEST);
	assert_string_equal(cfg.payloads, "add_chain,mem_*");
	assert_string_equal(cfg.events, "skl::INST_RETIRED:ANY_P,cycles");
	assert_int_equal(cfg.cpls, CFG_CPL3);
	assert_int_equal(cfg.reps, 100000);
	assert_int_equal(cfg.warmup, 0);
	assert_true(cfg.iters == 256);
	assert_int_equal(cfg.nsizes, 3);
	assert_true(cfg.sizes[0] == 4096);
	assert_true(cfg.sizes[1] == 1048576);
	assert_true(cfg.sizes[2] == 1073741824);
	assert_int_equal(cfg.format, CFG_FORMAT_MACHINE);
	assert_int_equal(cfg.serial_port, 0x2e8);
	assert_int_equal(cfg.serial_baud, 9600);
	assert_true(cfg.trace_msr);
	assert_int_equal(cfg.trim_pct, 25);
	assert_int_equal(cfg.watchdog_ms, 600000);
	assert_false(cfg.single_step);
	assert_int_equal(cfg.nb_thread, 2);
	assert_false(cfg.exit_when_done);

	/* Word values ignore case; the other spellings of the same settings. */
	assert_int_equal(apply(&cfg, "mode=DETECT cpl=0,3 format=Human serial.port=0x2F8 "
			       "trace=none netburst.thread=1 exit=YES cpl=0", &m), 0);
	assert_int_equal(cfg.mode, CFG_MODE_DETECT);
	assert_int_equal(cfg.format, CFG_FORMAT_HUMAN);
	assert_int_equal(cfg.serial_kind, CFG_SERIAL_IO);
	assert_int_equal(cfg.serial_port, 0x2f8);
	assert_false(cfg.trace_msr);
	assert_int_equal(cfg.nb_thread, 1);
	assert_true(cfg.exit_when_done);
	assert_int_equal(cfg.cpls, CFG_CPL0);
	/* The consoles of lab servers: the SPCR's, a PCI UART (the first, or at an address),
	 * a memory-mapped one. */
	assert_int_equal(apply(&cfg, "serial.port=SPCR", &m), 0);
	assert_int_equal(cfg.serial_kind, CFG_SERIAL_SPCR);
	assert_int_equal(apply(&cfg, "serial.port=pci", &m), 0);
	assert_int_equal(cfg.serial_kind, CFG_SERIAL_PCI);
	assert_int_equal(apply(&cfg, "serial.port=00:1F.3", &m), 0);
	assert_int_equal(cfg.serial_kind, CFG_SERIAL_PCI_AT);
	assert_int_equal(cfg.serial_pci_bus, 0);
	assert_int_equal(cfg.serial_pci_dev, 0x1f);
	assert_int_equal(cfg.serial_pci_fn, 3);
	assert_int_equal(apply(&cfg, "serial.port=mmio32:0xfe030000", &m), 0);
	assert_int_equal(cfg.serial_kind, CFG_SERIAL_MMIO32);
	assert_true(cfg.serial_mmio == 0xfe030000u);
	assert_int_equal(apply(&cfg, "serial.port=mmio:0xfedc9000", &m), 0);
	assert_int_equal(cfg.serial_kind, CFG_SERIAL_MMIO);
	assert_true(cfg.serial_mmio == 0xfedc9000u);
	assert_int_equal(apply(&cfg, "serial.port=auto", &m), 0);
	assert_int_equal(cfg.serial_kind, CFG_SERIAL_AUTO);
	assert_int_equal(apply(&cfg, "mode=list", &m), 0);
	assert_int_equal(cfg.mode, CFG_MODE_LIST);
	assert_int_equal(apply(&cfg, "mode=List", &m), 0);
	assert_int_equal(cfg.mode, CFG_MODE_LIST);
	assert_int_equal(apply(&cfg, "mode=c2c", &m), 0);
	assert_int_equal(cfg.mode, CFG_MODE_C2C);
	assert_int_equal(apply(&cfg, "cpl=3,0 trace=msr,none,msr", &m), 0);
	assert_int_equal(cfg.cpls, CFG_CPL0 | CFG_CPL3);
	assert_true(cfg.trace_msr);
}

static void test_messages(void **state)
{
	(void)state;
	struct bp_config cfg;
	struct messages m;
	static const struct { const char *text, *msg; } cases[] = {
		{ "reps=5\nwarmup=1\n\nrep=3", "test.cfg line 4: unknown key 'rep' (did you mean 'reps'?)" },
		{ "reps=0", "test.cfg line 1: reps=0 out of range (1..100000)" },
		{ "reps=100001", "test.cfg line 1: reps=100001 out of range (1..100000)" },
		{ "reps=99999999999999999999999", "test.cfg line 1: reps=99999999999999999999999 out of range (1..100000)" },
		{ "reps=ten", "test.cfg line 1: reps=ten is not a number (1..100000)" },
		{ "# c\npayloads", "test.cfg line 2: 'payloads' needs a value (key=value)" },
		{ "payloads=", "test.cfg line 1: 'payloads' needs a value (key=value)" },
		{ "payloads=\"\"", "test.cfg line 1: 'payloads' needs a value (key=value)" },
		{ "payloads=a,,b", "test.cfg line 1: payloads=a,,b has an empty item (write name,name,...)" },
		{ "watchdg=5", "test.cfg line 1: unknown key 'watchdg' (did you mean 'watchdog'?)" },
		{ "xyzzy=1", "test.cfg line 1: unknown key 'xyzzy' (see docs/config.md for the keys)" },
		{ "=5", "test.cfg line 1: '=5' has no key (key=value)" },
		{ "mode=benchmark", "test.cfg line 1: mode=benchmark is not one of run|selftest|detect|crashtest|list|crashstack|pmucheck|c2c" },
		{ "mode=selftets", "test.cfg line 1: mode=selftets is not one of run|selftest|detect|crashtest|list|crashstack|pmucheck|c2c (did you mean 'selftest'?)" },
		{ "cpl=1", "test.cfg line 1: cpl=1 is not one of 0|3|both|0,3|3,0" },
		{ "sizes=4K,2G", "test.cfg line 1: sizes=4K,2G: '2G' out of range (4K..1G)" },
		{ "sizes=4095", "test.cfg line 1: sizes=4095: '4095' out of range (4K..1G)" },
		{ "sizes=8K,12Q", "test.cfg line 1: sizes=8K,12Q: '12Q' is not a size (a number with optional K, M or G suffix)" },
		{ "sizes=4K,", "test.cfg line 1: sizes=4K, has an empty item (write 4K,64K,...)" },
		{ "sizes=99999999999999999999G", "test.cfg line 1: sizes=99999999999999999999G: '99999999999999999999G' out of range (4K..1G)" },
		{ "sizes=17179869184G", "test.cfg line 1: sizes=17179869184G: '17179869184G' out of range (4K..1G)" },
		{ "serial.port=com5", "test.cfg line 1: serial.port=com5 is not auto, spcr, pci, com1..com4, an I/O port number (0x1..0xffff), a PCI address (bus:dev.fn, e.g. 00:1f.3) or mmio:ADDRESS (mmio32: for 32-bit registers)" },
		{ "serial.port=0x10000", "test.cfg line 1: serial.port=0x10000 is not auto, spcr, pci, com1..com4, an I/O port number (0x1..0xffff), a PCI address (bus:dev.fn, e.g. 00:1f.3) or mmio:ADDRESS (mmio32: for 32-bit registers)" },
		{ "serial.port=00:20.0", "test.cfg line 1: serial.port=00:20.0 is not auto, spcr, pci, com1..com4, an I/O port number (0x1..0xffff), a PCI address (bus:dev.fn, e.g. 00:1f.3) or mmio:ADDRESS (mmio32: for 32-bit registers)" },
		{ "serial.port=00:1f.8", "test.cfg line 1: serial.port=00:1f.8 is not auto, spcr, pci, com1..com4, an I/O port number (0x1..0xffff), a PCI address (bus:dev.fn, e.g. 00:1f.3) or mmio:ADDRESS (mmio32: for 32-bit registers)" },
		{ "serial.port=100:00.0", "test.cfg line 1: serial.port=100:00.0 is not auto, spcr, pci, com1..com4, an I/O port number (0x1..0xffff), a PCI address (bus:dev.fn, e.g. 00:1f.3) or mmio:ADDRESS (mmio32: for 32-bit registers)" },
		{ "serial.port=00:1f", "test.cfg line 1: serial.port=00:1f is not auto, spcr, pci, com1..com4, an I/O port number (0x1..0xffff), a PCI address (bus:dev.fn, e.g. 00:1f.3) or mmio:ADDRESS (mmio32: for 32-bit registers)" },
		{ "serial.port=00:1f.3x", "test.cfg line 1: serial.port=00:1f.3x is not auto, spcr, pci, com1..com4, an I/O port number (0x1..0xffff), a PCI address (bus:dev.fn, e.g. 00:1f.3) or mmio:ADDRESS (mmio32: for 32-bit registers)" },
		{ "serial.port=mmio:", "test.cfg line 1: serial.port=mmio:: the address after 'mmio:' is not a number from 1" },
		{ "serial.port=mmio32:0", "test.cfg line 1: serial.port=mmio32:0: the address after 'mmio32:' is not a number from 1" },
		{ "serial.port=mmio:fe030000", "test.cfg line 1: serial.port=mmio:fe030000: the address after 'mmio:' is not a number from 1" },
		{ "serial.baud=100000", "test.cfg line 1: serial.baud=100000 does not divide 115200 (the UART's base rate); try 115200, 57600, 38400, 19200 or 9600" },
		{ "serial.baud=230400", "test.cfg line 1: serial.baud=230400 out of range (1..115200)" },
		{ "trace=msr,pmc", "test.cfg line 1: trace=msr,pmc: 'pmc' is not a trace item (msr|none)" },
		{ "trim=26", "test.cfg line 1: trim=26 out of range (0..25)" },
		{ "watchdog=0", "test.cfg line 1: watchdog=0 out of range (1..600000)" },
		{ "iters=0", "test.cfg line 1: iters=0 out of range (1..1000000000000)" },
		{ "warmup=10001", "test.cfg line 1: warmup=10001 out of range (0..10000)" },
		/* a hint must be closer than the word is long: "on" is two edits from "off" */
		{ "insn_count=on", "test.cfg line 1: insn_count=on is not one of step|off" },
		{ "insn_count=of", "test.cfg line 1: insn_count=of is not one of step|off (did you mean 'off'?)" },
		{ "mode=r", "test.cfg line 1: mode=r is not one of run|selftest|detect|crashtest|list|crashstack|pmucheck|c2c" },
		{ "mode=rn", "test.cfg line 1: mode=rn is not one of run|selftest|detect|crashtest|list|crashstack|pmucheck|c2c (did you mean 'run'?)" },
		{ "netburst.thread=2", "test.cfg line 1: netburst.thread=2 is not one of auto|0|1|both" },
		{ "exit=maybe", "test.cfg line 1: exit=maybe is not one of yes|no" },
		{ "save=yes", "test.cfg line 1: save=yes is not one of auto|off" },
		{ "events=\"cycles", "test.cfg line 1: unterminated quote in 'events' (close it with \" on the same line)" },
		{ "reps=5;;\r\n\tReps=6", "test.cfg line 2: unknown key 'Reps' (did you mean 'reps'?)" },
		{ "mode=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
		  "test.cfg line 1: mode=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa... is not one of run|selftest|detect|crashtest|list|crashstack|pmucheck|c2c" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct bp_config before;
		config_defaults(&cfg);
		before = cfg;
		if (apply(&cfg, cases[i].text, &m) != 1)
			fail_msg("'%s': %u messages, first '%s'", cases[i].text, m.count, m.text[0]);
		assert_string_equal(m.text[0], cases[i].msg);
		if (strchr(cases[i].text, '\n') == NULL)
			assert_configs_equal(&cfg, &before);    /* the bad entry changed nothing */
	}
}

static void test_bad_entry_keeps_rest(void **state)
{
	(void)state;
	struct bp_config cfg;
	struct messages m;

	config_defaults(&cfg);
	assert_int_equal(apply(&cfg, "reps=7 sizes=8K,16K warmup=3", &m), 0);
	assert_int_equal(apply(&cfg,
		"reps=0\nsizes=8K,3G,16K\nwarmup=4\nserial.baud=7\nformat=human\ntrace=msr,x\n", &m), 4);
	assert_int_equal(cfg.reps, 7);                  /* untouched */
	assert_int_equal(cfg.nsizes, 2);                /* whole list rejected, old one kept */
	assert_true(cfg.sizes[0] == 8192 && cfg.sizes[1] == 16384);
	assert_int_equal(cfg.warmup, 4);                /* the good lines still apply */
	assert_int_equal(cfg.serial_baud, 115200);
	assert_int_equal(cfg.format, CFG_FORMAT_HUMAN);
	assert_false(cfg.trace_msr);                    /* "msr" before the bad item is not kept */
	assert_memory_equal(m.text[0], "test.cfg line 1:", 16);
	assert_memory_equal(m.text[1], "test.cfg line 2:", 16);
	assert_memory_equal(m.text[2], "test.cfg line 4:", 16);
	assert_memory_equal(m.text[3], "test.cfg line 6:", 16);
}

static void test_syntax(void **state)
{
	(void)state;
	struct bp_config cfg, def;
	struct messages m;

	config_defaults(&def);
	cfg = def;
	assert_int_equal(apply(&cfg, "", &m), 0);
	assert_int_equal(apply(&cfg, "# only a comment\n\n   # another\n;;;\n", &m), 0);
	assert_configs_equal(&cfg, &def);
	assert_int_equal(config_apply(&cfg, "null", NULL, 0, collect_error, &m), 0);
	assert_int_equal(config_apply(&cfg, "none", "reps=5", 0, collect_error, &m), 0);
	assert_configs_equal(&cfg, &def);

	/* Separators: newline, ';', blanks; comments to end of line; spaces around '='. */
	assert_int_equal(apply(&cfg, "reps=3;warmup=4 iters=50\ttrim=5 # reps=99\n"
			       "watchdog = 77\r\nformat =machine ;exit= no#x=1", &m), 0);
	assert_int_equal(cfg.reps, 3);
	assert_int_equal(cfg.warmup, 4);
	assert_true(cfg.iters == 50);
	assert_int_equal(cfg.trim_pct, 5);
	assert_int_equal(cfg.watchdog_ms, 77);
	assert_int_equal(cfg.format, CFG_FORMAT_MACHINE);
	assert_false(cfg.exit_when_done);

	/* Quotes keep separators inside a value and are not part of it. */
	assert_int_equal(apply(&cfg, "events=\"cycles, instructions;#x\" payloads=a\"b c\"d", &m), 0);
	assert_string_equal(cfg.events, "cycles, instructions;#x");
	assert_string_equal(cfg.payloads, "ab cd");

	/* Byte-order mark and a C string's terminating NUL are accepted. */
	const char bom[] = "\xef\xbb\xbfreps=12";
	assert_int_equal(config_apply(&cfg, "bom", bom, sizeof(bom), collect_error, &m), 0);
	assert_int_equal(cfg.reps, 12);
	assert_int_equal(apply(&cfg, "# caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\nreps=13", &m), 0);
	assert_int_equal(cfg.reps, 13);

	/* Later sources override earlier ones. */
	assert_int_equal(apply(&cfg, "reps=20 reps=21", &m), 0);
	assert_int_equal(cfg.reps, 21);

	/* A list of exactly CFG_LIST_MAX - 1 characters fits; one more does not. */
	char text[CFG_LIST_MAX + 64];
	strcpy(text, "events=");
	memset(text + 7, 'e', CFG_LIST_MAX - 1);
	text[7 + CFG_LIST_MAX - 1] = '\0';
	assert_int_equal(apply(&cfg, text, &m), 0);
	assert_int_equal(strlen(cfg.events), CFG_LIST_MAX - 1);
	strcpy(text, "events=");
	memset(text + 7, 'f', CFG_LIST_MAX);
	text[7 + CFG_LIST_MAX] = '\0';
	assert_int_equal(apply(&cfg, text, &m), 1);
	assert_string_equal(m.text[0], "test.cfg line 1: events list is too long (1024 characters, at most 1023)");
	memset(text + 7, 'g', CFG_LIST_MAX + 20);
	text[7 + CFG_LIST_MAX + 20] = '\0';
	assert_int_equal(apply(&cfg, text, &m), 1);
	assert_string_equal(m.text[0], "test.cfg line 1: 'events' value is too long (more than 1024 characters)");
	assert_true(cfg.events[0] == 'e');

	/* 32 sizes fit, 33 do not. */
	strcpy(text, "sizes=4K");
	for (int i = 1; i < CFG_SIZES_MAX; i++)
		strcat(text, ",8K");
	assert_int_equal(apply(&cfg, text, &m), 0);
	assert_int_equal(cfg.nsizes, CFG_SIZES_MAX);
	strcat(text, ",16K");
	assert_int_equal(apply(&cfg, text, &m), 1);
	assert_string_equal(m.text[0], "test.cfg line 1: sizes= has more than 32 sizes");
	assert_int_equal(cfg.nsizes, CFG_SIZES_MAX);
}

static void test_not_text(void **state)
{
	(void)state;
	struct bp_config cfg, def;
	struct messages m;
	static const struct { const char *bytes; size_t len; const char *msg; } cases[] = {
		{ "reps=5\n\0reps=6", 14, "bin line 2: not a text file (control byte 0x00 at offset 7); source ignored" },
		{ "reps=5 \x01", 8, "bin line 1: not a text file (control byte 0x01 at offset 7); source ignored" },
		{ "reps=5 \xff", 8, "bin line 1: not a text file (invalid UTF-8 byte 0xff at offset 7); source ignored" },
		{ "reps=5 \xc3", 8, "bin line 1: not a text file (invalid UTF-8 byte 0xc3 at offset 7); source ignored" },
		{ "\xc0\xaf", 2, "bin line 1: not a text file (invalid UTF-8 byte 0xc0 at offset 0); source ignored" },
		{ "\xed\xa0\x80", 3, "bin line 1: not a text file (invalid UTF-8 byte 0xed at offset 0); source ignored" },
		{ "\xf4\x90\x80\x80", 4, "bin line 1: not a text file (invalid UTF-8 byte 0xf4 at offset 0); source ignored" },
		{ "reps=5 \x80", 8, "bin line 1: not a text file (invalid UTF-8 byte 0x80 at offset 7); source ignored" },
		{ "\x7f" "ELF\x02\x01\x01", 7, "bin line 1: not a text file (control byte 0x7f at offset 0); source ignored" },
	};

	config_defaults(&def);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		cfg = def;
		memset(&m, 0, sizeof(m));
		assert_int_equal(config_apply(&cfg, "bin", cases[i].bytes, cases[i].len,
					      collect_error, &m), 1);
		assert_int_equal(m.count, 1);
		assert_string_equal(m.text[0], cases[i].msg);
		assert_configs_equal(&cfg, &def);
	}
}

/* A source longer than CFG_SOURCE_MAX is refused whole, with one error; never half
 * applied. The longest one that fits applies in full, its last entry too. */
static void test_oversized_source(void **state)
{
	(void)state;
	static char text[CFG_SOURCE_MAX + 2];
	struct bp_config cfg, def;
	struct messages m;
	const char *tail = "\nreps=37\n";
	size_t len = CFG_SOURCE_MAX;

	memset(text, '#', len);
	memcpy(text + len - strlen(tail), tail, strlen(tail));
	text[len] = '\0';
	config_defaults(&def);
	cfg = def;
	assert_int_equal(apply(&cfg, text, &m), 0);
	assert_int_equal(cfg.reps, 37);

	/* one byte more: the whole source goes, not just its end */
	memset(text, '#', len + 1);
	memcpy(text + len + 1 - strlen(tail), tail, strlen(tail));
	memcpy(text, "warmup=7\n", 9);
	text[len + 1] = '\0';
	cfg = def;
	assert_int_equal(apply(&cfg, text, &m), 1);
	assert_string_equal(m.text[0], "test.cfg: 8192 bytes, more than the 8191 a source may "
			    "have; source ignored");
	assert_configs_equal(&cfg, &def);

	/* what a loader or the fw_cfg reader could not hold gets the same message */
	memset(&m, 0, sizeof(m));
	assert_int_equal(config_refuse("bareperf.cfg", 1048590, CFG_SOURCE_MAX, collect_error, &m), 1);
	assert_int_equal(m.count, 1);
	assert_string_equal(m.text[0], "bareperf.cfg: 1048590 bytes, more than the 8191 a source "
			    "may have; source ignored");
}

static uint64_t rng = 88172645463325252ull;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static const char *pick(const char *const *list, size_t n)
{
	return list[next_rand() % n];
}
#define PICK(list) pick(list, ARRAY_SIZE(list))

static const char *const valid_entries[] = {
	"mode=run", "mode=selftest", "mode=detect", "mode=list", "payloads=add_chain", "payloads=mem_*,x?",
	"payloads=\"a b\"", "events=cycles", "events=skl::UOPS_ISSUED:ANY:c=1,instructions",
	"cpl=0", "cpl=3", "cpl=both", "reps=1", "reps=100000", "reps=0x10", "warmup=0",
	"warmup=10000", "iters=1", "iters=1000000000000", "sizes=4K", "sizes=1G,4K,0x3000",
	"sizes=12K,5M,1G", "sizes=4096,8192", "format=human", "format=machine", "format=both",
	"serial.port=com1", "serial.port=com3", "serial.port=0x2e8", "serial.port=1",
	"serial.port=auto", "serial.port=spcr", "serial.port=pci", "serial.port=00:1f.3",
	"serial.port=ff:00.7", "serial.port=mmio:0xfe030000", "serial.port=mmio32:0xfe031000",
	"serial.baud=115200", "serial.baud=1", "serial.baud=38400", "trace=msr", "trace=none",
	"trim=0", "trim=25", "watchdog=1", "watchdog=600000", "insn_count=step",
	"insn_count=off", "netburst.thread=0", "netburst.thread=1", "netburst.thread=both", "netburst.thread=auto",
	"exit=yes", "exit=no", "save=auto", "save=off", "cpu=0", "cpu=63", "partner=auto", "partner=none", "partner=1",
	"partner.load=idle", "partner.load=idle,spin,add_chain",
};

static void build_valid_config(char *buf, size_t size)
{
	static const char *const seps[] = { "\n", ";", " ", "\t", " # comment\n", "\r\n" };
	size_t used = 0;
	unsigned n = 1 + (unsigned)(next_rand() % 20);

	buf[0] = '\0';
	for (unsigned i = 0; i < n; i++) {
		int w = snprintf(buf + used, size - used, "%s%s", PICK(valid_entries), PICK(seps));
		assert_true(w > 0 && (size_t)w < size - used);
		used += (size_t)w;
	}
}

/* A configuration's report, fed back in, gives the same configuration. */
static void test_report_round_trip(void **state)
{
	(void)state;
	char text[4096];
	struct messages m;

	for (int round = 0; round < 500; round++) {
		struct bp_config a, b;
		struct report_lines r = { 0 };
		config_defaults(&a);
		build_valid_config(text, sizeof(text));
		if (apply(&a, text, &m) != 0)
			fail_msg("valid config gave '%s'", m.text[0]);
		config_report(&a, collect_line, &r);
		memset(&b, 0xa5, sizeof(b));    /* every field must come from the report */
		b.nsizes = 0;
		b.trace_msr = b.single_step = b.exit_when_done = false;     /* valid bools */
		if (apply(&b, r.text, &m) != 0)
			fail_msg("report '%s' gave '%s'", r.text, m.text[0]);
		assert_configs_equal(&a, &b);
	}
}

/* Random bytes and mutated valid configs: no crash (ASan, UBSan), and the error count
 * always matches the messages. */
static void test_fuzz(void **state)
{
	(void)state;
	static const char alphabet[] = "=;#\" \t\n\r,abcdefghijklmnopqrstuvwxyz.0123456789KMGx*?_";
	char text[4096];
	struct messages m;
	unsigned total_errors = 0, clean = 0;

	for (int round = 0; round < 20000; round++) {
		struct bp_config cfg;
		size_t len;
		config_defaults(&cfg);
		switch (round % 3) {
		case 0:         /* raw random bytes, sometimes text-like */
			len = next_rand() % 300;
			for (size_t i = 0; i < len; i++)
				text[i] = round % 2 ? (char)next_rand()
						    : alphabet[next_rand() % (sizeof(alphabet) - 1)];
			break;
		default:        /* valid config with a few bytes flipped, inserted or cut */
			build_valid_config(text, sizeof(text) - 64);
			len = strlen(text);
			for (unsigned k = (unsigned)(next_rand() % 4); k > 0 && len > 0; k--) {
				size_t at = next_rand() % len;
				switch (next_rand() % 3) {
				case 0: text[at] = alphabet[next_rand() % (sizeof(alphabet) - 1)]; break;
				case 1: memmove(text + at + 1, text + at, len - at); text[at] = '"'; len++; break;
				default: len = at; break;
				}
			}
			break;
		}
		/* Copy into an exact-size heap buffer so ASan sees any read past len. */
		char *exact = malloc(len ? len : 1);
		assert_non_null(exact);
		memcpy(exact, text, len);
		memset(&m, 0, sizeof(m));
		int n = config_apply(&cfg, "fuzz", exact, len, collect_error, &m);
		free(exact);
		assert_int_equal(n, (int)m.count);
		for (unsigned i = 0; i < m.count && i < MAX_MSGS; i++)
			assert_memory_equal(m.text[i], "fuzz", 4);
		total_errors += m.count;
		clean += m.count == 0;
		/* Whatever was accepted is within the documented ranges. */
		assert_true(cfg.reps >= 1 && cfg.reps <= 100000);
		assert_true(cfg.warmup <= 10000);
		assert_true(cfg.trim_pct <= 25);
		assert_true(cfg.nsizes >= 1 && cfg.nsizes <= CFG_SIZES_MAX);
		for (unsigned i = 0; i < cfg.nsizes; i++)
			assert_true(cfg.sizes[i] >= 4096 && cfg.sizes[i] <= (1ull << 30));
		assert_true(115200 % cfg.serial_baud == 0);
		assert_true(strlen(cfg.events) < CFG_LIST_MAX);
	}
	print_message("fuzz: 20000 inputs, %u errors reported, %u inputs clean\n", total_errors, clean);
	assert_true(clean > 0 && total_errors > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults_and_report),
		cmocka_unit_test(test_every_key),
		cmocka_unit_test(test_c2c_keys),
		cmocka_unit_test(test_pmu_key),
		cmocka_unit_test(test_lava_key),
		cmocka_unit_test(test_boot_menu_key),
		cmocka_unit_test(test_sample_keys),
		cmocka_unit_test(test_messages),
		cmocka_unit_test(test_bad_entry_keeps_rest),
		cmocka_unit_test(test_cpu_partner_keys),
		cmocka_unit_test(test_syntax),
		cmocka_unit_test(test_not_text),
		cmocka_unit_test(test_oversized_source),
		cmocka_unit_test(test_report_round_trip),
		cmocka_unit_test(test_fuzz),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
