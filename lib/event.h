/*
 * The event language: perf generic names, libpfm4 names with modifiers, raw forms.
 * Parsing and encoding are pure (no hardware); the PMU backends allocate and program.
 */
#ifndef LIB_EVENT_H
#define LIB_EVENT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "lib/cpuinfo.h"

#define EV_NAME_MAX 256       /* longest libpfm4 name with two unit masks is 134 */
#define EV_MAX_EVENTS 32        /* events in one measurement plan */

enum ev_class {
	EV_CLASS_GP,            /* Intel/AMD event-select counter (may also fit a fixed counter) */
	EV_CLASS_NETBURST,      /* ESCR + CCCR pair */
	EV_CLASS_TSC,           /* time-stamp counter, always available */
	EV_CLASS_APERF,         /* IA32_APERF (CPUID.6:ECX[0]) */
	EV_CLASS_MPERF,         /* IA32_MPERF */
	EV_CLASS_ENERGY,        /* a RAPL energy status MSR (lib/rapl.h) */
};

/* A core PMU model as libpfm4 names it ("skl", "netburst", "amd64_fam17h", "core", ...). */
struct pmu_model {
	const char *pfm_name;
	const char *desc;
	enum pmu_kind kind;
	unsigned table;         /* index into the generated libpfm4 tables, or ~0u for none */
};

/* Look up by libpfm4 PMU name; NULL if unknown. */
const struct pmu_model *pmu_model_by_name(const char *name);
/* The same for the first n bytes of name (a "model::event" prefix). */
const struct pmu_model *pmu_model_by_name_n(const char *name, size_t n);
/* The model for a detected CPU: libpfm4's (vendor, family, model) match, else the
 * architectural-events model (Intel) or the family model (AMD); never NULL. */
const struct pmu_model *pmu_model_for_cpu(const struct cpu_info *ci, const struct pmu_caps *pc);
/* Every known model, for listings: index 0 .. pmu_model_count()-1. */
unsigned pmu_model_count(void);
const struct pmu_model *pmu_model_at(unsigned i);
/* Capabilities a model implies when no CPUID is at hand (host tool --pmu NAME). */
void pmu_model_default_caps(const struct pmu_model *m, struct pmu_caps *pc);

/* The NetBurst part of an encoding (lib/p4-events.h has the tables it indexes). */
struct ev_netburst {
	uint16_t event;             /* index into nb_event_table (its ESCRs, CCCR select) */
	uint32_t escr;              /* ESCR value for logical processor 0: event select, event
	                               mask (replay_event's virtual bits removed), tag, and
	                               T0_OS/T0_USR; never T1_* (the backend sets those) */
	uint32_t cccr;              /* CCCR value as libpfm4 encodes it: enable, the event's
	                               ESCR select, active thread 11b, compare/complement/
	                               threshold/edge; never overflow/interrupt bits */
	bool usr, os;               /* privilege levels requested */
	bool both_threads;          /* count both logical processors (HT only) */
};

/* A second register some Intel events program besides the event select; arch/x86/pmu
 * maps each kind to its MSR (msr-index.h). */
enum ev_extra_reg {
	EV_EXTRA_NONE,
	EV_EXTRA_OFFCORE_RSP_0,     /* MSR_OFFCORE_RSP_0: offcore response, first register */
	EV_EXTRA_OFFCORE_RSP_1,     /* MSR_OFFCORE_RSP_1 */
	EV_EXTRA_FRONTEND,          /* MSR_PEBS_FRONTEND: FRONTEND_RETIRED's event and latency */
	EV_EXTRA_COUNT
};

struct ev_encoding {
	enum ev_class cls;
	char name[EV_NAME_MAX];     /* the text the user wrote */
	union {
		struct {            /* EV_CLASS_GP */
			/* The full event-select value as the kernel writes it: EN (bit 22)
			 * set, INT (bit 20) clear; AMD event-select bits 35:32 included. */
			uint64_t evtsel;
			uint32_t gp_mask;       /* GP counters allowed (bit i = counter i); 0 = none */
			uint32_t fixed_mask;    /* fixed counters that count exactly this event */
			enum ev_extra_reg extra;        /* second register, or EV_EXTRA_NONE */
			uint64_t extra_value;   /* its value (libpfm4's codes[1]) */
		};
		struct ev_netburst nb;  /* EV_CLASS_NETBURST */
		struct {                /* EV_CLASS_ENERGY */
			uint8_t domain;         /* enum rapl_domain */
			uint8_t esu;            /* one count = 1/2^esu joules */
			bool amd;               /* AMD's MSRs, else Intel's */
		} energy;
	};
};

/* perf's generic event names. */
enum ev_generic { EV_GEN_CYCLES, EV_GEN_INSTRUCTIONS, EV_GEN_REF_CYCLES, EV_GEN_BRANCHES,
		  EV_GEN_BRANCH_MISSES, EV_GEN_CACHE_REFS, EV_GEN_CACHE_MISSES, EV_GEN_COUNT };

/* One row of a PMU generation's generic-event map (the generation's descriptor holds
 * its rows; the last row has model_prefix NULL and serves every other model). */
struct ev_generic_map {
	const char *model_prefix;       /* libpfm4 models this row is for ("amd64_fam17h") */
	uint64_t code[EV_GEN_COUNT];    /* event select without USR/OS/EN; 0 = not available */
	const char *pfm[EV_GEN_COUNT];  /* NetBurst: libpfm4 event strings instead of codes */
	/* Intel architectural events: CPUID.0AH:EBX bit that says event i is unavailable,
	 * -1 for none; only read when cpuid_0a is set. */
	bool cpuid_0a;
	int8_t cpuid_0a_bit[EV_GEN_COUNT];
};

/*
 * Parse one event for model m with capabilities pc; perf generic names come from gm,
 * the map of m's PMU generation (pmu_generic_map() in arch/x86/pmu/pmu.h; NULL: none).
 * Returns 0, or -1 with a specific message in err ("unknown event 'FOO' for PMU skl (did you mean 'BAR'?)",
 * "thr=16 out of range 0-15", ...).
 */
int event_parse(const struct pmu_model *m, const struct pmu_caps *pc,
		const struct ev_generic_map *gm, const char *text, struct ev_encoding *out,
		char *err, size_t errlen);

/* Split an events= list at commas that are not inside cpu/.../ or p4/.../.
 * Returns count, or -1 (err) when more than max. Pieces are copied into names[]. */
int event_split_list(const char *list, char names[][EV_NAME_MAX], unsigned max,
		     char *err, size_t errlen);

#endif
