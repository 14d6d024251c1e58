/* drivers/usb-msc.c against a fake stick: a small in-memory device model behind a fake
 * host controller that speaks bulk-only transport and SCSI, and that can be told to
 * answer wrongly (a bad signature, a wrong tag, a stall, a short read, capacity 0, a
 * sector size of 1000, a unit that is not ready yet). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "drivers/usb-msc.h"
#include "lib/bytes.h"
#include "lib/format.h"

#define FAKE_SECTORS_MAX  (256 * 1024 / 512)

enum phase { WANT_CBW, DATA_IN, DATA_OUT, WANT_CSW };

static struct fake {
	/* the medium */
	uint8_t disk[FAKE_SECTORS_MAX * 512];
	uint32_t sector_size;
	uint64_t sectors;               /* as READ CAPACITY reports them */
	/* the transport's state */
	enum phase phase;
	uint32_t tag, expect, residue;
	uint8_t status, cb[BOT_CB_MAX];
	uint8_t resp[64];
	uint8_t *data;                  /* what DATA_IN sends, DATA_OUT fills */
	uint32_t data_len;
	bool halted_in, halted_out;
	uint8_t sense_key, asc;
	/* what to do wrong, each once unless said */
	bool bad_signature, wrong_tag, stall_data_in, stall_cbw, phase_error;
	uint32_t short_read;            /* bytes a READ(10) data stage leaves out */
	unsigned not_ready;             /* TEST UNIT READY fails so many times */
	bool rc16_needed;
	bool gone;                      /* pulled out: every transfer says so */
	const char *data_out_error;     /* the data stage of a write fails so (every time) */
	const char *control_error;      /* every control request fails so */
	/* what the host did */
	unsigned resets, clears_in, clears_out, reset_bulks, delays, commands[256], writes;
} fk;

static uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void fail_with(uint8_t key, uint8_t asc)
{
	fk.status = BOT_CSW_FAILED;
	fk.sense_key = key;
	fk.asc = asc;
}

/* Run the command in the CBW: sets the data stage and the status. */
static void execute(void)
{
	uint8_t op = fk.cb[0];
	fk.status = BOT_CSW_PASSED;
	fk.data = fk.resp;
	fk.data_len = 0;
	memset(fk.resp, 0, sizeof(fk.resp));
	fk.commands[op]++;
	switch (op) {
	case SCSI_INQUIRY:
		memcpy(fk.resp + 8, "Fake    Stick           ", 24);
		fk.data_len = SCSI_INQUIRY_BYTES;
		break;
	case SCSI_TEST_UNIT_READY:
		if (fk.not_ready) {
			fk.not_ready--;
			fail_with(SCSI_SENSE_NOT_READY, 0x04);
		}
		break;
	case SCSI_REQUEST_SENSE:
		fk.resp[0] = 0x70;
		fk.resp[2] = fk.sense_key;
		fk.resp[7] = 10;
		fk.resp[12] = fk.asc;
		fk.data_len = SCSI_SENSE_BYTES;
		break;
	case SCSI_READ_CAPACITY10:
		put_be(fk.resp, fk.rc16_needed ? 0xFFFFFFFFu : (uint32_t)(fk.sectors - 1), 4);
		put_be(fk.resp + 4, fk.sector_size, 4);
		fk.data_len = SCSI_RC10_BYTES;
		break;
	case SCSI_SERVICE_ACTION_IN16:
		put_be(fk.resp, fk.sectors - 1, 8);
		put_be(fk.resp + 8, fk.sector_size, 4);
		fk.data_len = SCSI_RC16_BYTES;
		break;
	case SCSI_READ10:
	case SCSI_WRITE10: {
		uint64_t lba = get_be(fk.cb + 2, 4), n = get_be(fk.cb + 7, 2);
		if (lba + n > fk.sectors || (lba + n) * fk.sector_size > sizeof(fk.disk)) {
			fail_with(0x05, 0x21);
			break;
		}
		fk.data = fk.disk + lba * fk.sector_size;
		fk.data_len = (uint32_t)(n * fk.sector_size);
		if (op == SCSI_WRITE10)
			fk.writes++;
		break;
	}
	default:
		fail_with(0x05, 0x20);
	}
	if (fk.data_len > fk.expect)
		fk.data_len = fk.expect;
}

