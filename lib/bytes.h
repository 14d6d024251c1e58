/* Little- and big-endian fields of 1 to 8 bytes, in on-disk and on-wire structures (FAT,
 * SMBIOS, USB bulk-only transport and SCSI), wherever they lie in a byte buffer. */
#ifndef LIB_BYTES_H
#define LIB_BYTES_H
#include <stdint.h>

static inline uint64_t get_le(const uint8_t *p, unsigned bytes)
{
	uint64_t v = 0;
	for (unsigned i = bytes; i-- > 0;)
		v = v << 8 | p[i];
	return v;
}

static inline void put_le(uint8_t *p, uint64_t v, unsigned bytes)
{
	for (unsigned i = 0; i < bytes; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint64_t get_be(const uint8_t *p, unsigned bytes)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < bytes; i++)
		v = v << 8 | p[i];
	return v;
}

static inline void put_be(uint8_t *p, uint64_t v, unsigned bytes)
{
	for (unsigned i = 0; i < bytes; i++)
		p[i] = (uint8_t)(v >> (8 * (bytes - 1 - i)));
}

#endif
