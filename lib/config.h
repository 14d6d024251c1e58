/*
 * bareperf.cfg and command-line configuration. Sources are applied in order (ESP file,
 * UEFI load options, QEMU fw_cfg string); a later value overrides an earlier one.
 * Syntax: key=value entries separated by newlines, ';' or whitespace; '#' starts a
 * comment to the end of the line. A bad entry is reported (line and key named) and
 * skipped; the rest still applies.
 */
#ifndef LIB_CONFIG_H
#define LIB_CONFIG_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "lib/cfg-lex.h"     /* CFG_SOURCE_MAX */

#define CFG_LIST_MAX   1024     /* bytes for list-valued keys */
#define CFG_SIZES_MAX  32
#define CFG_PAYLOADS_DEFAULT "*"    /* every payload in the catalogue */

/* User benchmarks (bench.NAME.KEY=..., lib/bench-config.c, docs/bench.md): machine code
 * the host assembled, carried as hex; the kernel unrolls and loops it. */
#define CFG_BENCH_MAX        16
#define CFG_BENCH_NAME_MAX   24         /* bytes with the NUL: 1..23 characters */
#define CFG_BENCH_CODE_MAX   4096       /* bytes of code (one copy) */
#define CFG_BENCH_INIT_MAX   1024       /* bytes of init code */
#define CFG_BENCH_TEXT_MAX   160        /* the source text, shown as the description */
#define CFG_BENCH_UNROLLED_MAX (256u * 1024)   /* code x unroll, checked by the kernel */
#define CFG_BENCH_LOOP_MAX   0x7fffffffu       /* loop counter is set by mov r15d/ebp, imm32 */
#define CFG_BENCH_UNROLL_DEFAULT 100

enum cfg_fill { CFG_FILL_ZERO = 0, CFG_FILL_RANDOM, CFG_FILL_CHASE };

/* A benchmark's machine code for one mode: bench.NAME.code/init/skip64 for 64-bit mode,
 * code32/init32/skip32 for 32-bit protected mode (scripts/bareperf-asm assembles both where
 * nasm can). Each kernel runs the one for its mode (payloads/userbench-64.c, -32.c). */
enum cfg_bench_mode { CFG_BENCH_64 = 0, CFG_BENCH_32, CFG_BENCH_MODES };

struct cfg_bench_code {
	uint8_t code[CFG_BENCH_CODE_MAX];
	uint32_t code_len;              /* 0: none for this mode */
	uint8_t init[CFG_BENCH_INIT_MAX];
	uint32_t init_len;
	char skip[CFG_BENCH_TEXT_MAX];  /* why there is no code for this mode (nasm's reason) */
};

struct cfg_bench {
	char name[CFG_BENCH_NAME_MAX];
	struct cfg_bench_code mode[CFG_BENCH_MODES];
	uint32_t unroll;                /* copies of the code back to back, >= 1 */
	uint32_t loop;                  /* iterations of the unrolled copies; 0: no loop */
	uint32_t align, offset;         /* the first copy sits at align * k + offset */
	uint64_t buffer;                /* bytes of the memory buffer (R14; ESI), 0: none */
	uint64_t buffer_align;
	unsigned fill;                  /* enum cfg_fill */
	uint32_t stride;                /* fill=chase: bytes between the chained words */
	char text[CFG_BENCH_TEXT_MAX];  /* the assembly it came from, for people */
	uint32_t refused;               /* keys the configuration refused: never measured */
};

/* crashtest: fault in the kernel on purpose, to check the fatal-error path (report, exit 2).
 * list: print the payload catalogue (@payload records) and stop.
 * crashstack: overflow the kernel stack into its guard page: the #DF path (report, exit 2).
 * pmucheck: the PMU checks (pmucheck) (docs/pmucheck.md).
 * c2c: the cross-core tests between pairs of CPUs (docs/c2c.md). */
enum cfg_mode { CFG_MODE_RUN = 0, CFG_MODE_SELFTEST, CFG_MODE_DETECT, CFG_MODE_CRASHTEST,
		CFG_MODE_LIST, CFG_MODE_CRASHSTACK, CFG_MODE_PMUCHECK, CFG_MODE_C2C };