static int fake_bulk(struct usb_dev *d, int in, void *buf, uint32_t len, uint32_t *done, char *err, size_t errlen)
{
	(void)d;
	*done = 0;
	if (fk.gone) {
		snprintf(err, errlen, "the device is gone");
		return USB_XFER_GONE;
	}
	if (in ? fk.halted_in : fk.halted_out) {
		snprintf(err, errlen, "stall");
		return USB_XFER_STALL;
	}
	if (!in && fk.phase == WANT_CBW) {
		assert_int_equal(len, BOT_CBW_BYTES);
		assert_int_equal(get_le32(buf), BOT_CBW_SIGNATURE);
		if (fk.stall_cbw) {
			fk.stall_cbw = false;
			fk.halted_out = fk.halted_in = true;
			snprintf(err, errlen, "stall");
			return USB_XFER_STALL;
		}
		const uint8_t *cbw = buf;
		fk.tag = get_le32(cbw + 4);
		fk.expect = get_le32(cbw + 8);
		memcpy(fk.cb, cbw + 15, BOT_CB_MAX);
		execute();
		fk.residue = fk.expect - fk.data_len;
		fk.phase = fk.expect ? ((cbw[12] & BOT_CBW_FLAG_IN) ? DATA_IN : DATA_OUT) : WANT_CSW;
		*done = len;
		return 0;
	}
	if (fk.phase == DATA_IN && in) {
		uint32_t n = fk.data_len < len ? fk.data_len : len;
		fk.phase = WANT_CSW;
		if (fk.stall_data_in) {
			fk.stall_data_in = false;
			fk.halted_in = true;
			fk.residue = fk.expect;
			fk.status = BOT_CSW_FAILED;
			snprintf(err, errlen, "stall");
			return USB_XFER_STALL;
		}
		if (fk.short_read && fk.cb[0] == SCSI_READ10) {
			n -= fk.short_read;
			fk.residue += fk.short_read;
			fk.short_read = 0;
		}
		memcpy(buf, fk.data, n);
		*done = n;
		return 0;
	}
	if (fk.phase == DATA_OUT && !in && fk.data_out_error) {
		fmt_text(err, errlen, "%s", fk.data_out_error);     /* as drivers/xhci.c words it */
		return -1;
	}
	if (fk.phase == DATA_OUT && !in) {
		uint32_t n = fk.data_len < len ? fk.data_len : len;
		memcpy(fk.data, buf, n);
		*done = n;
		fk.phase = WANT_CSW;
		return 0;
	}
	if (fk.phase == WANT_CSW && in) {
		uint8_t *csw = buf;
		assert_true(len >= BOT_CSW_BYTES);
		put_be(csw, 0x55534253, 4);     /* "USBS" as little-endian 0x53425355 */
		uint32_t tag = fk.wrong_tag ? fk.tag + 7 : fk.tag;
		for (int i = 0; i < 4; i++) {
			csw[4 + i] = (uint8_t)(tag >> (8 * i));
			csw[8 + i] = (uint8_t)(fk.residue >> (8 * i));
		}
		csw[12] = fk.phase_error ? BOT_CSW_PHASE_ERROR : fk.status;
		if (fk.bad_signature)
			csw[0] = 'X';
		fk.bad_signature = fk.wrong_tag = fk.phase_error = false;
		fk.phase = WANT_CBW;
		*done = BOT_CSW_BYTES;
		return 0;
	}
	snprintf(err, errlen, "the fake is in phase %d, asked %s", fk.phase, in ? "IN" : "OUT");
	return -1;
}

static int fake_control(struct usb_dev *d, const struct usb_setup *s, void *data, uint16_t len, uint32_t *done,
			char *err, size_t errlen)
{
	(void)data; (void)len; (void)done;
	if (fk.control_error) {
		fmt_text(err, errlen, "%s", fk.control_error);
		return -1;
	}
	if (fk.gone) {
		snprintf(err, errlen, "the device is gone");
		return USB_XFER_GONE;
	}
	if (s->request_type == (USB_TYPE_CLASS | USB_RECIP_INTERFACE) && s->request == BOT_REQ_RESET) {
		assert_int_equal(s->index, d->interface);
		fk.resets++;
		fk.phase = WANT_CBW;
		return 0;
	}
	if (s->request_type == USB_RECIP_ENDPOINT && s->request == USB_REQ_CLEAR_FEATURE &&
	    s->value == USB_FEATURE_ENDPOINT_HALT) {
		if (s->index == (d->ep_in | USB_DIR_IN)) {
			fk.halted_in = false;
			fk.clears_in++;
		} else {
			assert_int_equal(s->index, d->ep_out);
			fk.halted_out = false;
			fk.clears_out++;
		}
		return 0;
	}
	snprintf(err, errlen, "unexpected control request 0x%02x", s->request);
	return USB_XFER_STALL;
}

