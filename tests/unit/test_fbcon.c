/*
 * lib/fbcon.c: text cells to pixels. Every rendering is checked pixel by pixel against a
 * reference computed here independently (cell -> glyph bit -> colour, decoded back out of
 * the pixel format), and a few against golden images in tests/data/screen/ (the
 * colour indices as PGM; UPDATE_GOLDEN=1 rewrites them).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/fbcon.h"
#include "lib/font.h"
#include "tests/unit/test_data.h"

#define SENTINEL 0xa5
#define GOLDEN_DIR TEST_DATA_DIR "screen/"

static struct fbcon con;
static uint8_t fb[4 << 20];
static char err[200];

static struct fb_mode rgb_mode(uint32_t w, uint32_t h, uint32_t bpp, uint32_t pitch,
			       const uint8_t pos_size[6])
{
	return (struct fb_mode){ .kind = FB_KIND_RGB, .width = w, .height = h, .pitch = pitch,
				 .bpp = bpp, .red_pos = pos_size[0], .red_size = pos_size[1],
				 .green_pos = pos_size[2], .green_size = pos_size[3],
				 .blue_pos = pos_size[4], .blue_size = pos_size[5] };
}

static uint32_t read_pixel(const struct fb_mode *m, uint32_t x, uint32_t y)
{
	const uint8_t *p = fb + (size_t)y * m->pitch + (size_t)x * (m->bpp / 8);
	uint32_t v = 0;
	for (unsigned b = 0; b < m->bpp / 8; b++)
		v |= (uint32_t)p[b] << (8 * b);
	return v;
}

static int glyph_bit(const struct font *f, uint8_t ch, unsigned gx, unsigned gy)
{
	const uint8_t *row = f->bits + ((size_t)ch * f->height + gy) * f->row_bytes;
	return row[gx / 8] >> (7 - gx % 8) & 1;
}

/* The colour index the screen should show at (x, y). */
static unsigned expected_colour(const struct fbcon *c, uint32_t x, uint32_t y)
{
	unsigned cw = c->font->width * c->scale, ch = c->font->height * c->scale;
	unsigned col = x / cw, row = y / ch;
	if (col >= c->cols || row >= c->rows)
		return SCR_BLACK;
	struct scr_cell cell = c->cells[row * SCR_COLS_MAX + col];
	int on = glyph_bit(c->font, cell.ch, (x % cw) / c->scale, (y % ch) / c->scale);
	return on ? SCR_ATTR_FG(cell.attr) : SCR_ATTR_BG(cell.attr);
}

static void check_channel(uint32_t px, unsigned pos, unsigned size, uint8_t want8,
			  uint32_t x, uint32_t y)
{
	uint32_t got = px >> pos & ((1u << size) - 1), want = want8 >> (8 - size);
	if (got != want)
		fail_msg("pixel (%u,%u) = 0x%x: channel at %u is 0x%x, want 0x%x", x, y, px, pos,
			 got, want);
}

/* Every pixel against the reference; the bytes past each line's pixels untouched. */
static void check_against_reference(const struct fbcon *c)
{
	const struct fb_mode *m = &c->mode;
	for (uint32_t y = 0; y < m->height; y++) {
		for (uint32_t x = 0; x < m->width; x++) {
			unsigned colour = expected_colour(c, x, y);
			uint32_t px = read_pixel(m, x, y);
			const uint8_t *rgb = scr_colour_rgb[colour];
			if (m->kind == FB_KIND_INDEXED) {
				const uint8_t *pal = m->palette[px];
				if (memcmp(pal, rgb, 3) != 0)
					fail_msg("pixel (%u,%u) index %u, colour %u wanted", x, y, px,
						 colour);
				continue;
			}
			check_channel(px, m->red_pos, m->red_size, rgb[0], x, y);
			check_channel(px, m->green_pos, m->green_size, rgb[1], x, y);
			check_channel(px, m->blue_pos, m->blue_size, rgb[2], x, y);
		}
		for (uint32_t b = m->width * (m->bpp / 8); b < m->pitch; b++)
			assert_int_equal(fb[(size_t)y * m->pitch + b], SENTINEL);
	}
}

