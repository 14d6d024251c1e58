#include <stdbool.h>
#include "drivers/usb-msc.h"
#include "lib/bytes.h"
#include "lib/format.h"
#include "lib/str.h"

/* What bot_command says about a command: done, failed (the device's CHECK CONDITION:
 * REQUEST SENSE tells why), or the transport broke (the reason in err). */
enum bot_result { BOT_OK = 0, BOT_FAILED = 1, BOT_ERROR = -1 };

/* CLEAR_FEATURE(ENDPOINT_HALT) on a bulk endpoint, then the controller's side of it. */
static int clear_halt(struct usb_dev *d, int in, char *err, size_t errlen)
{
	struct usb_setup s = {
		.request_type = USB_DIR_OUT | USB_TYPE_STANDARD | USB_RECIP_ENDPOINT,
		.request = USB_REQ_CLEAR_FEATURE,
		.value = USB_FEATURE_ENDPOINT_HALT,
		.index = in ? (uint16_t)(d->ep_in | USB_DIR_IN) : d->ep_out,
	};
	if (d->ops->control(d, &s, NULL, 0, NULL, err, errlen))
		return -1;
	return d->ops->reset_bulk ? d->ops->reset_bulk(d, in, err, errlen) : 0;
}

/* Reset recovery (BOT 5.3.4): Bulk-Only Mass Storage Reset, then both endpoints cleared.
 * Its own failure is added to the reason already in err. Not for a device that is gone. */
static void reset_recovery(struct usb_dev *d, char *err, size_t errlen)
{
	struct usb_setup s = {
		.request_type = USB_DIR_OUT | USB_TYPE_CLASS | USB_RECIP_INTERFACE,
		.request = BOT_REQ_RESET,
		.index = d->interface,
	};
	char why[USB_ERR_MAX];

	if (d->ops->control(d, &s, NULL, 0, NULL, why, sizeof(why)) || clear_halt(d, 1, why, sizeof(why)) ||
	    clear_halt(d, 0, why, sizeof(why))) {
		fmt_append(err, errlen, "; the reset recovery failed too: %s", why);
	}
}

static int transport_error(struct usb_dev *d, char *err, size_t errlen, const char *fmt, uint32_t a, uint32_t b)
{
	fmt_text(err, errlen, fmt, a, b);
	reset_recovery(d, err, errlen);
	return BOT_ERROR;
}

/* The data stage: a stall ends it (the CSW follows); other errors end the command. */
static int data_stage(struct usb_dev *d, int in, void *data, uint32_t len, uint32_t *done, char *err,
		      size_t errlen)
{
	int r = d->ops->bulk(d, in, data, len, done, err, errlen);

	if (r == USB_XFER_STALL)
		return clear_halt(d, in, err, errlen) ? BOT_ERROR : BOT_OK;
	if (r && r != USB_XFER_GONE)
		reset_recovery(d, err, errlen);
	return r ? BOT_ERROR : BOT_OK;
}

/* The CSW, read again once after a stall (BOT 6.7.2/6.7.3); 0 or BOT_ERROR. */
static int read_csw(struct usb_dev *d, uint8_t *csw, uint32_t *n, char *err, size_t errlen)
{
	int r = d->ops->bulk(d, 1, csw, BOT_CSW_BYTES, n, err, errlen);

	if (r == USB_XFER_STALL) {
		if (clear_halt(d, 1, err, errlen))
			return BOT_ERROR;
		r = d->ops->bulk(d, 1, csw, BOT_CSW_BYTES, n, err, errlen);
	}
	if (r) {
		if (r == USB_XFER_STALL)
			bp_snprintf(err, errlen, "the device stalled the CSW twice");
		if (r != USB_XFER_GONE)
			reset_recovery(d, err, errlen);
		return BOT_ERROR;
	}
	return 0;
}

/* One command: CBW, data (len bytes, in or out), CSW, checked (BOT 6.3: valid and
 * meaningful). *done gets the bytes the device moved, as the data stage and the CSW's
 * residue agree. */
