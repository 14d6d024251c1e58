/* LAVA test-case signal lines for lava=on (kernel/lava-report.h). Formatting only. */
#include "kernel/lava-report.h"
#include "kernel/console.h"
#include "kernel/kernel.h"
#include "kernel/platform.h"
#include "kernel/result-json.h"
#include "lib/format.h"
#include "lib/lava.h"
#include "lib/stats.h"
#include "lib/str.h"
#include "lib/util.h"

static uint64_t id_slots[LAVA_REPORT_ID_SLOTS];
static struct lava_ids ids;
static bool started;
static unsigned lost;           /* cases that found the id table full */

/* The last case's id, taken before any other so that no result or check can have it. */
#define END_CASE_ID "bareperf_errors"

static bool on(void) { return kernel.cfg.lava && started; }

void lava_report_start(void)
{
	char id[LAVA_ID_MAX + 1] = END_CASE_ID;
	if (!kernel.cfg.lava)
		return;
	lava_ids_init(&ids, id_slots, LAVA_REPORT_ID_SLOTS);
	lava_id_claim(&ids, id);
	started = true;
	kprintf("%s\n", LAVA_START_LINE);
}

/* The line for the case id[] names, once the id is the run's own. */
static void emit(char id[LAVA_ID_MAX + 1], enum lava_result res, const char *measurement,
		 const char *units)
{
	char line[LAVA_LINE_MAX];
	if (lava_id_claim(&ids, id) < 0) {
		if (!lost++) {
			char msg[160];
			bp_snprintf(msg, sizeof(msg), "more than %u test cases: the rest get no "
				    "LAVA signal line (the run's last case fails)",
				    lava_ids_capacity(&ids));
			report_error("lava", msg);
		}
		return;
	}
	if (lava_testcase_line(line, sizeof(line), id, res, measurement, units) > 0)
		kprintf("%s", line);
}

/* "4k", "64m", "1g", or bytes: the size in an id. */
static void size_word(char *buf, size_t len, uint64_t size)
{
	static const struct { uint64_t unit; const char *suffix; } units[] = {
		{ SIZE_G, "g" }, { SIZE_M, "m" }, { SIZE_K, "k" },
	};
	for (unsigned i = 0; i < ARRAY_SIZE(units); i++)
		if (size >= units[i].unit && size % units[i].unit == 0) {
			bp_snprintf(buf, len, "%llu%s", (unsigned long long)(size / units[i].unit),
				    units[i].suffix);
			return;
		}
	bp_snprintf(buf, len, "%llu", (unsigned long long)size);
}

/* bench[_size]_cplN_event[_source][_cpuN[_partnerM_load]]: what tells one result from
 * another in a run (the source where it is not the event's own name, as tsc's is). */
void lava_report_result(const struct result *r)
{
	char id[LAVA_ID_MAX + 1] = "", word[40], m[32], units[40];
	const char *source = result_source_name(r->source);
	if (!on())
		return;
	lava_id_add(id, r->pl->name);
	if (r->size) {
		size_word(word, sizeof(word), r->size);
		lava_id_add(id, word);
	}
	bp_snprintf(word, sizeof(word), "cpl%u", r->cpl);
	lava_id_add(id, word);
	lava_id_add(id, r->event);
	if (strcmp(source, r->event))
		lava_id_add(id, source);
	if (r->placed) {
		bp_snprintf(word, sizeof(word), "cpu%u", r->cpu);
		lava_id_add(id, word);
		if (r->partner >= 0) {
			bp_snprintf(word, sizeof(word), "partner%d", r->partner);
			lava_id_add(id, word);
			lava_id_add(id, r->partner_load ? r->partner_load : "idle");
		}
	}
	stats_fmt_milli(m, sizeof(m), r->per_iter_milli);
	bp_snprintf(units, sizeof(units), "%s/iter",
		    r->energy ? "energy-units" : result_unit_name(r->source));
	emit(id, LAVA_PASS, m, units);
}

void lava_report_c2c(const char *test, unsigned a, unsigned b, int64_t milli, const char *units)
{
	char id[LAVA_ID_MAX + 1] = "", word[32], m[32];
	if (!on())
		return;
	lava_id_add(id, test);
	bp_snprintf(word, sizeof(word), "cpu%u_cpu%u", a, b);
	lava_id_add(id, word);
	stats_fmt_milli(m, sizeof(m), milli);
	emit(id, LAVA_PASS, m, units);
}

void lava_report_check(const struct pmucheck_result *r)
{
	static const enum lava_result verdict[] = {
		[PMUCHECK_PASS] = LAVA_PASS, [PMUCHECK_FAIL] = LAVA_FAIL, [PMUCHECK_SKIP] = LAVA_SKIP,
	};
	char id[LAVA_ID_MAX + 1] = "pmucheck";
	if (!on())
		return;
	lava_id_add(id, r->name);
	emit(id, verdict[r->verdict], NULL, NULL);
}

void lava_report_selftest(const char *name, bool ok, bool skipped)
{
	char id[LAVA_ID_MAX + 1] = "selftest";
	if (!on())
		return;
	lava_id_add(id, name);
	emit(id, skipped ? LAVA_SKIP : ok ? LAVA_PASS : LAVA_FAIL, NULL, NULL);
}

int lava_report_end(int code)
{
	char line[LAVA_LINE_MAX];
	if (!on())
		return code;
	if (lost)
		code = PLATFORM_EXIT_FAIL;
	lava_testcase_line(line, sizeof(line), END_CASE_ID,
			   code == PLATFORM_EXIT_OK ? LAVA_PASS : LAVA_FAIL, NULL, NULL);
	kprintf("%s%s\n", line, LAVA_END_LINE);
	started = false;
	return code;
}
