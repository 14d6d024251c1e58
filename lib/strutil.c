/* String helpers that libc lacks, for both the kernel and the host. ASCII only. */
#include <stdbool.h>
#include <stdint.h>
#include "lib/str.h"

static unsigned char ascii_lower(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') ? (unsigned char)(c - 'A' + 'a') : c;
}

int str_ncasecmp(const char *a, const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char ca = ascii_lower((unsigned char)a[i]);
		unsigned char cb = ascii_lower((unsigned char)b[i]);
		if (ca != cb || ca == '\0')
			return (int)ca - (int)cb;
	}
	return 0;
}

int str_casecmp(const char *a, const char *b)
{
	return str_ncasecmp(a, b, SIZE_MAX);
}

size_t str_copy(char *dst, const char *src, size_t size)
{
	size_t len = strlen(src);

	if (size > 0) {
		size_t n = len < size - 1 ? len : size - 1;
		memcpy(dst, src, n);
		dst[n] = '\0';
	}
	return len;
}

int str_hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Digit value for str_to_u64: 99 (above every base) for a non-digit. */
static int digit_value(char c)
{
	int d = str_hex_digit(c);
	return d < 0 ? 99 : d;
}

int str_to_u64(const char *s, size_t len, uint64_t *out)
{
	unsigned base = 10;
	size_t i = 0;
	uint64_t v = 0;

	if (len >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		i = 2;
	} else if (len >= 2 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) {
		base = 2;
		i = 2;
	}
	if (i == len)
		return -1;      /* empty, or a prefix with no digits */
	for (; i < len; i++) {
		int d = digit_value(s[i]);
		if (d >= (int)base)
			return -1;
		if (v > (UINT64_MAX - (uint64_t)d) / base)
			return -1;
		v = v * base + (uint64_t)d;
	}
	*out = v;
	return 0;
}

bool str_looks_numeric(const char *s, size_t len)
{
	const char *digits = "0123456789";
	size_t i = 0;

	if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		digits = "0123456789abcdefABCDEF";
		i = 2;
	} else if (len > 2 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) {
		digits = "01";
		i = 2;
	}
	if (i == len)
		return false;
	for (; i < len; i++)
		if (s[i] == '\0' || !strchr(digits, s[i]))
			return false;
	return true;
}

int str_to_size(const char *v, size_t len, uint64_t *out)
{
	uint64_t unit = 1, n;

	if (len > 1) {
		switch (v[len - 1]) {
		case 'k': case 'K': unit = SIZE_K; break;
		case 'm': case 'M': unit = SIZE_M; break;
		case 'g': case 'G': unit = SIZE_G; break;
		default: break;
		}
	}
	if (unit != 1)
		len--;
	if (str_to_u64(v, len, &n) != 0)
		return str_looks_numeric(v, len) ? 1 : -1;
	if (n > UINT64_MAX / unit)
		return 1;
	*out = n * unit;
	return 0;
}

size_t str_wrap(const char *s, size_t width, size_t *next)
{
	size_t len = strlen(s), n = len;

	if (width == 0) {
		*next = len;
		return 0;
	}
	if (len > width) {
		n = width;                      /* no space: the word is cut */
		for (size_t i = width; i > 0; i--)
			if (s[i] == ' ') {
				n = i;
				break;
			}
	}
	size_t at = n;
	while (s[at] == ' ')
		at++;
	*next = at;
	while (n > 0 && s[n - 1] == ' ')
		n--;
	return n;
}

int str_glob_match(const char *pattern, const char *s)
{
	/* Greedy matching that backtracks only to the most recent '*': enough, since a
	 * later '*' can absorb whatever an earlier one would have. */
	const char *star = NULL, *star_s = NULL;

	while (*s) {
		if (*pattern == '*') {
			star = ++pattern;
			star_s = s;
		} else if (*pattern == '?' || *pattern == *s) {
			pattern++;
			s++;
		} else if (star) {
			pattern = star;
			s = ++star_s;
		} else {
			return 0;
		}
	}
	while (*pattern == '*')
		pattern++;
	return *pattern == '\0';
}

#define EDIT_CAP 255u
#define EDIT_BAND (2 * EDIT_CAP + 1)

static uint8_t sat_inc(uint8_t v, uint8_t cap)
{
	return v < cap ? (uint8_t)(v + 1) : cap;
}

