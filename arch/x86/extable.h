/*
 * Exception fixups (the idea of Linux _ASM_EXTABLE and kvm-unit-tests ASM_TRY): an
 * instruction wrapped in EXTABLE_TRY gets an entry {instruction, continuation} in
 * .extable. When it faults in ring 0, the trap handler records the vector and resumes
 * at the continuation instead of stopping. The state used is a kernel global, never
 * anything a payload can change (GS base, user stack).
 */
#ifndef ARCH_X86_EXTABLE_H
#define ARCH_X86_EXTABLE_H
#include <stdint.h>

/* Two addresses; .dc.a makes each one machine word on either word size. */
struct extable_entry {
	uintptr_t insn;
	uintptr_t cont;
};

extern volatile int extable_vector;

#define EXTABLE_TRY(insn)                                        \
	"1: " insn "\n\t"                                        \
	"2:\n\t"                                                 \
	".pushsection .extable, \"a\"\n\t"                       \
	".balign 8\n\t"                                          \
	".dc.a 1b, 2b\n\t"                                       \
	".popsection\n\t"

static inline void extable_arm(void)
{
	extable_vector = 0;
	__asm__ volatile("" ::: "memory");
}

static inline int extable_result(void)
{
	__asm__ volatile("" ::: "memory");
	return extable_vector;
}

/* Continuation for a faulting RIP, or 0 when it has none. */
uintptr_t extable_lookup(uintptr_t rip);

/* Run any single instruction safely: e.g. fault_try("ud2"). Returns the vector. */
#define fault_try(insn)                                                  \
	({                                                               \
		extable_arm();                                           \
		__asm__ volatile(EXTABLE_TRY(insn) ::: "memory");        \
		extable_result();                                        \
	})

#endif
