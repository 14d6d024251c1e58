/*
 * screen-check SCREEN.ppm: reads a screendump of the kernel's screen console (binary PPM,
 * as QEMU's screendump writes it), finds in each character cell the glyph and the two
 * console colours that draw it exactly, prints the text it shows (one line a row, trailing
 * blanks cut; UTF-8, the block characters as '#'), then draws that text again with lib/fbcon.c and compares every pixel.
 * Exit status: 0 when the screen is exactly the host renderer's image of its text; 1 when
 * a cell matches no glyph or any pixel differs (said on stderr); 2 on a bad file.
 * The font and scale are the ones the kernel picks for the screen's width.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/fbcon.h"
#include "lib/font.h"

static struct fbcon con;

static unsigned char *read_ppm(const char *path, unsigned *w, unsigned *h)
{
	FILE *f = fopen(path, "rb");
	unsigned maxval;
	if (!f || fscanf(f, "P6 %u %u %u", w, h, &maxval) != 3 || maxval != 255 || fgetc(f) == EOF) {
		fprintf(stderr, "screen-check: %s: not a binary 8-bit PPM\n", path);
		exit(2);
	}
	size_t n = (size_t)*w * *h * 3;
	unsigned char *px = malloc(n);
	if (!px || fread(px, 1, n, f) != n) {
		fprintf(stderr, "screen-check: %s: short pixel data\n", path);
		exit(2);
	}
	fclose(f);
	return px;
}

/* The console colour of a pixel, or -1. */
static int colour_at(const unsigned char *px, unsigned w, unsigned x, unsigned y)
{
	const unsigned char *p = px + ((size_t)y * w + x) * 3;
	for (int i = 0; i < SCR_COLOURS; i++)
		if (!memcmp(p, scr_colour_rgb[i], 3))
			return i;
	return -1;
}

static int glyph_bit(const struct font *f, unsigned ch, unsigned gx, unsigned gy)
{
	const uint8_t *row = f->bits + ((size_t)ch * f->height + gy) * f->row_bytes;
	return row[gx / 8] >> (7 - gx % 8) & 1;
}

/* Whether glyph ch, fg on bg, draws the cell at (col, row) exactly. */
static int cell_is(const unsigned char *px, unsigned w, unsigned col, unsigned row, unsigned ch,
		   int fg, int bg)
{
	const struct font *f = con.font;
	unsigned s = con.scale;
	for (unsigned y = 0; y < f->height * s; y++)
		for (unsigned x = 0; x < f->width * s; x++) {
			int want = glyph_bit(f, ch, x / s, y / s) ? fg : bg;
			if (colour_at(px, w, col * f->width * s + x, row * f->height * s + y) != want)
				return 0;
		}
	return 1;
}

/* The character and attribute that draw a cell, or -1. */
static int read_cell(const unsigned char *px, unsigned w, unsigned col, unsigned row,
		     struct scr_cell *out)
{
	const struct font *f = con.font;
	unsigned x0 = col * f->width * con.scale, y0 = row * f->height * con.scale;
	int a = colour_at(px, w, x0, y0), b = -1;
	if (a < 0)
		return -1;
	for (unsigned y = 0; y < f->height * con.scale && b < 0; y++)
		for (unsigned x = 0; x < f->width * con.scale; x++) {
			int c = colour_at(px, w, x0 + x, y0 + y);
			if (c < 0)
				return -1;
			if (c != a) {
				b = c;
				break;
			}
		}
	if (b < 0) {            /* one colour: a blank in that background */
		*out = (struct scr_cell){ ' ', SCR_ATTR(SCR_GREY, a) };
		return 0;
	}
	for (unsigned ch = 0x21; ch < FONT_CHARS; ch++) {
		if (ch == 0x7f)
			continue;
		if (cell_is(px, w, col, row, ch, a, b)) {
			*out = (struct scr_cell){ (uint8_t)ch, SCR_ATTR(a, b) };
			return 0;
		}
		if (cell_is(px, w, col, row, ch, b, a)) {
			*out = (struct scr_cell){ (uint8_t)ch, SCR_ATTR(b, a) };
			return 0;
		}
	}
	return -1;
}

int main(int argc, char **argv)
{
	unsigned w, h;
	char err[200];
	if (argc != 2) {
		fprintf(stderr, "usage: screen-check SCREEN.ppm\n");
		return 2;
	}
	unsigned char *px = read_ppm(argv[1], &w, &h);
	/* 24-bit pixels, red in the first byte: the PPM's own layout. */
	struct fb_mode m = { .kind = FB_KIND_RGB, .width = w, .height = h, .pitch = w * 3,
			     .bpp = 24, .red_pos = 0, .red_size = 8, .green_pos = 8, .green_size = 8,
			     .blue_pos = 16, .blue_size = 8 };
	unsigned char *mine = malloc((size_t)w * h * 3);
	if (!mine || fbcon_init(&con, &m, mine, &font_terminus16, &font_terminus12x6, err, sizeof(err))) {
		fprintf(stderr, "screen-check: %ux%u: %s\n", w, h, mine ? err : "out of memory");
		return 2;
	}
	int bad = 0;
	for (unsigned row = 0; row < con.rows; row++) {
		char line[2 * SCR_COLS_MAX + 1];
		unsigned n = 0, text_end = 0;
		for (unsigned col = 0; col < con.cols; col++) {
			struct scr_cell c;
			if (read_cell(px, w, col, row, &c)) {
				if (bad++ < 10)
					fprintf(stderr, "screen-check: cell (%u,%u) is no glyph in console "
						"colours\n", col, row);
				c = (struct scr_cell){ '?', SCR_ATTR(SCR_WHITE, SCR_RED) };
			}
			fbcon_put(&con, col, row, c.ch, c.attr);
			if (c.ch == FONT_PLUS_MINUS) {
				line[n++] = (char)0xc2;         /* U+00B1 in UTF-8 */
				line[n++] = (char)0xb1;
			} else {
				line[n++] = c.ch < 0x80 ? (char)c.ch : '#';
			}
			if (c.ch != ' ')
				text_end = n;
		}
		line[text_end] = 0;
		printf("%s\n", line);
	}
	fbcon_flush(&con);
	size_t diff = 0;
	for (size_t i = 0; i < (size_t)w * h * 3; i += 3)
		diff += memcmp(mine + i, px + i, 3) != 0;
	if (diff)
		fprintf(stderr, "screen-check: %zu pixels differ from the host rendering\n", diff);
	free(px);
	free(mine);
	return bad || diff ? 1 : 0;
}
