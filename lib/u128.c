/* 128-bit multiply and divide on 64-bit halves (see lib/u128.h for why). */
#include "lib/u128.h"

struct u128 u128_mul64(uint64_t a, uint64_t b)
{
	/* Schoolbook on 32-bit digits: each partial product is 32x32->64 and fits. */
	uint64_t a0 = (uint32_t)a, a1 = a >> 32, b0 = (uint32_t)b, b1 = b >> 32;
	uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
	/* Bits 32..95 of the sum of the middle column; below 3 * 2^32, so no overflow. */
	uint64_t mid = (p00 >> 32) + (uint32_t)p01 + (uint32_t)p10;

	return (struct u128){
		.hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32),
		.lo = mid << 32 | (uint32_t)p00,
	};
}

struct u128 u128_mul(struct u128 a, struct u128 b)
{
	struct u128 p = u128_mul64(a.lo, b.lo);

	/* The cross products only reach the high half; a.hi * b.hi lies wholly above it. */
	p.hi += a.lo * b.hi + a.hi * b.lo;
	return p;
}

struct u128 u128_divmod64(struct u128 num, uint64_t den, uint64_t *rem)
{
	struct u128 q = { 0, 0 };
	uint64_t r = 0;

	for (int bit = 127; bit >= 0; bit--) {
		/* r < den before the shift, so 2r + 1 needs at most 65 bits: keep the 65th
		 * in carry. When it is set, r + 2^64 >= den and the wrapped r - den is exact. */
		uint64_t carry = r >> 63;
		uint64_t in = bit >= 64 ? num.hi >> (bit - 64) : num.lo >> bit;

		r = r << 1 | (in & 1);
		if (carry || r >= den) {
			r -= den;
			if (bit >= 64)
				q.hi |= 1ull << (bit - 64);
			else
				q.lo |= 1ull << bit;
		}
	}
	if (rem)
		*rem = r;
	return q;
}
