/* Host side: a CPUID dump in the AIDA64/InstLatx64 text format, first CPU only, read as
 * cpuinfo_decode's CPUID source (bareperf-cpuid, bareperf-encode --cpuid, the tests).
 * Not linked into the kernels. */
#ifndef LIB_CPUID_DUMP_H
#define LIB_CPUID_DUMP_H
#include <stdbool.h>
#include <stdint.h>

#define CPUID_DUMP_MAX 512
struct cpuid_dump_entry { uint32_t leaf, subleaf, regs[4]; };
struct cpuid_dump {
	unsigned count;
	struct cpuid_dump_entry e[CPUID_DUMP_MAX];
};
/* Parse text (not NUL-terminated necessarily). Returns number of entries, or -1 with
 * a message in err when no CPUID line was found. Untagged repeats of a leaf are its
 * subleaves 0, 1, 2...; a second leaf 0 line ends the first CPU; past CPUID_DUMP_MAX
 * lines the rest is dropped. */
int cpuid_dump_parse(struct cpuid_dump *d, const char *text, unsigned long len,
		     char *err, unsigned long errlen);
/* A cpuid_read_fn over a parsed dump: exact (leaf, subleaf), or for a leaf listed once
 * at subleaf 0, that line whatever the subleaf (such leaves ignore ECX). */
bool cpuid_dump_read(void *dump, uint32_t leaf, uint32_t subleaf, uint32_t regs[4]);

#endif
