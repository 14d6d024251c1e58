/*
 * A read-only walk of a FAT32 volume on an MBR-partitioned medium (lib/fat32.h): the
 * partition, the boot sector, the FAT, folders and contiguous files, over a read-sector
 * callback. The results area (lib/results-area.c) is its one user; the kernel and the host
 * (tests/unit/test_results_area.c, tests/fuzz/fuzz_results.c) run the same code.
 */
#include "lib/fat32.h"
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

/* Directory entries (section 6). */
#define DIR_ENTRY_BYTES     32
#define DIR_ATTR            11
#define DIR_FST_CLUS_HI     20
#define DIR_FST_CLUS_LO     26
#define DIR_FILE_SIZE       28
#define DIR_ATTR_VOLUME_ID  0x08
#define DIR_ATTR_DIRECTORY  0x10
#define DIR_ATTR_LONG_NAME  0x0F
#define DIR_FREE_ALL        0x00    /* this and all following entries are free */
#define DIR_FREE            0xE5

static uint16_t le16(const uint8_t *p) { return (uint16_t)get_le(p, 2); }
static uint32_t le32(const uint8_t *p) { return (uint32_t)get_le(p, 4); }

/* Sectors read are kept in the scratch's cache places (least recently used replaced) and
 * the FAT read a window at a time: the results area's search, which goes through its
 * folder once a file and through each slot's FAT entries, reads 11 times on the image
 * mkimage makes, where one sector at a time took 79. */

/* Sector lba, from the cache or read into its least recently used place; NULL with the
 * reason in v->err when it cannot be read. */