static int bot_command(struct usb_msc *m, const uint8_t *cb, uint8_t cb_len, int in, void *data, uint32_t len,
		       uint32_t *done, char *err, size_t errlen)
{
	struct usb_dev *d = m->dev;
	uint8_t cbw[BOT_CBW_BYTES] = { 0 }, csw[BOT_CSW_BYTES];
	uint32_t n = 0, moved = 0, tag = ++m->tag;

	put_le(cbw, BOT_CBW_SIGNATURE, 4);
	put_le(cbw + 4, tag, 4);
	put_le(cbw + 8, len, 4);
	cbw[12] = in && len ? BOT_CBW_FLAG_IN : 0;
	cbw[14] = cb_len;
	memcpy(cbw + 15, cb, cb_len);
	int r = d->ops->bulk(d, 0, cbw, BOT_CBW_BYTES, &n, err, errlen);
	if (r == USB_XFER_STALL)
		return transport_error(d, err, errlen, "the device stalled the CBW of command 0x%02x", cb[0], 0);
	if (r && r != USB_XFER_GONE)
		reset_recovery(d, err, errlen);
	if (r)
		return BOT_ERROR;
	if (len && data_stage(d, in, data, len, &moved, err, errlen))
		return BOT_ERROR;
	if (read_csw(d, csw, &n, err, errlen))
		return BOT_ERROR;
	if (n != BOT_CSW_BYTES)
		return transport_error(d, err, errlen, "a CSW of %u bytes (13 expected; command 0x%02x)", n, cb[0]);
	if ((uint32_t)get_le(csw, 4) != BOT_CSW_SIGNATURE)
		return transport_error(d, err, errlen, "a CSW with the signature 0x%08x (command 0x%02x)",
				       (uint32_t)get_le(csw, 4), cb[0]);
	uint32_t csw_tag = (uint32_t)get_le(csw + 4, 4);
	if (csw_tag != tag)
		return transport_error(d, err, errlen, "a CSW with the tag %u for the CBW's %u", csw_tag, tag);
	if (csw[12] == BOT_CSW_PHASE_ERROR || csw[12] > BOT_CSW_PHASE_ERROR)
		return transport_error(d, err, errlen, "a CSW with status %u (phase error or invalid; command 0x%02x)",
				       csw[12], cb[0]);
	uint32_t residue = (uint32_t)get_le(csw + 8, 4);
	if (residue > len)
		return transport_error(d, err, errlen, "a CSW with residue %u for %u bytes", residue, len);
	if (done)
		*done = moved < len - residue ? moved : len - residue;
	return csw[12] == BOT_CSW_FAILED ? BOT_FAILED : BOT_OK;
}

/* REQUEST SENSE after a failed command: "sense key K, ASC/ASCQ A/Q" in why, and the key. */
static int request_sense(struct usb_msc *m, uint8_t *key, char *why, size_t whylen)
{
	uint8_t cb[6] = { SCSI_REQUEST_SENSE, 0, 0, 0, SCSI_SENSE_BYTES, 0 }, sense[SCSI_SENSE_BYTES] = { 0 };
	uint32_t done = 0;

	int r = bot_command(m, cb, sizeof(cb), 1, sense, sizeof(sense), &done, why, whylen);
	if (r == BOT_ERROR)
		return -1;
	if (r == BOT_FAILED || done < 14)
		return bp_snprintf(why, whylen, "REQUEST SENSE failed too"), -1;
	*key = sense[2] & SCSI_SENSE_KEY_MASK;
	bp_snprintf(why, whylen, "sense key 0x%x, ASC/ASCQ 0x%02x/0x%02x", *key, sense[12], sense[13]);
	return 0;
}

/* A command whose data must move in full: 0, or -1 with "what: why" in err. */
static int scsi_command(struct usb_msc *m, const uint8_t *cb, uint8_t cb_len, int in, void *data, uint32_t len,
			uint32_t need, const char *what, char *err, size_t errlen)
{
	char why[USB_ERR_MAX];
	uint32_t done = 0;
	uint8_t key;

	int r = bot_command(m, cb, cb_len, in, data, len, &done, why, sizeof(why));
	if (r == BOT_FAILED) {
		request_sense(m, &key, why, sizeof(why));
		return fmt_error(err, errlen, "%s failed (%s)", what, why);
	}
	if (r)
		return fmt_error(err, errlen, "%s: %s", what, why);
	if (done < need)
		return fmt_error(err, errlen, "%s: a short transfer, %u of %u bytes", what, done, need);
	return 0;
}

