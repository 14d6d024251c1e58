/*
 * CPU and PMU detection from CPUID, written against a leaf-reader callback so the
 * same code runs in the kernel (the CPUID instruction) and on the host (a dump file).
 * Sources: SDM Vol. 2A CPUID; SDM Vol. 3B 20.2 (leaf 0xA); AMD APM Vol. 3 (CPUID
 * 0x80000001, 0x80000022).
 */
#ifndef LIB_CPUINFO_H
#define LIB_CPUINFO_H
#include <stdbool.h>
#include <stdint.h>
#include "lib/rapl.h"

/* Fills regs[0..3] = EAX, EBX, ECX, EDX for (leaf, subleaf). Returns false when the
 * source does not have that leaf (the decoder then treats it as all zero). */
typedef bool (*cpuid_read_fn)(void *ctx, uint32_t leaf, uint32_t subleaf, uint32_t regs[4]);

/* The PMU generations CPUID can tell apart, one row each: the kind and its name (the
 * backend driving it is the row of the same kind in arch/x86/pmu/core.c). */
#define PMU_KINDS(X)                                    \
	X(PMU_NONE, "none")                             \
	X(PMU_INTEL_NETBURST, "intel-netburst")         \
	X(PMU_INTEL_P6, "intel-p6")                     \
	X(PMU_INTEL_ARCH, "intel-arch")                 \
	X(PMU_AMD_LEGACY, "amd-legacy")                 \
	X(PMU_AMD_CORE, "amd-core")                     \
	X(PMU_AMD_PERFMON_V2, "amd-perfmon-v2")

enum pmu_kind {
#define PMU_KIND_ENUM(kind, name) kind,
	PMU_KINDS(PMU_KIND_ENUM)
#undef PMU_KIND_ENUM
	PMU_KIND_COUNT
};

enum cpu_vendor { VENDOR_OTHER = 0, VENDOR_INTEL, VENDOR_AMD, VENDOR_HYGON };

struct cpu_info {
	char vendor_id[13];          /* "GenuineIntel" */
	enum cpu_vendor vendor;
	uint32_t max_leaf, max_ext_leaf;
	uint32_t signature;          /* CPUID.1:EAX */
	unsigned family, model, stepping;   /* display values (family+ext, model+ext rules) */
	char brand[49];              /* trimmed of leading spaces; "" when absent */
	bool hypervisor;             /* CPUID.1:ECX[31] */
	char hv_vendor[13];          /* leaf 0x40000000 EBX/ECX/EDX, "" when absent */
	/* features the kernel acts on */
	bool tsc, rdtscp, invariant_tsc, msr, apic, x2apic, pdcm, aperfmperf;
	bool smep, smap, umip, nx, pge, syscall, sysenter, lm;
	bool ds, dtes64;             /* debug store (NetBurst PEBS seam) */
	bool popcnt;                 /* CPUID.1:ECX[23], for the popcnt payloads */
	bool pae, fxsr, sse, sse2;   /* CPUID.1:EDX[6,24,25,26]: the i686 kernel's paging, SSE */
	bool rapl;                   /* RAPL energy MSRs expected: AMD CPUID 0x80000007 EDX[14];
	                                Intel, which has no bit, by family 6 model (lib/rapl.c) */
	/* leaf 0x15/0x16, 0 when absent */
	uint32_t tsc_ratio_den, tsc_ratio_num, crystal_hz;
	uint32_t base_mhz, max_mhz, bus_mhz;
	uint64_t tsc_hz;             /* derived from 0x15 when complete, else 0 */
	/* topology basics */
	bool htt;                    /* CPUID.1:EDX[28] */
	unsigned logical_per_package;/* CPUID.1:EBX[23:16] when htt, else 1 */
	unsigned threads_per_core;   /* leaf 0xB level 0 / AMD 0x8000001E, else derived, min 1 */
	uint8_t initial_apic_id;     /* CPUID.1:EBX[31:24] */
	/* cache line size from CPUID.1:EBX[15:8]*8 */
	unsigned clflush_size;
};

struct pmu_caps {
	enum pmu_kind kind;
	unsigned version;            /* Intel leaf 0xA EAX[7:0]; AMD: 2 for PerfMonV2, else 0 */
	unsigned gp_counters, gp_width;
	unsigned fixed_counters, fixed_width;
	uint32_t arch_events_len;    /* leaf 0xA EAX[31:24] */
	uint32_t arch_events_unavail;/* leaf 0xA EBX: bit set = event NOT available */
	uint32_t fixed_counter_mask; /* leaf 0xA ECX (v5), else (1<<fixed_counters)-1 */
	bool fixed_count_quirk;      /* fixed count forced to 3 (Conroe-style leaf 0xA) */
	bool amd_perfctr_core;       /* CPUID 0x80000001 ECX[23] */
	bool amd_perfmon_v2;         /* CPUID 0x80000022 EAX[0] */
	bool amd_lbr_v2;             /* CPUID 0x80000022 EAX[1] */
	bool netburst_ht;            /* family 15 with two threads per core (Hyper-Threading) */
	bool any_thread_deprecated;  /* leaf 0xA EDX[15] */
	bool aperfmperf;             /* IA32_APERF/MPERF exist: CPUID.06H:ECX[0] */
	struct rapl_caps rapl;       /* vendor from CPUID; domains and units probed at boot */
};

/* Decode everything; never fails (missing leaves read as zero). */
void cpuinfo_decode(cpuid_read_fn read, void *ctx, struct cpu_info *ci, struct pmu_caps *pc);

const char *pmu_kind_name(enum pmu_kind kind);   /* "intel-netburst", ..., "none" */

/* Emit the detection report, one "key=value" line each, through a line callback
 * (the line has no trailing newline). Order: cpu.vendor, cpu.family, cpu.model,
 * cpu.stepping, cpu.brand, cpu.hypervisor, cpu.invariant_tsc, cpu.tsc_hz, cpu.base_mhz,
 * cpu.threads_per_core, cpu.logical_per_package, cpu.signature, cpu.max_leaf,
 * cpu.max_ext_leaf, cpu.features (comma-separated names of the bools above), pmu.kind,
 * pmu.version, pmu.gp_counters, pmu.gp_width, pmu.fixed_counters, pmu.fixed_width, and
 * then vendor-specific pmu.* lines (arch: arch_events_len, arch_events_unavail,
 * fixed_counter_mask, fixed_quirk, any_thread_deprecated; NetBurst: netburst_ht;
 * AMD: amd_perfctr_core, amd_perfmon_v2, amd_lbr_v2). Booleans print yes/no. */
typedef void (*cpuinfo_line_fn)(void *ctx, const char *line);
void cpuinfo_report(const struct cpu_info *ci, const struct pmu_caps *pc,
		    cpuinfo_line_fn emit, void *ctx);

#endif