static uint8_t min3(uint8_t a, uint8_t b, uint8_t c)
{
	uint8_t m = a < b ? a : b;
	return m < c ? m : c;
}

static bool char_differs(char a, char b, bool fold_case)
{
	if (fold_case)
		return ascii_lower((unsigned char)a) != ascii_lower((unsigned char)b);
	return a != b;
}

/* The edit distance of a and b, or cap (1..EDIT_CAP) when it is cap or more. */
static unsigned edit_distance(const char *a, const char *b, bool fold_case, unsigned cap)
{
	/* Levenshtein over a diagonal band: cell (i, j) is at least |i - j|, so cells cap or
	 * more off the diagonal are at the cap and need no storage; a row whose every cell
	 * is at the cap ends the walk (no later row is smaller). Row entry k holds column
	 * j = i + k - cap. */
	uint8_t prev[EDIT_BAND], cur[EDIT_BAND];
	size_t la = strlen(a), lb = strlen(b), width = 2 * (size_t)cap + 1;
	const uint8_t top = (uint8_t)cap;

	if ((la > lb ? la - lb : lb - la) >= cap)
		return cap;
	/* Row 0: D[0][j] = j, at k = j + cap. */
	for (size_t k = 0; k < width; k++)
		prev[k] = (k >= cap && k - cap <= lb) ? (uint8_t)(k - cap) : top;
	for (size_t i = 1; i <= la; i++) {
		/* Only columns 0..lb inside the band are real; the rest stay at the cap. */
		size_t k_lo = i < cap ? cap - i : 0;
		size_t k_hi = lb + cap - i < width - 1 ? lb + cap - i : width - 1;
		uint8_t row_min = top;
		memset(cur, top, width);
		for (size_t k = k_lo; k <= k_hi; k++) {
			size_t j = i + k - cap;
			if (j == 0) {
				cur[k] = i < cap ? (uint8_t)i : top;
			} else {
				uint8_t diag = prev[k];
				if (char_differs(a[i - 1], b[j - 1], fold_case))
					diag = sat_inc(diag, top);
				uint8_t up = k + 1 < width ? sat_inc(prev[k + 1], top) : top;
				uint8_t left = k > 0 ? sat_inc(cur[k - 1], top) : top;
				cur[k] = min3(diag, up, left);
			}
			if (cur[k] < row_min)
				row_min = cur[k];
		}
		if (row_min == top)
			return cap;
		memcpy(prev, cur, width);
	}
	return prev[lb + cap - la];
}

unsigned str_edit_distance(const char *a, const char *b)
{
	return edit_distance(a, b, false, EDIT_CAP);
}

unsigned str_case_edit_distance(const char *a, const char *b)
{
	return edit_distance(a, b, true, EDIT_CAP);
}

const char *str_nearest(const char *word, str_name_at_fn name_at, const void *ctx,
			unsigned max_dist, unsigned flags)
{
	bool fold_case = flags & STR_NEAREST_FOLD_CASE;
	size_t word_len = strlen(word);
	const char *best = NULL;
	unsigned best_d = 0;
	const char *name;

	for (size_t i = 0; (name = name_at(ctx, i)) != NULL; i++) {
		/* Only a name nearer than the best so far, and within max_dist, can win: the
		 * distance need not be worked out past that. */
		unsigned limit = max_dist;
		if (best && best_d == 0)
			break;
		if (best && best_d - 1 < limit)
			limit = best_d - 1;
		unsigned d = edit_distance(word, name, fold_case, limit < EDIT_CAP ? limit + 1 : EDIT_CAP);
		if (d > limit)
			continue;
		if ((flags & STR_NEAREST_BELOW_WORD_LEN) && d >= word_len)
			continue;
		if ((flags & STR_NEAREST_BELOW_NAME_LEN) && d >= strlen(name))
			continue;
		best = name;
		best_d = d;
	}
	return best;
}

struct name_array {
	const char *const *names;
	size_t count;
};

static const char *name_array_at(const void *ctx, size_t i)
{
	const struct name_array *a = ctx;
	return i < a->count ? a->names[i] : NULL;
}

const char *str_nearest_in(const char *word, const char *const *names, size_t count,
			   unsigned max_dist, unsigned flags)
{
	struct name_array a = { names, count };
	return str_nearest(word, name_array_at, &a, max_dist, flags);
}
