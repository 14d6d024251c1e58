/*
 * The results area (docs/results-area.md): finding /bareperf/results on the FAT32 partition
 * (through lib/fat32.c) and checking it is exactly as scripts/mkimage created it, the slot
 * header, the slot choice. Pure logic over a read-sector callback, so the same code runs
 * in the kernel and on the host (tests/unit/test_results_area.c, tests/fuzz/fuzz_results.c).
 */
#include "lib/results-area.h"
#include "lib/bytes.h"
#include "lib/fat32.h"
#include "lib/format.h"
#include "lib/str.h"

#define IDENTITY_MAGIC      "bareperf results area 1"
#define HEADER_MAGIC        "bareperf run 1"
/* "run01.log" -> "RUN01   LOG" */
static void slot_name83(unsigned i, char name83[FAT32_NAME83_LEN + 1])
{
	bp_snprintf(name83, FAT32_NAME83_LEN + 1, "RUN%02u   LOG", i + 1);
}

static const char *const slot_path[RESULTS_SLOTS] = {
	"/bareperf/results/run01.log", "/bareperf/results/run02.log", "/bareperf/results/run03.log",
	"/bareperf/results/run04.log", "/bareperf/results/run05.log", "/bareperf/results/run06.log",
	"/bareperf/results/run07.log", "/bareperf/results/run08.log",
};

/* The file name83 in the folder dir, as mkimage made it (fat32_contiguous_file), and
 * where its bytes lie. */
static int area_file(struct fat32_vol *v, uint32_t dir, const char *name83, const char *path, uint32_t size,
		     uint32_t first, struct results_extent *ext, struct fat32_run *run)
{
	if (fat32_contiguous_file(v, dir, name83, path, size, first, run))
		return -1;
	ext->lba = fat32_cluster_lba(v, run->first);
	ext->sectors = (size + v->ss - 1) / v->ss;
	return 0;
}

int results_area_find(results_read_fn rd, void *ctx, uint32_t sector_size, uint64_t total_sectors,
		      uint8_t *scratch, struct results_area *out, char *err, size_t errlen)
{
	static struct fat32_vol v;      /* about 1 KiB: not on a small stack */
	uint32_t dir;
	const uint8_t *identity;

	memset(out, 0, sizeof(*out));
	if (fat32_sector_size_ok(sector_size) && total_sectors < RESULTS_MEDIUM_MIN_BYTES / sector_size)
		return fmt_error(err, errlen, "the medium's %llu sector%s of %u bytes cannot hold a results area "
				 "(%u bytes at least)", (unsigned long long)total_sectors, total_sectors == 1 ? "" : "s",
				 sector_size, RESULTS_MEDIUM_MIN_BYTES);
	if (fat32_open(&v, rd, ctx, sector_size, total_sectors, scratch, err, errlen))
		return -1;
	if (fat32_find_dir(&v, fat32_root(&v), "BAREPERF   ", "/bareperf", &dir) ||
	    fat32_find_dir(&v, dir, "RESULTS    ", "/bareperf/results", &dir))
		return -1;
	struct fat32_run file[1 + RESULTS_SLOTS];
	if (area_file(&v, dir, "IDENTITY   ", "/bareperf/results/IDENTITY", RESULTS_IDENTITY_BYTES, 0,
		      &out->identity, &file[0]) ||
	    !(identity = fat32_read_sector(&v, out->identity.lba, "/bareperf/results/IDENTITY")))
		return -1;
	uint32_t len = RESULTS_IDENTITY_BYTES < sector_size ? RESULTS_IDENTITY_BYTES : sector_size;
	struct results_identity ident;
	if (results_identity_parse((const char *)identity, len, &ident, err, errlen))
		return -1;
	for (unsigned i = 0; i < RESULTS_SLOTS; i++) {
		char name83[FAT32_NAME83_LEN + 1];
		slot_name83(i, name83);
		if (area_file(&v, dir, name83, slot_path[i], RESULTS_SLOT_BYTES, ident.cluster[i], &out->slot[i],
			      &file[1 + i]))
			return -1;
	}
	if (fat32_check_no_sharing(&v, file, 1 + RESULTS_SLOTS))
		return -1;
	memcpy(out->id, ident.id, RESULTS_ID_BYTES);
	out->sector_size = sector_size;
	return 0;
}

