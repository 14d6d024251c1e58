/*
 * Saving the run on the stick it booted from (docs/results-area.md): the one disk whose
 * results area carries this image's identity (kernel/storage-probe.c finds the disks),
 * the slot chosen, the log written between payloads and at the end, and the saved: or not
 * saved: line.
 */
#include "kernel/storage.h"
#include "drivers/pit.h"
#include "drivers/poll.h"
#include "drivers/qemu-fwcfg.h"
#include "drivers/rtc.h"
#include "kernel/checkpoint.h"
#include "kernel/console.h"
#include "kernel/kernel.h"
#include "kernel/platform.h"
#include "kernel/screen-ui.h"
#include "kernel/storage-probe.h"
#include "lib/format.h"
#include "lib/results-area.h"
#include "lib/str.h"

/* Room for the reasons a save gives: a disk's error (BLOCKDEV_ERR_MAX), the first area
 * problem met (the disk, the check and its error), what was searched. */
#define SAVE_PROBLEM_MAX   (BLOCKDEV_WHERE_MAX + RESULTS_ERR_MAX + BLOCKDEV_ERR_MAX + 8)
#define SAVE_WHY_MAX       (SAVE_PROBLEM_MAX + 320)

static struct results_identity this_image;     /* from the loader: IDENTITY of the boot medium */
static bool this_image_known;
/* QEMU's fw_cfg file that scripts/qemu-run adds when it opens the image snapshot=on: what
 * the run writes there is dropped when QEMU exits, and the last line must not say saved.
 * Read only where fw_cfg shows QEMU; a real machine's disk keeps what is written. */
#define FWCFG_SNAPSHOT_NAME "opt/bareperf/snapshot"
static bool disk_is_snapshot;

static void print_id(const uint8_t id[RESULTS_ID_BYTES])
{
	for (unsigned k = 0; k < RESULTS_ID_BYTES; k++)
		kprintf("%02x", id[k]);
}

/* QEMU's fw_cfg file with IDENTITY's bytes, for a boot without a loader: scripts/qemu-run
 * --direct --writable-image passes it (docs/results-area.md). */
#define FWCFG_IDENTITY_NAME "opt/bareperf/identity"

/* IDENTITY's bytes: the loader's, else QEMU's fw_cfg file (from names which, for the
 * report); NULL when neither has them, with the reason in why. */
static const char *identity_bytes(size_t *len, const char **from, char *why, size_t whylen)
{
	static char fwcfg[BI_IDENTITY_MAX + 1];

	*from = "";
	if (kernel.bi->identity_len) {
		*len = kernel.bi->identity_len;
		return kernel.bi->identity;
	}
	long n = platform_is_qemu() ? fwcfg_read_file(FWCFG_IDENTITY_NAME, fwcfg, sizeof(fwcfg)) : -1;
	if (n > BI_IDENTITY_MAX) {
		bp_snprintf(why, whylen, "fw_cfg " FWCFG_IDENTITY_NAME " is %ld bytes, more than %u", n,
			    BI_IDENTITY_MAX);
		return NULL;
	}
	if (n <= 0) {
		bp_snprintf(why, whylen, "the loader found no /bareperf/results/IDENTITY");
		return NULL;
	}
	*from = " (from fw_cfg " FWCFG_IDENTITY_NAME ")";
	*len = (size_t)n;
	return fwcfg;
}

/* The running image's identity, as the loader read /bareperf/results/IDENTITY (or QEMU's
 * fw_cfg carries it). */
static void learn_image_identity(void)
{
	char err[RESULTS_ERR_MAX];
	const char *from;
	size_t len;

	const char *bytes = identity_bytes(&len, &from, err, sizeof(err));
	if (!bytes) {
		kprintf("boot.image=unknown (%s: runs are not saved)\n", err);
		return;
	}
	if (results_identity_parse(bytes, len, &this_image, err, sizeof(err))) {
		kprintf("boot.image=unknown (%s%s: runs are not saved)\n", err, from);
		return;
	}
	this_image_known = true;
	kprintf("boot.image=");
	print_id(this_image.id);
	kprintf("%s\n", from);
}

static bool disk_read(void *ctx, uint64_t lba, uint32_t count, void *buf)
{
	return blockdev_read(ctx, lba, count, buf) == 0;
}

