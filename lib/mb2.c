/*
 * Multiboot2 information -> struct boot_info. Multiboot2 specification 1.0, 3.6.
 * Everything the loader wrote is read through bounds checks: a malformed list gives a
 * message, never a read outside it.
 */
#include "lib/mb2.h"
#include "lib/fbcon.h"
#include "lib/format.h"
#include "lib/str.h"

/* Ranges gathered before the map is flattened: the loader's map plus what is in use. */
#define MB2_RANGES_MAX  (BI_MMAP_MAX + 64)
#define MB2_MODULES_MAX 60

struct mb2_tag {
	uint32_t type, size;
};

struct mb2_mmap_entry {
	uint64_t base, length;
	uint32_t type, reserved;
};

/* The framebuffer tag's common part, after type and size (3.6.12). */
struct mb2_fb {
	uint64_t addr;
	uint32_t pitch, width, height;
	uint8_t bpp, type;
	uint16_t reserved;
};
#define MB2_FB_COMMON_LEN       24
_Static_assert(sizeof(struct mb2_fb) == MB2_FB_COMMON_LEN, "mb2_fb layout");
_Static_assert((int)BI_FB_RGB == (int)FB_KIND_RGB && (int)BI_FB_INDEXED == (int)FB_KIND_INDEXED &&
	       (int)BI_FB_EGA_TEXT == (int)FB_KIND_EGA_TEXT, "one numbering of framebuffer kinds");
#define MB2_FB_LIMIT            (1ull << 32)    /* both kernels map only below 4 GiB */
#define MB2_UEFI_FORMAT_BITMASK 2               /* bi_framebuffer.format: see fb_layout */

struct range {
	uint64_t base, end;
	uint32_t type;
};

struct mb2_state {
	const struct mb2_source *src;
	struct boot_info *bi;
	char *err;
	size_t errlen;
	const uint8_t *info;        /* the tag list, readable */
	uint32_t total;
	struct range ranges[MB2_RANGES_MAX];
	unsigned nranges;
	uint64_t bounds[2 * MB2_RANGES_MAX];
	int have_mmap;
	uint32_t modules;
};

/* Static: the kernel's boot stack is small, and the map needs ~22 KiB of room. */
static struct mb2_state state;

static const void *phys_ptr(const struct mb2_state *s, uint64_t phys)
{
	return (const void *)(uintptr_t)(phys + s->src->phys_to_virt);
}

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

/* Loader warnings for the user, "; "-separated, as the kernel prints them. */
static void note(struct boot_info *bi, const char *msg)
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

static uint32_t mem_type(uint32_t mb2_type)
{
	switch (mb2_type) {
	case MB2_MEM_AVAILABLE:    return BI_MEM_USABLE;
	case MB2_MEM_ACPI_RECLAIM: return BI_MEM_ACPI_RECLAIM;
	case MB2_MEM_NVS:          return BI_MEM_ACPI_NVS;
	case MB2_MEM_BADRAM:       return BI_MEM_UNUSABLE;
	default:                   return BI_MEM_RESERVED;
	}
}

