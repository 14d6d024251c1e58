/* Counting set bits without libgcc: without POPCNT, __builtin_popcount is a call to
 * libgcc's __popcountdi2, which neither the kernel nor the UEFI loader links (in the
 * loader it left a PLT slot that the PE image does not carry). */
#ifndef LIB_BITS_H
#define LIB_BITS_H

#include <stdint.h>

static inline unsigned bit_count(uint64_t v)
{
	unsigned n = 0;

	for (; v; v &= v - 1)
		n++;
	return n;
}

/* A colour channel's mask (UEFI 2.9, 12.9: EFI_PIXEL_BITMASK) as the position of its
 * lowest bit and its width; an empty mask is position 0, width 0. */
static inline void mask_field(uint32_t mask, uint8_t *pos, uint8_t *size)
{
	*pos = mask ? (uint8_t)__builtin_ctz(mask) : 0;
	*size = (uint8_t)bit_count(mask);
}

#endif