static int fake_reset_bulk(struct usb_dev *d, int in, char *err, size_t errlen)
{
	(void)d; (void)in; (void)err; (void)errlen;
	fk.reset_bulks++;
	return 0;
}

static void fake_delay(struct usb_dev *d, uint32_t us)
{
	(void)d;
	assert_int_equal(us, USB_MSC_TUR_DELAY_US);
	fk.delays++;
}

static const struct usb_hc_ops fake_ops = {
	.control = fake_control, .bulk = fake_bulk, .reset_bulk = fake_reset_bulk, .delay = fake_delay,
};

static struct usb_dev dev = { .ops = &fake_ops, .interface = 0, .ep_in = 1, .ep_out = 2, .where = "fake 00:04.0, port 3" };
static struct usb_msc msc;
static char err[USB_ERR_MAX];

static int setup(void **state)
{
	(void)state;
	memset(&fk, 0, sizeof(fk));
	fk.sector_size = 512;
	fk.sectors = FAKE_SECTORS_MAX;
	for (size_t i = 0; i < sizeof(fk.disk); i++)
		fk.disk[i] = (uint8_t)(i * 7 + i / 512);
	return 0;
}

static void test_open_read_write(void **state)
{
	static uint8_t buf[100 * 512], back[100 * 512];
	(void)state;

	assert_int_equal(usb_msc_open(&msc, &dev, err, sizeof(err)), 0);
	assert_string_equal(msc.bd.kind, "USB stick");
	assert_string_equal(msc.bd.where, "fake 00:04.0, port 3");
	assert_string_equal(msc.vendor, "Fake");
	assert_string_equal(msc.product, "Stick");
	assert_int_equal(msc.bd.sector_size, 512);
	assert_int_equal(msc.bd.sectors, FAKE_SECTORS_MAX);
	assert_int_equal(fk.commands[SCSI_SERVICE_ACTION_IN16], 0);

	/* 100 sectors: more than one READ(10) of USB_MSC_XFER_MAX bytes */
	assert_int_equal(blockdev_read(&msc.bd, 10, 100, buf), 0);
	assert_memory_equal(buf, fk.disk + 10 * 512, sizeof(buf));
	assert_int_equal(fk.commands[SCSI_READ10], 2);
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i ^ 0x5A);
	assert_int_equal(blockdev_write(&msc.bd, 300, 100, buf), 0);
	assert_int_equal(fk.writes, 2);
	assert_int_equal(blockdev_read(&msc.bd, 300, 100, back), 0);
	assert_memory_equal(back, buf, sizeof(buf));
	assert_int_equal(blockdev_read(&msc.bd, FAKE_SECTORS_MAX - 1, 2, back), -1);
	assert_string_equal(msc.bd.err, "a transfer past the end of the stick (fake 00:04.0, port 3)");
	assert_int_equal(fk.resets, 0);
}

static void test_capacity16_4k(void **state)
{
	(void)state;
	fk.rc16_needed = true;
	fk.sector_size = 4096;
	fk.sectors = 40;
	assert_int_equal(usb_msc_open(&msc, &dev, err, sizeof(err)), 0);
	assert_int_equal(fk.commands[SCSI_SERVICE_ACTION_IN16], 1);
	assert_int_equal(msc.bd.sector_size, 4096);
	assert_int_equal(msc.bd.sectors, 40);
}

