/*
 * results-check MEDIUM [SECTOR_SIZE]: the kernel's verdict on the results area of an image
 * file or a block device (lib/results-area.c results_area_find, over lib/fat32.c), for
 * tests/report/test_area_verdict.py to hold scripts/bareperf-report's reader to. Prints
 * `ok` or the reason the kernel would give, one line. SECTOR_SIZE (512 or 4096) is the
 * medium's; without it a block device's own, an image file's 512. Reads only.
 * results-check MEDIUM SECTOR_SIZE MEDIUM SECTOR_SIZE...: a line for each medium, in that
 * order (the test judges some 35 images; one process for them all, not one each).
 * Exit status: 0 every area passes every check; 1 one fails one; 2 bad usage or no medium.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "lib/results-area.h"

struct medium {
	int fd;
	uint32_t ss;
};

static bool medium_read(void *ctx, uint64_t lba, uint32_t count, void *buf)
{
	const struct medium *m = ctx;
	size_t want = (size_t)count * m->ss;
	ssize_t n = pread(m->fd, buf, want, (off_t)(lba * m->ss));
	return n >= 0 && (size_t)n == want;
}

/* The verdict on one medium, printed: 0 ok, 1 a check fails, 2 no medium or a bad size. */
static int check(const char *path, const char *ss_arg)
{
	static uint8_t scratch[RESULTS_SCRATCH_BYTES];
	struct results_area area;
	struct medium m = { .ss = 512 };
	struct stat st;
	char err[RESULTS_ERR_MAX];
	int rc = 2;

	m.fd = open(path, O_RDONLY | O_CLOEXEC);
	if (m.fd < 0 || fstat(m.fd, &st) != 0) {
		fprintf(stderr, "results-check: %s: %s\n", path, strerror(errno));
		goto out;
	}
	uint64_t bytes = (uint64_t)st.st_size;
	if (S_ISBLK(st.st_mode)) {
		int ss;
		if (ioctl(m.fd, BLKSSZGET, &ss) != 0 || ioctl(m.fd, BLKGETSIZE64, &bytes) != 0) {
			fprintf(stderr, "results-check: %s: %s\n", path, strerror(errno));
			goto out;
		}
		m.ss = (uint32_t)ss;
	} else if (!S_ISREG(st.st_mode)) {
		fprintf(stderr, "results-check: %s: neither an image file nor a block device\n", path);
		goto out;
	}
	if (ss_arg) {
		char *end;
		unsigned long ss = strtoul(ss_arg, &end, 10);
		if (*end || (ss != 512 && ss != 4096)) {
			fprintf(stderr, "results-check: sector size '%s' is neither 512 nor 4096\n", ss_arg);
			goto out;
		}
		m.ss = (uint32_t)ss;
	}
	if (results_area_find(medium_read, &m, m.ss, bytes / m.ss, scratch, &area, err, sizeof(err))) {
		printf("%s\n", err);
		rc = 1;
	} else {
		printf("ok\n");
		rc = 0;
	}
out:
	if (m.fd >= 0)
		close(m.fd);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc < 2 || (argc > 3 && argc % 2 == 0)) {
		fprintf(stderr, "usage: results-check MEDIUM [SECTOR_SIZE] | MEDIUM SECTOR_SIZE MEDIUM SECTOR_SIZE...\n");
		return 2;
	}
	int worst = 0;
	for (int i = 1; i < argc; i += 2) {
		int rc = check(argv[i], i + 1 < argc ? argv[i + 1] : NULL);
		if (rc == 2)
			return 2;
		if (rc > worst)
			worst = rc;
	}
	return worst;
}
