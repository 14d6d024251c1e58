/*
 * The C library string functions the kernel needs (gcc emits memcpy/memset calls for
 * struct copies and zeroing even under -ffreestanding). Kernel build only; the host
 * uses libc's.
 *
 * memcpy and memset are string instructions (REP MOVSB, REP STOS), which every x86 CPU
 * has and current ones run fastest of all (SDM Vol. 1 7.3.9.3, fast-string operation): as
 * a byte loop, memset zeroing the payloads' buffers was a third of the i686 kernel's
 * default run under QEMU. The direction flag is clear on entry, as the System V ABI has it:
 * the trap entries clear it, and so does each way back from a payload that may have set
 * it (a user benchmark's wrapper, run_frame_resume after a fault, user_exit_entry).
 *
 * The loops left must not be turned back into calls to themselves: gcc's loop
 * distribution recognises a byte loop as memset/memcpy, hence the optimize attribute.
 */
#include <stdint.h>
#include "lib/str.h"

#define NO_LIBCALL __attribute__((optimize("no-tree-loop-distribute-patterns")))

/* Upwards, byte by byte as far as the result goes: with d below s, also where they overlap. */
static inline void movsb_up(void *d, const void *s, size_t n)
{
	__asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
}

void *memcpy(void *dst, const void *src, size_t n)
{
	movsb_up(dst, src, n);
	return dst;
}

NO_LIBCALL void *memmove(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	if (d == s || n == 0)
		return dst;
	if ((uintptr_t)d < (uintptr_t)s) {
		movsb_up(d, s, n);      /* each byte is read before it is overwritten */
	} else {
		/* Destination above source: copy from the end so overlap is read first. */
		d += n;
		s += n;
		while (n--)
			*--d = *--s;
	}
	return dst;
}

/* A machine word at a time, then the bytes left: under QEMU's TCG, which runs each REP
 * iteration like a loop's, REP STOSB took about as long as the byte loop, and words take
 * an eighth of the iterations (a quarter on i686). The word register operand sizes STOS
 * (RAX on x86-64, EAX on i686). */
void *memset(void *dst, int c, size_t n)
{
	void *d = dst;
	uintptr_t v = (unsigned char)c * (UINTPTR_MAX / 0xff);     /* the byte in every byte */
	size_t words = n / sizeof(v), bytes = n % sizeof(v);

	__asm__ volatile("rep stos %2, %%es:(%0)" : "+D"(d), "+c"(words) : "a"(v) : "memory");
	__asm__ volatile("rep stosb" : "+D"(d), "+c"(bytes) : "a"(v) : "memory");
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