/* A sample screen: every printable character, all 16 colours on two backgrounds, the
 * progress bar's blocks. */
static void fill_sample(struct fbcon *c)
{
	unsigned col = 0, row = 0;
	for (unsigned ch = 0x20; ch < 0x7f; ch++) {
		fbcon_put(c, col, row, (uint8_t)ch, SCR_ATTR((ch % 15) + 1, ch % 3 ? SCR_BLACK : SCR_BLUE));
		if (++col == c->cols) {
			col = 0;
			row++;
		}
	}
	fbcon_text(c, 0, row + 1, "bareperf: 2 results, 0 faults", SCR_ATTR(SCR_WHITE, SCR_BLACK));
	for (unsigned i = 0; i < 8; i++)
		fbcon_put(c, i, row + 2, i < 5 ? FONT_BLOCK_FULL : FONT_SHADE_LIGHT,
			  SCR_ATTR(SCR_LIGHT_GREEN, SCR_DARK_GREY));
}

static void render(const struct fb_mode *m, const struct font *big, const struct font *small)
{
	memset(fb, SENTINEL, sizeof(fb));
	assert_true(fb_mode_bytes(m) <= sizeof(fb));
	if (fbcon_init(&con, m, fb, big, small, err, sizeof(err)))
		fail_msg("fbcon_init: %s", err);
	fill_sample(&con);
	fbcon_flush(&con);
}

static void test_rgb_formats(void **state)
{
	(void)state;
	static const struct { uint32_t bpp; uint8_t ps[6]; } formats[] = {
		{ 32, { 16, 8, 8, 8, 0, 8 } },      /* UEFI BGRx (blue in the lowest byte) */
		{ 32, { 0, 8, 8, 8, 16, 8 } },      /* UEFI RGBx */
		{ 32, { 22, 8, 12, 8, 2, 8 } },     /* a bitmask format, 10 bits a channel apart */
		{ 24, { 16, 8, 8, 8, 0, 8 } },      /* GRUB 24-bit */
		{ 16, { 11, 5, 5, 6, 0, 5 } },      /* RGB 565 */
		{ 16, { 10, 5, 5, 5, 0, 5 } },      /* RGB 555 */
	};
	for (unsigned i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		uint32_t bpp = formats[i].bpp;
		/* An odd pitch beyond the line: the drawing must follow it, not the width. */
		struct fb_mode m = rgb_mode(640, 100, bpp, 640 * bpp / 8 + 12, formats[i].ps);
		render(&m, &font_terminus16, &font_terminus12x6);
		assert_ptr_equal(con.font, &font_terminus12x6);      /* 80 columns < 100 */
		assert_int_equal(con.cols, 640 / 6);
		check_against_reference(&con);
	}
}

static void test_indexed(void **state)
{
	(void)state;
	static uint8_t palette[256][3];
	/* The 16 colours in reverse order after 100 other entries, and grey twice: the
	 * nearest entry is taken, the first of equals. */
	for (unsigned i = 0; i < 256; i++)
		palette[i][0] = palette[i][1] = palette[i][2] = (uint8_t)(i % 7 * 9 + 1);
	for (unsigned i = 0; i < SCR_COLOURS; i++)
		memcpy(palette[100 + 15 - i], scr_colour_rgb[i], 3);
	memcpy(palette[200], scr_colour_rgb[SCR_GREY], 3);
	struct fb_mode m = { .kind = FB_KIND_INDEXED, .width = 800, .height = 64, .pitch = 804,
			     .bpp = 8, .palette_count = 256, .palette = palette };
	render(&m, &font_terminus16, &font_terminus12x6);
	assert_int_equal(con.pixel[SCR_GREY], 100 + 15 - SCR_GREY);
	check_against_reference(&con);
}

