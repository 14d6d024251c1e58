/*
 * Text cells to pixels (lib/fbcon.h). EGA/VGA text buffers: IBM VGA Technical Reference,
 * "Alphanumeric modes" (character byte, then attribute byte: foreground in bits 0-3,
 * background in bits 4-6, bit 7 blink).
 */
#include "lib/fbcon.h"
#include "lib/format.h"
#include "lib/str.h"

#define EGA_ATTR_BG_MASK  0x70      /* bit 7 blinks (or selects bright backgrounds) */
#define CP437_BLOCK_FULL  0xdb
#define CP437_SHADE_LIGHT 0xb0
#define CP437_PLUS_MINUS  0xf1
#define BLANK_ATTR        SCR_ATTR(SCR_GREY, SCR_BLACK)

const uint8_t scr_colour_rgb[SCR_COLOURS][3] = {
	[SCR_BLACK] = { 0x00, 0x00, 0x00 },         [SCR_BLUE] = { 0x00, 0x00, 0xaa },
	[SCR_GREEN] = { 0x00, 0xaa, 0x00 },         [SCR_CYAN] = { 0x00, 0xaa, 0xaa },
	[SCR_RED] = { 0xaa, 0x00, 0x00 },           [SCR_MAGENTA] = { 0xaa, 0x00, 0xaa },
	[SCR_BROWN] = { 0xaa, 0x55, 0x00 },         [SCR_GREY] = { 0xaa, 0xaa, 0xaa },
	[SCR_DARK_GREY] = { 0x55, 0x55, 0x55 },     [SCR_LIGHT_BLUE] = { 0x55, 0x55, 0xff },
	[SCR_LIGHT_GREEN] = { 0x55, 0xff, 0x55 },   [SCR_LIGHT_CYAN] = { 0x55, 0xff, 0xff },
	[SCR_LIGHT_RED] = { 0xff, 0x55, 0x55 },     [SCR_LIGHT_MAGENTA] = { 0xff, 0x55, 0xff },
	[SCR_YELLOW] = { 0xff, 0xff, 0x55 },        [SCR_WHITE] = { 0xff, 0xff, 0xff },
};

uint64_t fb_mode_bytes(const struct fb_mode *m)
{
	return (uint64_t)m->pitch * m->height;
}

static int check_channel(const char *name, unsigned pos, unsigned size, unsigned bpp,
			 char *err, size_t errlen)
{
	if (size == 0 || size > 8 || pos + size > bpp) {
		bp_snprintf(err, errlen, "%s channel at bit %u, %u bits wide, does not fit %u-bit "
			    "pixels (1..8 bits inside the pixel)", name, pos, size, bpp);
		return -1;
	}
	return 0;
}

int fb_mode_check(const struct fb_mode *m, char *err, size_t errlen)
{
	unsigned bytes_pp;
	switch (m->kind) {
	case FB_KIND_RGB:
		if (m->bpp != 16 && m->bpp != 24 && m->bpp != 32) {
			bp_snprintf(err, errlen, "direct colour at %u bits per pixel (16, 24 or 32 "
				    "are drawn)", m->bpp);
			return -1;
		}
		if (check_channel("red", m->red_pos, m->red_size, m->bpp, err, errlen) ||
		    check_channel("green", m->green_pos, m->green_size, m->bpp, err, errlen) ||
		    check_channel("blue", m->blue_pos, m->blue_size, m->bpp, err, errlen))
			return -1;
		break;
	case FB_KIND_INDEXED:
		if (m->bpp != 8) {
			bp_snprintf(err, errlen, "indexed colour at %u bits per pixel (8 is drawn)",
				    m->bpp);
			return -1;
		}
		if (m->palette_count > FB_PALETTE_MAX || (m->palette_count && !m->palette)) {
			bp_snprintf(err, errlen, "palette of %u colours (at most %u)",
				    m->palette_count, FB_PALETTE_MAX);
			return -1;
		}
		break;
	case FB_KIND_EGA_TEXT:
		if (m->bpp != 16) {
			bp_snprintf(err, errlen, "EGA text with %u-bit cells (16 expected)", m->bpp);
			return -1;
		}
		break;
	default:
		bp_snprintf(err, errlen, "unknown framebuffer type %u", m->kind);
		return -1;
	}
	bytes_pp = m->bpp / 8;
	if (m->width == 0 || m->height == 0 || m->pitch == 0) {
		bp_snprintf(err, errlen, "%ux%u with a pitch of %u bytes (none may be 0)",
			    m->width, m->height, m->pitch);
		return -1;
	}
	if ((uint64_t)m->width * bytes_pp > m->pitch) {
		bp_snprintf(err, errlen, "pitch of %u bytes is shorter than a line of %u %u-bit "
			    "pixels", m->pitch, m->width, m->bpp);
		return -1;
	}
	return 0;
}

