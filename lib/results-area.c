/*
 * The results area (docs/results-area.md): finding /bareperf/results on a FAT32 partition
 * and checking it is exactly as scripts/mkimage created it, the slot header, the slot
 * choice. Pure logic over a read-sector callback, so the same code runs in the kernel and
 * on the host (tests/unit/test_results_area.c, tests/fuzz/fuzz_results.c).
 */
#include "lib/results-area.h"
#include "lib/bytes.h"
#include "lib/format.h"
#include "lib/str.h"

/* MBR: UEFI 2.10 Table 5-1 and 5-2 (legacy MBR, partition record). */
#define MBR_PART_TABLE      446
#define MBR_PART_ENTRY      16
#define MBR_PARTS           4
#define MBR_PART_TYPE       4
#define MBR_PART_START_LBA  8
#define MBR_PART_SIZE_LBA   12
#define MBR_SIGNATURE       510     /* 0x55, 0xAA */
#define MBR_TYPE_EFI_SYSTEM 0xEF
#define MBR_TYPE_FAT32_CHS  0x0B
#define MBR_TYPE_FAT32_LBA  0x0C

/* FAT32 boot sector (BPB): FAT specification 1.03, section 3. */
#define BPB_BYTS_PER_SEC    11
#define BPB_SEC_PER_CLUS    13
#define BPB_RSVD_SEC_CNT    14
#define BPB_NUM_FATS        16
#define BPB_ROOT_ENT_CNT    17
#define BPB_TOT_SEC16       19
#define BPB_FAT_SZ16        22
#define BPB_TOT_SEC32       32
#define BPB_FAT_SZ32        36
#define BPB_ROOT_CLUS       44
#define BPB_NUM_FATS_MAX    2       /* "2 recommended, 1 acceptable" (3.1, BPB_NumFATs) */

/* FAT32 entries (section 4): 28 bits; >= 0x0FFFFFF8 ends a chain. */
#define FAT32_ENTRY_MASK    0x0FFFFFFFu
#define FAT32_EOC_MIN       0x0FFFFFF8u
#define FAT_FIRST_CLUSTER   2

/* Directory entries (section 6). */
#define DIR_ENTRY_BYTES     32
#define DIR_NAME_LEN        11
#define DIR_ATTR            11
#define DIR_FST_CLUS_HI     20
#define DIR_FST_CLUS_LO     26
#define DIR_FILE_SIZE       28
#define DIR_ATTR_VOLUME_ID  0x08
#define DIR_ATTR_DIRECTORY  0x10
#define DIR_ATTR_LONG_NAME  0x0F
#define DIR_FREE_ALL        0x00    /* this and all following entries are free */
#define DIR_FREE            0xE5

/* Runs of consecutive clusters kept for the folders /, /bareperf and /bareperf/results
 * (one each on mkimage's image); a folder in more pieces is refused. */
#define RESULTS_DIR_RUNS    16

#define IDENTITY_MAGIC      "bareperf results area 1"
#define HEADER_MAGIC        "bareperf run 1"

static uint16_t le16(const uint8_t *p) { return (uint16_t)get_le(p, 2); }
static uint32_t le32(const uint8_t *p) { return (uint32_t)get_le(p, 4); }

/* The FAT32 volume, as the BPB describes it, in device sectors, and the sectors read from
 * it. The search goes through the results folder once per file and through each slot's
 * FAT entries (4 KiB of them for a 512-byte cluster), yet reads each sector once, and the
 * FAT RESULTS_FAT_WINDOW_BYTES at a time: 11 reads for the image mkimage makes, where one
 * sector at a time took 79. */
