/*
 * struct boot_info from a BIOS-side hand-over: the parts Multiboot2 (lib/mb2.c) and PVH
 * (lib/pvh.c) share. See lib/bootinfo-build.h.
 */
#include "lib/bootinfo-build.h"
#include "lib/format.h"
#include "lib/str.h"

void bib_begin(struct bi_builder *b, const struct boot_source *src, struct boot_info *bi,
	       char *err, size_t errlen)
{
	memset(b, 0, sizeof(*b));
	b->src = src;
	b->bi = bi;
	b->err = err;
	b->errlen = errlen;
	memset(bi, 0, sizeof(*bi));
	bi->magic = BOOTINFO_MAGIC;
	bi->version = BOOTINFO_VERSION;
	bi->size = sizeof(*bi);
	bi->firmware = src->firmware;
	bi->kernel_phys = src->kernel_phys;
	bi->kernel_size = src->kernel_size;
}

const void *bib_phys(const struct bi_builder *b, uint64_t phys)
{
	return (const void *)(uintptr_t)(phys + b->src->phys_to_virt);
}

void bib_note(struct boot_info *bi, const char *msg)
{
	size_t len = strnlen(bi->note, BI_NOTE_MAX - 1);
	if (len && len + 2 < BI_NOTE_MAX - 1) {
		bi->note[len++] = ';';
		bi->note[len++] = ' ';
	}
	str_copy(bi->note + len, msg, BI_NOTE_MAX - len);
}

/* A firmware type wins over the loader's use, which wins over free RAM. */
static unsigned type_rank(uint32_t type)
{
	switch (type) {
	case BI_MEM_USABLE:       return 0;
	case BI_MEM_LOADER:       return 1;
	case BI_MEM_ACPI_RECLAIM: return 2;
	case BI_MEM_ACPI_NVS:     return 3;
	case BI_MEM_MMIO:         return 4;
	case BI_MEM_RESERVED:     return 5;
	default:                  return 6;
	}
}

int bib_add_range(struct bi_builder *b, uint64_t base, uint64_t len, uint32_t type)
{
	const uint64_t mask = BI_PAGE_SIZE - 1;
	uint64_t end = base + len;
	if (len == 0)
		return 0;
	if (end < base || end > UINT64_MAX - mask) {
		bp_snprintf(b->err, b->errlen, "range 0x%llx+0x%llx wraps the address space",
			    (unsigned long long)base, (unsigned long long)len);
		return -1;
	}
	if (type == BI_MEM_USABLE) {
		base = (base + mask) & ~mask;
		end &= ~mask;
	} else {
		base &= ~mask;
		end = (end + mask) & ~mask;
	}
	if (end <= base)
		return 0;
	if (b->nranges == BIB_RANGES_MAX) {
		bp_snprintf(b->err, b->errlen, "more than %u memory ranges", BIB_RANGES_MAX);
		return -1;
	}
	b->ranges[b->nranges++] = (struct bib_range){ base, end, type };
	return 0;
}

/* The text of a small module without the blanks and newlines around it: [*from, *to). */
static void trim(const char *t, uint64_t len, uint64_t *from, uint64_t *to)
{
	*from = 0;
	*to = len;
	while (*from < *to && (t[*from] == ' ' || t[*from] == '\t' || t[*from] == '\r' ||
			       t[*from] == '\n'))
		(*from)++;
	while (*to > *from && (t[*to - 1] == ' ' || t[*to - 1] == '\t' || t[*to - 1] == '\r' ||
			       t[*to - 1] == '\n'))
		(*to)--;
}

static int take_medium(struct bi_builder *b, const char *t, uint64_t len)
{
	static const struct { const char *word; uint32_t medium; } media[] = {
		{ "network", BI_MEDIUM_NETWORK }, { "cd", BI_MEDIUM_CD }, { "disk", BI_MEDIUM_DISK },
	};
	uint64_t from, to;

	trim(t, len, &from, &to);
	for (size_t i = 0; i < sizeof(media) / sizeof(media[0]); i++)
		if (to - from == strlen(media[i].word) &&
		    memcmp(t + from, media[i].word, (size_t)(to - from)) == 0) {
			b->bi->medium = media[i].medium;
			return 0;
		}
	bib_note(b->bi, "module '" BIB_MEDIUM_MODULE "' names no medium (network, cd or disk): "
		 "taken as a disk");
	return 0;
}

/* The note's printable ASCII, each other byte as '?', cut to what a note holds. */
static void take_note(struct boot_info *bi, const char *t, uint64_t len)
{
	char msg[BI_NOTE_MAX / 2];
	uint64_t from, to;
	size_t n = 0;

	trim(t, len, &from, &to);
	for (uint64_t i = from; i < to && n < sizeof(msg) - 1; i++)
		msg[n++] = t[i] >= 0x20 && t[i] < 0x7f ? t[i] : '?';
	msg[n] = '\0';
	if (n)
		bib_note(bi, msg);
}