const uint8_t *fat32_read_sector(struct fat32_vol *v, uint64_t lba, const char *what)
{
	unsigned lru = 0;
	for (unsigned i = 0; i < FAT32_CACHE_SECTORS; i++) {
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

static int find_partition(struct fat32_vol *v, uint64_t total)
{
	const uint8_t *mbr = fat32_read_sector(v, 0, "MBR");
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
static int check_bpb_fields(struct fat32_vol *v, uint32_t bps, uint32_t spc, uint32_t rsvd, uint32_t nfats,
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

static int read_bpb(struct fat32_vol *v)
{
	const uint8_t *b = fat32_read_sector(v, v->part_lba, "FAT boot sector");
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
	if ((uint64_t)fatsz * bps / 4 < clusters + FAT32_FIRST_CLUSTER)
		clusters = (uint64_t)fatsz * bps / 4 - FAT32_FIRST_CLUSTER;
	v->spc = spc;
	v->fat_lba = v->part_lba + rsvd;
	v->fat_sectors = fatsz;
	v->data_lba = v->part_lba + data;
	v->clusters = (uint32_t)clusters;
	v->root = le32(b + BPB_ROOT_CLUS);
	return 0;
}

static bool cluster_valid(const struct fat32_vol *v, uint32_t c)
{
	return c >= FAT32_FIRST_CLUSTER && c - FAT32_FIRST_CLUSTER < v->clusters;
}

/* Whether window f is the better one to replace than w, for a read of sector lba: one the
 * walk has gone past (each file's chain goes up the FAT), then the least recently used. */
static bool fat_window_rather(const struct fat32_window *f, const struct fat32_window *w, uint64_t lba)
{
	bool f_past = f->first + f->count <= lba, w_past = w->first + w->count <= lba;
	return f_past != w_past ? f_past : f->used < w->used;
}

/* The window on the FAT that holds sector lba (within the FAT), read if need be; NULL with
 * the reason in v->err. */
static struct fat32_window *fat_window(struct fat32_vol *v, uint64_t lba)
{
	struct fat32_window *w = &v->fat[0];
	for (unsigned i = 0; i < FAT32_FAT_WINDOWS; i++) {
		struct fat32_window *f = &v->fat[i];
		if (lba >= f->first && lba - f->first < f->count) {
			f->used = ++v->clock;
			return f;
		}
		if (fat_window_rather(f, w, lba))
			w = f;
	}
	/* The windows split the FAT at multiples of their size: none overlaps another. */
	uint32_t count = FAT32_FAT_WINDOW_BYTES / v->ss;
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
static int fat_next(struct fat32_vol *v, uint32_t c, uint32_t *next)
{
	uint64_t off = (uint64_t)c * 4, lba = v->fat_lba + off / v->ss;
	struct fat32_window *w = fat_window(v, lba);

	if (!w)
		return -1;
	*next = le32(w->buf + (lba - w->first) * v->ss + off % v->ss) & FAT32_ENTRY_MASK;
	return 0;
}

uint64_t fat32_cluster_lba(const struct fat32_vol *v, uint32_t c)
{
	return v->data_lba + (uint64_t)(c - FAT32_FIRST_CLUSTER) * v->spc;
}

struct dir_entry {
	uint8_t attr;
	uint32_t cluster;
	uint32_t size;
};

/* Find the 8.3 name (11 bytes, space-padded) in the directory starting at cluster dir.
 * 1 found, 0 not there, -1 error. The chain is bounded by the cluster count. */
static int dir_find(struct fat32_vol *v, uint32_t dir, const char *name, const char *path,
		    struct dir_entry *out)
{
	uint32_t c = dir;

	for (uint32_t n = 0; n <= v->clusters; n++) {
		if (!cluster_valid(v, c))
			return fmt_error(v->err, v->errlen, "%s: directory chain has cluster %u, outside the volume",
					 path, c);
		for (uint32_t s = 0; s < v->spc; s++) {
			const uint8_t *sector = fat32_read_sector(v, fat32_cluster_lba(v, c) + s, path);
			if (!sector)
				return -1;
			for (uint32_t o = 0; o + DIR_ENTRY_BYTES <= v->ss; o += DIR_ENTRY_BYTES) {
				const uint8_t *e = sector + o;
				if (e[0] == DIR_FREE_ALL)
					return 0;
				/* Long-name parts and the volume label (which is BAREPERF too) are no files. */
				if (e[0] == DIR_FREE || (e[DIR_ATTR] & DIR_ATTR_VOLUME_ID))
					continue;
				if (memcmp(e, name, FAT32_NAME83_LEN) != 0)
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
static int dir_keep(struct fat32_vol *v, uint32_t c, const char *path)
{
	for (unsigned i = 0; i < v->ndir; i++) {
		struct fat32_run *r = &v->dir[i];
		if (c - r->first < r->count)
			return 0;
		if (c == r->first + r->count) {
			r->count++;
			return 0;
		}
	}
	if (v->ndir == FAT32_DIR_RUNS)
		return fmt_error(v->err, v->errlen, "%s: the folders are in more than %u pieces", path,
				 FAT32_DIR_RUNS);
	v->dir[v->ndir++] = (struct fat32_run){ c, 1, path };
	return 0;
}

/* Every cluster of the folder path's chain from dir, kept (the FAT only: its entries are
 * not read). */
int fat32_dir_chain(struct fat32_vol *v, uint32_t dir, const char *path)
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

int fat32_find_dir(struct fat32_vol *v, uint32_t parent, const char *name, const char *path, uint32_t *cluster)
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
	return fat32_dir_chain(v, e.cluster, path);
}

/* The file name in the folder: present, a file, exactly size bytes, one contiguous
 * cluster run that the FAT chains to its end, starting at cluster first (0: anywhere). */
int fat32_contiguous_file(struct fat32_vol *v, uint32_t dir, const char *name83, const char *path,
			  uint32_t size, uint32_t first, struct fat32_run *run)
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
	if (n == 0 || n > v->clusters || !cluster_valid(v, e.cluster) || e.cluster - FAT32_FIRST_CLUSTER > v->clusters - n)
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
	*run = (struct fat32_run){ e.cluster, n, path };
	return 0;
}

static bool runs_overlap(const struct fat32_run *a, const struct fat32_run *b)
{
	return a->first < b->first + b->count && b->first < a->first + a->count;
}

/* No two files share a cluster, nor a file and a folder the search went through: a slot
 * written would overwrite them (IDENTITY can name one cluster twice, an entry can point
 * into another file). */
int fat32_check_no_sharing(struct fat32_vol *v, const struct fat32_run *file, unsigned nfiles)
{
	for (unsigned i = 0; i < nfiles; i++) {
		const struct fat32_run *a = &file[i];
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


int fat32_open(struct fat32_vol *v, fat32_read_fn rd, void *ctx, uint32_t sector_size,
	       uint64_t total_sectors, uint8_t *scratch, char *err, size_t errlen)
{
	*v = (struct fat32_vol){ .rd = rd, .ctx = ctx, .cache = scratch, .ss = sector_size,
				 .err = err, .errlen = errlen };
	for (unsigned i = 0; i < FAT32_FAT_WINDOWS; i++)
		v->fat[i].buf = scratch + FAT32_CACHE_SECTORS * FAT32_SECTOR_MAX + i * FAT32_FAT_WINDOW_BYTES;
	if (!fat32_sector_size_ok(sector_size))
		return fmt_error(err, errlen, "sector size %u is neither 512 nor 4096", sector_size);
	if (find_partition(v, total_sectors) || read_bpb(v))
		return -1;
	return fat32_dir_chain(v, v->root, "/");
}

bool fat32_sector_size_ok(uint32_t sector_size)
{
	return sector_size == 512 || sector_size == FAT32_SECTOR_MAX;
}

uint32_t fat32_root(const struct fat32_vol *v)
{
	return v->root;
}