static uint8_t header_buf[RESULTS_HEADER_BYTES];
static uint8_t scratch[RESULTS_SCRATCH_BYTES];    /* results_area_find's sectors */


/* What the disks said as they were examined at boot: how many carry this image's
 * identity, and the first one's problem (a not saved: line names it). */
static unsigned identity_disks;
static char first_problem[SAVE_PROBLEM_MAX];

/* storage_probe's examine: the disk, and what the results area on it says. True where it
 * carries this image's identity. */
static bool examine_disk(struct blockdev *bd)
{
	static struct results_area area;
	char err[RESULTS_ERR_MAX];

	kprintf("storage.disk=%s (%s): %llu sector%s of %u bytes\n", bd->kind, bd->where,
		(unsigned long long)bd->sectors, bd->sectors == 1 ? "" : "s", bd->sector_size);
	bd->err[0] = 0;
	if (results_area_find(disk_read, bd, bd->sector_size, bd->sectors, scratch, &area, err, sizeof(err))) {
		kprintf("storage.results=none on %s (%s%s%s)\n", bd->where, err, bd->err[0] ? ": " : "", bd->err);
		/* a device error (a stick pulled out) says more than the sector it hit */
		if (!first_problem[0])
			fmt_text(first_problem, sizeof(first_problem), "; %s: %s%s%s", bd->where, err,
				 bd->err[0] ? ": " : "", bd->err);
		return false;
	}
	bool ours = this_image_known && memcmp(area.id, this_image.id, RESULTS_ID_BYTES) == 0;
	kprintf("storage.results=");
	print_id(area.id);
	kprintf(" on %s: %u slots from sector %llu (%s)\n", bd->where, RESULTS_SLOTS,
		(unsigned long long)area.slot[0].lba, ours ? "this image" : "another image");
	identity_disks += ours;
	return ours;
}

/* The one disk whose results area carries this image's identity, of all the disks examined
 * at boot, its area read again now; NULL with the reason in why. */
static struct blockdev *own_disk(struct results_area *area, char *why, size_t whylen)
{
	char err[RESULTS_ERR_MAX];
	struct blockdev *const *disks;

	if (identity_disks > 1) {
		bp_snprintf(why, whylen, "%u disks carry this image's identity; bareperf writes on none of them",
			    identity_disks);
		return NULL;
	}
	const char *first;
	unsigned unsearched = storage_unsearched(&first);
	if (unsearched) {
		bp_snprintf(why, whylen, "%u place%s that may hold a disk %s not searched, and a disk there could carry "
			    "this image's identity as well (%s)", unsearched, unsearched == 1 ? "" : "s",
			    unsearched == 1 ? "was" : "were", first);
		return NULL;
	}
	if (identity_disks == 0 || storage_disks(&disks) != 1) {
		fmt_text(why, whylen, "no disk carries this image's identity (%s%s)", storage_searched_text(),
			 first_problem);
		return NULL;
	}
	struct blockdev *bd = disks[0];
	bd->err[0] = 0;
	if (results_area_find(disk_read, bd, bd->sector_size, bd->sectors, scratch, area, err, sizeof(err))) {
		fmt_text(why, whylen, "no disk carries this image's identity now (%s: %s%s%s)", bd->where, err,
			 bd->err[0] ? ": " : "", bd->err);
		return NULL;
	}
	if (memcmp(area->id, this_image.id, RESULTS_ID_BYTES) != 0) {
		bp_snprintf(why, whylen, "no disk carries this image's identity now (%s carries another)", bd->where);
		return NULL;
	}
	return bd;
}

static void header_for(struct results_header *h, uint32_t run)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->id, this_image.id, RESULTS_ID_BYTES);
	h->run = run;
	h->state = RESULTS_WRITING;
	rtc_read_text(h->rtc, sizeof(h->rtc));
	if (kernel.cpu.brand[0])
		str_copy(h->cpu, kernel.cpu.brand, sizeof(h->cpu));
	else
		bp_snprintf(h->cpu, sizeof(h->cpu), "%s family %u model %u stepping %u", kernel.cpu.vendor_id,
			    kernel.cpu.family, kernel.cpu.model, kernel.cpu.stepping);
}

/* Read every slot's header and pick the slot (the oldest run goes when all are used). 0, or
 * -1 with the reason in why. */
