/*
 * Reading a CPUID dump into memory, shared by bareperf-cpuid and bareperf-encode --cpuid.
 * Host only (stdio). The largest dump in tests/data/cpuid is 80 KiB (a 32-thread CPU);
 * an input over CPUID_DUMP_TEXT_MAX is refused, not read without limit (/dev/zero)
 * and not cut short.
 */
#ifndef SCRIPTS_HOST_READ_DUMP_H
#define SCRIPTS_HOST_READ_DUMP_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CPUID_DUMP_TEXT_MAX (1u << 20)  /* bytes */

/*
 * Reads all of f into a malloc'd buffer of *len bytes. Returns NULL with errno set on
 * failure: EFBIG when f holds more than CPUID_DUMP_TEXT_MAX bytes.
 */
static inline char *read_dump_text(FILE *f, size_t *len)
{
	/* One byte more than the limit tells "exactly the limit" from "longer". */
	char *buf = malloc(CPUID_DUMP_TEXT_MAX + 1);
	size_t n;

	if (buf == NULL)
		return NULL;
	errno = 0;
	n = fread(buf, 1, CPUID_DUMP_TEXT_MAX + 1, f);
	if (ferror(f)) {
		int saved = errno ? errno : EIO;

		free(buf);
		errno = saved;
		return NULL;
	}
	if (n > CPUID_DUMP_TEXT_MAX) {
		free(buf);
		errno = EFBIG;
		return NULL;
	}
	*len = n;
	return buf;
}

/* What read_dump_text's failure means, for "PROG: FILE: %s". */
static inline const char *read_dump_error(int err)
{
	static char text[96];

	if (err != EFBIG)
		return strerror(err);
	snprintf(text, sizeof(text), "is larger than %u bytes: not a CPUID dump",
		 CPUID_DUMP_TEXT_MAX);
	return text;
}

#endif