/* ---- text lines "key: value" ---- */

struct lines {
	const char *p, *end;
};

/* The next line (without '\n') in line and len; false at the end or at a NUL. */
static bool next_line(struct lines *l, const char **line, size_t *len)
{
	if (l->p >= l->end || *l->p == '\0')
		return false;
	const char *s = l->p;
	while (l->p < l->end && *l->p != '\n' && *l->p != '\0')
		l->p++;
	*line = s;
	*len = (size_t)(l->p - s);
	if (l->p < l->end && *l->p == '\n')
		l->p++;
	return true;
}

/* The value of "key: value" when line is that key's, else NULL. */
static const char *value_of(const char *line, size_t len, const char *key, size_t *vlen)
{
	size_t k = strlen(key);

	if (len < k + 2 || memcmp(line, key, k) != 0 || line[k] != ':' || line[k + 1] != ' ')
		return NULL;
	*vlen = len - k - 2;
	return line + k + 2;
}

static int parse_hex_id(const char *s, size_t len, uint8_t id[RESULTS_ID_BYTES])
{
	if (len != 2 * RESULTS_ID_BYTES)
		return -1;
	for (unsigned i = 0; i < RESULTS_ID_BYTES; i++) {
		int hi = str_hex_digit(s[2 * i]), lo = str_hex_digit(s[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return -1;
		id[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}

static int parse_u32(const char *s, size_t len, uint32_t *out)
{
	uint64_t v;

	if (len == 0 || len > 10 || s[0] < '0' || s[0] > '9' || str_to_u64(s, len, &v) || v > UINT32_MAX)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

/* The line must be "key: value"; returns the value or NULL with err set. */
static const char *expect_key(struct lines *l, const char *key, size_t *vlen, char *err, size_t errlen)
{
	const char *line, *v;
	size_t len;

	if (!next_line(l, &line, &len)) {
		fmt_error(err, errlen, "no '%s:' line", key);
		return NULL;
	}
	if (!(v = value_of(line, len, key, vlen)))
		fmt_error(err, errlen, "'%.*s' where '%s:' belongs", (int)(len > 40 ? 40 : len), line, key);
	return v;
}

int results_identity_parse(const char *text, size_t len, struct results_identity *out, char *err, size_t errlen)
{
	struct lines l = { text, text + len };
	const char *line, *v;
	size_t n;
	uint32_t slots, bytes;

	if (!next_line(&l, &line, &n) || n != strlen(IDENTITY_MAGIC) || memcmp(line, IDENTITY_MAGIC, n) != 0)
		return fmt_error(err, errlen, "IDENTITY does not start with '" IDENTITY_MAGIC "'");
	if (!(v = expect_key(&l, "image", &n, err, errlen)))
		return -1;
	if (parse_hex_id(v, n, out->id))
		return fmt_error(err, errlen, "IDENTITY: image is not 32 hex digits");
	if (!(v = expect_key(&l, "slots", &n, err, errlen)))
		return -1;
	if (parse_u32(v, n, &slots) || slots != RESULTS_SLOTS)
		return fmt_error(err, errlen, "IDENTITY: slots '%.*s', this kernel knows %u", (int)(n > 12 ? 12 : n),
				 v, RESULTS_SLOTS);
	if (!(v = expect_key(&l, "slot-bytes", &n, err, errlen)))
		return -1;
	if (parse_u32(v, n, &bytes) || bytes != RESULTS_SLOT_BYTES)
		return fmt_error(err, errlen, "IDENTITY: slot-bytes '%.*s', this kernel knows %u",
				 (int)(n > 12 ? 12 : n), v, RESULTS_SLOT_BYTES);
	if (!(v = expect_key(&l, "clusters", &n, err, errlen)))
		return -1;
	const char *end = v + n;
	for (unsigned i = 0; i < RESULTS_SLOTS; i++) {
		const char *w = v;
		while (v < end && *v != ' ')
			v++;
		if (parse_u32(w, (size_t)(v - w), &out->cluster[i]) || out->cluster[i] < FAT32_FIRST_CLUSTER)
			return fmt_error(err, errlen, "IDENTITY: clusters has no number for slot %u", i + 1);
		if (v < end)
			v++;
	}
	if (v != end)
		return fmt_error(err, errlen, "IDENTITY: clusters has more than %u numbers", RESULTS_SLOTS);
	return 0;
}

/* ---- the slot header ---- */

static void hex_id(char out[2 * RESULTS_ID_BYTES + 1], const uint8_t id[RESULTS_ID_BYTES])
{
	static const char digits[] = "0123456789abcdef";

	for (unsigned i = 0; i < RESULTS_ID_BYTES; i++) {
		out[2 * i] = digits[id[i] >> 4];
		out[2 * i + 1] = digits[id[i] & 15];
	}
	out[2 * RESULTS_ID_BYTES] = '\0';
}

/* A header text value: printable ASCII, no line breaks. */
static void clean_text(char *dst, const char *src, size_t size)
{
	size_t i = 0;

	for (; i + 1 < size && src[i]; i++)
		dst[i] = src[i] >= ' ' && src[i] < 0x7f ? src[i] : '?';
	dst[i] = '\0';
}

void results_header_format(uint8_t buf[RESULTS_HEADER_BYTES], const struct results_header *h)
{
	char id[2 * RESULTS_ID_BYTES + 1], rtc[RESULTS_RTC_MAX], cpu[RESULTS_CPU_MAX];

	hex_id(id, h->id);
	clean_text(rtc, h->rtc, sizeof(rtc));
	clean_text(cpu, h->cpu, sizeof(cpu));
	memset(buf, 0, RESULTS_HEADER_BYTES);
	bp_snprintf((char *)buf, RESULTS_HEADER_BYTES,
		    HEADER_MAGIC "\nimage: %s\nrun: %u\nstate: %s\nrtc: %s\ncpu: %s\nlength: %u\ncrc32: %08x\nend\n",
		    id, h->run, h->state == RESULTS_COMPLETE ? "complete" : "writing", rtc, cpu, h->length, h->crc32);
}

/* What results_header_format writes for a text value: printable ASCII only. */
static bool printable(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] < ' ' || s[i] >= 0x7f)
			return false;
	return true;
}

static bool all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

enum results_state results_header_parse(const uint8_t buf[RESULTS_HEADER_BYTES], struct results_header *h,
					char *err, size_t errlen)
{
	struct lines l = { (const char *)buf, (const char *)buf + RESULTS_HEADER_BYTES };
	const char *line, *v;
	size_t n;

	memset(h, 0, sizeof(*h));
	if (all_zero(buf, RESULTS_HEADER_BYTES))
		return h->state = RESULTS_EMPTY;
	h->state = RESULTS_DAMAGED;
	if (!next_line(&l, &line, &n) || n != strlen(HEADER_MAGIC) || memcmp(line, HEADER_MAGIC, n) != 0)
		return fmt_error(err, errlen, "not a bareperf run header"), RESULTS_DAMAGED;
	if (!(v = expect_key(&l, "image", &n, err, errlen)))
		return RESULTS_DAMAGED;
	if (parse_hex_id(v, n, h->id))
		return fmt_error(err, errlen, "header: image is not 32 hex digits"), RESULTS_DAMAGED;
	if (!(v = expect_key(&l, "run", &n, err, errlen)))
		return RESULTS_DAMAGED;
	if (parse_u32(v, n, &h->run) || h->run == 0 || h->run > RESULTS_RUN_MAX)
		return fmt_error(err, errlen, "header: run is not a number from 1 to %u", RESULTS_RUN_MAX),
		       RESULTS_DAMAGED;
	if (!(v = expect_key(&l, "state", &n, err, errlen)))
		return RESULTS_DAMAGED;
	enum results_state state;
	if (n == 8 && memcmp(v, "complete", 8) == 0)
		state = RESULTS_COMPLETE;
	else if (n == 7 && memcmp(v, "writing", 7) == 0)
		state = RESULTS_WRITING;
	else
		return fmt_error(err, errlen, "header: state is neither complete nor writing"), RESULTS_DAMAGED;
	if (!(v = expect_key(&l, "rtc", &n, err, errlen)))
		return RESULTS_DAMAGED;
	if (n >= RESULTS_RTC_MAX || !printable(v, n))
		return fmt_error(err, errlen, "header: rtc is not up to %u printable characters", RESULTS_RTC_MAX - 1),
		       RESULTS_DAMAGED;
	memcpy(h->rtc, v, n);
	if (!(v = expect_key(&l, "cpu", &n, err, errlen)))
		return RESULTS_DAMAGED;
	if (n >= RESULTS_CPU_MAX || !printable(v, n))
		return fmt_error(err, errlen, "header: cpu is not up to %u printable characters", RESULTS_CPU_MAX - 1),
		       RESULTS_DAMAGED;
	memcpy(h->cpu, v, n);
	if (!(v = expect_key(&l, "length", &n, err, errlen)))
		return RESULTS_DAMAGED;
	if (parse_u32(v, n, &h->length) || h->length > RESULTS_LOG_BYTES)
		return fmt_error(err, errlen, "header: length is not a number up to %u", RESULTS_LOG_BYTES),
		       RESULTS_DAMAGED;
	if (!(v = expect_key(&l, "crc32", &n, err, errlen)))
		return RESULTS_DAMAGED;
	uint8_t crc[4];
	if (n != 8)
		return fmt_error(err, errlen, "header: crc32 is not 8 hex digits"), RESULTS_DAMAGED;
	for (unsigned i = 0; i < 4; i++) {
		int hi = str_hex_digit(v[2 * i]), lo = str_hex_digit(v[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return fmt_error(err, errlen, "header: crc32 is not 8 hex digits"), RESULTS_DAMAGED;
		crc[i] = (uint8_t)(hi << 4 | lo);
	}
	h->crc32 = (uint32_t)crc[0] << 24 | (uint32_t)crc[1] << 16 | (uint32_t)crc[2] << 8 | crc[3];
	if (!next_line(&l, &line, &n) || n != 3 || memcmp(line, "end", 3) != 0)
		return fmt_error(err, errlen, "header: no 'end' line"), RESULTS_DAMAGED;
	return h->state = state;
}

uint32_t results_crc32(uint32_t crc, const void *data, size_t len)
{
	const uint8_t *p = data;

	crc = ~crc;
	while (len--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = crc >> 1 ^ (0xEDB88320u & (0u - (crc & 1)));   /* the reflected IEEE polynomial */
	}
	return ~crc;
}

int results_pick_slot(const struct results_header hdr[RESULTS_SLOTS], struct results_choice *out)
{
	uint32_t highest = 0;
	int free_slot = -1, oldest = -1, newest = -1;

	for (unsigned i = 0; i < RESULTS_SLOTS; i++) {
		bool used = hdr[i].state == RESULTS_COMPLETE || hdr[i].state == RESULTS_WRITING;
		if (!used) {
			if (free_slot < 0)
				free_slot = (int)i;
			continue;
		}
		if (hdr[i].run > highest) {
			highest = hdr[i].run;
			newest = (int)i;
		}
		if (oldest < 0 || hdr[i].run < hdr[oldest].run)
			oldest = (int)i;
	}
	if (highest >= RESULTS_RUN_MAX) {
		*out = (struct results_choice){ .slot = (unsigned)newest };
		return -1;
	}
	out->run = highest + 1;
	out->slot = (unsigned)(free_slot >= 0 ? free_slot : oldest);
	out->replaced_run = free_slot >= 0 ? 0 : hdr[oldest].run;
	return 0;
}