static int choose_slot(struct blockdev *bd, const struct results_area *area, struct results_choice *c,
		       char *why, size_t whylen)
{
	static struct results_header hdr[RESULTS_SLOTS];
	char err[RESULTS_ERR_MAX];

	for (unsigned i = 0; i < RESULTS_SLOTS; i++) {
		if (blockdev_read(bd, area->slot[i].lba, RESULTS_HEADER_BYTES / bd->sector_size, header_buf))
			return bp_snprintf(why, whylen, "%s", bd->err), -1;
		results_header_parse(header_buf, &hdr[i], err, sizeof(err));
	}
	if (results_pick_slot(hdr, c))
		return bp_snprintf(why, whylen, "run %u in /bareperf/results/run%02u.log has the highest number a "
				   "header holds; empty the slots to number runs from 1 again (docs/results-area.md)",
				   RESULTS_RUN_MAX, c->slot + 1), -1;
	return 0;
}

/* One run's save: begun once (slot chosen, header written with state writing), the log
 * appended between payloads and at the end, the header rewritten after each append with
 * the length and CRC so far, and state complete at the end. A run that dies between
 * payloads leaves what it measured, recognisably torn. */
static struct {
	bool begun, failed;
	struct blockdev *bd;
	struct results_extent slot;
	struct results_choice choice;
	struct results_header h;    /* the header on the disk, as last written */
} save;

/* Write header h; save.h becomes h only once the write succeeded, so save.h (and the
 * torn line's byte count) is always what the disk's header says. */
static int write_header(const struct results_header *h)
{
	results_header_format(header_buf, h);
	if (blockdev_write(save.bd, save.slot.lba, RESULTS_HEADER_BYTES / save.bd->sector_size, header_buf))
		return -1;
	save.h = *h;
	return 0;
}

/* Why the boot medium keeps no runs (a network boot has none of its own, a CD is
 * read-only), or NULL for a disk. Runs are then saved nowhere else. */
static const char *medium_keeps_no_runs(void)
{
	switch (kernel.bi->medium) {
	case BI_MEDIUM_NETWORK: return "booted from the network";
	case BI_MEDIUM_CD:      return "booted from a CD, which cannot be written";
	default:                return NULL;
	}
}

/* Find the disk, choose the slot, write the header (writing, no log yet). 0, or -1 with
 * the reason in why and nothing written. */
static int save_begin(char *why, size_t whylen)
{
	static struct results_area area;

	const char *medium = medium_keeps_no_runs();

	if (medium)
		return bp_snprintf(why, whylen, "%s", medium), -1;
	if (!kernel.cfg.save_auto)
		return bp_snprintf(why, whylen, "save=off"), -1;
	if (!this_image_known)
		return bp_snprintf(why, whylen, "this image's identity is unknown (see boot.image)"), -1;
	if (!(save.bd = own_disk(&area, why, whylen)))
		return -1;
	if (choose_slot(save.bd, &area, &save.choice, why, whylen))
		return -1;
	save.slot = area.slot[save.choice.slot];
	struct results_header h;
	header_for(&h, save.choice.run);
	if (write_header(&h))
		return bp_snprintf(why, whylen, "%s; nothing was written", save.bd->err), -1;
	save.begun = true;
	return 0;
}

/* Write the log from the sector holding save.h.length to len, then the header. The
 * console's copy is RESULTS_LOG_BYTES long and zero past len: whole sectors. The bytes count
 * as saved once the header that records them is on the disk. */
static int save_append(const char *log, uint32_t len, enum results_state state)
{
	uint32_t ss = save.bd->sector_size, hdr_sectors = RESULTS_HEADER_BYTES / ss;
	uint32_t first = save.h.length / ss, last = (len + ss - 1) / ss;
	struct results_header h = save.h;

	if (last > first && blockdev_write(save.bd, save.slot.lba + hdr_sectors + first, last - first,
					   log + (size_t)first * ss))
		return -1;
	h.crc32 = results_crc32(h.crc32, log + h.length, len - h.length);
	h.length = len;
	h.state = state;
	return write_header(&h);
}

/* How the save ended (the saved: or not saved: line), for serial at once and for the
 * screen at the end. */
static char outcome[SAVE_WHY_MAX + 120];

