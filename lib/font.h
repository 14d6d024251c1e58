/*
 * Bitmap fonts for the screen console: PSF console fonts (Debian console-setup-linux,
 * /usr/share/consolefonts) turned into these tables at build time by scripts/gen/psf2c.
 * A glyph is `height` rows of `row_bytes` bytes, the leftmost pixel in the top bit.
 */
#ifndef LIB_FONT_H
#define LIB_FONT_H
#include <stdint.h>

/* The screen's character codes: ASCII, then the block characters the progress bar uses
 * and the sign of a result's spread. */
#define FONT_BLOCK_FULL   0x80      /* U+2588 */
#define FONT_SHADE_LIGHT  0x81      /* U+2591 */
#define FONT_PLUS_MINUS   0x82      /* U+00B1 */
#define FONT_CHARS        0x83      /* codes with a glyph; control codes are blank */

struct font {
	uint8_t width, height;      /* pixels */
	uint8_t row_bytes;
	const uint8_t *bits;        /* FONT_CHARS glyphs of height * row_bytes bytes */
};

extern const struct font font_terminus16;   /* Lat2-Terminus16: 8x16 */
extern const struct font font_terminus12x6; /* Lat2-Terminus12x6: 6x12, for small screens */

#endif
