/* lib/x86-insn: where a trap's instruction starts. Encodings as nasm gives them (SDM
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trap_insn_len),
		cmocka_unit_test(test_halt_insn_len),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
