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

#define CFG_SOURCE_MAX 8191     /* bytes in one source; a longer one is refused whole */
#define CFG_LIST_MAX   1024     /* bytes for list-valued keys */
#define CFG_SIZES_MAX  32
#define CFG_PAYLOADS_DEFAULT "*"    /* every payload in the catalogue */

/* crashtest: fault in the kernel on purpose, to check the fatal-error path (report, exit 2).
 * list: print the payload catalogue (@payload records) and stop. */
enum cfg_mode { CFG_MODE_RUN = 0, CFG_MODE_SELFTEST, CFG_MODE_DETECT, CFG_MODE_CRASHTEST,
		CFG_MODE_LIST };
enum cfg_format { CFG_FORMAT_BOTH = 0, CFG_FORMAT_HUMAN, CFG_FORMAT_MACHINE };

/* netburst.thread: which logical processor's events the ESCRs qualify (T0/T1). */
#define CFG_NB_T0    0u
#define CFG_NB_T1    1u
#define CFG_NB_BOTH  2u
#define CFG_NB_AUTO  3u       /* the one running the payload (its initial APIC ID) */

#define CFG_CPL0 0x1u
#define CFG_CPL3 0x2u

struct bp_config {
	enum cfg_mode mode;             /* mode=run|selftest|detect|crashtest|list */
	char payloads[CFG_LIST_MAX];    /* payloads=add_chain,mem_*  (names and globs, comma list) */
	char events[CFG_LIST_MAX];      /* events=cycles,instructions,skl::... (event_split_list) */
	unsigned cpls;                  /* cpl=0|3|both|0,3  -> CFG_CPL0|CFG_CPL3 */
	unsigned reps;                  /* reps=N           1..100000 */
	unsigned warmup;                /* warmup=N         0..10000 */
	uint64_t iters;                 /* iters=N          base iteration count n (2n also run) */
	unsigned nsizes;                /* sizes=4K,64K,8M  memory payload buffer sizes */
	uint64_t sizes[CFG_SIZES_MAX];
	enum cfg_format format;         /* format=human|machine|both */
	uint16_t serial_port;           /* serial.port=0x3f8|com1..com4 */
	uint32_t serial_baud;           /* serial.baud=115200 (divides 115200) */
	bool trace_msr;                 /* trace=msr (comma list; "none" clears) */
	unsigned trim_pct;              /* trim=N percent of outliers dropped at each end, 0..25 */
	uint32_t watchdog_ms;           /* watchdog=ms per payload run, 1..600000 */
	bool single_step;               /* insn_count=step|off  TF-counted instructions w/o PMU */
	unsigned nb_thread;             /* netburst.thread=auto|0|1|both: CFG_NB_* */
	bool exit_when_done;            /* exit=yes|no  leave QEMU via isa-debug-exit */
	char pmu[32];                   /* pmu=auto|<libpfm4 PMU name>: model to program, overriding
	                                   detection (e.g. to trace=msr a PMU QEMU does not have) */
};

/* Defaults: mode run, default catalogue, events "cycles,instructions", both CPLs,
 * reps 11, warmup 2, iters 1000, sizes 4K..64M powers of 4, format both, COM1 115200,
 * no trace, trim 0, watchdog 2000 ms, insn_count step, netburst.thread 0, exit yes. */
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

/* Emit the effective configuration as "cfg.key=value" lines. */
void config_report(const struct bp_config *cfg, void (*emit)(void *ctx, const char *line),
		   void *ctx);

#endif