static int inquiry(struct usb_msc *m, char *err, size_t errlen)
{
	uint8_t cb[6] = { SCSI_INQUIRY, 0, 0, 0, SCSI_INQUIRY_BYTES, 0 }, inq[SCSI_INQUIRY_BYTES] = { 0 };

	if (scsi_command(m, cb, sizeof(cb), 1, inq, sizeof(inq), SCSI_INQUIRY_BYTES, "INQUIRY", err, errlen))
		return -1;
	for (unsigned i = 0; i < 8; i++)
		m->vendor[i] = inq[8 + i] >= 0x20 && inq[8 + i] < 0x7F ? (char)inq[8 + i] : '?';
	for (unsigned i = 0; i < 16; i++)
		m->product[i] = inq[16 + i] >= 0x20 && inq[16 + i] < 0x7F ? (char)inq[16 + i] : '?';
	for (int i = 7; i >= 0 && m->vendor[i] == ' '; i--)
		m->vendor[i] = 0;
	for (int i = 15; i >= 0 && m->product[i] == ' '; i--)
		m->product[i] = 0;
	if ((inq[0] & SCSI_TYPE_MASK) != SCSI_TYPE_DISK)
		return fmt_error(err, errlen, "INQUIRY: peripheral device type 0x%02x, not a direct-access disk",
				 inq[0] & SCSI_TYPE_MASK);
	return 0;
}

/* TEST UNIT READY until the unit is ready: NOT READY and UNIT ATTENTION are retried,
 * USB_MSC_TUR_TRIES times at most. */
static int wait_unit_ready(struct usb_msc *m, char *err, size_t errlen)
{
	uint8_t cb[6] = { SCSI_TEST_UNIT_READY };
	char why[USB_ERR_MAX] = "";
	uint8_t key = 0;

	for (unsigned t = 0; t < USB_MSC_TUR_TRIES; t++) {
		int r = bot_command(m, cb, sizeof(cb), 0, NULL, 0, NULL, why, sizeof(why));
		if (r == BOT_OK)
			return 0;
		if (r == BOT_ERROR)
			return fmt_error(err, errlen, "TEST UNIT READY: %s", why);
		if (request_sense(m, &key, why, sizeof(why)))
			return fmt_error(err, errlen, "TEST UNIT READY failed (%s)", why);
		if (key != SCSI_SENSE_NOT_READY && key != SCSI_SENSE_UNIT_ATTENTION)
			break;
		if (m->dev->ops->delay)
			m->dev->ops->delay(m->dev, USB_MSC_TUR_DELAY_US);
	}
	if (key == SCSI_SENSE_NOT_READY || key == SCSI_SENSE_UNIT_ATTENTION)
		return fmt_error(err, errlen, "the unit is not ready after %u tries of TEST UNIT READY (%s)",
				 USB_MSC_TUR_TRIES, why);
	return fmt_error(err, errlen, "TEST UNIT READY failed (%s)", why);
}

/* READ CAPACITY(10), and (16) when (10) gives no 32-bit answer: the sector count and size. */
static int read_capacity(struct usb_msc *m, char *err, size_t errlen)
{
	uint8_t cb10[10] = { SCSI_READ_CAPACITY10 }, cb16[16] = { SCSI_SERVICE_ACTION_IN16, SCSI_SA_READ_CAPACITY16 };
	uint8_t cap[SCSI_RC16_BYTES] = { 0 };
	uint64_t last;
	uint32_t size;

	if (scsi_command(m, cb10, sizeof(cb10), 1, cap, SCSI_RC10_BYTES, SCSI_RC10_BYTES, "READ CAPACITY(10)", err,
			 errlen))
		return -1;
	last = get_be(cap, 4);
	size = (uint32_t)get_be(cap + 4, 4);
	if (last == SCSI_RC10_LBA_MAX) {
		put_be(cb16 + 10, SCSI_RC16_BYTES, 4);
		if (scsi_command(m, cb16, sizeof(cb16), 1, cap, SCSI_RC16_BYTES, 12, "READ CAPACITY(16)", err, errlen))
			return -1;
		last = get_be(cap, 8);
		size = (uint32_t)get_be(cap + 8, 4);
	}
	/* last is the last sector's number: a 1-sector stick says 0. ~0 would be 2^64 sectors. */
	if (last == ~0ull)
		return fmt_error(err, errlen, "READ CAPACITY(16): last sector 0x%llx, a capacity past 2^64 sectors",
				 (unsigned long long)last);
	if (size != 512 && size != 4096)
		return fmt_error(err, errlen, "READ CAPACITY: a sector size of %u bytes (512 or 4096 expected)", size);
	m->bd.sectors = last + 1;
	m->bd.sector_size = size;
	return 0;
}

