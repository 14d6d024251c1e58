/*
 * Unsigned 128-bit integers as two 64-bit halves, for code that must also build for
 * 32-bit targets, where GCC has no __int128. Arithmetic is modulo 2^128 like C's
 * unsigned types. Nothing here calls libgcc: the division is shift-and-subtract and the
 * multiplication uses only 32x32->64 products, so -m32 objects need no __udivdi3.
 */
#ifndef LIB_U128_H
#define LIB_U128_H
#include <stdbool.h>
#include <stdint.h>

struct u128 {
	uint64_t hi, lo;
};

static inline struct u128 u128_from_u64(uint64_t v)
{
	return (struct u128){ .hi = 0, .lo = v };
}

/* Sign-extended: the two's complement of a negative v, as (unsigned __int128)v gives. */
static inline struct u128 u128_from_i64(int64_t v)
{
	return (struct u128){ .hi = v < 0 ? UINT64_MAX : 0, .lo = (uint64_t)v };
}

static inline bool u128_is_zero(struct u128 a)
{
	return (a.hi | a.lo) == 0;
}

/* The top bit, i.e. "negative" when the value is read as two's complement. */
static inline bool u128_sign(struct u128 a)
{
	return a.hi >> 63;
}

/* -1, 0, 1 as a <, ==, > b. */
static inline int u128_cmp(struct u128 a, struct u128 b)
{
	if (a.hi != b.hi)
		return a.hi < b.hi ? -1 : 1;
	return (a.lo > b.lo) - (a.lo < b.lo);
}

static inline struct u128 u128_add(struct u128 a, struct u128 b)
{
	uint64_t lo = a.lo + b.lo;

	return (struct u128){ .hi = a.hi + b.hi + (lo < a.lo), .lo = lo };
}

static inline struct u128 u128_sub(struct u128 a, struct u128 b)
{
	return (struct u128){ .hi = a.hi - b.hi - (a.lo < b.lo), .lo = a.lo - b.lo };
}

static inline struct u128 u128_neg(struct u128 a)
{
	return u128_sub(u128_from_u64(0), a);
}

/* Shifts by 0..127 bits. */
static inline struct u128 u128_shl(struct u128 a, unsigned n)
{
	if (n == 0)
		return a;
	if (n >= 64)
		return (struct u128){ .hi = a.lo << (n - 64), .lo = 0 };
	return (struct u128){ .hi = a.hi << n | a.lo >> (64 - n), .lo = a.lo << n };
}

static inline struct u128 u128_shr(struct u128 a, unsigned n)
{
	if (n == 0)
		return a;
	if (n >= 64)
		return (struct u128){ .hi = 0, .lo = a.hi >> (n - 64) };
	return (struct u128){ .hi = a.hi >> n, .lo = a.lo >> n | a.hi << (64 - n) };
}

/* The full product a * b, never overflowing. */
struct u128 u128_mul64(uint64_t a, uint64_t b);

/* a * b modulo 2^128. */
struct u128 u128_mul(struct u128 a, struct u128 b);

/* num / den and num % den (in *rem when rem is set); den != 0. */
struct u128 u128_divmod64(struct u128 num, uint64_t den, uint64_t *rem);

#endif