const struct font *fbcon_pick_font(uint32_t width, const struct font *big,
				   const struct font *small, unsigned *scale)
{
	const struct font *f = big;
	if (width / big->width < SCR_COLS_WANT && small)
		f = small;
	unsigned s = width / (f->width * SCR_COLS_WANT);
	*scale = s ? s : 1;
	return f;
}

static uint32_t channel(uint8_t v8, unsigned pos, unsigned size)
{
	return (uint32_t)(v8 >> (8 - size)) << pos;
}

/* The palette entry nearest to rgb (squared distance; the first of equals). */
static uint32_t nearest_index(const struct fb_mode *m, const uint8_t rgb[3])
{
	uint32_t best = 0, best_d = UINT32_MAX;
	for (uint32_t i = 0; i < m->palette_count; i++) {
		uint32_t d = 0;
		for (int k = 0; k < 3; k++) {
			int diff = (int)m->palette[i][k] - (int)rgb[k];
			d += (uint32_t)(diff * diff);
		}
		if (d < best_d) {
			best_d = d;
			best = i;
		}
	}
	return best;
}

static void compute_pixels(struct fbcon *c)
{
	const struct fb_mode *m = &c->mode;
	for (unsigned i = 0; i < SCR_COLOURS; i++) {
		const uint8_t *rgb = scr_colour_rgb[i];
		if (m->kind == FB_KIND_RGB)
			c->pixel[i] = channel(rgb[0], m->red_pos, m->red_size) |
				      channel(rgb[1], m->green_pos, m->green_size) |
				      channel(rgb[2], m->blue_pos, m->blue_size);
		else if (m->kind == FB_KIND_INDEXED)
			c->pixel[i] = m->palette_count ? nearest_index(m, rgb) : i;
		else
			c->pixel[i] = i;
	}
}

int fbcon_init(struct fbcon *c, const struct fb_mode *m, void *base, const struct font *big,
	       const struct font *small, char *err, size_t errlen)
{
	if (fb_mode_check(m, err, errlen))
		return -1;
	memset(c, 0, sizeof(*c));
	c->mode = *m;
	c->base = base;
	if (m->kind == FB_KIND_EGA_TEXT) {
		c->scale = 1;
		c->cols = m->width;
		c->rows = m->height;
	} else {
		c->font = fbcon_pick_font(m->width, big, small, &c->scale);
		c->cols = m->width / (c->font->width * c->scale);
		c->rows = m->height / (c->font->height * c->scale);
	}
	if (c->cols > SCR_COLS_MAX)
		c->cols = SCR_COLS_MAX;
	if (c->rows > SCR_ROWS_MAX)
		c->rows = SCR_ROWS_MAX;
	if (c->cols == 0 || c->rows == 0) {
		bp_snprintf(err, errlen, "%ux%u holds no character cell", m->width, m->height);
		return -1;
	}
	compute_pixels(c);
	fbcon_clear_rows(c, 0, c->rows, BLANK_ATTR);
	return 0;
}

void fbcon_put(struct fbcon *c, unsigned col, unsigned row, uint8_t ch, uint8_t attr)
{
	if (col < c->cols && row < c->rows)
		c->cells[row * SCR_COLS_MAX + col] = (struct scr_cell){ ch, attr };
}

unsigned fbcon_text(struct fbcon *c, unsigned col, unsigned row, const char *s, uint8_t attr)
{
	unsigned n = 0;
	for (; s[n] && col + n < c->cols; n++)
		fbcon_put(c, col + n, row, (uint8_t)s[n], attr);
	return n;
}

void fbcon_clear_rows(struct fbcon *c, unsigned row, unsigned n, uint8_t attr)
{
	for (unsigned r = row; r < row + n && r < c->rows; r++)
		for (unsigned col = 0; col < c->cols; col++)
			fbcon_put(c, col, r, ' ', attr);
}

void fbcon_scroll_up(struct fbcon *c, unsigned top, unsigned bottom, unsigned n, uint8_t attr)
{
	if (bottom > c->rows)
		bottom = c->rows;
	if (top >= bottom)
		return;
	if (n > bottom - top)
		n = bottom - top;
	for (unsigned r = top; r + n < bottom; r++)
		memcpy(&c->cells[r * SCR_COLS_MAX], &c->cells[(r + n) * SCR_COLS_MAX],
		       c->cols * sizeof(struct scr_cell));
	fbcon_clear_rows(c, bottom - n, n, attr);
}

