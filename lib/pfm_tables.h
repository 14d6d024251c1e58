/*
 * Event tables generated from libpfm4 4.13 by scripts/gen/gen-pfm-tables.c into
 * build/gen/pfm_tables.c. The generator asks libpfm4 (public API only) for each x86
 * core PMU's events and unit masks and records how libpfm4 encodes them; lib/event.c
 * reproduces the encodings from these facts. Strings are offsets into pfmt_strings,
 * bit sets are offsets into pfmt_words (one bit per unit mask of the event).
 */
#ifndef LIB_PFM_TABLES_H
#define LIB_PFM_TABLES_H
#include <stdint.h>

enum pfmt_vendor { PFMT_INTEL = 0, PFMT_AMD = 1 };

/* Modifiers an event accepts (libpfm4 attribute names in comments). */
#define PFMT_MOD_U       0x0001u   /* u: user (CPL>0) */
#define PFMT_MOD_K       0x0002u   /* k: kernel (CPL0) */
#define PFMT_MOD_E       0x0004u   /* e: edge detect */
#define PFMT_MOD_I       0x0008u   /* i: invert cmask */
#define PFMT_MOD_C       0x0010u   /* c: counter mask */
#define PFMT_MOD_T       0x0020u   /* t: any thread (Intel) */
#define PFMT_MOD_H       0x0040u   /* h: host only (AMD fam10h+) */
#define PFMT_MOD_G       0x0080u   /* g: guest only (AMD fam10h+) */
#define PFMT_MOD_INTX    0x0100u   /* intx: in transaction (Intel TSX) */
#define PFMT_MOD_INTXCP  0x0200u   /* intxcp: in transaction, checkpointed */
#define PFMT_MOD_LDLAT   0x0400u   /* ldlat: needs PEBS load latency; not supported here */
#define PFMT_MOD_FETHR   0x0800u   /* fe_thres: frontend latency threshold (second code) */

/* Event flags */
#define PFMT_EV_NEEDS_UMASK 0x01u  /* libpfm4 rejects the event without a unit mask */
#define PFMT_EV_EXTRA_REG   0x02u  /* needs a second register bareperf cannot use (PEBS ldlat) */
#define PFMT_EV_EDGE_CMASK  0x04u  /* libpfm4 refuses e (edge) without c (counter mask) */
#define PFMT_EV_EXTRA_CODE  0x08u  /* the second code is built from the unit masks (offcore
                                      response, frontend); they all carry PFMT_UM_EXTRA_CODE */

/* Unit-mask flags */
#define PFMT_UM_DFL         0x01u  /* applied when no unit mask of its group is given */
#define PFMT_UM_SOLO_BAD    0x02u  /* libpfm4 rejects this unit mask on its own */
#define PFMT_UM_EXTRA_REG   0x04u  /* needs a second register bareperf cannot use (PEBS ldlat) */
#define PFMT_UM_OVERRIDE    0x08u  /* bits 7:0 of .bits replace the event select */
#define PFMT_UM_EXTRA_CODE  0x10u  /* .bits indexes pfmt_extras[]; no event-select bits */
#define PFMT_UM_FETHR       0x20u  /* fe_thres replaces the latency field of its second code */
#define PFMT_UM_FETHR_FIXED 0x40u  /* its second code fixes the latency: fe_thres must equal it */

struct pfmt_model {
	uint32_t name, desc;        /* pfmt_strings offsets */
	uint8_t vendor;             /* enum pfmt_vendor */
	uint8_t kind;               /* enum pmu_kind */
	uint8_t gp_counters, fixed_counters;
	uint32_t first_event;
	uint16_t nevents;
};

struct pfmt_event {
	uint32_t name;
	/* Intel: event-select bits 31:0 libpfm4 presets (event, maybe umask);
	 * AMD: the 12-bit event number (bits 11:8 go to event-select 35:32). */
	uint32_t code;
	uint32_t first_umask;
	uint16_t numasks;
	uint16_t mods;              /* PFMT_MOD_* */
	uint8_t flags;              /* PFMT_EV_* */
	uint8_t modhw;              /* PFMT_MOD_E/I/C fixed by the code (alias events such as
	                               core RS_UOPS_DISPATCHED_NONE = ...:i=1:c=1) */
};

struct pfmt_umask {
	uint32_t name;
	uint32_t bits;              /* event-select bits this unit mask sets (umask, hidden cmask/inv/edge) */
	uint32_t keep;              /* pfmt_words offset: default umasks still applied with this one */
	uint32_t compat;            /* pfmt_words offset: umasks libpfm4 accepts together with this one */
	uint8_t flags;              /* PFMT_UM_* */
	uint8_t modhw;              /* PFMT_MOD_E/I/C fixed by this unit mask (user may not change) */
};

/*
 * A unit mask's part of the second code (PFMT_UM_EXTRA_CODE). libpfm4 ORs the codes of
 * the chosen unit masks, then adds each unit-mask group's default when no unit mask of
 * that group was chosen, in group order; a default added can keep later groups' defaults
 * out (offcore ANY_RESPONSE keeps the snoop default out). For such a unit mask, .keep
 * holds the defaults it does not itself rule out.
 */
struct pfmt_extra {
	uint64_t chosen;            /* second-code bits when chosen (an alias: its targets') */
	uint64_t dfl;               /* bits when libpfm4 adds it as a default (its own code) */
	uint32_t blocks;            /* pfmt_words offset: defaults it keeps out once added */
	uint32_t evtsel;            /* event-select bits it sets: with PFMT_UM_OVERRIDE the
	                               event byte that replaces the event's, else 0 */
};

extern const char pfmt_strings[];
extern const struct pfmt_extra pfmt_extras[];
extern const uint32_t pfmt_words[];
extern const struct pfmt_model pfmt_models[];
extern const struct pfmt_event pfmt_events[];
extern const struct pfmt_umask pfmt_umasks[];
extern const unsigned pfmt_nmodels;

/* Words in a unit-mask bit set of an event with n unit masks. */
#define PFMT_SET_WORDS(n) (((n) + 31u) / 32u)

#endif