/* "why" and then suffix in m->bd.err: why cut at a word where both do not fit, so that the
 * sector and the stick are always named. */
static int msc_fail_at(struct usb_msc *m, const char *why, const char *suffix)
{
	size_t room = sizeof(m->bd.err) - strlen(suffix);

	fmt_text(m->bd.err, room, "%s", why);
	fmt_append(m->bd.err, sizeof(m->bd.err), "%s", suffix);
	return -1;
}

static int msc_fail(struct usb_msc *m, const char *why)
{
	char suffix[BLOCKDEV_WHERE_MAX + 4];

	bp_snprintf(suffix, sizeof(suffix), " (%s)", m->bd.where);
	return msc_fail_at(m, why, suffix);
}

/* READ(10)/WRITE(10), USB_MSC_XFER_MAX bytes a command. */
static int msc_rw(struct blockdev *bd, uint64_t lba, uint32_t count, void *buf, bool write)
{
	struct usb_msc *m = bd->priv;
	uint32_t per = USB_MSC_XFER_MAX / bd->sector_size;
	char why[BLOCKDEV_ERR_MAX];

	if (lba > bd->sectors || count > bd->sectors - lba)
		return msc_fail(m, "a transfer past the end of the stick");
	if (lba + count > (1ull << 32))
		return msc_fail(m, "a transfer past sector 2^32, which READ(10)/WRITE(10) cannot address");
	while (count) {
		uint32_t n = count < per ? count : per, bytes = n * bd->sector_size;
		uint8_t cb[10] = { write ? SCSI_WRITE10 : SCSI_READ10 };
		put_be(cb + 2, lba, 4);
		put_be(cb + 7, n, 2);
		if (scsi_command(m, cb, sizeof(cb), !write, buf, bytes, bytes, write ? "WRITE(10)" : "READ(10)", why,
				 sizeof(why))) {
			char suffix[BLOCKDEV_WHERE_MAX + 40];
			bp_snprintf(suffix, sizeof(suffix), " at sector %llu (%s)", (unsigned long long)lba, bd->where);
			return msc_fail_at(m, why, suffix);
		}
		buf = (uint8_t *)buf + bytes;
		lba += n;
		count -= n;
	}
	return 0;
}

static int msc_read(struct blockdev *bd, uint64_t lba, uint32_t count, void *buf)
{
	return msc_rw(bd, lba, count, buf, false);
}

static int msc_write(struct blockdev *bd, uint64_t lba, uint32_t count, const void *buf)
{
	return msc_rw(bd, lba, count, (void *)buf, true);
}

static const struct blockdev_ops msc_ops = { .read = msc_read, .write = msc_write };

int usb_msc_open(struct usb_msc *m, struct usb_dev *d, char *err, size_t errlen)
{
	char why[USB_ERR_MAX];

	memset(m, 0, sizeof(*m));
	m->dev = d;
	m->bd.ops = &msc_ops;
	m->bd.kind = "USB stick";
	m->bd.priv = m;
	str_copy(m->bd.where, d->where, sizeof(m->bd.where));
	if (inquiry(m, why, sizeof(why)) || wait_unit_ready(m, why, sizeof(why)) || read_capacity(m, why, sizeof(why)))
		return fmt_error(err, errlen, "%s: %s", d->where, why);
	return 0;
}