void fbcon_describe(const struct fbcon *c, char *buf, size_t len)
{
	const struct fb_mode *m = &c->mode;
	if (m->kind == FB_KIND_EGA_TEXT)
		bp_snprintf(buf, len, "%ux%u text", m->width, m->height);
	else
		bp_snprintf(buf, len, "%ux%ux%u %s colour, %ux%u cells", m->width, m->height, m->bpp,
			    m->kind == FB_KIND_INDEXED ? "indexed" : "direct", c->cols, c->rows);
}

uint8_t fbcon_cp437(uint8_t ch)
{
	if (ch == FONT_BLOCK_FULL)
		return CP437_BLOCK_FULL;
	if (ch == FONT_SHADE_LIGHT)
		return CP437_SHADE_LIGHT;
	if (ch == FONT_PLUS_MINUS)
		return CP437_PLUS_MINUS;
	return ch >= 0x20 && ch < 0x7f ? ch : ' ';
}

/* One pixel, little-endian, of the mode's width. */
static inline void put_pixel(uint8_t *p, uint32_t v, unsigned bytes)
{
	switch (bytes) {
	case 4: __builtin_memcpy(p, &v, 4); break;
	case 3: p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); break;
	case 2: { uint16_t h = (uint16_t)v; __builtin_memcpy(p, &h, 2); } break;
	default: p[0] = (uint8_t)v; break;
	}
}

static uint32_t glyph_row(const struct font *f, const uint8_t *g, unsigned y)
{
	uint32_t bits = 0;
	for (unsigned b = 0; b < f->row_bytes; b++)
		bits = bits << 8 | g[y * f->row_bytes + b];
	return bits << (32 - 8 * f->row_bytes);    /* leftmost pixel in bit 31 */
}

static void draw_cell_pixels(struct fbcon *c, unsigned col, unsigned row, struct scr_cell cell)
{
	const struct font *f = c->font;
	unsigned bytes = c->mode.bpp / 8, s = c->scale;
	uint8_t ch = cell.ch < FONT_CHARS ? cell.ch : '?';
	const uint8_t *g = f->bits + (size_t)ch * f->height * f->row_bytes;
	uint32_t fg = c->pixel[SCR_ATTR_FG(cell.attr)], bg = c->pixel[SCR_ATTR_BG(cell.attr)];
	uint8_t *line = c->base + (size_t)row * f->height * s * c->mode.pitch +
			(size_t)col * f->width * s * bytes;

	for (unsigned y = 0; y < f->height; y++) {
		uint32_t bits = glyph_row(f, g, y);
		for (unsigned sy = 0; sy < s; sy++, line += c->mode.pitch) {
			uint8_t *p = line;
			for (unsigned x = 0; x < f->width; x++) {
				uint32_t v = bits << x & 0x80000000u ? fg : bg;
				for (unsigned sx = 0; sx < s; sx++, p += bytes)
					put_pixel(p, v, bytes);
			}
		}
	}
}

static void draw_cell(struct fbcon *c, unsigned col, unsigned row, struct scr_cell cell)
{
	if (c->mode.kind == FB_KIND_EGA_TEXT) {
		uint8_t *p = c->base + (size_t)row * c->mode.pitch + col * 2u;
		p[0] = fbcon_cp437(cell.ch);
		p[1] = cell.attr & (uint8_t)(0x0f | EGA_ATTR_BG_MASK);
		return;
	}
	draw_cell_pixels(c, col, row, cell);
}

/* Paints the pixels outside the grid (right and bottom margins) black, once. */
static void clear_margins(struct fbcon *c)
{
	if (c->mode.kind == FB_KIND_EGA_TEXT)
		return;
	unsigned bytes = c->mode.bpp / 8;
	uint32_t grid_w = c->cols * c->font->width * c->scale;
	uint32_t grid_h = c->rows * c->font->height * c->scale;
	for (uint32_t y = 0; y < c->mode.height; y++) {
		uint8_t *line = c->base + (size_t)y * c->mode.pitch;
		for (uint32_t x = y < grid_h ? grid_w : 0; x < c->mode.width; x++)
			put_pixel(line + (size_t)x * bytes, c->pixel[SCR_BLACK], bytes);
	}
}

void fbcon_flush(struct fbcon *c)
{
	if (!c->drawn_once)
		clear_margins(c);
	for (unsigned row = 0; row < c->rows; row++) {
		for (unsigned col = 0; col < c->cols; col++) {
			unsigned i = row * SCR_COLS_MAX + col;
			struct scr_cell cell = c->cells[i];
			if (c->drawn_once && cell.ch == c->shown[i].ch && cell.attr == c->shown[i].attr)
				continue;
			draw_cell(c, col, row, cell);
			c->shown[i] = cell;
		}
	}
	c->drawn_once = true;
}
