/*
 * libFuzzer target: the event language (lib/event.c, NetBurst forms in
 * lib/p4-event-parse.c) as kernel/plan.c drives it: an events= list cut by
 * event_split_list, each piece parsed by event_parse for one PMU model with that
 * model's default capabilities and its generation's generic-event map.
 *
 * Input: an optional first line naming the libpfm4 model ("skl\n", "netburst\n"), then
 * the list. Without a known model name on the first line the whole input is the list
 * and the model is skl. The list is also parsed whole as one event, which reaches the
 * length and character checks that splitting would hide.
 *
 * Checks, from lib/event.h: a failure has a message, a success keeps the text as its
 * name; a GP encoding has EN set and INT clear; a NetBurst one never sets T1 or
 * overflow/interrupt bits.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/p4-regs.h"
#include "arch/x86/pmu/pmu.h"
#include "lib/event.h"

#define INPUT_MAX 4096
#define EVTSEL_INT (1ull << 20)     /* SDM Vol. 3B Figure 20-6 */
#define EVTSEL_EN  (1ull << 22)

static void fail(const char *what, const char *text, const char *model)
{
	fprintf(stderr, "fuzz_event: %s: '%s' on %s\n", what, text, model);
	abort();
}

static void parse_one(const struct pmu_model *m, const struct pmu_caps *pc,
		      const struct ev_generic_map *gm, const char *text)
{
	struct ev_encoding ev;
	char err[256];

	memset(err, 'x', sizeof(err));
	if (event_parse(m, pc, gm, text, &ev, err, sizeof(err)) != 0) {
		if (!memchr(err, '\0', sizeof(err)) || err[0] == '\0')
			fail("rejected without a terminated message", text, m->pfm_name);
		return;
	}
	if (strcmp(ev.name, text) != 0)
		fail("name is not the text", text, m->pfm_name);
	switch (ev.cls) {
	case EV_CLASS_GP:
		if (!(ev.evtsel & EVTSEL_EN) || (ev.evtsel & EVTSEL_INT))
			fail("event select without EN or with INT", text, m->pfm_name);
		break;
	case EV_CLASS_NETBURST:
		if (ev.nb.escr & (P4_ESCR_T1_USR | P4_ESCR_T1_OS))
			fail("NetBurst ESCR with T1 bits", text, m->pfm_name);
		if (ev.nb.cccr & (P4_CCCR_OVF | P4_CCCR_OVF_PMI_T0 | P4_CCCR_OVF_PMI_T1))
			fail("NetBurst CCCR with overflow bits", text, m->pfm_name);
		break;
	default:
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char text[INPUT_MAX + 1];
	static char names[EV_MAX_EVENTS][EV_NAME_MAX];
	const struct pmu_model *m = NULL;
	struct pmu_caps pc;
	char err[256];

	if (size > INPUT_MAX)
		size = INPUT_MAX;
	memcpy(text, data, size);
	text[size] = '\0';

	const char *list = text;
	char *nl = memchr(text, '\n', size);
	if (nl) {
		*nl = '\0';
		m = pmu_model_by_name(text);
		if (m)
			list = nl + 1;
		else
			*nl = '\n';
	}
	if (!m)
		m = pmu_model_by_name("skl");
	pmu_model_default_caps(m, &pc);
	const struct ev_generic_map *gm = pmu_generic_map_for_model(m);

	parse_one(m, &pc, gm, list);
	int n = event_split_list(list, names, EV_MAX_EVENTS, err, sizeof(err));
	if (n < 0) {
		if (err[0] == '\0')
			fail("list rejected without a message", list, m->pfm_name);
		return 0;
	}
	if (n > EV_MAX_EVENTS)
		fail("more events than the maximum", list, m->pfm_name);
	for (int i = 0; i < n; i++) {
		if (names[i][0] == '\0' || strlen(names[i]) >= EV_NAME_MAX)
			fail("empty or overlong piece", list, m->pfm_name);
		parse_one(m, &pc, gm, names[i]);
	}
	return 0;
}