struct fat_vol {
	results_read_fn rd;
	void *ctx;
	uint8_t *cache;             /* RESULTS_CACHE_SECTORS sectors */
	uint64_t cached[RESULTS_CACHE_SECTORS];     /* the LBA in each */
	uint64_t used[RESULTS_CACHE_SECTORS];       /* when last used (0: empty), for LRU */
	uint64_t clock;
	struct fat_window {
		uint8_t *buf;           /* RESULTS_FAT_WINDOW_BYTES: FAT sectors first.. */
		uint64_t first;
		uint32_t count;         /* sectors in buf, 0: none */
		uint64_t used;          /* when last used, for LRU */
	} fat[RESULTS_FAT_WINDOWS];
	uint32_t ss;                /* bytes per sector */
	uint64_t part_lba;
	uint64_t part_sectors;
	uint32_t spc;               /* sectors per cluster */
	uint64_t fat_lba;
	uint32_t fat_sectors;
	uint64_t data_lba;
	uint32_t clusters;          /* data clusters: numbered 2 .. clusters + 1 */
	uint32_t root;
	/* The clusters of the folders the search went through, as runs: no slot may share one. */
	struct cluster_run {
		uint32_t first, count;
		const char *path;
	} dir[RESULTS_DIR_RUNS];
	unsigned ndir;
	char *err;
	size_t errlen;
};

/* Sector lba, from the cache or read into its least recently used place; NULL with the
 * reason in v->err when it cannot be read. */
static const uint8_t *vol_read(struct fat_vol *v, uint64_t lba, const char *what)
{
	unsigned lru = 0;
	for (unsigned i = 0; i < RESULTS_CACHE_SECTORS; i++) {
		if (v->used[i] && v->cached[i] == lba) {
			v->used[i] = ++v->clock;
			return v->cache + (size_t)i * v->ss;
		}
		if (v->used[i] < v->used[lru])
			lru = i;
	}
	uint8_t *buf = v->cache + (size_t)lru * v->ss;
	v->used[lru] = 0;           /* empty until the read succeeds */
	if (!v->rd(v->ctx, lba, 1, buf)) {
		fmt_error(v->err, v->errlen, "cannot read sector %llu (%s)", (unsigned long long)lba, what);
		return NULL;
	}
	v->cached[lru] = lba;
	v->used[lru] = ++v->clock;
	return buf;
}

static int find_partition(struct fat_vol *v, uint64_t total)
{
	const uint8_t *mbr = vol_read(v, 0, "MBR");
	if (!mbr)
		return -1;
	if (mbr[MBR_SIGNATURE] != 0x55 || mbr[MBR_SIGNATURE + 1] != 0xAA)
		return fmt_error(v->err, v->errlen, "no MBR partition table (no 55 AA signature in sector 0)");
	for (unsigned i = 0; i < MBR_PARTS; i++) {
		const uint8_t *e = mbr + MBR_PART_TABLE + i * MBR_PART_ENTRY;
		uint8_t type = e[MBR_PART_TYPE];
		uint64_t start = le32(e + MBR_PART_START_LBA), size = le32(e + MBR_PART_SIZE_LBA);

		if (type != MBR_TYPE_EFI_SYSTEM && type != MBR_TYPE_FAT32_CHS && type != MBR_TYPE_FAT32_LBA)
			continue;
		if (size == 0 || start == 0 || start + size > total)
			return fmt_error(v->err, v->errlen,
					 "partition %u (sectors %llu+%llu) does not fit the medium's %llu sectors",
					 i + 1, (unsigned long long)start, (unsigned long long)size,
					 (unsigned long long)total);
		v->part_lba = start;
		v->part_sectors = size;
		return 0;
	}
	return fmt_error(v->err, v->errlen, "no FAT partition (type EF, 0B or 0C) in the MBR");
}

/* Each BPB field checked on its own (FAT specification 1.03, section 3.1), so a message names
 * the field that is wrong and its value. */