static void test_nonsense_capacity(void **state)
{
	(void)state;
	fk.sector_size = 1000;
	assert_int_equal(usb_msc_open(&msc, &dev, err, sizeof(err)), -1);
	assert_string_equal(err, "fake 00:04.0, port 3: READ CAPACITY: a sector size of 1000 bytes (512 or 4096 expected)");
	fk.sector_size = 512;
	fk.sectors = 0;     /* last LBA 0xFFFFFFFF: READ CAPACITY(16) then says ~0 */
	assert_int_equal(usb_msc_open(&msc, &dev, err, sizeof(err)), -1);
	assert_string_equal(err, "fake 00:04.0, port 3: READ CAPACITY(16): last sector 0xffffffffffffffff, "
			    "a capacity past 2^64 sectors");
}

/* Tiny sticks: READ CAPACITY gives the last sector's number, so 1 and 2 sectors say 0 and 1
 * (the results area refuses them: test_results_area). */
static void test_tiny_capacity(void **state)
{
	(void)state;
	for (uint64_t n = 1; n <= 2; n++) {
		setup(NULL);
		fk.sectors = n;
		assert_int_equal(usb_msc_open(&msc, &dev, err, sizeof(err)), 0);
		assert_int_equal(msc.bd.sectors, n);
		assert_int_equal(msc.bd.sector_size, 512);
	}
}

static void test_not_ready_then_ready(void **state)
{
	(void)state;
	fk.not_ready = 3;
	assert_int_equal(usb_msc_open(&msc, &dev, err, sizeof(err)), 0);
	assert_int_equal(fk.commands[SCSI_TEST_UNIT_READY], 4);
	assert_int_equal(fk.commands[SCSI_REQUEST_SENSE], 3);
	assert_int_equal(fk.delays, 3);
	/* never ready: bounded */
	setup(NULL);
	fk.not_ready = 1000;
	assert_int_equal(usb_msc_open(&msc, &dev, err, sizeof(err)), -1);
	assert_int_equal(fk.commands[SCSI_TEST_UNIT_READY], USB_MSC_TUR_TRIES);
	assert_string_equal(err, "fake 00:04.0, port 3: the unit is not ready after 20 tries of TEST UNIT READY "
			    "(sense key 0x2, ASC/ASCQ 0x04/0x00)");
}

static void open_ok(void)
{
	assert_int_equal(usb_msc_open(&msc, &dev, err, sizeof(err)), 0);
}

static void test_bad_signature(void **state)
{
	uint8_t buf[512];
	(void)state;
	open_ok();
	fk.bad_signature = true;
	assert_int_equal(blockdev_read(&msc.bd, 5, 1, buf), -1);
	assert_string_equal(msc.bd.err, "READ(10): a CSW with the signature 0x53425358 (command 0x28) at sector 5 "
			    "(fake 00:04.0, port 3)");
	assert_int_equal(fk.resets, 1);
	assert_int_equal(fk.clears_in, 1);
	assert_int_equal(fk.clears_out, 1);
	assert_int_equal(fk.reset_bulks, 2);
	/* and the stick works after the reset recovery */
	assert_int_equal(blockdev_read(&msc.bd, 5, 1, buf), 0);
	assert_memory_equal(buf, fk.disk + 5 * 512, 512);
}

static void test_wrong_tag(void **state)
{
	uint8_t buf[512];
	(void)state;
	open_ok();
	fk.wrong_tag = true;
	assert_int_equal(blockdev_write(&msc.bd, 5, 1, buf), -1);
	assert_non_null(strstr(msc.bd.err, "WRITE(10): a CSW with the tag "));
	assert_int_equal(fk.resets, 1);
	fk.phase_error = true;
	assert_int_equal(blockdev_write(&msc.bd, 5, 1, buf), -1);
	assert_string_equal(msc.bd.err, "WRITE(10): a CSW with status 2 (phase error or invalid; command 0x2a) at "
			    "sector 5 (fake 00:04.0, port 3)");
	assert_int_equal(fk.resets, 2);
}

