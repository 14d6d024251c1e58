/* The word-size halves of arch/x86/run.c: how a run enters its payload, how a trap frame
 * is pointed back at run_resume, how a payload is called directly, and SYSCALL's set-up
 * (arch/x86/64/run-word.c, arch/x86/32/run-word.c). Only arch/x86/run.c and its halves
 * include this. */
#ifndef ARCH_X86_RUN_WORD_H
#define ARCH_X86_RUN_WORD_H
#include <stdint.h>
#include "arch/x86/run.h"

extern char run_resume[];      /* entry.asm: restores the state run_cpl0/run_cpl3 saved */
/* entry.asm, user_exit_entry: what user_entry's own exit looks like (the RIP after its
 * INT VEC_USER_EXIT, its stack pointer there); any other INT VEC_USER_EXIT is a fault. */
extern uintptr_t run_exit_rip, run_exit_rsp;

/* Run fn(a0, a1) at the CPL o asks for, with interrupts on, on `stack` (the user stack
 * at CPL 3, the run stack at CPL 0); CPL 3 starts at the user alias of user_entry.
 * Returns what the payload returned. */
uint64_t run_enter(const struct run_opts *o, uintptr_t user_entry, uintptr_t stack,
		   const void *fn, uint64_t a0, uint64_t a1);
/* Make the interrupted context continue at run_resume in ring 0, returning 0. */
void run_frame_resume(struct trap_frame *f);

#endif
