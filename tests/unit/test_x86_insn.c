/* lib/x86-insn: where a trap's instruction starts, and which instructions single-stepping
 * cannot count. Encodings as nasm gives them (SDM
 * Vol. 2 for the opcodes). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "lib/x86-insn.h"

static void test_trap_insn_len(void **state)
{
	(void)state;
	/* int3 (CC) and int 3 (CD 03) both raise #BP with RIP after them */
	assert_int_equal(x86_trap_insn_len(3, 0xcc, 0x90), 1);
	assert_int_equal(x86_trap_insn_len(3, 0xcc, -1), 1);
	assert_int_equal(x86_trap_insn_len(3, 0x03, 0xcd), 2);
	/* into (CE), int1 (F1), int 0x80 (CD 80), int 0xf2 (CD F2), int 0xcc (CD CC) */
	assert_int_equal(x86_trap_insn_len(4, 0xce, 0x00), 1);
	assert_int_equal(x86_trap_insn_len(4, 0x04, 0xcd), 2);
	assert_int_equal(x86_trap_insn_len(1, 0xf1, 0x00), 1);
	assert_int_equal(x86_trap_insn_len(0x80, 0x80, 0xcd), 2);
	assert_int_equal(x86_trap_insn_len(0xf2, 0xf2, 0xcd), 2);
	assert_int_equal(x86_trap_insn_len(0xcc, 0xcc, 0xcd), 2);
	/* the byte must name the vector that came */
	assert_int_equal(x86_trap_insn_len(3, 0x90, 0xcc), 0);
	assert_int_equal(x86_trap_insn_len(0xf2, 0xf3, 0xcd), 0);
	assert_int_equal(x86_trap_insn_len(0x80, 0xcc, 0x90), 0);
	assert_int_equal(x86_trap_insn_len(3, 0xcd, 0x03), 0);
	/* unreadable bytes place nothing */
	assert_int_equal(x86_trap_insn_len(3, -1, -1), 0);
	assert_int_equal(x86_trap_insn_len(0xf2, 0xf2, -1), 0);
	/* faults leave RIP on their instruction, whatever precedes it: a #UD after the
	 * bytes CD 06 (the end of mov ax, 0x06cd), a #GP after CD 0D, a #PF after CC */
	assert_int_equal(x86_trap_insn_len(6, 0x06, 0xcd), 0);
	assert_int_equal(x86_trap_insn_len(13, 0x0d, 0xcd), 0);
	assert_int_equal(x86_trap_insn_len(14, 0xcc, 0x90), 0);
	assert_int_equal(x86_trap_insn_len(0, 0xcc, 0xcd), 0);
}

static void test_halt_insn_len(void **state)
{
	(void)state;
	assert_int_equal(x86_halt_insn_len(0xf4), 1);
	assert_int_equal(x86_halt_insn_len(0x90), 0);
	assert_int_equal(x86_halt_insn_len(-1), 0);
}

struct bytes {
	const uint8_t *b;
	size_t n, reads;
};

/* The bytes of an array, -1 past its end; counts the reads. */
static int array_byte(void *ctx, size_t i)
{
	struct bytes *a = ctx;
	a->reads++;
	return i < a->n ? a->b[i] : -1;
}

static const char *hazard_of(const uint8_t *b, size_t n, bool long_mode)
{
	struct bytes a = { b, n, 0 };
	const char *r = x86_step_hazard(array_byte, &a, long_mode);
	assert_true(a.reads <= n + 1);    /* what it needs, at most one past the end */
	return r;
}

#define HAZARD(mode, ...) ({ static const uint8_t b_[] = { __VA_ARGS__ }; \
			     hazard_of(b_, sizeof(b_), mode); })

static void test_step_hazard(void **state)
{
	(void)state;
	assert_string_equal(HAZARD(true, 0xcd, 0x80), "INT n");             /* int 0x80 */
	assert_string_equal(HAZARD(true, 0xcc), "INT3");
	assert_string_equal(HAZARD(true, 0xf1), "INT1");
	assert_string_equal(HAZARD(true, 0xfb), "STI");
	assert_string_equal(HAZARD(true, 0x8e, 0xd0), "MOV SS");           /* mov ss, eax */
	assert_string_equal(HAZARD(true, 0x66, 0x8e, 0xd0), "MOV SS");     /* mov ss, ax */
	assert_string_equal(HAZARD(true, 0x8e, 0x16), "MOV SS");           /* mov ss, [rsi] */
	assert_string_equal(HAZARD(true, 0x0f, 0x05), "SYSCALL");
	assert_string_equal(HAZARD(true, 0x0f, 0x34), "SYSENTER");
	assert_string_equal(HAZARD(true, 0x48, 0x0f, 0x05), "SYSCALL");    /* REX.W syscall */
	assert_string_equal(HAZARD(true, 0xf3, 0x2e, 0xfb), "STI");        /* prefixes skipped */
	assert_string_equal(HAZARD(false, 0xce), "INTO");
	assert_string_equal(HAZARD(false, 0x17), "POP SS");
	assert_string_equal(HAZARD(false, 0x8e, 0xd0), "MOV SS");
	/* 64-bit mode has no INTO or POP SS (#UD) */
	assert_null(HAZARD(true, 0xce));
	assert_null(HAZARD(true, 0x17));
	/* 40-4F are INC/DEC in 32-bit mode: an instruction of their own */
	assert_null(HAZARD(false, 0x48, 0x0f, 0x05));
	/* ordinary instructions, and other segment registers */
	assert_null(HAZARD(true, 0x90));
	assert_null(HAZARD(true, 0x48, 0x83, 0xc0, 0x01));                 /* add rax, 1 */
	assert_null(HAZARD(true, 0x8e, 0xd8));                             /* mov ds, eax */
	assert_null(HAZARD(true, 0x8e, 0xe8));                             /* mov gs, eax */
	assert_null(HAZARD(true, 0x0f, 0x0b));                             /* ud2 */
	assert_null(HAZARD(true, 0x0f, 0xa2));                             /* cpuid */
	assert_null(HAZARD(true, 0xfa));                                   /* cli */
	assert_null(HAZARD(true, 0x9d));                                   /* popf */
	assert_null(HAZARD(true, 0xb0, 0xcd));                             /* mov al, 0xcd */
	/* too few bytes readable to tell */
	assert_null(HAZARD(true, 0x66, 0x66));
	assert_null(HAZARD(true, 0x0f));
	assert_null(HAZARD(true, 0x8e));
	assert_null(hazard_of(0, 0, true));
	/* 15 prefixes and no opcode: no instruction, and nothing read past 15 bytes */
	assert_null(HAZARD(true, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66,
			   0x66, 0x66, 0x66, 0x66, 0xfb));
	assert_string_equal(HAZARD(true, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66,
				   0x66, 0x66, 0x66, 0x66, 0xfb), "STI");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trap_insn_len),
		cmocka_unit_test(test_halt_insn_len),
		cmocka_unit_test(test_step_hazard),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
