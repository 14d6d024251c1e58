/* Instruction facts for trap handling (lib/x86-insn.h). */
#include "lib/x86-insn.h"
#include <stdbool.h>
#include <stdint.h>
#include "lib/util.h"

#define OP_INT3      0xcc
#define OP_INT_IMM8  0xcd
#define OP_INTO      0xce          /* 32-bit mode only */
#define OP_INT1      0xf1
#define OP_HLT       0xf4
#define VEC_FIRST_INTERRUPT 32     /* 0-31 are exceptions (SDM Vol. 3A 6.2) */

/* One-byte instructions that raise a vector of their own as a trap. */
static const struct {
	uint8_t opcode;
	unsigned vector;
} one_byte_traps[] = {
	{ OP_INT3, 3 },     /* #BP */
	{ OP_INTO, 4 },     /* #OF */
	{ OP_INT1, 1 },     /* #DB */
};

unsigned x86_trap_insn_len(unsigned vector, int before1, int before2)
{
	bool trap_class = vector >= VEC_FIRST_INTERRUPT;
	for (unsigned i = 0; i < ARRAY_SIZE(one_byte_traps); i++) {
		if (one_byte_traps[i].vector != vector)
			continue;
		trap_class = true;
		if (before1 == one_byte_traps[i].opcode)
			return 1;
	}
	if (trap_class && before2 == OP_INT_IMM8 && before1 == (int)vector)
		return 2;
	return 0;
}


unsigned x86_halt_insn_len(int before1)
{
	return before1 == OP_HLT;
}
