/*
 * The PMU models: libpfm4's (from build/gen/pfm_tables.c) plus the hand-tabled ones, the
 * CPUID signature that picks each, and the counters each has when CPUID cannot say.
 */
#include "lib/event.h"
#include "lib/pfm_tables.h"
#include "lib/pmu-layout.h"
#include "lib/str.h"
#include "lib/util.h"

/* Models with no libpfm4 table here: NetBurst is hand-tabled by its backend, and
 * libpfm4 fills ix86arch from the running CPU's CPUID. (The P6 family's tables, in
 * libpfm4's i386 build only, are generated from libpfm4:i386: scripts/gen/.) */
static const struct pmu_model hand_models[] = {
	{ .pfm_name = "netburst", .desc = "Pentium4", .kind = PMU_INTEL_NETBURST, .table = ~0u },
	{ .pfm_name = "netburst_p", .desc = "Pentium4 (Prescott)", .kind = PMU_INTEL_NETBURST, .table = ~0u },
	{ .pfm_name = "ix86arch", .desc = "Intel X86 architectural PMU", .kind = PMU_INTEL_ARCH, .table = ~0u },
};
#define NHAND (ARRAY_SIZE(hand_models))
#define PFM_MODELS_MAX 64

/* Filled on first use from the generated table (no static constructors). */
static struct pmu_model pfm_models[PFM_MODELS_MAX];
static unsigned npfm_models;

static void models_init(void)
{
	if (npfm_models)
		return;
	for (unsigned i = 0; i < pfmt_nmodels && i < PFM_MODELS_MAX; i++) {
		pfm_models[i].pfm_name = pfmt_strings + pfmt_models[i].name;
		pfm_models[i].desc = pfmt_strings + pfmt_models[i].desc;
		pfm_models[i].kind = (enum pmu_kind)pfmt_models[i].kind;
		pfm_models[i].table = i;
	}
	npfm_models = pfmt_nmodels < PFM_MODELS_MAX ? pfmt_nmodels : PFM_MODELS_MAX;
}

unsigned pmu_model_count(void)
{
	models_init();
	return npfm_models + NHAND;
}

/* Model I, the table filled. */
static const struct pmu_model *model_at(unsigned i)
{
	if (i < npfm_models)
		return &pfm_models[i];
	i -= npfm_models;
	return i < NHAND ? &hand_models[i] : NULL;
}

const struct pmu_model *pmu_model_at(unsigned i)
{
	models_init();
	return model_at(i);
}

/* Every event string with a "pmu::" prefix comes here: the table is filled once, not for
 * each model tried, and names whose first letter differs (two letters equal but for case
 * are equal with bit 5 set) are passed over before their length is counted. */
const struct pmu_model *pmu_model_by_name_n(const char *name, size_t n)
{
	unsigned count = pmu_model_count();
	for (unsigned i = 0; i < count; i++) {
		const struct pmu_model *m = model_at(i);
		if (n && (m->pfm_name[0] | 0x20) == (name[0] | 0x20) && strlen(m->pfm_name) == n &&
		    !str_ncasecmp(m->pfm_name, name, n))
			return m;
	}
	return NULL;
}

const struct pmu_model *pmu_model_by_name(const char *name)
{
	return pmu_model_by_name_n(name, strlen(name));
}

/* Display family 6 model numbers -> libpfm4 model (SDM Vol. 4 Table 2-1, Linux
 * arch/x86/include/asm/intel-family.h). */
