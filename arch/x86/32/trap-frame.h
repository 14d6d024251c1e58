/* The i686 trap frame: what arch/x86/32/entry.asm pushes (PUSHAD, the data segment
 * registers, vector, error code) below the CPU's interrupt frame (SDM Vol. 3A 6.12.1,
 * Figure 6-4). ESP and SS are pushed by the CPU only on a change of privilege (from
 * CPL 3): for a trap in ring 0 those two slots are not part of the frame. */
#ifndef ARCH_X86_32_TRAP_FRAME_H
#define ARCH_X86_32_TRAP_FRAME_H
#include <stdint.h>

struct trap_frame {
	uint32_t edi, esi, ebp, esp_pushad, ebx, edx, ecx, eax;    /* PUSHAD */
	uint32_t gs, fs, es, ds;                                   /* low 16 bits valid */
	uint32_t vector, error;
	uint32_t eip, cs, eflags;                                  /* pushed by the CPU */
	uint32_t esp, ss;                                          /* only from CPL 3 */
};
_Static_assert(sizeof(struct trap_frame) == 19 * 4, "trap frame layout");

static inline uintptr_t trap_frame_ip(const struct trap_frame *f) { return f->eip; }
static inline void trap_frame_set_ip(struct trap_frame *f, uintptr_t ip) { f->eip = ip; }

/* The stack pointer at the trap: pushed by the CPU from CPL 3, else just above EFLAGS. */
static inline uint32_t trap_frame_sp(const struct trap_frame *f)
{
	return (f->cs & 3) ? f->esp : (uint32_t)(uintptr_t)&f->esp;
}

#endif