static void report_torn(void)
{
	fmt_text(outcome, sizeof(outcome), "not saved: %s; run %u in /bareperf/results/run%02u.log is torn "
		 "(%u bytes saved)", save.bd->err, save.choice.run, save.choice.slot + 1, save.h.length);
	kprintf("%s\n", outcome);
}

static void save_progress(void)
{
	uint32_t len, dropped;
	char why[SAVE_WHY_MAX];

	if (save.failed || !kernel.cfg.save_auto)
		return;
	if (!save.begun && save_begin(why, sizeof(why))) {
		save.failed = true;     /* said once, at the end */
		return;
	}
	const char *log = console_log(&len, &dropped);
	if (save_append(log, len, RESULTS_WRITING)) {
		save.failed = true;
		report_torn();
	}
}

static void save_end(void)
{
	uint32_t len, dropped;
	char why[SAVE_WHY_MAX];

	if (save.failed && save.begun)
		return;                 /* the torn run was reported when the write failed */
	if (!save.begun && save_begin(why, sizeof(why))) {
		fmt_text(outcome, sizeof(outcome), "not saved: %s", why);
		kprintf("%s\n", outcome);
		return;
	}
	const char *log = console_log(&len, &dropped);
	if (save_append(log, len, RESULTS_COMPLETE)) {
		report_torn();
		return;
	}
	size_t n;
	if (disk_is_snapshot)
		/* the reason first: the screen's bottom row shows 80 to 100 columns of it */
		n = bp_snprintf(outcome, sizeof(outcome), "not saved: the disk is a QEMU snapshot (scripts/qemu-run "
				"--writable-image keeps runs); run %u went to /bareperf/results/run%02u.log on the %s (%s)",
				save.choice.run, save.choice.slot + 1, save.bd->kind, save.bd->where);
	else
		n = bp_snprintf(outcome, sizeof(outcome), "saved: run %u in /bareperf/results/run%02u.log on the %s (%s)",
				save.choice.run, save.choice.slot + 1, save.bd->kind, save.bd->where);
	if (save.choice.replaced_run && n < sizeof(outcome))
		n += bp_snprintf(outcome + n, sizeof(outcome) - n, ", replacing run %u, the oldest",
				 save.choice.replaced_run);
	if (dropped && n < sizeof(outcome))
		bp_snprintf(outcome + n, sizeof(outcome) - n, "; the last %u bytes did not fit", dropped);
	kprintf("%s\n", outcome);
}

void storage_describe(char *buf, size_t len)
{
	char id[2 * RESULTS_ID_BYTES + 1];

	if (!this_image_known) {
		bp_snprintf(buf, len, "image unknown");
		return;
	}
	for (unsigned k = 0; k < RESULTS_ID_BYTES; k++)
		bp_snprintf(id + 2 * k, 3, "%02x", this_image.id[k]);
	if (save.begun)
		bp_snprintf(buf, len, "image %s, run %u", id, save.choice.run);
	else
		bp_snprintf(buf, len, "image %s, run not saved", id);
}


void storage_save(void)
{
	save_end();
	screen_saved(outcome);
	storage_usb_idle();
}

/* The drivers' timeouts on the TSC where it has a known rate (drivers/poll.h): CPUID's,
 * else measured against the PIT. Without a TSC they count polls. */
static void start_poll_clock(void)
{
	uint64_t hz = kernel.cpu.tsc_hz;

	if (!hz && kernel.cpu.tsc)
		hz = pit_tsc_hz();
	poll_clock_set(hz);
}

/* At a mode's checkpoint: the log so far into the run's slot (storage_detect). */
static void save_progress_at_checkpoint(void)
{
	save_progress();
	storage_usb_idle();
}

void storage_detect(void)
{
	const char *medium = medium_keeps_no_runs();

	if (medium) {
		/* No disk is searched: none of them is this run's medium. */
		kprintf("boot.image=none (%s: runs are not saved)\n", medium);
		return;
	}
	start_poll_clock();
	char flag[4];
	disk_is_snapshot = platform_is_qemu() && fwcfg_read_file(FWCFG_SNAPSHOT_NAME, flag, sizeof(flag)) > 0;
	learn_image_identity();
	storage_probe(examine_disk);
	storage_usb_idle();
	checkpoint_subscribe(save_progress_at_checkpoint);
}