struct cpu_match { uint8_t model; const char *pmu; };
static const struct cpu_match intel_fam6[] = {
	{ 0x0e, "coreduo" },
	{ 0x0f, "core" }, { 0x16, "core" }, { 0x17, "core" }, { 0x1d, "core" },
	{ 0x1c, "atom" }, { 0x26, "atom" }, { 0x27, "atom" }, { 0x35, "atom" }, { 0x36, "atom" },
	{ 0x1a, "nhm" }, { 0x1e, "nhm" }, { 0x1f, "nhm" }, { 0x2e, "nhm_ex" },
	{ 0x25, "wsm" }, { 0x2c, "wsm_dp" }, { 0x2f, "wsm_dp" },
	{ 0x2a, "snb" }, { 0x2d, "snb_ep" }, { 0x3a, "ivb" }, { 0x3e, "ivb_ep" },
	{ 0x3c, "hsw" }, { 0x45, "hsw" }, { 0x46, "hsw" }, { 0x3f, "hsw_ep" },
	{ 0x3d, "bdw" }, { 0x47, "bdw" }, { 0x4f, "bdw_ep" }, { 0x56, "bdw_ep" },
	{ 0x4e, "skl" }, { 0x5e, "skl" }, { 0x8e, "skl" }, { 0x9e, "skl" }, { 0xa5, "skl" },
	{ 0xa6, "skl" }, { 0x55, "skx" },
	{ 0x37, "slm" }, { 0x4a, "slm" }, { 0x4c, "slm" }, { 0x4d, "slm" }, { 0x5a, "slm" },
	{ 0x5d, "slm" }, { 0x5c, "glm" }, { 0x5f, "glm" }, { 0x7a, "glm" },
	{ 0x86, "tmt" }, { 0x96, "tmt" }, { 0x9c, "tmt" },
	{ 0x57, "knl" }, { 0x85, "knm" },
	{ 0x7d, "icl" }, { 0x7e, "icl" }, { 0xa7, "icl" }, { 0x8c, "icl" }, { 0x8d, "icl" },
	{ 0x6a, "icx" }, { 0x6c, "icx" }, { 0x8f, "spr" }, { 0xcf, "spr" },
	/* the P6 family, as libpfm4:i386 detects it (test_encode_pfm checks): Pentium Pro,
	 * Pentium II, Pentium III ("p6"), Pentium M; Core Duo/Solo is 0x0e above */
	{ 0x01, "ppro" }, { 0x03, "pii" }, { 0x05, "pii" }, { 0x06, "pii" }, { 0x07, "p6" },
	{ 0x08, "p6" }, { 0x0a, "p6" }, { 0x0b, "p6" }, { 0x09, "pm" }, { 0x0d, "pm" },
};

static const char *amd_model_name(unsigned family, unsigned model)
{
	switch (family) {
	case 0x06: return "amd64_k7";
	case 0x0f:  /* K8 revisions by model range (AMD Revision Guide for family 0Fh) */
		if (model >= 0x68) return "amd64_k8_revg";
		if (model >= 0x40) return "amd64_k8_revf";
		if (model >= 0x20) return "amd64_k8_reve";
		if (model >= 0x10) return "amd64_k8_revd";
		return "amd64_k8_revc";
	case 0x10:
		if (model >= 0x08) return "amd64_fam10h_istanbul";
		if (model >= 0x04) return "amd64_fam10h_shanghai";
		return "amd64_fam10h_barcelona";
	case 0x11: return "amd64_fam11h_turion";
	case 0x12: return "amd64_fam12h_llano";
	case 0x14: return "amd64_fam14h_bobcat";
	case 0x15: return "amd64_fam15h_interlagos";
	case 0x16: return "amd64_fam16h";
	case 0x17: return model >= 0x30 ? "amd64_fam17h_zen2" : "amd64_fam17h_zen1";
	case 0x18: return "amd64_fam17h_zen1";      /* Hygon Dhyana */
	case 0x19:  /* Zen 4: Genoa 10h-1Fh, Raphael/Phoenix 60h-7Fh, Bergamo A0h-AFh */
		if ((model >= 0x10 && model <= 0x1f) || (model >= 0x60 && model <= 0x7f) ||
		    (model >= 0xa0 && model <= 0xaf))
			return "amd64_fam19h_zen4";
		return "amd64_fam19h_zen3";
	default:
		return family > 0x19 ? "amd64_fam19h_zen4" : NULL;
	}
}