/* Free RAM shrinks to whole pages; anything else grows to cover them. */
static int add_range(struct mb2_state *s, uint64_t base, uint64_t len, uint32_t type)
{
	const uint64_t mask = BI_PAGE_SIZE - 1;
	uint64_t end = base + len;
	if (len == 0)
		return 0;
	if (end < base || end > UINT64_MAX - mask) {
		bp_snprintf(s->err, s->errlen, "range 0x%llx+0x%llx wraps the address space",
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
	if (s->nranges == MB2_RANGES_MAX) {
		bp_snprintf(s->err, s->errlen, "more than %u memory ranges", MB2_RANGES_MAX);
		return -1;
	}
	s->ranges[s->nranges++] = (struct range){ base, end, type };
	return 0;
}

static int take_mmap(struct mb2_state *s, const uint8_t *tag, uint32_t size)
{
	if (size < 16) {
		bp_snprintf(s->err, s->errlen, "memory map tag of %u bytes, at least 16 needed", size);
		return -1;
	}
	uint32_t entry_size = rd32(tag + 8);
	if (entry_size < sizeof(struct mb2_mmap_entry) || entry_size % 8) {
		bp_snprintf(s->err, s->errlen, "memory map entry size %u (a multiple of 8, at least %u)",
			    entry_size, (unsigned)sizeof(struct mb2_mmap_entry));
		return -1;
	}
	uint32_t n = (size - 16) / entry_size;
	if (n == 0) {
		bp_snprintf(s->err, s->errlen, "memory map tag has no entries");
		return -1;
	}
	if (n > BI_MMAP_MAX) {
		bp_snprintf(s->err, s->errlen, "memory map has %u entries, at most %u are taken",
			    n, BI_MMAP_MAX);
		return -1;
	}
	for (uint32_t i = 0; i < n; i++) {
		struct mb2_mmap_entry e;
		memcpy(&e, tag + 16 + (size_t)i * entry_size, sizeof(e));
		if (e.base + e.length < e.base) {
			bp_snprintf(s->err, s->errlen, "memory map entry %u (0x%llx+0x%llx) wraps the "
				    "address space", i, (unsigned long long)e.base,
				    (unsigned long long)e.length);
			return -1;
		}
		if (add_range(s, e.base, e.length, mem_type(e.type)))
			return -1;
	}
	s->have_mmap = 1;
	return 0;
}

static int take_module(struct mb2_state *s, const uint8_t *tag, uint32_t size)
{
	if (size < 17) {
		bp_snprintf(s->err, s->errlen, "module tag of %u bytes, at least 17 needed", size);
		return -1;
	}
	uint32_t start = rd32(tag + 8), end = rd32(tag + 12);
	const char *name = (const char *)tag + 16;
	size_t name_len = strnlen(name, size - 16);
	if (name_len == size - 16) {
		bp_snprintf(s->err, s->errlen, "module string not NUL-terminated");
		return -1;
	}
	if (end < start) {
		bp_snprintf(s->err, s->errlen, "module '%s' ends (0x%x) before it starts (0x%x)",
			    name, end, start);
		return -1;
	}
	if (++s->modules > MB2_MODULES_MAX) {
		bp_snprintf(s->err, s->errlen, "more than %u modules", MB2_MODULES_MAX);
		return -1;
	}
	if (add_range(s, start, end - start, BI_MEM_LOADER))
		return -1;
	struct boot_info *bi = s->bi;
	if (strcmp(name, MB2_IDENTITY_MODULE) == 0) {
		/* Longer than any IDENTITY mkimage writes: not this image's, so none. */
		uint32_t ilen = end - start;
		if (ilen > BI_IDENTITY_MAX) {
			note(bi, "module 'bareperf.identity' too long: ignored");
			ilen = 0;
		}
		memcpy(bi->identity, phys_ptr(s, start), ilen);
		bi->identity_len = ilen;
		return 0;
	}
	if (strcmp(name, MB2_CONFIG_MODULE) != 0) {
		char msg[96];
		bp_snprintf(msg, sizeof(msg), "module '%s' ignored", name);
		note(bi, msg);
		return 0;
	}
	/* Too long for the buffer: refused whole, never cut (config_size tells the kernel). */
	uint32_t len = end - start;
	bi->config_size = len;
	if (len > BI_CONFIG_MAX - 1)
		len = 0;
	memcpy(bi->config, phys_ptr(s, start), len);
	bi->config[len] = 0;
	bi->config_len = len;
	return 0;
}

static int take_cmdline(struct mb2_state *s, const uint8_t *tag, uint32_t size)
{
	const char *str = (const char *)tag + 8;
	size_t len = strnlen(str, size - 8);
	if (len == size - 8) {
		bp_snprintf(s->err, s->errlen, "command line not NUL-terminated");
		return -1;
	}
	s->bi->cmdline_size = (uint32_t)len;
	if (len > BI_CMDLINE_MAX - 1)
		len = 0;                        /* refused whole, as config_size above */
	memcpy(s->bi->cmdline, str, len);
	s->bi->cmdline[len] = 0;
	s->bi->cmdline_len = len;
	return 0;
}

/* The tag holds a copy of the RSDP; the information stays reserved, so the copy does. */
static int take_rsdp(struct mb2_state *s, uint32_t off, uint32_t size, uint32_t revision)
{
	uint32_t need = revision ? 36 : 20;     /* ACPI 6.4, 5.2.5.3: RSDP length */
	if (size < 8 + need) {
		bp_snprintf(s->err, s->errlen, "ACPI tag of %u bytes, the RSDP needs %u", size, 8 + need);
		return -1;
	}
	if (revision || !s->bi->rsdp) {
		s->bi->rsdp = s->src->mbi_phys + off + 8;
		s->bi->rsdp_revision = revision;
	}
	return 0;
}

/* The pixel layout of the tag's colour information (3.6.12) as lib/fbcon.h checks it. */
static struct fb_mode fb_mode_of(const struct mb2_fb *fb, uint32_t kind, const struct bi_fb_layout *l)
{
	return (struct fb_mode){ .kind = kind, .width = fb->width, .height = fb->height,
				 .pitch = fb->pitch, .bpp = fb->bpp, .red_pos = l->red_pos,
				 .red_size = l->red_size, .green_pos = l->green_pos,
				 .green_size = l->green_size, .blue_pos = l->blue_pos,
				 .blue_size = l->blue_size, .palette_count = l->palette_count,
				 .palette = l->palette };
}

/* The colour information after the common part: channel masks or a palette. 0, or -1
 * with the reason in why. */
static int take_colour_info(const uint8_t *tag, uint32_t size, const struct mb2_fb *fb,
			    struct bi_fb_layout *l, char *why, size_t whylen)
{
	const uint32_t info = 8 + MB2_FB_COMMON_LEN;
	if (fb->type == MB2_FB_TYPE_RGB) {
		if (size < info + 6) {
			bp_snprintf(why, whylen, "direct-colour tag of %u bytes, %u needed", size, info + 6);
			return -1;
		}
		l->red_pos = tag[info];
		l->red_size = tag[info + 1];
		l->green_pos = tag[info + 2];
		l->green_size = tag[info + 3];
		l->blue_pos = tag[info + 4];
		l->blue_size = tag[info + 5];
	} else if (fb->type == MB2_FB_TYPE_INDEXED) {
		uint16_t n;
		if (size < info + 2) {
			bp_snprintf(why, whylen, "indexed tag of %u bytes, %u needed", size, info + 2);
			return -1;
		}
		memcpy(&n, tag + info, sizeof(n));
		if (n > BI_FB_PALETTE_MAX || size < info + 2 + 3u * n) {
			bp_snprintf(why, whylen, "palette of %u colours runs past the tag's %u bytes "
				    "(or past %u colours)", n, size, BI_FB_PALETTE_MAX);
			return -1;
		}
		l->palette_count = n;
		memcpy(l->palette, tag + info + 2, 3u * n);
	}
	return 0;
}

/* GRUB's framebuffer (3.6.12): a direct-colour or indexed linear framebuffer, or EGA text.
 * One that cannot be drawn on is said in the notes and left out: the run goes on. */
static void take_framebuffer(struct mb2_state *s, const uint8_t *tag, uint32_t size)
{
	static const uint32_t kinds[] = { [MB2_FB_TYPE_INDEXED] = BI_FB_INDEXED,
					  [MB2_FB_TYPE_RGB] = BI_FB_RGB,
					  [MB2_FB_TYPE_EGA_TEXT] = BI_FB_EGA_TEXT };
	struct bi_fb_layout l = { 0 };
	struct mb2_fb fb;
	char why[120], msg[160];

	if (size < 8 + MB2_FB_COMMON_LEN) {
		bp_snprintf(why, sizeof(why), "tag of %u bytes, at least %u needed", size,
			    8 + MB2_FB_COMMON_LEN);
		goto refuse;
	}
	memcpy(&fb, tag + 8, MB2_FB_COMMON_LEN);
	if (fb.type >= sizeof(kinds) / sizeof(kinds[0])) {
		bp_snprintf(why, sizeof(why), "unknown type %u", fb.type);
		goto refuse;
	}
	if (take_colour_info(tag, size, &fb, &l, why, sizeof(why)))
		goto refuse;
	struct fb_mode mode = fb_mode_of(&fb, kinds[fb.type], &l);
	if (fb_mode_check(&mode, why, sizeof(why)))
		goto refuse;
	uint64_t bytes = fb_mode_bytes(&mode);
	if (!fb.addr || fb.addr + bytes < fb.addr || fb.addr + bytes > MB2_FB_LIMIT) {
		bp_snprintf(why, sizeof(why), "0x%llx+0x%llx is not below 4 GiB",
			    (unsigned long long)fb.addr, (unsigned long long)bytes);
		goto refuse;
	}
	l.kind = kinds[fb.type];
	l.pitch = fb.pitch;
	l.bpp = fb.bpp;
	s->bi->fb_layout = l;
	struct bi_framebuffer *out = &s->bi->fb;
	out->base = fb.addr;
	out->size = bytes;
	out->width = fb.width;
	out->height = fb.height;
	out->pixels_per_line = fb.pitch / (fb.bpp / 8u);
	out->format = MB2_UEFI_FORMAT_BITMASK;
	return;
refuse:
	bp_snprintf(msg, sizeof(msg), "framebuffer tag unusable (%s): no screen", why);
	note(s->bi, msg);
}

static int take_tag(struct mb2_state *s, uint32_t off, uint32_t type, uint32_t size)
{
	const uint8_t *tag = s->info + off;
	switch (type) {
	case MB2_TAG_CMDLINE:
		return take_cmdline(s, tag, size);
	case MB2_TAG_MODULE:
		return take_module(s, tag, size);
	case MB2_TAG_MMAP:
		if (s->have_mmap) {
			bp_snprintf(s->err, s->errlen, "two memory map tags");
			return -1;
		}
		return take_mmap(s, tag, size);
	case MB2_TAG_FRAMEBUFFER:
		take_framebuffer(s, tag, size);
		return 0;
	case MB2_TAG_ACPI_OLD:
		return take_rsdp(s, off, size, 0);
	case MB2_TAG_ACPI_NEW:
		return take_rsdp(s, off, size, 2);
	default:
		return 0;               /* boot loader name, ELF sections, APM, ...: not needed */
	}
}

static int walk_tags(struct mb2_state *s)
{
	uint32_t off = 8;
	for (;;) {
		if (off > s->total - 8) {
			bp_snprintf(s->err, s->errlen, "tag list of %u bytes has no end tag", s->total);
			return -1;
		}
		uint32_t type = rd32(s->info + off), size = rd32(s->info + off + 4);
		if (size < 8 || size > s->total - off) {
			bp_snprintf(s->err, s->errlen, "tag type %u at offset %u has size %u "
				    "(8..%u possible)", type, off, size, s->total - off);
			return -1;
		}
		if (type == MB2_TAG_END)
			return 0;
		if (take_tag(s, off, type, size))
			return -1;
		off += (size + MB2_TAG_ALIGN - 1) & ~(uint32_t)(MB2_TAG_ALIGN - 1);
	}
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

/* Flattens the overlapping ranges into a sorted map: each piece takes the strongest type
 * covering it (type_rank); adjacent pieces of one type merge. */
static int flatten(struct mb2_state *s)
{
	struct boot_info *bi = s->bi;
	unsigned nb = 0;
	for (unsigned i = 0; i < s->nranges; i++) {
		s->bounds[nb++] = s->ranges[i].base;
		s->bounds[nb++] = s->ranges[i].end;
	}
	sort_u64(s->bounds, nb);
	uint32_t n = 0;
	for (unsigned b = 0; b + 1 < nb; b++) {
		uint64_t lo = s->bounds[b], hi = s->bounds[b + 1];
		int best = -1;
		if (lo == hi)
			continue;
		for (unsigned i = 0; i < s->nranges; i++) {
			const struct range *r = &s->ranges[i];
			if (r->base <= lo && r->end >= hi &&
			    (best < 0 || type_rank(r->type) > type_rank(s->ranges[best].type)))
				best = (int)i;
		}
		if (best < 0)
			continue;       /* a hole in the map */
		uint32_t type = s->ranges[best].type;
		struct bi_mem_range *last = n ? &bi->mmap[n - 1] : 0;
		if (last && last->type == type && last->base + last->pages * BI_PAGE_SIZE == lo) {
			last->pages += (hi - lo) / BI_PAGE_SIZE;
			continue;
		}
		if (n == BI_MMAP_MAX) {
			bp_snprintf(s->err, s->errlen, "memory map needs more than %u entries",
				    BI_MMAP_MAX);
			return -1;
		}
		bi->mmap[n++] = (struct bi_mem_range){ .base = lo, .pages = (hi - lo) / BI_PAGE_SIZE,
						       .type = type };
	}
	if (n == 0) {
		bp_snprintf(s->err, s->errlen, "memory map has no whole page");
		return -1;
	}
	bi->mmap_count = n;
	return 0;
}

int mb2_fill_boot_info(const struct mb2_source *src, struct boot_info *bi, char *err, size_t errlen)
{
	struct mb2_state *s = &state;
	memset(s, 0, sizeof(*s));
	s->src = src;
	s->bi = bi;
	s->err = err;
	s->errlen = errlen;
	memset(bi, 0, sizeof(*bi));
	bi->magic = BOOTINFO_MAGIC;
	bi->version = BOOTINFO_VERSION;
	bi->size = sizeof(*bi);
	bi->firmware = src->firmware;
	bi->kernel_phys = src->kernel_phys;
	bi->kernel_size = src->kernel_size;

	if (!src->mbi_phys || src->mbi_phys % MB2_TAG_ALIGN) {
		bp_snprintf(err, errlen, "boot information at 0x%llx (must be 8-byte aligned, not 0)",
			    (unsigned long long)src->mbi_phys);
		return -1;
	}
	s->info = phys_ptr(s, src->mbi_phys);
	s->total = rd32(s->info);
	if (s->total < 16 || s->total > MB2_INFO_MAX || s->total % MB2_TAG_ALIGN) {
		bp_snprintf(err, errlen, "boot information claims %u bytes (16..%u, a multiple of 8)",
			    s->total, MB2_INFO_MAX);
		return -1;
	}
	if (walk_tags(s))
		return -1;
	if (!s->have_mmap) {
		bp_snprintf(err, errlen, "no memory map (tag type %u): the loader must pass one",
			    MB2_TAG_MMAP);
		return -1;
	}
	if (add_range(s, src->kernel_phys, src->kernel_size, BI_MEM_LOADER) ||
	    add_range(s, src->mbi_phys, s->total, BI_MEM_LOADER))
		return -1;
	return flatten(s);
}