int bib_module(struct bi_builder *b, const char *name, uint64_t start, uint64_t end)
{
	struct boot_info *bi = b->bi;
	if (end < start) {
		bp_snprintf(b->err, b->errlen, "module '%s' ends (0x%llx) before it starts (0x%llx)",
			    name, (unsigned long long)end, (unsigned long long)start);
		return -1;
	}
	if (++b->modules > BIB_MODULES_MAX) {
		bp_snprintf(b->err, b->errlen, "more than %u modules", BIB_MODULES_MAX);
		return -1;
	}
	if (bib_add_range(b, start, end - start, BI_MEM_LOADER))
		return -1;
	uint64_t len = end - start;
	if (strcmp(name, BIB_IDENTITY_MODULE) == 0) {
		/* Longer than any IDENTITY mkimage writes: not this image's, so none. */
		if (len > BI_IDENTITY_MAX) {
			bib_note(bi, "module 'bareperf.identity' too long: ignored");
			len = 0;
		}
		memcpy(bi->identity, bib_phys(b, start), (size_t)len);
		bi->identity_len = (uint32_t)len;
		return 0;
	}
	if (strcmp(name, BIB_MEDIUM_MODULE) == 0)
		return take_medium(b, bib_phys(b, start), len);
	if (strcmp(name, BIB_NOTE_MODULE) == 0) {
		take_note(bi, bib_phys(b, start), len);
		return 0;
	}
	if (strcmp(name, BIB_CONFIG_MODULE) != 0) {
		char msg[96];
		bp_snprintf(msg, sizeof(msg), "module '%s' ignored", name);
		bib_note(bi, msg);
		return 0;
	}
	/* Too long for the buffer: refused whole, never cut (config_size tells the kernel). */
	bi->config_size = len;
	if (len > BI_CONFIG_MAX - 1)
		len = 0;
	memcpy(bi->config, bib_phys(b, start), (size_t)len);
	bi->config[len] = 0;
	bi->config_len = (uint32_t)len;
	return 0;
}

void bib_cmdline(struct bi_builder *b, const char *str, size_t len)
{
	struct boot_info *bi = b->bi;
	bi->cmdline_size = len > UINT32_MAX ? UINT32_MAX : (uint32_t)len;
	if (len > BI_CMDLINE_MAX - 1)
		len = 0;                        /* refused whole, as config_size above */
	memcpy(bi->cmdline, str, len);
	bi->cmdline[len] = 0;
	bi->cmdline_len = (uint32_t)len;
}

static void sort_u64(uint64_t *v, unsigned n)
{
	for (unsigned i = 1; i < n; i++) {
		uint64_t x = v[i];
		unsigned j = i;
		for (; j && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

/* The strongest range covering [lo, hi), or -1 for a hole in the map. */
static int cover(const struct bi_builder *b, uint64_t lo, uint64_t hi)
{
	int best = -1;
	for (unsigned i = 0; i < b->nranges; i++) {
		const struct bib_range *r = &b->ranges[i];
		if (r->base <= lo && r->end >= hi &&
		    (best < 0 || type_rank(r->type) > type_rank(b->ranges[best].type)))
			best = (int)i;
	}
	return best;
}

/* Each piece between two range bounds takes the strongest type covering it; adjacent
 * pieces of one type merge. */
static int flatten(struct bi_builder *b)
{
	struct boot_info *bi = b->bi;
	unsigned nb = 0;
	for (unsigned i = 0; i < b->nranges; i++) {
		b->bounds[nb++] = b->ranges[i].base;
		b->bounds[nb++] = b->ranges[i].end;
	}
	sort_u64(b->bounds, nb);
	uint32_t n = 0;
	for (unsigned k = 0; k + 1 < nb; k++) {
		uint64_t lo = b->bounds[k], hi = b->bounds[k + 1];
		int best = lo == hi ? -1 : cover(b, lo, hi);
		if (best < 0)
			continue;
		uint32_t type = b->ranges[best].type;
		struct bi_mem_range *last = n ? &bi->mmap[n - 1] : 0;
		if (last && last->type == type && last->base + last->pages * BI_PAGE_SIZE == lo) {
			last->pages += (hi - lo) / BI_PAGE_SIZE;
			continue;
		}
		if (n == BI_MMAP_MAX) {
			bp_snprintf(b->err, b->errlen, "memory map needs more than %u entries",
				    BI_MMAP_MAX);
			return -1;
		}
		bi->mmap[n++] = (struct bi_mem_range){ .base = lo, .pages = (hi - lo) / BI_PAGE_SIZE,
						       .type = type };
	}
	if (n == 0) {
		bp_snprintf(b->err, b->errlen, "memory map has no whole page");
		return -1;
	}
	bi->mmap_count = n;
	return 0;
}

int bib_finish(struct bi_builder *b)
{
	if (bib_add_range(b, b->src->kernel_phys, b->src->kernel_size, BI_MEM_LOADER))
		return -1;
	return flatten(b);
}