static int check_bpb_fields(struct fat_vol *v, uint32_t bps, uint32_t spc, uint32_t rsvd, uint32_t nfats,
			    uint32_t fatsz, uint32_t tot)
{
	if (bps != v->ss)
		return fmt_error(v->err, v->errlen, "FAT bytes per sector %u differ from the medium's %u", bps, v->ss);
	if (spc == 0 || (spc & (spc - 1)) != 0)
		return fmt_error(v->err, v->errlen, "FAT sectors per cluster %u (a power of 2 from 1 to 128)", spc);
	if (rsvd == 0)
		return fmt_error(v->err, v->errlen, "FAT reserved sector count 0 (the boot sector is one)");
	if (nfats == 0 || nfats > BPB_NUM_FATS_MAX)
		return fmt_error(v->err, v->errlen, "FAT count %u (1 or 2 expected)", nfats);
	if (fatsz == 0)
		return fmt_error(v->err, v->errlen, "FAT32 FAT size 0 sectors");
	if (tot == 0)
		return fmt_error(v->err, v->errlen, "FAT32 total sector count 0");
	if (tot > v->part_sectors)
		return fmt_error(v->err, v->errlen, "FAT32 size %u sectors does not fit its partition of %llu",
				 tot, (unsigned long long)v->part_sectors);
	if ((uint64_t)rsvd + (uint64_t)nfats * fatsz >= tot)
		return fmt_error(v->err, v->errlen, "FAT32 FAT size %u sectors (%u FATs after %u reserved sectors) "
				 "leaves no data sectors in the volume's %u", fatsz, nfats, rsvd, tot);
	return 0;
}

static int read_bpb(struct fat_vol *v)
{
	const uint8_t *b = vol_read(v, v->part_lba, "FAT boot sector");
	if (!b)
		return -1;
	uint32_t bps = le16(b + BPB_BYTS_PER_SEC), spc = b[BPB_SEC_PER_CLUS];
	uint32_t rsvd = le16(b + BPB_RSVD_SEC_CNT), nfats = b[BPB_NUM_FATS];
	uint32_t tot = le32(b + BPB_TOT_SEC32), fatsz = le32(b + BPB_FAT_SZ32);

	if (b[MBR_SIGNATURE] != 0x55 || b[MBR_SIGNATURE + 1] != 0xAA)
		return fmt_error(v->err, v->errlen, "partition 1 has no FAT boot sector (no 55 AA signature)");
	if (le16(b + BPB_ROOT_ENT_CNT) != 0 || le16(b + BPB_TOT_SEC16) != 0 || le16(b + BPB_FAT_SZ16) != 0)
		return fmt_error(v->err, v->errlen, "the partition is FAT12/16, not FAT32");
	if (check_bpb_fields(v, bps, spc, rsvd, nfats, fatsz, tot))
		return -1;
	uint64_t data = (uint64_t)rsvd + (uint64_t)nfats * fatsz;
	uint64_t clusters = (tot - data) / spc;
	if ((uint64_t)fatsz * bps / 4 < clusters + FAT_FIRST_CLUSTER)
		clusters = (uint64_t)fatsz * bps / 4 - FAT_FIRST_CLUSTER;
	v->spc = spc;
	v->fat_lba = v->part_lba + rsvd;
	v->fat_sectors = fatsz;
	v->data_lba = v->part_lba + data;
	v->clusters = (uint32_t)clusters;
	v->root = le32(b + BPB_ROOT_CLUS);
	return 0;
}

static bool cluster_valid(const struct fat_vol *v, uint32_t c)
{
	return c >= FAT_FIRST_CLUSTER && c - FAT_FIRST_CLUSTER < v->clusters;
}

/* Whether window f is the better one to replace than w, for a read of sector lba: one the
 * walk has gone past (each file's chain goes up the FAT), then the least recently used. */
static bool fat_window_rather(const struct fat_window *f, const struct fat_window *w, uint64_t lba)
{
	bool f_past = f->first + f->count <= lba, w_past = w->first + w->count <= lba;
	return f_past != w_past ? f_past : f->used < w->used;
}

/* The window on the FAT that holds sector lba (within the FAT), read if need be; NULL with
 * the reason in v->err. */
