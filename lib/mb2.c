/*
 * Multiboot2 information -> struct boot_info. Multiboot2 specification 1.0, 3.6.
 * Everything the loader wrote is read through bounds checks: a malformed list gives a
 * message, never a read outside it.
 */
#include "lib/mb2.h"
#include "lib/bootinfo-build.h"
#include "lib/fbcon.h"
#include "lib/format.h"
#include "lib/str.h"

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

struct mb2_state {
	struct bi_builder b;        /* first: the builder's functions take &s->b */
	const uint8_t *info;        /* the tag list, readable */
	uint32_t total;
	int have_mmap;
};

/* Static: the kernel's boot stack is small, and the builder needs ~22 KiB of room. */
static struct mb2_state state;

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof(v));
	return v;
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

static int take_mmap(struct mb2_state *s, const uint8_t *tag, uint32_t size)
{
	if (size < 16) {
		bp_snprintf(s->b.err, s->b.errlen, "memory map tag of %u bytes, at least 16 needed", size);
		return -1;
	}
	uint32_t entry_size = rd32(tag + 8);
	if (entry_size < sizeof(struct mb2_mmap_entry) || entry_size % 8) {
		bp_snprintf(s->b.err, s->b.errlen, "memory map entry size %u (a multiple of 8, at least %u)",
			    entry_size, (unsigned)sizeof(struct mb2_mmap_entry));
		return -1;
	}
	uint32_t n = (size - 16) / entry_size;
	if (n == 0) {
		bp_snprintf(s->b.err, s->b.errlen, "memory map tag has no entries");
		return -1;
	}
	if (n > BI_MMAP_MAX) {
		bp_snprintf(s->b.err, s->b.errlen, "memory map has %u entries, at most %u are taken",
			    n, BI_MMAP_MAX);
		return -1;
	}
	for (uint32_t i = 0; i < n; i++) {
		struct mb2_mmap_entry e;
		memcpy(&e, tag + 16 + (size_t)i * entry_size, sizeof(e));
		if (e.base + e.length < e.base) {
			bp_snprintf(s->b.err, s->b.errlen, "memory map entry %u (0x%llx+0x%llx) wraps the "
				    "address space", i, (unsigned long long)e.base,
				    (unsigned long long)e.length);
			return -1;
		}
		if (bib_add_range(&s->b, e.base, e.length, mem_type(e.type)))
			return -1;
	}
	s->have_mmap = 1;
	return 0;
}

static int take_module(struct mb2_state *s, const uint8_t *tag, uint32_t size)
{
	if (size < 17) {
		bp_snprintf(s->b.err, s->b.errlen, "module tag of %u bytes, at least 17 needed", size);
		return -1;
	}
	uint32_t start = rd32(tag + 8), end = rd32(tag + 12);
	const char *name = (const char *)tag + 16;
	size_t name_len = strnlen(name, size - 16);
	if (name_len == size - 16) {
		bp_snprintf(s->b.err, s->b.errlen, "module string not NUL-terminated");
		return -1;
	}
	return bib_module(&s->b, name, start, end);
}

static int take_cmdline(struct mb2_state *s, const uint8_t *tag, uint32_t size)
{
	const char *str = (const char *)tag + 8;
	size_t len = strnlen(str, size - 8);
	if (len == size - 8) {
		bp_snprintf(s->b.err, s->b.errlen, "command line not NUL-terminated");
		return -1;
	}
	bib_cmdline(&s->b, str, len);
	return 0;
}

/* The tag holds a copy of the RSDP; the information stays reserved, so the copy does. */
static int take_rsdp(struct mb2_state *s, uint32_t off, uint32_t size, uint32_t revision)
{
	uint32_t need = revision ? 36 : 20;     /* ACPI 6.4, 5.2.5.3: RSDP length */
	if (size < 8 + need) {
		bp_snprintf(s->b.err, s->b.errlen, "ACPI tag of %u bytes, the RSDP needs %u", size, 8 + need);
		return -1;
	}
	if (revision || !s->b.bi->rsdp) {
		s->b.bi->rsdp = s->b.src->info_phys + off + 8;
		s->b.bi->rsdp_revision = revision;
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
	s->b.bi->fb_layout = l;
	struct bi_framebuffer *out = &s->b.bi->fb;
	out->base = fb.addr;
	out->size = bytes;
	out->width = fb.width;
	out->height = fb.height;
	out->pixels_per_line = fb.pitch / (fb.bpp / 8u);
	out->format = MB2_UEFI_FORMAT_BITMASK;
	return;
refuse:
	bp_snprintf(msg, sizeof(msg), "framebuffer tag unusable (%s): no screen", why);
	bib_note(s->b.bi, msg);
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
			bp_snprintf(s->b.err, s->b.errlen, "two memory map tags");
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
			bp_snprintf(s->b.err, s->b.errlen, "tag list of %u bytes has no end tag", s->total);
			return -1;
		}
		uint32_t type = rd32(s->info + off), size = rd32(s->info + off + 4);
		if (size < 8 || size > s->total - off) {
			bp_snprintf(s->b.err, s->b.errlen, "tag type %u at offset %u has size %u "
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

int mb2_fill_boot_info(const struct boot_source *src, struct boot_info *bi, char *err, size_t errlen)
{
	struct mb2_state *s = &state;
	memset(s, 0, sizeof(*s));
	bib_begin(&s->b, src, bi, err, errlen);
	bi->protocol = BI_PROTOCOL_MULTIBOOT2;

	if (!src->info_phys || src->info_phys % MB2_TAG_ALIGN) {
		bp_snprintf(err, errlen, "boot information at 0x%llx (must be 8-byte aligned, not 0)",
			    (unsigned long long)src->info_phys);
		return -1;
	}
	s->info = bib_phys(&s->b, src->info_phys);
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
	if (bib_add_range(&s->b, src->info_phys, s->total, BI_MEM_LOADER))
		return -1;
	return bib_finish(&s->b);
}
