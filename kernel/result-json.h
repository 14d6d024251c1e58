/*
 * The JSON bodies of the "@" records (schema: docs/results.md), formatted into a buffer:
 * pure, so the exact bytes are tested on the host. The report prints them after "@type ".
 */
#ifndef KERNEL_RESULT_JSON_H
#define KERNEL_RESULT_JSON_H
#include <stddef.h>
#include "arch/x86/pmu/pmucheck-suite.h"
#include "kernel/engine.h"
#include "lib/json-out.h"       /* json_escape */

/* Enough for any record below: names escape to at most 6 bytes per character. */
#define RESULT_JSON_MAX (6 * EV_NAME_MAX + 512)

/*
 * Each returns the length written, or -1 when buf is too small; buf is NUL-terminated
 * either way (when len > 0), holding as much as fitted.
 */
/* {"bench":...,"trimmed":N}: one @result. */
int result_json(const struct result *r, char *buf, size_t len);
/* {"name":...,"desc":...}: one @payload, the catalogue entry as mode=list prints it. */
int payload_json(const struct payload *pl, char *buf, size_t len);

/* {"check":...,"verdict":"pass"|"fail"|"skip",...}: one @check (mode=pmucheck), and
 * {"scope":...,"passed":N,...}: the @checkdone after the last. */
int check_json(const struct pmucheck_result *r, char *buf, size_t len);
int check_summary_json(const char *scope, const struct pmucheck_summary *s, char *buf, size_t len);
/* "PASS", "FAIL", "SKIP"; the JSON form is the lower case. */
const char *check_verdict_name(enum pmucheck_verdict v);

/* A sample is count(2n) - count(n); one below zero means the counter (or the TSC) went
 * back or the fixed costs changed between the runs. The @note text that says so, naming
 * payload, size, CPL, event and how many samples; 0 and "" when r has none. */
int result_negative_note(const struct result *r, char *buf, size_t len);

/* "pmu", "msr", "tsc", "single-step"; and the unit: "events", "ticks", "instructions". */
const char *result_source_name(enum result_source s);
const char *result_unit_name(enum result_source s);

#endif
