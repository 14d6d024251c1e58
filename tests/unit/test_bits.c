/* lib/bits.h: bit_count against a bit-by-bit count, and mask_field on the channel masks a
 * GOP reports as PixelBitMask (the loader's only path through it, which OVMF never takes:
 * its GOP is PixelBlueGreenRedReserved8BitPerColor). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "lib/bits.h"

static unsigned slow_count(uint64_t v)
{
	unsigned n = 0;
	for (int i = 0; i < 64; i++)
		n += (unsigned)(v >> i) & 1;
	return n;
}

static void test_bit_count(void **state)
{
	(void)state;
	static const uint64_t values[] = { 0, 1, 0x8000000000000000ull, UINT64_MAX, 0xff00ff00ull,
		0x5555555555555555ull, 0x0123456789abcdefull };
	for (size_t i = 0; i < sizeof values / sizeof values[0]; i++)
		assert_int_equal(bit_count(values[i]), slow_count(values[i]));
	assert_int_equal(bit_count(UINT64_MAX), 64);
	assert_int_equal(bit_count(0), 0);
}

static void test_mask_field(void **state)
{
	(void)state;
	static const struct { uint32_t mask; uint8_t pos, size; } cases[] = {
		{ 0x00ff0000, 16, 8 },      /* x8r8g8b8 red */
		{ 0x000000ff, 0, 8 },       /* its blue */
		{ 0x3ff00000, 20, 10 },     /* x2r10g10b10 red */
		{ 0x0000f800, 11, 5 },      /* r5g6b5 red */
		{ 0x000007e0, 5, 6 },       /* its green */
		{ 0x80000000, 31, 1 },
		{ 0, 0, 0 },                /* no such channel */
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		uint8_t pos = 0xee, size = 0xee;
		mask_field(cases[i].mask, &pos, &size);
		assert_int_equal(pos, cases[i].pos);
		assert_int_equal(size, cases[i].size);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bit_count),
		cmocka_unit_test(test_mask_field),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
