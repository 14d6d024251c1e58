/*
 * APIC ID field widths from CPUID (lib/topology.h). Sources: SDM Vol. 2A CPUID leaves
 * 01H, 04H, 0BH, 1FH and SDM Vol. 3A 10.9 "Topology enumeration"; AMD APM Vol. 3
 * Appendix E, CPUID Fn8000_0001 ECX[22] TopologyExtensions, Fn8000_0008 ECX
 * (ApicIdCoreIdSize, NC), Fn8000_001E EBX (ThreadsPerCore).
 */
#include "lib/topology.h"
#include "lib/str.h"

enum { EAX, EBX, ECX, EDX };

#define CPUID_LEAF_VENDOR        0x00000000u
#define CPUID_LEAF_FEATURES      0x00000001u
#define CPUID_LEAF_CACHE_PARAMS  0x00000004u
#define CPUID_LEAF_TOPOLOGY      0x0000000Bu
#define CPUID_LEAF_TOPOLOGY_V2   0x0000001Fu
#define CPUID_LEAF_EXT_MAX       0x80000000u
#define CPUID_LEAF_EXT_FEATURES1 0x80000001u
#define CPUID_LEAF_ADDR_SIZES    0x80000008u
#define CPUID_LEAF_AMD_TOPOLOGY  0x8000001Eu

/* CPUID.01H: EBX[23:16] addressable logical processor IDs per package, valid when
 * EDX[28] HTT is set. */
#define CPUID1_EBX_LOGICAL(ebx)     (((ebx) >> 16) & 0xFFu)
#define CPUID1_EDX_HTT              (1u << 28)
/* CPUID.04H.0: EAX[4:0] cache type (0 = no more caches), EAX[31:26] addressable core
 * IDs per package - 1. */
#define CPUID4_EAX_TYPE(eax)        ((eax) & 0x1Fu)
#define CPUID4_EAX_CORES(eax)       ((((eax) >> 26) & 0x3Fu) + 1)
/* CPUID.0BH/1FH.n: EAX[4:0] bits to shift the x2APIC ID right to reach the next level,
 * EBX[15:0] logical processors at this level (0: the leaf is not there), ECX[15:8] level
 * type (0 invalid, 1 SMT, 2 Core; 1FH adds module, tile, die). */
#define CPUIDB_EAX_SHIFT(eax)       ((eax) & 0x1Fu)
#define CPUIDB_EBX_COUNT(ebx)       ((ebx) & 0xFFFFu)
#define CPUIDB_ECX_TYPE(ecx)        (((ecx) >> 8) & 0xFFu)
#define CPUIDB_TYPE_INVALID         0
#define CPUIDB_TYPE_SMT             1
/* Levels read at most: 1FH defines five types today. */
#define CPUIDB_MAX_LEVELS           8
/* AMD: Fn8000_0001 ECX[22] TopologyExtensions; Fn8000_0008 ECX[15:12] ApicIdCoreIdSize
 * (APIC ID bits below the package, 0 = use NC), ECX[7:0] NC (threads per package - 1);
 * Fn8000_001E EBX[15:8] ThreadsPerCore - 1 (cores per compute unit on family 15h). */
#define AMD_80000001_ECX_TOPOEXT    (1u << 22)
#define AMD_80000008_ECX_ID_SIZE(ecx) (((ecx) >> 12) & 0xFu)
#define AMD_80000008_ECX_NC(ecx)    (((ecx) & 0xFFu) + 1)
#define AMD_8000001E_EBX_THREADS(ebx) ((((ebx) >> 8) & 0xFFu) + 1)

#define APIC_ID_BITS 32

struct topo_src {
	cpuid_read_fn read;
	void *ctx;
	uint32_t max_leaf, max_ext_leaf;
	bool amd;                   /* AuthenticAMD or HygonGenuine */
};

/* A leaf past the CPU's maximum reads as zero: a real CPU answers such a leaf with
 * the highest basic leaf's data (SDM Vol. 2A CPUID), which would decode as nonsense. */
static void leaf(const struct topo_src *s, uint32_t id, uint32_t sub, uint32_t r[4])
{
	bool ext = id >= CPUID_LEAF_EXT_MAX;

	r[EAX] = r[EBX] = r[ECX] = r[EDX] = 0;
	if (id > (ext ? s->max_ext_leaf : s->max_leaf))
		return;
	if (!s->read(s->ctx, id, sub, r))
		r[EAX] = r[EBX] = r[ECX] = r[EDX] = 0;
}

/* Bits needed for n distinct values (0 for n <= 1). */
static unsigned log2_ceil(uint32_t n)
{
	unsigned b = 0;

	while (b < APIC_ID_BITS && ((uint64_t)1 << b) < n)
		b++;
	return b;
}

static void set(struct cpu_topology *t, unsigned smt, unsigned total, const char *source)
{
	if (total > APIC_ID_BITS)
		total = APIC_ID_BITS;
	if (smt > total)
		smt = total;
	t->smt_bits = smt;
	t->core_bits = total - smt;
	t->source = source;
}

/* Leaf 0BH or 1FH: the SMT level's shift is the thread field; whatever lies between it
 * and the last level's shift (cores, modules, tiles, dies) is the core field. */
