/* Instruction facts for trap handling (lib/x86-insn.h). */
#include "lib/x86-insn.h"
#include <stdint.h>
#include "lib/util.h"

#define OP_INT3      0xcc
#define OP_INT_IMM8  0xcd
#define OP_INTO      0xce          /* 32-bit mode only */
#define OP_INT1      0xf1
#define OP_HLT       0xf4
#define OP_STI       0xfb
#define OP_POP_SS    0x17          /* 32-bit mode only */
#define OP_MOV_SREG  0x8e          /* MOV Sreg, r/m: ModRM.reg 2 is SS */
#define OP_TWO_BYTE  0x0f
#define OP2_SYSCALL  0x05
#define OP2_SYSENTER 0x34
#define MODRM_REG(m) (((m) >> 3) & 7)
#define SREG_SS      2
#define REX_FIRST    0x40
#define REX_LAST     0x4f
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

/* Legacy prefixes (SDM Vol. 2A 2.1.1): lock/rep, segment overrides, operand and address
 * size. */
static bool legacy_prefix(int b)
{
	switch (b) {
	case 0xf0: case 0xf2: case 0xf3:
	case 0x26: case 0x2e: case 0x36: case 0x3e: case 0x64: case 0x65:
	case 0x66: case 0x67:
		return true;
	default:
		return false;
	}
}

#define X86_INSN_MAX 15             /* bytes of one instruction at most (SDM Vol. 2A 2.3.11) */

const char *x86_step_hazard(int (*byte_at)(void *ctx, size_t i), void *ctx, bool long_mode)
{
	size_t i = 0;
	int op = byte_at(ctx, 0);
	while (i + 1 < X86_INSN_MAX &&
	       (legacy_prefix(op) || (long_mode && op >= REX_FIRST && op <= REX_LAST)))
		op = byte_at(ctx, ++i);
	switch (op) {
	case OP_INT_IMM8: return "INT n";
	case OP_INT3: return "INT3";
	case OP_INT1: return "INT1";
	case OP_STI: return "STI";
	case OP_INTO: return long_mode ? 0 : "INTO";
	case OP_POP_SS: return long_mode ? 0 : "POP SS";
	case OP_MOV_SREG: {
		int modrm = byte_at(ctx, i + 1);
		return modrm >= 0 && MODRM_REG(modrm) == SREG_SS ? "MOV SS" : 0;
	}
	case OP_TWO_BYTE: {
		int op2 = byte_at(ctx, i + 1);
		return op2 == OP2_SYSCALL ? "SYSCALL" : op2 == OP2_SYSENTER ? "SYSENTER" : 0;
	}
	default:
		return 0;
	}
}