enum cfg_format { CFG_FORMAT_BOTH = 0, CFG_FORMAT_HUMAN, CFG_FORMAT_MACHINE };

/* netburst.thread: which logical processor's events the ESCRs qualify (T0/T1). */
#define CFG_NB_T0    0u
#define CFG_NB_T1    1u
#define CFG_NB_BOTH  2u
#define CFG_NB_AUTO  3u       /* the one running the payload (its initial APIC ID) */

/* cpu= and partner= (kernel/smp.h numbers CPUs: 0 is the boot CPU). */
#define CFG_CPU_MAX        63u
#define CFG_PARTNER_AUTO   0xfffffffeu  /* the SMT sibling of cpu=, where it has one */
#define CFG_PARTNER_NONE   0xffffffffu
#define CFG_PARTNER_LOADS_MAX 8         /* partner.load items: one run of the plan each */

#define CFG_CPL0 0x1u
#define CFG_CPL3 0x2u

/* Cross-core measurements (docs/c2c.md). CPU numbers as kernel/smp.h counts them. */
#define CFG_C2C_CPUS          64        /* CPU numbers 0..63 (SMP_MAX_CPUS) */
#define CFG_C2C_PAIRS_MAX     64
#define CFG_C2C_LATENCY       0x1u      /* c2c_latency */
#define CFG_C2C_FALSE_SHARING 0x2u      /* false_sharing */
#define CFG_C2C_SHARED_BW     0x4u      /* shared_bw */

/* Where the serial console is (docs/config.md, serial.port). */
enum cfg_serial {
	CFG_SERIAL_AUTO,                /* the SPCR's UART, COM1-COM4, a PCI UART: the first that answers */
	CFG_SERIAL_IO,                  /* an I/O port */
	CFG_SERIAL_SPCR,                /* the UART ACPI's SPCR names */
	CFG_SERIAL_PCI,                 /* the first PCI 16550 (class 07, subclass 00) */
	CFG_SERIAL_PCI_AT,              /* the PCI function at bus:dev.fn */
	CFG_SERIAL_MMIO,                /* memory-mapped, 8-bit registers side by side */
	CFG_SERIAL_MMIO32,              /* memory-mapped, 32-bit registers 4 bytes apart */
};

