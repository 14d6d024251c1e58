/* String helpers: libc's on the host, lib/string.c in the freestanding kernel. */
#ifndef LIB_STR_H
#define LIB_STR_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#if __STDC_HOSTED__
#include <string.h>
#else
void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
size_t strnlen(const char *s, size_t max);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strchr(const char *s, int c);
#endif

/* Not in libc, so defined in lib/strutil.c for both builds. */
int str_casecmp(const char *a, const char *b);
int str_ncasecmp(const char *a, const char *b, size_t n);
/* Copy at most size-1 chars and NUL-terminate; returns strlen(src). */
size_t str_copy(char *dst, const char *src, size_t size);
/* Parse an unsigned number: decimal, 0x hex or 0b binary; whole string must match.
 * Returns 0 on success, -1 on syntax error or overflow. */
int str_to_u64(const char *s, size_t len, uint64_t *out);
/* Powers of 1024, the units of a size. */
#define SIZE_K 1024ull
#define SIZE_M (1024ull * 1024)
#define SIZE_G (1024ull * 1024 * 1024)
/* Written as a number (decimal, 0x hex or 0b binary digits), whatever its value. */
bool str_looks_numeric(const char *s, size_t len);
/* A size: a number with an optional K, M or G suffix (powers of 1024). 0; -1 when it is
 * not written as a size; 1 when it overflows. */
int str_to_size(const char *v, size_t len, uint64_t *out);
/* Value of a hexadecimal digit, -1 for anything else. */
int str_hex_digit(char c);
/* Shell-style glob with * and ?, case-sensitive. */
int str_glob_match(const char *pattern, const char *s);
/* Word wrap: the length of s's first row of at most width characters, broken after the
 * last word that fits (inside a word longer than width where none does), trailing spaces
 * left out; *next is where the next row starts (its leading spaces skipped), strlen(s)
 * at the end. */
size_t str_wrap(const char *s, size_t width, size_t *next);
/* Levenshtein distance, capped at 255; for "did you mean" hints. */
unsigned str_edit_distance(const char *a, const char *b);
/* The same with ASCII letters compared case-insensitively. */
unsigned str_case_edit_distance(const char *a, const char *b);

/* "Did you mean": the candidate nearest to word by edit distance, or NULL when none
 * is within max_dist (inclusive) and passes the flags. Ties go to the candidate met
 * first. Candidates are name_at(ctx, 0), name_at(ctx, 1), ... up to the first NULL. */
typedef const char *(*str_name_at_fn)(const void *ctx, size_t i);
#define STR_NEAREST_FOLD_CASE      0x1u   /* compare ASCII letters case-insensitively */
#define STR_NEAREST_BELOW_WORD_LEN 0x2u   /* only a distance below strlen(word) */
#define STR_NEAREST_BELOW_NAME_LEN 0x4u   /* only a distance below the candidate's length */
const char *str_nearest(const char *word, str_name_at_fn name_at, const void *ctx,
			unsigned max_dist, unsigned flags);
/* The same over names[0..count). */
const char *str_nearest_in(const char *word, const char *const *names, size_t count,
			   unsigned max_dist, unsigned flags);
#endif