static struct fat_window *fat_window(struct fat_vol *v, uint64_t lba)
{
	struct fat_window *w = &v->fat[0];
	for (unsigned i = 0; i < RESULTS_FAT_WINDOWS; i++) {
		struct fat_window *f = &v->fat[i];
		if (lba >= f->first && lba - f->first < f->count) {
			f->used = ++v->clock;
			return f;
		}
		if (fat_window_rather(f, w, lba))
			w = f;
	}
	/* The windows split the FAT at multiples of their size: none overlaps another. */
	uint32_t count = RESULTS_FAT_WINDOW_BYTES / v->ss;
	uint64_t first = v->fat_lba + (lba - v->fat_lba) / count * count;
	uint64_t left = v->fat_lba + v->fat_sectors - first;
	if (count > left)
		count = (uint32_t)left;
	w->count = 0;
	if (!v->rd(v->ctx, first, count, w->buf)) {
		fmt_error(v->err, v->errlen, "cannot read sectors %llu+%u (FAT)", (unsigned long long)first, count);
		return NULL;
	}
	w->first = first;
	w->count = count;
	w->used = ++v->clock;
	return w;
}

/* The FAT entry of cluster c (c valid, so within the FAT: read_bpb). */
static int fat_next(struct fat_vol *v, uint32_t c, uint32_t *next)
{
	uint64_t off = (uint64_t)c * 4, lba = v->fat_lba + off / v->ss;
	struct fat_window *w = fat_window(v, lba);

	if (!w)
		return -1;
	*next = le32(w->buf + (lba - w->first) * v->ss + off % v->ss) & FAT32_ENTRY_MASK;
	return 0;
}

static uint64_t cluster_lba(const struct fat_vol *v, uint32_t c)
{
	return v->data_lba + (uint64_t)(c - FAT_FIRST_CLUSTER) * v->spc;
}

struct dir_entry {
	uint8_t attr;
	uint32_t cluster;
	uint32_t size;
};

/* Find the 8.3 name (11 bytes, space-padded) in the directory starting at cluster dir.
 * 1 found, 0 not there, -1 error. The chain is bounded by the cluster count. */
static int dir_find(struct fat_vol *v, uint32_t dir, const char *name, const char *path,
		    struct dir_entry *out)
{
	uint32_t c = dir;

	for (uint32_t n = 0; n <= v->clusters; n++) {
		if (!cluster_valid(v, c))
			return fmt_error(v->err, v->errlen, "%s: directory chain has cluster %u, outside the volume",
					 path, c);
		for (uint32_t s = 0; s < v->spc; s++) {
			const uint8_t *sector = vol_read(v, cluster_lba(v, c) + s, path);
			if (!sector)
				return -1;
			for (uint32_t o = 0; o + DIR_ENTRY_BYTES <= v->ss; o += DIR_ENTRY_BYTES) {
				const uint8_t *e = sector + o;
				if (e[0] == DIR_FREE_ALL)
					return 0;
				/* Long-name parts and the volume label (which is BAREPERF too) are no files. */
				if (e[0] == DIR_FREE || (e[DIR_ATTR] & DIR_ATTR_VOLUME_ID))
					continue;
				if (memcmp(e, name, DIR_NAME_LEN) != 0)
					continue;
				out->attr = e[DIR_ATTR];
				out->cluster = (uint32_t)le16(e + DIR_FST_CLUS_HI) << 16 | le16(e + DIR_FST_CLUS_LO);
				out->size = le32(e + DIR_FILE_SIZE);
				return 1;
			}
		}
		uint32_t next;
		if (fat_next(v, c, &next))
			return -1;
		if (next >= FAT32_EOC_MIN)
			return 0;
		c = next;
	}
	return fmt_error(v->err, v->errlen, "%s: directory chain longer than the volume (a loop)", path);
}

/* Cluster c of the folder path, kept among v->dir. */
static int dir_keep(struct fat_vol *v, uint32_t c, const char *path)
{
	for (unsigned i = 0; i < v->ndir; i++) {
		struct cluster_run *r = &v->dir[i];
		if (c - r->first < r->count)
			return 0;
		if (c == r->first + r->count) {
			r->count++;
			return 0;
		}
	}
	if (v->ndir == RESULTS_DIR_RUNS)
		return fmt_error(v->err, v->errlen, "%s: the folders are in more than %u pieces", path,
				 RESULTS_DIR_RUNS);
	v->dir[v->ndir++] = (struct cluster_run){ c, 1, path };
	return 0;
}