struct bp_config {
	enum cfg_mode mode;             /* mode=run|selftest|detect|crashtest|list|crashstack|pmucheck|c2c */
	char payloads[CFG_LIST_MAX];    /* payloads=add_chain,mem_*  (names and globs, comma list) */
	char events[CFG_LIST_MAX];      /* events=cycles,instructions,skl::... (event_split_list) */
	unsigned cpls;                  /* cpl=0|3|both|0,3  -> CFG_CPL0|CFG_CPL3 */
	unsigned reps;                  /* reps=N           1..100000 */
	unsigned warmup;                /* warmup=N         0..10000 */
	uint64_t iters;                 /* iters=N          base iteration count n (2n also run) */
	unsigned nsizes;                /* sizes=4K,64K,8M  memory payload buffer sizes */
	uint64_t sizes[CFG_SIZES_MAX];
	enum cfg_format format;         /* format=human|machine|both */
	enum cfg_serial serial_kind;    /* serial.port=auto|spcr|pci|com1..com4|PORT|B:D.F|mmio:A */
	uint16_t serial_port;           /* CFG_SERIAL_IO: the I/O port */
	uint64_t serial_mmio;           /* CFG_SERIAL_MMIO, _MMIO32: the physical address */
	uint8_t serial_pci_bus, serial_pci_dev, serial_pci_fn;  /* CFG_SERIAL_PCI_AT */
	uint32_t serial_baud;           /* serial.baud=115200 (divides 115200) */
	bool serial_baud_given;         /* set by serial.baud (else an SPCR's rate may apply) */
	bool trace_msr;                 /* trace=msr (comma list; "none" clears) */
	unsigned trim_pct;              /* trim=N percent of outliers dropped at each end, 0..25 */
	uint32_t watchdog_ms;           /* watchdog=ms per payload run, 1..600000 */
	bool single_step;               /* insn_count=step|off  TF-counted instructions w/o PMU */
	unsigned nb_thread;             /* netburst.thread=auto|0|1|both: CFG_NB_* */
	unsigned cpu;                   /* cpu=N: the logical CPU that runs the payloads */
	unsigned partner;               /* partner=auto|none|N: CFG_PARTNER_* or a CPU number */
	char partner_load[CFG_LIST_MAX];/* partner.load=idle,spin,PAYLOAD: one plan run each */
	bool exit_when_done;            /* exit=yes|no  leave QEMU via isa-debug-exit */
	bool save_auto;                 /* save=auto|off  the log into the results area (docs/results-area.md) */
	char pmu[32];                   /* pmu=auto|<libpfm4 PMU name>: model to program, overriding
	                                   detection (e.g. to trace=msr a PMU QEMU does not have) */
	char sample_event[128];         /* sample.event=EVENT: sample the payload RIP ("" = off) */
	uint64_t sample_period;         /* sample.period=N events between samples */
	bool sample_nmi;                /* sample.delivery=vector|nmi: how the PMI arrives */
	unsigned c2c_npairs;            /* c2c=all (0: every pair of online CPUs) or A-B,...: */
	uint8_t c2c_pairs[CFG_C2C_PAIRS_MAX][2];        /* these pairs, A starts */
	unsigned c2c_tests;             /* c2c.tests=c2c_latency,false_sharing,shared_bw */
	uint32_t c2c_rounds;            /* c2c.rounds=N round trips per latency sample */
	uint32_t c2c_increments;        /* c2c.increments=N per CPU per false_sharing run */
	uint64_t c2c_size;              /* c2c.size=1M shared_bw buffer bytes */
	bool boot_menu;                 /* boot.menu=on|off: the boot menu (GRUB, UEFI loader); the
	                                   loaders act on it, the kernel only reports it */
	uint32_t boot_menu_timeout;     /* boot.menu_timeout=S: the menu's countdown; the loaders act on it */
	bool lava;                      /* lava=on|off: LAVA test-case signal lines besides format=
	                                   (docs/lava.md) */
	bool payloads_set;              /* payloads= was given (else user benchmarks run alone) */
	unsigned nbench;                /* bench.NAME.*: user benchmarks, in order of appearance */
	struct cfg_bench bench[CFG_BENCH_MAX];
};

/* Defaults: mode run, default catalogue, events "cycles,instructions", both CPLs,
 * reps 11, warmup 2, iters 1000, sizes 4K..64M powers of 4, format both, COM1 115200,
 * no trace, trim 0, watchdog 2000 ms, insn_count step, netburst.thread 0, exit yes,
 * no sampling (sample.period 100000, sample.delivery vector),
 * cpu 0, partner auto, partner.load idle;
 * c2c every pair, all three tests, 1000 round trips, 1000000 increments, 1M;
 * boot.menu on, lava off. */
void config_defaults(struct bp_config *cfg);

typedef void (*config_error_fn)(void *ctx, const char *msg);

/* Apply one source. `origin` names it in messages ("bareperf.cfg", "load options",
 * "--config"). Messages: "bareperf.cfg line 4: unknown key 'rep' (did you mean 'reps'?)".
 * Returns the number of errors reported. */
int config_apply(struct bp_config *cfg, const char *origin, const char *text, size_t len,
		 config_error_fn err, void *ctx);

/* One source is at most CFG_SOURCE_MAX bytes: config_apply refuses a longer one whole,
 * and a reader that could not hold a source of `size` bytes (more than `max`) reports it
 * here in the same words: "bareperf.cfg: 1048590 bytes, more than the 8191 a source may
 * have; source ignored". Returns the number of errors reported (1). */
int config_refuse(const char *origin, uint64_t size, uint64_t max, config_error_fn err,
		  void *ctx);

/* The value of key as config_report prints it (without "cfg.key="); -1 for no such key. */
int config_show_value(const struct bp_config *cfg, const char *key, char *buf, size_t buflen);
/* Emit the effective configuration as "cfg.key=value" lines (user benchmarks last). */
void config_report(const struct bp_config *cfg, void (*emit)(void *ctx, const char *line),
		   void *ctx);

/* "run", "selftest", ...: the word mode= takes. */
const char *cfg_mode_name(enum cfg_mode mode);

#endif