static void test_ega_text(void **state)
{
	(void)state;
	struct fb_mode m = { .kind = FB_KIND_EGA_TEXT, .width = 80, .height = 25, .pitch = 160,
			     .bpp = 16 };
	memset(fb, SENTINEL, sizeof(fb));
	assert_int_equal(fbcon_init(&con, &m, fb, &font_terminus16, 0, err, sizeof(err)), 0);
	assert_int_equal(con.cols, 80);
	assert_int_equal(con.rows, 25);
	fbcon_text(&con, 3, 2, "Hi", SCR_ATTR(SCR_YELLOW, SCR_RED));
	fbcon_put(&con, 79, 24, FONT_BLOCK_FULL, SCR_ATTR(SCR_WHITE, SCR_LIGHT_BLUE));
	fbcon_put(&con, 0, 24, FONT_SHADE_LIGHT, SCR_ATTR(SCR_GREEN, SCR_BLACK));
	fbcon_put(&con, 1, 24, FONT_PLUS_MINUS, SCR_ATTR(SCR_GREEN, SCR_BLACK));
	fbcon_flush(&con);
	const uint8_t *hi = fb + 2 * 160 + 3 * 2;
	assert_int_equal(hi[0], 'H');
	assert_int_equal(hi[1], 0x4e);
	assert_int_equal(hi[2], 'i');
	const uint8_t *last = fb + 24 * 160 + 79 * 2;
	assert_int_equal(last[0], 0xdb);            /* code page 437 full block */
	assert_int_equal(last[1], 0x1f);            /* bright background: no blink bit */
	assert_int_equal(fb[24 * 160], 0xb0);       /* light shade */
	assert_int_equal(fb[24 * 160 + 2], 0xf1);   /* plus-minus */
	assert_int_equal(fb[0], ' ');
	assert_int_equal(fb[1], 0x07);
	assert_int_equal(fb[25 * 160], SENTINEL);   /* nothing past the last row */
}

/* Whole screens in the modes scripts/gen/grub-cfg lets GRUB set (gfxpayload: 32, 24 and
 * 16 bits per pixel, then text), laid out as VBE and GRUB report them, each drawn and read
 * back pixel by pixel, and named as the report's boot.screen line names it. */
static void test_grub_modes(void **state)
{
	(void)state;
	static const struct { uint32_t w, h, bpp; uint8_t ps[6]; const char *says; } modes[] = {
		{ 800, 600, 32, { 16, 8, 8, 8, 0, 8 }, "800x600x32 direct colour, 100x37 cells" },
		{ 1024, 768, 24, { 16, 8, 8, 8, 0, 8 }, "1024x768x24 direct colour, 128x48 cells" },
		{ 800, 600, 16, { 11, 5, 5, 6, 0, 5 }, "800x600x16 direct colour, 100x37 cells" },
		{ 640, 480, 16, { 11, 5, 5, 6, 0, 5 }, "640x480x16 direct colour, 106x40 cells" },
	};
	char says[120];
	for (unsigned i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		struct fb_mode m = rgb_mode(modes[i].w, modes[i].h, modes[i].bpp,
					    modes[i].w * modes[i].bpp / 8, modes[i].ps);
		render(&m, &font_terminus16, &font_terminus12x6);
		check_against_reference(&con);
		fbcon_describe(&con, says, sizeof(says));
		assert_string_equal(says, modes[i].says);
	}
	struct fb_mode text = { .kind = FB_KIND_EGA_TEXT, .width = 80, .height = 25, .pitch = 160,
				.bpp = 16 };
	assert_int_equal(fbcon_init(&con, &text, fb, &font_terminus16, 0, err, sizeof(err)), 0);
	fbcon_describe(&con, says, sizeof(says));
	assert_string_equal(says, "80x25 text");
	static uint8_t palette[16][3];
	struct fb_mode indexed = { .kind = FB_KIND_INDEXED, .width = 640, .height = 480,
				   .pitch = 640, .bpp = 8, .palette_count = 16, .palette = palette };
	assert_int_equal(fbcon_init(&con, &indexed, fb, &font_terminus16, &font_terminus12x6, err,
				    sizeof(err)), 0);
	fbcon_describe(&con, says, sizeof(says));
	assert_string_equal(says, "640x480x8 indexed colour, 106x40 cells");
}

