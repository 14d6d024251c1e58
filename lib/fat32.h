/*
 * Reading a FAT32 volume: the first FAT partition of an MBR (UEFI 2.10, 5.2.1), its boot
 * sector, FAT and folders (Microsoft "FAT: General Overview of On-Disk Format" 1.03), as
 * far as the results area needs (lib/results-area.h): folders found by 8.3 name, files
 * that must be one contiguous run of clusters. Reads only, through a read-sector callback,
 * each sector once; every chain is bounded by the volume's cluster count. Pure: it runs in
 * the kernel and on the host.
 */
#ifndef LIB_FAT32_H
#define LIB_FAT32_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Read count sectors from lba into buf; false on any error. */
typedef bool (*fat32_read_fn)(void *ctx, uint64_t lba, uint32_t count, void *buf);

#define FAT32_SECTOR_MAX 4096
/* The scratch: sectors kept (the MBR, the folders, ...) and windows on the FAT, each read
 * at once. */
#define FAT32_CACHE_SECTORS 4
#define FAT32_FAT_WINDOWS 2
#define FAT32_FAT_WINDOW_BYTES 8192
#define FAT32_SCRATCH_BYTES (FAT32_CACHE_SECTORS * FAT32_SECTOR_MAX + \
			     FAT32_FAT_WINDOWS * FAT32_FAT_WINDOW_BYTES)
/* Runs of consecutive clusters kept for the folders gone through (one each on mkimage's
 * image); a folder in more pieces is refused. */
#define FAT32_DIR_RUNS 16
#define FAT32_NAME83_LEN 11
#define FAT32_FIRST_CLUSTER 2     /* clusters 0 and 1 are no data (section 3.5) */

/* Clusters first .. first + count - 1 of the file or folder path. */
struct fat32_run {
	uint32_t first, count;
	const char *path;
};

/* The volume, as the boot sector describes it, in device sectors, and what was read. */
struct fat32_vol {
	fat32_read_fn rd;
	void *ctx;
	uint8_t *cache;             /* FAT32_CACHE_SECTORS sectors */
	uint64_t cached[FAT32_CACHE_SECTORS];       /* the LBA in each */
	uint64_t used[FAT32_CACHE_SECTORS];         /* when last used (0: empty), for LRU */
	uint64_t clock;
	struct fat32_window {
		uint8_t *buf;           /* FAT32_FAT_WINDOW_BYTES: FAT sectors first.. */
		uint64_t first;
		uint32_t count;         /* sectors in buf, 0: none */
		uint64_t used;          /* when last used, for LRU */
	} fat[FAT32_FAT_WINDOWS];
	uint32_t ss;                /* bytes per sector */
	uint64_t part_lba;
	uint64_t part_sectors;
	uint32_t spc;               /* sectors per cluster */
	uint64_t fat_lba;
	uint32_t fat_sectors;
	uint64_t data_lba;
	uint32_t clusters;          /* data clusters: numbered 2 .. clusters + 1 */
	uint32_t root;
	struct fat32_run dir[FAT32_DIR_RUNS];     /* the folders' clusters gone through */
	unsigned ndir;
	char *err;
	size_t errlen;
};

/* Opens the volume on a medium of total_sectors sectors of sector_size bytes (512 or
 * 4096): the partition, the boot sector's fields each checked, the root folder's chain.
 * scratch holds FAT32_SCRATCH_BYTES bytes for as long as v is used. 0, or -1 with the
 * reason in err (every later call says its reason there too). */
int fat32_open(struct fat32_vol *v, fat32_read_fn rd, void *ctx, uint32_t sector_size,
	       uint64_t total_sectors, uint8_t *scratch, char *err, size_t errlen);
uint32_t fat32_root(const struct fat32_vol *v);
/* Whether fat32_open takes sectors of this size. */
bool fat32_sector_size_ok(uint32_t sector_size);

/* Sector lba, read or from the cache; NULL when it cannot be read (what names it). */
const uint8_t *fat32_read_sector(struct fat32_vol *v, uint64_t lba, const char *what);

/* The folder name83 (11 bytes, space-padded) in the folder at cluster parent: its first
 * cluster, its chain kept among the folders gone through. path names it in messages. */
int fat32_find_dir(struct fat32_vol *v, uint32_t parent, const char *name83, const char *path,
		   uint32_t *cluster);
/* Every cluster of the folder chain from cluster dir, kept (its entries are not read). */
int fat32_dir_chain(struct fat32_vol *v, uint32_t dir, const char *path);

/* The file name83 in the folder dir: present, a file, exactly size bytes, one contiguous
 * run of clusters the FAT chains to its end, starting at cluster first (0: anywhere). */
int fat32_contiguous_file(struct fat32_vol *v, uint32_t dir, const char *name83, const char *path,
			  uint32_t size, uint32_t first, struct fat32_run *run);
uint64_t fat32_cluster_lba(const struct fat32_vol *v, uint32_t c);

/* No two of the files share a cluster, nor a file and a folder gone through. */
int fat32_check_no_sharing(struct fat32_vol *v, const struct fat32_run *file, unsigned nfiles);

#endif
