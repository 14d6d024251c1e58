/*
 * What trap handling needs to know about the instruction at or before a trapping RIP,
 * from its bytes alone (SDM Vol. 2, Appendix A opcode map; Vol. 3A 6.5, Vol. 3B
 * 18.3.1.4). Pure: the kernel reads the bytes, the host tests the rules.
 */
#ifndef LIB_X86_INSN_H
#define LIB_X86_INSN_H
#include <stdbool.h>
#include <stddef.h>

/*
 * A trap leaves RIP after the instruction that raised it (SDM Vol. 3A 6.5): INT3 (CC)
 * raises vector 3, INTO (CE) 4, INT1 (F1) 1, INT n (CD n) n. Returns the length of the
 * one of them that ends at RIP and raised `vector`, so that RIP - length is where it
 * starts; 0 when none does (a fault, which leaves RIP on its instruction, or an external
 * interrupt). before1 and before2 are the bytes at RIP - 1 and RIP - 2, or -1 where they
 * could not be read. Vectors 0-31 other than 1, 3 and 4 are taken as faults: an INT n
 * to them (possible at CPL 0 only) is not told apart.
 */
unsigned x86_trap_insn_len(unsigned vector, int before1, int before2);

/*
 * An interrupt that ends a HLT leaves RIP after it (SDM Vol. 2A, HLT). Returns 1 when the
 * byte at RIP - 1 (before1, or -1: unreadable) is HLT (F4), else 0. The byte may also end
 * a longer instruction (mov al, 0xf4): an interrupt right after one is then placed a few
 * bytes early, inside it. Code that waits in HLT is far the likelier when an interrupt
 * ends it, so this is accepted.
 */
unsigned x86_halt_insn_len(int before1);

/*
 * Whether the instruction whose bytes byte_at(ctx, 0), byte_at(ctx, 1), ... gives (-1:
 * unreadable) is one after which single-stepping does not give exactly one #DB (SDM
 * Vol. 3B 18.3.1.4; Vol. 3A 6.8.3): INT n, INT3, INTO and INT1 clear TF on the way to
 * their handler, STI, MOV SS and POP SS hold the trap back for an instruction, SYSCALL
 * and SYSENTER clear TF through their MSRs. Returns the instruction's name, or NULL.
 * Reads only the bytes it needs (prefixes, the opcode, a ModRM or second opcode byte).
 * long_mode: 40-4F are REX prefixes, not INC/DEC.
 */
const char *x86_step_hazard(int (*byte_at)(void *ctx, size_t i), void *ctx, bool long_mode);

#endif
