/*
 * The screen console's drawing: a grid of character cells (character, colour attribute)
 * drawn onto a linear framebuffer (direct colour at 16, 24 or 32 bits per pixel with any
 * channel masks, or 8-bit indexed colour) or into an EGA/VGA text buffer. Pure: it writes
 * only the memory it is given, so the host tests draw into arrays. Cells are drawn when
 * fbcon_flush is called, and only those that changed since the last flush.
 */
#ifndef LIB_FBCON_H
#define LIB_FBCON_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "lib/font.h"

enum fb_kind {
	FB_KIND_NONE = 0,
	FB_KIND_RGB = 1,            /* direct colour, channels at red/green/blue_pos */
	FB_KIND_INDEXED = 2,        /* 8-bit palette indices */
	FB_KIND_EGA_TEXT = 3,       /* 16-bit cells: character (code page 437), attribute */
};

#define FB_PALETTE_MAX 256

struct fb_mode {
	uint32_t kind;              /* enum fb_kind */
	uint32_t width, height;     /* pixels; EGA text: character cells */
	uint32_t pitch;             /* bytes from one line (EGA text: row of cells) to the next */
	uint32_t bpp;               /* bits per pixel (EGA text: 16) */
	uint8_t red_pos, red_size, green_pos, green_size, blue_pos, blue_size;
	uint32_t palette_count;     /* indexed: entries in palette; 0 = the VGA default */
	const uint8_t (*palette)[3];
};

/* The 16 colours of the VGA text attribute, the bits of an attribute's nibbles. */
enum scr_colour {
	SCR_BLACK, SCR_BLUE, SCR_GREEN, SCR_CYAN, SCR_RED, SCR_MAGENTA, SCR_BROWN, SCR_GREY,
	SCR_DARK_GREY, SCR_LIGHT_BLUE, SCR_LIGHT_GREEN, SCR_LIGHT_CYAN, SCR_LIGHT_RED,
	SCR_LIGHT_MAGENTA, SCR_YELLOW, SCR_WHITE,
};
#define SCR_COLOURS 16
#define SCR_ATTR(fg, bg)   ((uint8_t)((fg) | (bg) << 4))
#define SCR_ATTR_FG(a)     ((a) & 0x0f)
#define SCR_ATTR_BG(a)     ((a) >> 4)
/* 8-bit red, green, blue of each colour (the VGA default palette). */
extern const uint8_t scr_colour_rgb[SCR_COLOURS][3];

#define SCR_COLS_MAX   256
#define SCR_ROWS_MAX   128
#define SCR_COLS_WANT  100          /* fonts are scaled up while at least this many fit */

struct scr_cell {
	uint8_t ch;                 /* lib/font.h character code */
	uint8_t attr;               /* SCR_ATTR(fg, bg) */
};

struct fbcon {
	struct fb_mode mode;
	uint8_t *base;
	const struct font *font;    /* 0 for EGA text */
	unsigned scale;             /* each font pixel is scale x scale screen pixels */
	unsigned cols, rows;
	uint32_t pixel[SCR_COLOURS];/* colour -> the framebuffer's pixel value */
	struct scr_cell cells[SCR_ROWS_MAX * SCR_COLS_MAX];  /* what should be shown */
	struct scr_cell shown[SCR_ROWS_MAX * SCR_COLS_MAX];  /* what was drawn */
	bool drawn_once;
};

/* Checks a mode before anything is drawn. Returns 0, or -1 with the reason. */
int fb_mode_check(const struct fb_mode *m, char *err, size_t errlen);
/* Bytes the mode covers: pitch * height (EGA text: rows of cells). */
uint64_t fb_mode_bytes(const struct fb_mode *m);
/*
 * Sets c up for the mode at base: picks the font (`big`, or `small` where `big` at scale 1
 * gives fewer than SCR_COLS_WANT columns) and the largest integer scale that keeps at least
 * SCR_COLS_WANT columns. The grid starts blank (grey on black); nothing is drawn yet.
 * Returns 0, or -1 with the reason when the mode is unusable.
 */
int fbcon_init(struct fbcon *c, const struct fb_mode *m, void *base, const struct font *big,
	       const struct font *small, char *err, size_t errlen);
/* Font and scale fbcon_init picks for a screen `width` pixels wide. */
const struct font *fbcon_pick_font(uint32_t width, const struct font *big,
				   const struct font *small, unsigned *scale);

void fbcon_put(struct fbcon *c, unsigned col, unsigned row, uint8_t ch, uint8_t attr);
/* Writes s from (col, row), clipped at the right edge; returns the columns written. */
unsigned fbcon_text(struct fbcon *c, unsigned col, unsigned row, const char *s, uint8_t attr);
/* Blanks rows [row, row + n) in attr's background. */
void fbcon_clear_rows(struct fbcon *c, unsigned row, unsigned n, uint8_t attr);
/* Moves rows [top, bottom) up by n; the rows freed at the bottom are blanked with attr. */
void fbcon_scroll_up(struct fbcon *c, unsigned top, unsigned bottom, unsigned n, uint8_t attr);
/* Draws every cell that changed since the last flush (every cell the first time). */
void fbcon_flush(struct fbcon *c);
/* The mode in one line, as the report's boot.screen says it: "800x600x32 direct colour,
 * 100x37 cells" (GRUB's WIDTHxHEIGHTxDEPTH), "640x480x8 indexed colour, ...", "80x25 text". */
void fbcon_describe(const struct fbcon *c, char *buf, size_t len);
/* Code page 437 code of a character code (EGA text buffers). */
uint8_t fbcon_cp437(uint8_t ch);

#endif
