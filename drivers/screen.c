/* The screen console's hardware half (drivers/screen.h). */
#include "drivers/screen.h"
#include "arch/x86/paging.h"
#include "lib/format.h"

static struct fbcon con;
static bool attached;
static bool drawing;

/* The mode boot_info describes; BIOS boots without a usable framebuffer fall back to the
 * VGA text buffer, which a PC's BIOS leaves in colour text mode. */
static bool mode_of(const struct boot_info *bi, struct fb_mode *m, uint64_t *base)
{
	const struct bi_fb_layout *l = &bi->fb_layout;
	if (l->kind != BI_FB_NONE && bi->fb.base) {
		*m = (struct fb_mode){ .kind = l->kind, .width = bi->fb.width,
				       .height = bi->fb.height, .pitch = l->pitch, .bpp = l->bpp,
				       .red_pos = l->red_pos, .red_size = l->red_size,
				       .green_pos = l->green_pos, .green_size = l->green_size,
				       .blue_pos = l->blue_pos, .blue_size = l->blue_size,
				       .palette_count = l->palette_count, .palette = l->palette };
		*base = bi->fb.base;
		return true;
	}
	if (bi->firmware != BI_FIRMWARE_BIOS)
		return false;
	*m = (struct fb_mode){ .kind = FB_KIND_EGA_TEXT, .width = VGA_TEXT_COLS,
			       .height = VGA_TEXT_ROWS, .pitch = VGA_TEXT_COLS * 2, .bpp = 16 };
	*base = VGA_TEXT_BASE;
	return true;
}

struct fbcon *screen_dev_attach(const struct boot_info *bi, char *why, size_t whylen)
{
	struct fb_mode m;
	uint64_t base;
	attached = false;
	if (!mode_of(bi, &m, &base)) {
		bp_snprintf(why, whylen, bi->fb.format == BI_GOP_BLT_ONLY ?
			    "the GOP is blt-only (no framebuffer)" : "no framebuffer");
		return 0;
	}
	if (fbcon_init(&con, &m, 0, &font_terminus16, &font_terminus12x6, why, whylen))
		return 0;
	uint64_t bytes = fb_mode_bytes(&m);
	if (!paging_identity_reaches(base, bytes)) {
		bp_snprintf(why, whylen, "framebuffer 0x%llx+0x%llx lies outside the kernel's "
			    "identity mapping", (unsigned long long)base, (unsigned long long)bytes);
		return 0;
	}
	con.base = (uint8_t *)(uintptr_t)base;
	attached = true;
	return &con;
}

void screen_dev_flush(void)
{
	/* A fault while drawing ends in platform_stop, which flushes once more: not again. */
	if (!attached || drawing)
		return;
	drawing = true;
	fbcon_flush(&con);
	drawing = false;
}

bool screen_dev_present(void)
{
	return attached;
}