static void test_scaling(void **state)
{
	(void)state;
	static const struct { uint32_t w; unsigned font_w, scale, cols; } screens[] = {
		{ 640, 6, 1, 106 }, { 720, 6, 1, 120 }, { 800, 8, 1, 100 }, { 1024, 8, 1, 128 },
		{ 1280, 8, 1, 160 }, { 1920, 8, 2, 120 }, { 2560, 8, 3, 106 }, { 3840, 8, 4, 120 },
		{ 7680, 8, 9, 106 },
	};
	for (unsigned i = 0; i < sizeof(screens) / sizeof(screens[0]); i++) {
		unsigned scale;
		const struct font *f = fbcon_pick_font(screens[i].w, &font_terminus16,
						       &font_terminus12x6, &scale);
		assert_int_equal(f->width, screens[i].font_w);
		assert_int_equal(scale, screens[i].scale);
		unsigned cols = screens[i].w / (f->width * scale);
		assert_int_equal(cols, screens[i].cols);
		assert_true(cols >= SCR_COLS_WANT && cols <= 200);
	}
	/* Drawn at scale 3: each font pixel a 3x3 block. */
	static const uint8_t bgrx[6] = { 16, 8, 8, 8, 0, 8 };
	struct fb_mode m = rgb_mode(2560, 120, 32, 2560 * 4, bgrx);
	render(&m, &font_terminus16, &font_terminus12x6);
	assert_int_equal(con.scale, 3);
	check_against_reference(&con);
}

static void test_scroll_and_redraw(void **state)
{
	(void)state;
	static const uint8_t bgrx[6] = { 16, 8, 8, 8, 0, 8 };
	struct fb_mode m = rgb_mode(800, 16 * 6, 32, 800 * 4, bgrx);
	render(&m, &font_terminus16, &font_terminus12x6);
	for (unsigned r = 0; r < con.rows; r++) {
		char line[16];
		snprintf(line, sizeof(line), "line %u", r);
		fbcon_text(&con, 0, r, line, SCR_ATTR(SCR_GREY, SCR_BLACK));
	}
	fbcon_text(&con, 90, 0, "keep", SCR_ATTR(SCR_YELLOW, SCR_BLACK));
	fbcon_flush(&con);
	check_against_reference(&con);
	/* Rows 1..5 scroll by 2; row 0 stays. A mark on row 0's pixels stays too: cells
	 * that did not change are not drawn again. */
	fbcon_scroll_up(&con, 1, con.rows, 2, SCR_ATTR(SCR_GREY, SCR_BLUE));
	assert_int_equal(con.cells[1 * SCR_COLS_MAX + 5].ch, '3');
	assert_int_equal(con.cells[(con.rows - 1) * SCR_COLS_MAX].attr, SCR_ATTR(SCR_GREY, SCR_BLUE));
	fb[3] = 0x77;
	fbcon_flush(&con);
	assert_int_equal(fb[3], 0x77);
	fb[3] = 0;
	check_against_reference(&con);
	/* Clipping: text past the right edge is cut, a cell outside is ignored. */
	assert_int_equal(fbcon_text(&con, con.cols - 2, 0, "abc", 7), 2);
	fbcon_put(&con, con.cols, 0, 'x', 7);
	fbcon_put(&con, 0, con.rows, 'x', 7);
	fbcon_flush(&con);
	check_against_reference(&con);
}