static bool from_extended_leaf(const struct topo_src *s, uint32_t id, const char *source,
			       struct cpu_topology *t)
{
	uint32_t r[4];
	unsigned smt = 0, total = 0, levels = 0;

	for (uint32_t n = 0; n < CPUIDB_MAX_LEVELS; n++) {
		leaf(s, id, n, r);
		if (CPUIDB_ECX_TYPE(r[ECX]) == CPUIDB_TYPE_INVALID ||
		    (n == 0 && CPUIDB_EBX_COUNT(r[EBX]) == 0))
			break;
		if (CPUIDB_ECX_TYPE(r[ECX]) == CPUIDB_TYPE_SMT)
			smt = CPUIDB_EAX_SHIFT(r[EAX]);
		total = CPUIDB_EAX_SHIFT(r[EAX]);
		levels++;
	}
	if (levels == 0)
		return false;
	set(t, smt, total, source);
	return true;
}

/* AMD: Fn8000_0008 gives the bits below the package, Fn8000_001E (with
 * TopologyExtensions) how many of them are threads. */
static bool from_amd(const struct topo_src *s, struct cpu_topology *t)
{
	uint32_t r[4];
	unsigned total, smt = 0;
	const char *source = "0x80000008";

	if (!s->amd || s->max_ext_leaf < CPUID_LEAF_ADDR_SIZES)
		return false;
	leaf(s, CPUID_LEAF_ADDR_SIZES, 0, r);
	total = AMD_80000008_ECX_ID_SIZE(r[ECX]);
	if (total == 0)
		total = log2_ceil(AMD_80000008_ECX_NC(r[ECX]));
	leaf(s, CPUID_LEAF_EXT_FEATURES1, 0, r);
	if ((r[ECX] & AMD_80000001_ECX_TOPOEXT) && s->max_ext_leaf >= CPUID_LEAF_AMD_TOPOLOGY) {
		leaf(s, CPUID_LEAF_AMD_TOPOLOGY, 0, r);
		smt = log2_ceil(AMD_8000001E_EBX_THREADS(r[EBX]));
		source = "0x8000001e";
	}
	set(t, smt, total, source);
	return true;
}

/* Before the topology leaves: logical processors per package from leaf 1 (with HTT),
 * cores per package from leaf 4 where it exists (Intel, from the Pentium 4 on). */
static void from_leaf1(const struct topo_src *s, struct cpu_topology *t)
{
	uint32_t r[4];
	uint32_t logical, cores;

	leaf(s, CPUID_LEAF_FEATURES, 0, r);
	logical = CPUID1_EBX_LOGICAL(r[EBX]);
	if (!(r[EDX] & CPUID1_EDX_HTT) || logical == 0) {
		set(t, 0, 0, "none");
		return;
	}
	leaf(s, CPUID_LEAF_CACHE_PARAMS, 0, r);
	if (!s->amd && CPUID4_EAX_TYPE(r[EAX]) != 0) {
		cores = CPUID4_EAX_CORES(r[EAX]);
		set(t, log2_ceil(logical / cores), log2_ceil(logical / cores) + log2_ceil(cores),
		    "leaf 4");
		return;
	}
	set(t, log2_ceil(logical), log2_ceil(logical), "leaf 1");
}

void topology_decode(cpuid_read_fn read, void *ctx, struct cpu_topology *t)
{
	struct topo_src s = { read, ctx, 0, 0, false };   /* leaf 0 is always read */
	uint32_t r[4];
	char vendor[12];

	leaf(&s, CPUID_LEAF_VENDOR, 0, r);
	s.max_leaf = r[EAX];
	memcpy(vendor, &r[EBX], 4);
	memcpy(vendor + 4, &r[EDX], 4);
	memcpy(vendor + 8, &r[ECX], 4);
	s.amd = memcmp(vendor, "AuthenticAMD", 12) == 0 || memcmp(vendor, "HygonGenuine", 12) == 0;
	s.max_ext_leaf = CPUID_LEAF_EXT_MAX;
	leaf(&s, CPUID_LEAF_EXT_MAX, 0, r);
	s.max_ext_leaf = (r[EAX] & 0xFFFF0000u) == CPUID_LEAF_EXT_MAX ? r[EAX] : 0;

	if (s.max_leaf >= CPUID_LEAF_TOPOLOGY_V2 &&
	    from_extended_leaf(&s, CPUID_LEAF_TOPOLOGY_V2, "leaf 0x1f", t))
		return;
	if (s.max_leaf >= CPUID_LEAF_TOPOLOGY &&
	    from_extended_leaf(&s, CPUID_LEAF_TOPOLOGY, "leaf 0xb", t))
		return;
	if (from_amd(&s, t))
		return;
	from_leaf1(&s, t);
}

static uint32_t field(uint32_t id, unsigned shift, unsigned bits)
{
	if (shift >= APIC_ID_BITS)
		return 0;
	id >>= shift;
	return bits >= APIC_ID_BITS ? id : id & ((1u << bits) - 1);
}

void topology_position(const struct cpu_topology *t, uint32_t apic_id, struct cpu_position *p)
{
	p->thread = field(apic_id, 0, t->smt_bits);
	p->core = field(apic_id, t->smt_bits, t->core_bits);
	p->package = field(apic_id, t->smt_bits + t->core_bits, APIC_ID_BITS);
}