/* Every cluster of the folder path's chain from dir, kept (the FAT only: its entries are
 * not read). */
static int dir_chain(struct fat_vol *v, uint32_t dir, const char *path)
{
	uint32_t c = dir;

	for (uint32_t n = 0; n <= v->clusters; n++) {
		if (!cluster_valid(v, c))
			return fmt_error(v->err, v->errlen, "%s: directory chain has cluster %u, outside the volume",
					 path, c);
		if (dir_keep(v, c, path))
			return -1;
		uint32_t next;
		if (fat_next(v, c, &next))
			return -1;
		if (next >= FAT32_EOC_MIN)
			return 0;
		c = next;
	}
	return fmt_error(v->err, v->errlen, "%s: directory chain longer than the volume (a loop)", path);
}

static int find_dir(struct fat_vol *v, uint32_t parent, const char *name, const char *path, uint32_t *cluster)
{
	struct dir_entry e;
	int r = dir_find(v, parent, name, path, &e);

	if (r < 0)
		return -1;
	if (r == 0)
		return fmt_error(v->err, v->errlen, "no folder %s", path);
	if (!(e.attr & DIR_ATTR_DIRECTORY))
		return fmt_error(v->err, v->errlen, "%s is a file, not a folder", path);
	*cluster = e.cluster;
	return dir_chain(v, e.cluster, path);
}

/* The file name in the folder: present, a file, exactly size bytes, one contiguous
 * cluster run that the FAT chains to its end, starting at cluster first (0: anywhere). */
static int check_file(struct fat_vol *v, uint32_t dir, const char *name83, const char *path,
		      uint32_t size, uint32_t first, struct results_extent *ext, struct cluster_run *run)
{
	struct dir_entry e;
	int r = dir_find(v, dir, name83, path, &e);

	if (r < 0)
		return -1;
	if (r == 0)
		return fmt_error(v->err, v->errlen, "no file %s", path);
	if (e.attr & (DIR_ATTR_DIRECTORY | DIR_ATTR_VOLUME_ID))
		return fmt_error(v->err, v->errlen, "%s is not a file", path);
	if (e.size != size)
		return fmt_error(v->err, v->errlen, "%s is %u bytes, not %u as created", path, e.size, size);
	uint32_t cbytes = v->spc * v->ss, n = (size + cbytes - 1) / cbytes;
	if (n == 0 || n > v->clusters || !cluster_valid(v, e.cluster) || e.cluster - FAT_FIRST_CLUSTER > v->clusters - n)
		return fmt_error(v->err, v->errlen, "%s starts at cluster %u, outside the volume", path, e.cluster);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t next, want = i + 1 < n ? e.cluster + i + 1 : FAT32_EOC_MIN;
		if (fat_next(v, e.cluster + i, &next))
			return -1;
		if (i + 1 < n ? next != want : next < want)
			return fmt_error(v->err, v->errlen, "%s is not one contiguous run of clusters (cluster %u "
					 "is followed by %u)", path, e.cluster + i, next);
	}
	if (first && e.cluster != first)
		return fmt_error(v->err, v->errlen, "%s was moved: it starts at cluster %u, IDENTITY says %u",
				 path, e.cluster, first);
	ext->lba = cluster_lba(v, e.cluster);
	ext->sectors = (size + v->ss - 1) / v->ss;
	*run = (struct cluster_run){ e.cluster, n, path };
	return 0;
}

static bool runs_overlap(const struct cluster_run *a, const struct cluster_run *b)
{
	return a->first < b->first + b->count && b->first < a->first + a->count;
}

/* No two files share a cluster, nor a file and a folder the search went through: a slot
 * written would overwrite them (IDENTITY can name one cluster twice, an entry can point
 * into another file). */
