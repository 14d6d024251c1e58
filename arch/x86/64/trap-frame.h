/* The x86-64 trap frame: what arch/x86/64/entry.asm pushes below the CPU's interrupt frame
 * (SDM Vol. 3A 6.14.2, Figure 6-9: SS and RSP are always pushed in 64-bit mode). */
#ifndef ARCH_X86_64_TRAP_FRAME_H
#define ARCH_X86_64_TRAP_FRAME_H
#include <stdint.h>

struct trap_frame {
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8, rbp, rdi, rsi, rdx, rcx, rbx, rax;
	uint64_t vector, error;
	uint64_t rip, cs, rflags, rsp, ss;   /* pushed by the CPU */
};
_Static_assert(sizeof(struct trap_frame) == 22 * 8, "trap frame layout");

/* The interrupted instruction pointer, for the word-size-neutral trap code. */
static inline uintptr_t trap_frame_ip(const struct trap_frame *f) { return f->rip; }
static inline void trap_frame_set_ip(struct trap_frame *f, uintptr_t ip) { f->rip = ip; }
/* The stack pointer at the trap (always pushed in 64-bit mode). */
static inline uint64_t trap_frame_sp(const struct trap_frame *f) { return f->rsp; }

#endif