static void test_stall(void **state)
{
	uint8_t buf[512];
	(void)state;
	open_ok();
	fk.stall_data_in = true;
	fk.sense_key = 0x03;
	fk.asc = 0x11;
	assert_int_equal(blockdev_read(&msc.bd, 7, 1, buf), -1);
	/* the data stage's stall is cleared, the CSW read, the failure explained */
	assert_int_equal(fk.clears_in, 1);
	assert_int_equal(fk.reset_bulks, 1);
	assert_int_equal(fk.resets, 0);
	assert_string_equal(msc.bd.err, "READ(10) failed (sense key 0x3, ASC/ASCQ 0x11/0x00) at sector 7 "
			    "(fake 00:04.0, port 3)");
	assert_int_equal(blockdev_read(&msc.bd, 7, 1, buf), 0);
	/* a stalled CBW: reset recovery */
	fk.stall_cbw = true;
	assert_int_equal(blockdev_read(&msc.bd, 7, 1, buf), -1);
	assert_int_equal(fk.resets, 1);
	assert_false(fk.halted_in);
	assert_false(fk.halted_out);
	assert_int_equal(blockdev_read(&msc.bd, 7, 1, buf), 0);
}

static void test_short_read(void **state)
{
	uint8_t buf[2 * 512];
	(void)state;
	open_ok();
	fk.short_read = 100;
	assert_int_equal(blockdev_read(&msc.bd, 9, 2, buf), -1);
	assert_string_equal(msc.bd.err, "READ(10): a short transfer, 924 of 1024 bytes at sector 9 "
			    "(fake 00:04.0, port 3)");
}

/* A stick pulled out: the error says so at once, and no reset recovery is tried on it. */
static void test_gone(void **state)
{
	uint8_t buf[512];
	(void)state;
	open_ok();
	fk.gone = true;
	assert_int_equal(blockdev_write(&msc.bd, 3, 1, buf), -1);
	assert_string_equal(msc.bd.err, "WRITE(10): the device is gone at sector 3 (fake 00:04.0, port 3)");
	assert_int_equal(fk.resets, 0);
	assert_int_equal(fk.clears_in + fk.clears_out, 0);
}

/* A chain of reasons (a timeout, then the reset recovery's own) is kept whole where it fits,
 * and where it does not, cut at a word with "..." before the sector and the stick, which are
 * always named (issue 32: "... did not finish w; run 2 ... is torn"). */
static void test_long_reasons(void **state)
{
	static const char timeout[] = "timeout: a transfer on endpoint 0 did not finish within 5000000 polls "
				      "(5000 ms at 1 us a poll)";
	uint8_t buf[512];
	char want[BLOCKDEV_ERR_MAX];
	(void)state;
	open_ok();
	fk.data_out_error = "timeout: a transfer on endpoint 2 did not finish within 5000000 polls (5000 ms at 1 us "
			    "a poll)";
	fk.control_error = timeout;
	assert_int_equal(blockdev_write(&msc.bd, 8, 1, buf), -1);
	snprintf(want, sizeof(want), "WRITE(10): %s; the reset recovery failed too: %s at sector 8 "
		 "(fake 00:04.0, port 3)", fk.data_out_error, timeout);
	assert_string_equal(msc.bd.err, want);
	/* longer than any buffer: cut at a word, the sector and the stick still named */
	static char huge[600];
	for (size_t i = 0; i + 1 < sizeof(huge); i++)
		huge[i] = i % 8 == 7 ? ' ' : 'a' + (char)(i % 8);
	fk.data_out_error = huge;
	assert_int_equal(blockdev_write(&msc.bd, 8, 1, buf), -1);
	const char *tail = "... at sector 8 (fake 00:04.0, port 3)";
	size_t n = strlen(msc.bd.err);
	assert_true(n < BLOCKDEV_ERR_MAX && n > strlen(tail));
	assert_string_equal(msc.bd.err + n - strlen(tail), tail);
	assert_int_equal(msc.bd.err[n - strlen(tail) - 1], 'g');     /* "abcdefg", a whole word */
	assert_memory_equal(msc.bd.err, "WRITE(10): abcdefg abcdefg", 26);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_open_read_write, setup),
		cmocka_unit_test_setup(test_capacity16_4k, setup),
		cmocka_unit_test_setup(test_nonsense_capacity, setup),
		cmocka_unit_test_setup(test_tiny_capacity, setup),
		cmocka_unit_test_setup(test_long_reasons, setup),
		cmocka_unit_test_setup(test_not_ready_then_ready, setup),
		cmocka_unit_test_setup(test_bad_signature, setup),
		cmocka_unit_test_setup(test_wrong_tag, setup),
		cmocka_unit_test_setup(test_stall, setup),
		cmocka_unit_test_setup(test_short_read, setup),
		cmocka_unit_test_setup(test_gone, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