static int check_no_sharing(struct fat_vol *v, const struct cluster_run *file, unsigned nfiles)
{
	for (unsigned i = 0; i < nfiles; i++) {
		const struct cluster_run *a = &file[i];
		for (unsigned j = 0; j < i; j++)
			if (runs_overlap(a, &file[j]))
				return fmt_error(v->err, v->errlen, "%s (clusters %u to %u) shares clusters with %s "
						 "(%u to %u)", a->path, a->first, a->first + a->count - 1, file[j].path,
						 file[j].first, file[j].first + file[j].count - 1);
		for (unsigned j = 0; j < v->ndir; j++)
			if (runs_overlap(a, &v->dir[j]))
				return fmt_error(v->err, v->errlen, "%s (clusters %u to %u) shares clusters with the "
						 "folder %s (%u to %u)", a->path, a->first, a->first + a->count - 1,
						 v->dir[j].path, v->dir[j].first, v->dir[j].first + v->dir[j].count - 1);
	}
	return 0;
}

/* "run01.log" -> "RUN01   LOG" */
static void slot_name83(unsigned i, char name83[DIR_NAME_LEN + 1])
{
	bp_snprintf(name83, DIR_NAME_LEN + 1, "RUN%02u   LOG", i + 1);
}

static const char *const slot_path[RESULTS_SLOTS] = {
	"/bareperf/results/run01.log", "/bareperf/results/run02.log", "/bareperf/results/run03.log",
	"/bareperf/results/run04.log", "/bareperf/results/run05.log", "/bareperf/results/run06.log",
	"/bareperf/results/run07.log", "/bareperf/results/run08.log",
};

int results_area_find(results_read_fn rd, void *ctx, uint32_t sector_size, uint64_t total_sectors,
		      uint8_t *scratch, struct results_area *out, char *err, size_t errlen)
{
	struct fat_vol v = { .rd = rd, .ctx = ctx, .cache = scratch, .ss = sector_size,
			     .err = err, .errlen = errlen };
	uint32_t dir;
	const uint8_t *identity;

	for (unsigned i = 0; i < RESULTS_FAT_WINDOWS; i++)
		v.fat[i].buf = scratch + RESULTS_CACHE_SECTORS * RESULTS_SECTOR_MAX + i * RESULTS_FAT_WINDOW_BYTES;
	memset(out, 0, sizeof(*out));
	if (sector_size != 512 && sector_size != 4096)
		return fmt_error(err, errlen, "sector size %u is neither 512 nor 4096", sector_size);
	if (total_sectors < RESULTS_MEDIUM_MIN_BYTES / sector_size)
		return fmt_error(err, errlen, "the medium's %llu sector%s of %u bytes cannot hold a results area "
				 "(%u bytes at least)", (unsigned long long)total_sectors, total_sectors == 1 ? "" : "s",
				 sector_size, RESULTS_MEDIUM_MIN_BYTES);
	if (find_partition(&v, total_sectors) || read_bpb(&v) || dir_chain(&v, v.root, "/"))
		return -1;
	if (find_dir(&v, v.root, "BAREPERF   ", "/bareperf", &dir) ||
	    find_dir(&v, dir, "RESULTS    ", "/bareperf/results", &dir))
		return -1;
	struct cluster_run file[1 + RESULTS_SLOTS];
	if (check_file(&v, dir, "IDENTITY   ", "/bareperf/results/IDENTITY", RESULTS_IDENTITY_BYTES, 0,
		       &out->identity, &file[0]) ||
	    !(identity = vol_read(&v, out->identity.lba, "/bareperf/results/IDENTITY")))
		return -1;
	uint32_t len = RESULTS_IDENTITY_BYTES < sector_size ? RESULTS_IDENTITY_BYTES : sector_size;
	struct results_identity ident;
	if (results_identity_parse((const char *)identity, len, &ident, err, errlen))
		return -1;
	for (unsigned i = 0; i < RESULTS_SLOTS; i++) {
		char name83[DIR_NAME_LEN + 1];
		slot_name83(i, name83);
		if (check_file(&v, dir, name83, slot_path[i], RESULTS_SLOT_BYTES, ident.cluster[i], &out->slot[i],
			       &file[1 + i]))
			return -1;
	}
	if (check_no_sharing(&v, file, 1 + RESULTS_SLOTS))
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
		if (parse_u32(w, (size_t)(v - w), &out->cluster[i]) || out->cluster[i] < FAT_FIRST_CLUSTER)
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