const struct pmu_model *pmu_model_for_cpu(const struct cpu_info *ci, const struct pmu_caps *pc)
{
	const char *name = NULL;
	if (ci->vendor == VENDOR_INTEL) {
		if (ci->family == 15)   /* libpfm4: Prescott models 3, 4, 6 have one more event */
			name = ci->model == 3 || ci->model == 4 || ci->model == 6 ? "netburst_p" : "netburst";
		else if (ci->family == 6) {
			for (unsigned i = 0; i < ARRAY_SIZE(intel_fam6); i++)
				if (intel_fam6[i].model == ci->model)
					name = intel_fam6[i].pmu;
			if (ci->model == 0x55 && ci->stepping >= 5)
				name = "clx";   /* Cascade Lake / Cooper Lake share Skylake-X's model */
		}
		if (!name)
			name = pc->kind == PMU_INTEL_P6 ? "p6" : "ix86arch";
	} else if (ci->vendor == VENDOR_AMD || ci->vendor == VENDOR_HYGON) {
		name = amd_model_name(ci->family, ci->model);
	}
	const struct pmu_model *m = name ? pmu_model_by_name(name) : NULL;
	if (m)
		return m;
	/* Unknown vendor or family: the kind decides. */
	switch (pc->kind) {
	case PMU_INTEL_NETBURST: return pmu_model_by_name("netburst");
	case PMU_INTEL_P6: return pmu_model_by_name("p6");
	case PMU_AMD_LEGACY: return pmu_model_by_name("amd64_k8_revg");
	case PMU_AMD_CORE: return pmu_model_by_name("amd64_fam17h_zen2");
	case PMU_AMD_PERFMON_V2: return pmu_model_by_name("amd64_fam19h_zen4");
	default: return pmu_model_by_name("ix86arch");
	}
}

/* Architectural perfmon version each Intel libpfm4 model implies (SDM Vol. 3B 20.2). */
static const struct { const char *pmu; uint8_t version; } intel_versions[] = {
	{ "coreduo", 1 }, { "core", 2 }, { "atom", 3 }, { "nhm", 3 }, { "nhm_ex", 3 },
	{ "wsm", 3 }, { "wsm_dp", 3 }, { "snb", 3 }, { "snb_ep", 3 }, { "ivb", 3 },
	{ "ivb_ep", 3 }, { "hsw", 3 }, { "hsw_ep", 3 }, { "bdw", 3 }, { "bdw_ep", 3 },
	{ "slm", 3 }, { "knl", 3 }, { "knm", 3 }, { "skl", 4 }, { "skx", 4 }, { "clx", 4 },
	{ "glm", 4 }, { "tmt", 5 }, { "icl", 5 }, { "icx", 5 }, { "spr", 5 }, { "ix86arch", 2 },
};

void pmu_model_default_caps(const struct pmu_model *m, struct pmu_caps *pc)
{
	memset(pc, 0, sizeof(*pc));
	pc->kind = m->kind;
	const struct pfmt_model *t = m->table != ~0u ? &pfmt_models[m->table] : NULL;
	switch (m->kind) {
	case PMU_INTEL_NETBURST:
		pc->gp_counters = 18;
		pc->gp_width = 40;
		break;
	case PMU_INTEL_P6:
		pc->gp_counters = 2;
		pc->gp_width = 40;
		break;
	case PMU_INTEL_ARCH:
		pc->version = 2;
		for (unsigned i = 0; i < ARRAY_SIZE(intel_versions); i++)
			if (!strcmp(intel_versions[i].pmu, m->pfm_name))
				pc->version = intel_versions[i].version;
		pc->gp_counters = t ? t->gp_counters : 4;
		/* libpfm4 counts the PEBS-era 8 counters of a core with HT off; 4 per thread */
		if (pc->gp_counters > 8)
			pc->gp_counters = 8;
		pc->gp_width = 48;
		pc->fixed_counters = t ? t->fixed_counters : 3;
		if (pc->version < 2)
			pc->fixed_counters = 0;
		pc->fixed_width = 48;
		pc->fixed_counter_mask = (1u << pc->fixed_counters) - 1;
		pc->arch_events_len = 7;
		pc->aperfmperf = true;      /* every CPU with architectural perfmon v2+ */
		break;
	case PMU_AMD_LEGACY:
	case PMU_AMD_CORE:
	case PMU_AMD_PERFMON_V2:
		pc->gp_counters = t ? t->gp_counters : 4;
		pc->gp_width = 48;
		pc->amd_perfctr_core = m->kind != PMU_AMD_LEGACY;
		pc->amd_perfmon_v2 = m->kind == PMU_AMD_PERFMON_V2;
		pc->version = pc->amd_perfmon_v2 ? 2 : 0;
		/* APERF/MPERF came with family 10h; K7 and K8 lack them */
		pc->aperfmperf = strncmp(m->pfm_name, "amd64_k", 7) != 0;
		break;
	default:
		break;
	}
}
