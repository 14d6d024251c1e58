/* lib/u128 against the host compiler's unsigned __int128 (the reference may use it; the
 * library may not, since it also builds for i686). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "lib/u128.h"

typedef unsigned __int128 ref128;

static uint64_t rng_state = 0x243f6a8885a308d3ull;

static uint64_t rng_next(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

/* Random 64-bit values biased to the edges, where carries and borrows happen. */
static uint64_t rng_edge64(void)
{
	switch (rng_next() % 8) {
	case 0: return 0;
	case 1: return UINT64_MAX - rng_next() % 4;
	case 2: return rng_next() % 16;
	case 3: return (uint64_t)1 << (rng_next() % 64);
	case 4: return rng_next() >> (rng_next() % 64);
	default: return rng_next();
	}
}

static ref128 to_ref(struct u128 a)
{
	return (ref128)a.hi << 64 | a.lo;
}

static struct u128 from_ref(ref128 v)
{
	return (struct u128){ .hi = (uint64_t)(v >> 64), .lo = (uint64_t)v };
}

static struct u128 rng_u128(void)
{
	return (struct u128){ .hi = rng_edge64(), .lo = rng_edge64() };
}

#define assert_u128_equal(got, want)                                   \
	do {                                                           \
		struct u128 g_ = (got);                                \
		ref128 w_ = (want);                                    \
		assert_true(g_.hi == (uint64_t)(w_ >> 64));            \
		assert_true(g_.lo == (uint64_t)w_);                    \
	} while (0)

static void test_conversions(void **state)
{
	(void)state;
	assert_u128_equal(u128_from_u64(UINT64_MAX), (ref128)UINT64_MAX);
	assert_u128_equal(u128_from_i64(-1), (ref128)(__int128)-1);
	assert_u128_equal(u128_from_i64(INT64_MIN), (ref128)(__int128)INT64_MIN);
	assert_u128_equal(u128_from_i64(INT64_MAX), (ref128)INT64_MAX);
	assert_true(u128_sign(u128_from_i64(-5)));
	assert_false(u128_sign(u128_from_i64(5)));
	assert_true(u128_is_zero(u128_from_u64(0)));
	assert_false(u128_is_zero((struct u128){ .hi = 1, .lo = 0 }));
}

static void test_add_sub_neg_cmp(void **state)
{
	(void)state;
	for (int i = 0; i < 100000; i++) {
		struct u128 a = rng_u128(), b = rng_u128();
		ref128 ra = to_ref(a), rb = to_ref(b);

		assert_u128_equal(u128_add(a, b), ra + rb);
		assert_u128_equal(u128_sub(a, b), ra - rb);
		assert_u128_equal(u128_neg(a), -ra);
		assert_int_equal(u128_cmp(a, b), (ra > rb) - (ra < rb));
		assert_int_equal(u128_cmp(a, a), 0);
	}
	/* Carry out of the low half, borrow into it, and wrap at 2^128. */
	struct u128 max = { UINT64_MAX, UINT64_MAX };
	assert_u128_equal(u128_add((struct u128){ 0, UINT64_MAX }, u128_from_u64(1)),
			  (ref128)1 << 64);
	assert_u128_equal(u128_sub((struct u128){ 1, 0 }, u128_from_u64(1)), (ref128)UINT64_MAX);
	assert_u128_equal(u128_add(max, u128_from_u64(1)), 0);
	assert_u128_equal(u128_sub(u128_from_u64(0), u128_from_u64(1)), ~(ref128)0);
}

static void test_shifts(void **state)
{
	(void)state;
	for (int i = 0; i < 20000; i++) {
		struct u128 a = rng_u128();
		unsigned n = rng_next() % 128;

		assert_u128_equal(u128_shl(a, n), to_ref(a) << n);
		assert_u128_equal(u128_shr(a, n), to_ref(a) >> n);
	}
	struct u128 a = { 0x0123456789abcdefull, 0xfedcba9876543210ull };
	for (unsigned n = 0; n < 128; n++) {
		assert_u128_equal(u128_shl(a, n), to_ref(a) << n);
		assert_u128_equal(u128_shr(a, n), to_ref(a) >> n);
	}
}

static void test_mul(void **state)
{
	(void)state;
	assert_u128_equal(u128_mul64(UINT64_MAX, UINT64_MAX), (ref128)UINT64_MAX * UINT64_MAX);
	assert_u128_equal(u128_mul64(0xffffffffull, 0xffffffffull),
			  (ref128)0xffffffffull * 0xffffffffull);
	assert_u128_equal(u128_mul64(0, UINT64_MAX), 0);
	for (int i = 0; i < 100000; i++) {
		uint64_t x = rng_edge64(), y = rng_edge64();
		struct u128 a = rng_u128(), b = rng_u128();

		assert_u128_equal(u128_mul64(x, y), (ref128)x * y);
		assert_u128_equal(u128_mul(a, b), to_ref(a) * to_ref(b));
	}
}

static void test_divmod64(void **state)
{
	(void)state;
	uint64_t rem;
	ref128 max = ~(ref128)0;

	assert_u128_equal(u128_divmod64(from_ref(max), 1, &rem), max);
	assert_true(rem == 0);
	assert_u128_equal(u128_divmod64(from_ref(max), UINT64_MAX, &rem), max / UINT64_MAX);
	assert_true(rem == (uint64_t)(max % UINT64_MAX));
	/* Denominators with the top bit set make the running remainder need 65 bits. */
	uint64_t top = (uint64_t)1 << 63 | 1;
	assert_u128_equal(u128_divmod64(from_ref(max - 7), top, &rem), (max - 7) / top);
	assert_true(rem == (uint64_t)((max - 7) % top));
	assert_u128_equal(u128_divmod64(u128_from_u64(5), 7, NULL), 0);
	for (int i = 0; i < 50000; i++) {
		struct u128 a = rng_u128();
		uint64_t d = rng_edge64();

		if (d == 0)
			d = 1;
		assert_u128_equal(u128_divmod64(a, d, &rem), to_ref(a) / d);
		assert_true(rem == (uint64_t)(to_ref(a) % d));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_conversions),
		cmocka_unit_test(test_add_sub_neg_cmp),
		cmocka_unit_test(test_shifts),
		cmocka_unit_test(test_mul),
		cmocka_unit_test(test_divmod64),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
