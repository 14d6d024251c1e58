/*
 * libFuzzer target: bootinfo_validate (lib/bootinfo.c), what the kernel runs on the
 * loader's hand-off before trusting it. The whole struct is 22 KiB of mostly text
 * buffers the validator only measures, so the input is packed: the 80 header bytes
 * (magic .. fb), then cmdline_len and config_len (4 bytes each), then memory-map
 * entries of 24 bytes; what the input does not cover stays zero, as the loader's
 * zero-filled struct does. Checks: a struct that passes is one the kernel can walk
 * (count in range, every entry typed, aligned and not wrapping).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/bootinfo.h"

#define HEADER_BYTES offsetof(struct boot_info, mmap)

static void fail(const char *what)
{
	fprintf(stderr, "fuzz_bootinfo: %s\n", what);
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct boot_info bi;
	char err[160];
	size_t n;

	memset(&bi, 0, sizeof(bi));
	n = size < HEADER_BYTES ? size : HEADER_BYTES;
	memcpy(&bi, data, n);
	data += n;
	size -= n;
	if (size >= 8) {
		memcpy(&bi.cmdline_len, data, 4);
		memcpy(&bi.config_len, data + 4, 4);
		data += 8;
		size -= 8;
	}
	n = size < sizeof(bi.mmap) ? size : sizeof(bi.mmap);
	memcpy(bi.mmap, data, n);

	err[0] = '\0';
	if (bootinfo_validate(&bi, err, sizeof(err)) != 0) {
		if (err[0] == '\0' || !memchr(err, '\0', sizeof(err)))
			fail("rejected without a message");
		return 0;
	}
	if (bi.magic != BOOTINFO_MAGIC || bi.version != BOOTINFO_VERSION || bi.size != sizeof(bi))
		fail("accepted a bad header");
	if (bi.mmap_count < 1 || bi.mmap_count > BI_MMAP_MAX ||
	    bi.cmdline_len >= BI_CMDLINE_MAX || bi.config_len >= BI_CONFIG_MAX)
		fail("accepted a count or length past its buffer");
	uint64_t usable = 0;
	for (uint32_t i = 0; i < bi.mmap_count; i++) {
		const struct bi_mem_range *r = &bi.mmap[i];
		if (r->type < BI_MEM_USABLE || r->type > BI_MEM_UNUSABLE || (r->base & 0xfff))
			fail("accepted an untyped or unaligned range");
		if (r->base + r->pages * 4096 < r->base)
			fail("accepted a range that wraps");
		if (r->type == BI_MEM_USABLE)
			usable += r->pages * 4096;
	}
	if (bootinfo_usable_bytes(&bi) != usable)
		fail("bootinfo_usable_bytes disagrees with the map");
	return 0;
}