static void test_mode_errors(void **state)
{
	(void)state;
	static const struct { struct fb_mode m; const char *says; } bad[] = {
		{ { .kind = FB_KIND_RGB, .width = 640, .height = 480, .pitch = 0, .bpp = 32,
		    16, 8, 8, 8, 0, 8 }, "pitch of 0" },
		{ { .kind = FB_KIND_RGB, .width = 640, .height = 480, .pitch = 2000, .bpp = 32,
		    16, 8, 8, 8, 0, 8 }, "pitch of 2000 bytes is shorter" },
		{ { .kind = FB_KIND_RGB, .width = 640, .height = 480, .pitch = 2560, .bpp = 15,
		    10, 5, 5, 5, 0, 5 }, "15 bits per pixel" },
		{ { .kind = FB_KIND_RGB, .width = 640, .height = 480, .pitch = 2560, .bpp = 32,
		    16, 8, 8, 8, 26, 8 }, "blue channel at bit 26" },
		{ { .kind = FB_KIND_RGB, .width = 640, .height = 480, .pitch = 2560, .bpp = 32,
		    16, 0, 8, 8, 0, 8 }, "red channel" },
		{ { .kind = FB_KIND_INDEXED, .width = 640, .height = 480, .pitch = 640, .bpp = 4 },
		  "indexed colour at 4 bits" },
		{ { .kind = FB_KIND_EGA_TEXT, .width = 80, .height = 25, .pitch = 160, .bpp = 8 },
		  "EGA text with 8-bit" },
		{ { .kind = 7, .width = 80, .height = 25, .pitch = 160, .bpp = 16 },
		  "unknown framebuffer type 7" },
		{ { .kind = FB_KIND_RGB, .width = 4, .height = 4, .pitch = 16, .bpp = 32,
		    16, 8, 8, 8, 0, 8 }, "holds no character cell" },
	};
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = 0;
		assert_int_equal(fbcon_init(&con, &bad[i].m, fb, &font_terminus16,
					    &font_terminus12x6, err, sizeof(err)), -1);
		if (!strstr(err, bad[i].says))
			fail_msg("case %u: '%s' does not say '%s'", i, err, bad[i].says);
	}
}

/* The screen as a binary PGM of colour indices (0-15): small, and viewable. */
static size_t to_pgm(const struct fbcon *c, uint8_t *out, size_t cap)
{
	const struct fb_mode *m = &c->mode;
	int n = snprintf((char *)out, cap, "P5\n%u %u\n15\n", m->width, m->height);
	size_t len = (size_t)n;
	for (uint32_t y = 0; y < m->height; y++)
		for (uint32_t x = 0; x < m->width; x++) {
			uint32_t px = read_pixel(m, x, y);
			unsigned i = 0;
			while (i < SCR_COLOURS && c->pixel[i] != px)
				i++;
			assert_true(i < SCR_COLOURS);
			out[len++] = (uint8_t)i;
		}
	assert_true(len <= cap);
	return len;
}

static void check_golden(const char *name)
{
	static uint8_t pgm[1 << 20];
	char path[256];
	size_t len = to_pgm(&con, pgm, sizeof(pgm)), glen;
	snprintf(path, sizeof(path), GOLDEN_DIR "%s.pgm", name);
	if (getenv("UPDATE_GOLDEN")) {
		FILE *f = fopen(path, "wb");
		assert_non_null(f);
		assert_int_equal(fwrite(pgm, 1, len, f), len);
		fclose(f);
	}
	char *golden = test_slurp(path, &glen);
	assert_int_equal(glen, len);
	if (memcmp(golden, pgm, len) != 0)
		fail_msg("%s differs from the rendering", path);
	free(golden);
}

static void test_golden_images(void **state)
{
	(void)state;
	static const uint8_t bgrx[6] = { 16, 8, 8, 8, 0, 8 };
	struct fb_mode m = rgb_mode(832, 64, 32, 832 * 4, bgrx);
	render(&m, &font_terminus16, &font_terminus12x6);
	check_against_reference(&con);
	check_golden("terminus16-832x64");
	m = rgb_mode(1230, 60, 32, 1230 * 4, bgrx);
	render(&m, &font_terminus16, &font_terminus12x6);
	assert_int_equal(con.scale, 1);
	check_against_reference(&con);
	m = rgb_mode(640, 48, 32, 640 * 4, bgrx);
	render(&m, &font_terminus16, &font_terminus12x6);
	check_against_reference(&con);
	check_golden("terminus12x6-640x48");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rgb_formats),
		cmocka_unit_test(test_indexed),
		cmocka_unit_test(test_ega_text),
		cmocka_unit_test(test_grub_modes),
		cmocka_unit_test(test_scaling),
		cmocka_unit_test(test_scroll_and_redraw),
		cmocka_unit_test(test_mode_errors),
		cmocka_unit_test(test_golden_images),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
