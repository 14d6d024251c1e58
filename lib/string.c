/*
 * The C library string functions the kernel needs (gcc emits memcpy/memset calls for
 * struct copies and zeroing even under -ffreestanding). Kernel build only; the host
 * uses libc's.
 *
 * These loops must not be turned back into calls to themselves: gcc's loop
 * distribution recognises a byte loop as memset/memcpy, hence the optimize attribute.
 */
#include <stdint.h>
#include "lib/str.h"

#define NO_LIBCALL __attribute__((optimize("no-tree-loop-distribute-patterns")))

NO_LIBCALL void *memcpy(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	while (n--)
		*d++ = *s++;
	return dst;
}

NO_LIBCALL void *memmove(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	if (d == s || n == 0)
		return dst;
	if ((uintptr_t)d < (uintptr_t)s) {
		while (n--)
			*d++ = *s++;
	} else {
		/* Destination above source: copy from the end so overlap is read first. */
		d += n;
		s += n;
		while (n--)
			*--d = *--s;
	}
	return dst;
}

NO_LIBCALL void *memset(void *dst, int c, size_t n)
{
	unsigned char *d = dst;

	while (n--)
		*d++ = (unsigned char)c;
	return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *pa = a, *pb = b;

	for (size_t i = 0; i < n; i++)
		if (pa[i] != pb[i])
			return (int)pa[i] - (int)pb[i];
	return 0;
}

size_t strlen(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

size_t strnlen(const char *s, size_t max)
{
	size_t n = 0;

	while (n < max && s[n])
		n++;
	return n;
}

int strcmp(const char *a, const char *b)
{
	const unsigned char *pa = (const unsigned char *)a, *pb = (const unsigned char *)b;

	while (*pa && *pa == *pb) {
		pa++;
		pb++;
	}
	return (int)*pa - (int)*pb;
}

int strncmp(const char *a, const char *b, size_t n)
{
	const unsigned char *pa = (const unsigned char *)a, *pb = (const unsigned char *)b;

	for (size_t i = 0; i < n; i++) {
		if (pa[i] != pb[i] || pa[i] == '\0')
			return (int)pa[i] - (int)pb[i];
	}
	return 0;
}

char *strchr(const char *s, int c)
{
	char ch = (char)c;

	for (;; s++) {
		if (*s == ch)
			return (char *)s;
		if (*s == '\0')
			return NULL;
	}
}
