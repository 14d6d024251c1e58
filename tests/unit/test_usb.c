/* drivers/usb.c: device and configuration descriptors as sticks give them (USB 2.0 9.6,
 * a SuperSpeed stick's endpoint companions), and truncated or contradictory ones. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "drivers/usb.h"

static const uint8_t stick_device[USB_DEVICE_DESC_BYTES] = {
	18, USB_DT_DEVICE, 0x00, 0x02, 0, 0, 0, 64, 0x81, 0x07, 0x51, 0x55, 0x00, 0x01, 1, 2, 3, 1,
};

/* A high-speed stick: configuration 1, interface 0 BOT with bulk IN 1 and bulk OUT 2. */
static const uint8_t stick_config[] = {
	9, USB_DT_CONFIG, 32, 0, 1, 1, 0, 0x80, 50,
	9, USB_DT_INTERFACE, 0, 0, 2, 0x08, 0x06, 0x50, 0,
	7, USB_DT_ENDPOINT, 0x81, 0x02, 0x00, 0x02, 0,
	7, USB_DT_ENDPOINT, 0x02, 0x02, 0x00, 0x02, 0,
};

/* A composite device: a HID interface with an interrupt endpoint first, then the storage
 * interface (number 1, configuration value 2) with SuperSpeed companions and a string
 * of unknown descriptors; then a second, UAS alternate setting. */
static const uint8_t composite_config[] = {
	9, USB_DT_CONFIG, 82, 0, 2, 2, 0, 0x80, 50,
	9, USB_DT_INTERFACE, 0, 0, 1, 0x03, 0x01, 0x02, 0,
	9, 0x21, 0x11, 0x01, 0, 1, 0x22, 0x34, 0,
	7, USB_DT_ENDPOINT, 0x83, 0x03, 0x08, 0x00, 10,
	9, USB_DT_INTERFACE, 1, 0, 2, 0x08, 0x06, 0x50, 0,
	7, USB_DT_ENDPOINT, 0x04, 0x02, 0x00, 0x04, 0,
	6, 0x30, 0, 0, 0, 0,
	7, USB_DT_ENDPOINT, 0x85, 0x02, 0x00, 0x04, 0,
	6, 0x30, 0, 0, 0, 0,
	9, USB_DT_INTERFACE, 1, 1, 0, 0x08, 0x06, 0x62, 0,
	4, 0x42, 0, 0,
};

static uint8_t buf[256];
static struct usb_dev dev;
static char err[USB_ERR_MAX];

static int parse(const uint8_t *desc, size_t len)
{
	memset(&dev, 0, sizeof(dev));
	memset(err, 0, sizeof(err));
	memcpy(buf, desc, len);
	return usb_parse_config(buf, (uint32_t)len, &dev, err, sizeof(err));
}

static void test_device_descriptor(void **state)
{
	struct usb_device_info info;
	(void)state;

	memcpy(buf, stick_device, sizeof(stick_device));
	assert_int_equal(usb_parse_device_desc(buf, USB_DEVICE_DESC_BYTES, &info, err, sizeof(err)), 0);
	assert_int_equal(info.vendor, 0x0781);
	assert_int_equal(info.product, 0x5551);
	assert_int_equal(info.max_packet0, 64);
	assert_int_equal(info.bcd_usb, 0x0200);
	assert_int_equal(usb_parse_device_desc(buf, 17, &info, err, sizeof(err)), -1);
	assert_string_equal(err, "a device descriptor of 17 bytes (18 expected)");
	buf[1] = USB_DT_CONFIG;
	assert_int_equal(usb_parse_device_desc(buf, USB_DEVICE_DESC_BYTES, &info, err, sizeof(err)), -1);
	assert_string_equal(err, "not a device descriptor (length 18, type 0x02)");
	buf[1] = USB_DT_DEVICE;
	buf[7] = 9;     /* 512 only from USB 3 on */
	assert_int_equal(usb_parse_device_desc(buf, USB_DEVICE_DESC_BYTES, &info, err, sizeof(err)), -1);
	assert_string_equal(err, "a device descriptor with bMaxPacketSize0 9");
	buf[3] = 0x03;
	assert_int_equal(usb_parse_device_desc(buf, USB_DEVICE_DESC_BYTES, &info, err, sizeof(err)), 0);
	buf[17] = 0;
	assert_int_equal(usb_parse_device_desc(buf, USB_DEVICE_DESC_BYTES, &info, err, sizeof(err)), -1);
	assert_string_equal(err, "a device without configurations");
}

static void test_stick(void **state)
{
	(void)state;
	assert_int_equal(parse(stick_config, sizeof(stick_config)), 0);
	assert_int_equal(dev.config_value, 1);
	assert_int_equal(dev.interface, 0);
	assert_int_equal(dev.ep_in, 1);
	assert_int_equal(dev.ep_out, 2);
	assert_int_equal(dev.ep_in_max_packet, 512);
	assert_int_equal(dev.ep_out_max_packet, 512);
}

static void test_composite(void **state)
{
	(void)state;
	assert_int_equal(parse(composite_config, sizeof(composite_config)), 0);
	assert_int_equal(dev.config_value, 2);
	assert_int_equal(dev.interface, 1);
	assert_int_equal(dev.ep_in, 5);
	assert_int_equal(dev.ep_out, 4);
	assert_int_equal(dev.ep_in_max_packet, 1024);
	assert_int_equal(dev.ep_out_max_packet, 1024);
}

static void test_not_storage(void **state)
{
	uint8_t c[sizeof(stick_config)];
	(void)state;

	memcpy(c, stick_config, sizeof(c));
	c[16] = 0x62;   /* UAS only */
	assert_int_equal(parse(c, sizeof(c)), 1);
	assert_string_equal(err, "no bulk-only mass-storage interface (class 08h, subclass 06h, protocol 50h)");
	memcpy(c, stick_config, sizeof(c));
	c[12] = 1;      /* alternate setting 1 is not the default */
	assert_int_equal(parse(c, sizeof(c)), 1);
}

static void test_truncated(void **state)
{
	(void)state;
	assert_int_equal(parse(stick_config, 31), -1);
	assert_string_equal(err, "a configuration of 32 bytes, of which only 31 were read");
	assert_int_equal(parse(stick_config, 8), -1);
	assert_string_equal(err, "a configuration descriptor of 8 bytes (9 at least)");

	uint8_t c[sizeof(stick_config)];
	memcpy(c, stick_config, sizeof(c));
	c[2] = 30;      /* wTotalLength cuts the last endpoint */
	assert_int_equal(parse(c, sizeof(c)), -1);
	assert_string_equal(err, "a descriptor at offset 25 runs past the configuration's 30 bytes (length 7)");
	c[2] = 26;      /* one byte of it */
	assert_int_equal(parse(c, sizeof(c)), -1);
	assert_string_equal(err, "a descriptor at offset 25 runs past the configuration's 26 bytes (length 0)");
	c[2] = 5;
	assert_int_equal(parse(c, sizeof(c)), -1);
	assert_string_equal(err, "a configuration whose wTotalLength 5 is shorter than its own descriptor");
}

static void test_garbage(void **state)
{
	uint8_t c[sizeof(stick_config)];
	(void)state;

	/* A zero length would loop for ever. */
	memcpy(c, stick_config, sizeof(c));
	c[18] = 0;
	assert_int_equal(parse(c, sizeof(c)), -1);
	assert_string_equal(err, "a descriptor at offset 18 runs past the configuration's 32 bytes (length 0)");
	memcpy(c, stick_config, sizeof(c));
	c[9] = 5;
	assert_int_equal(parse(c, sizeof(c)), -1);
	assert_string_equal(err, "an interface descriptor of 5 bytes at offset 9");
	memcpy(c, stick_config, sizeof(c));
	c[1] = USB_DT_DEVICE;
	assert_int_equal(parse(c, sizeof(c)), -1);
	assert_string_equal(err, "not a configuration descriptor (length 9, type 0x01)");
	memcpy(c, stick_config, sizeof(c));
	c[25] = 3;
	assert_int_equal(parse(c, sizeof(c)), -1);
	assert_string_equal(err, "an endpoint descriptor of 3 bytes at offset 25");
	memcpy(c, stick_config, sizeof(c));
	c[18] = 6;      /* an endpoint descriptor one byte short, the rest then misread */
	assert_int_equal(parse(c, sizeof(c)), -1);
}

static void test_wrong_endpoints(void **state)
{
	uint8_t c[sizeof(stick_config)];
	(void)state;

	memcpy(c, stick_config, sizeof(c));
	c[27] = 0x82;   /* two bulk IN */
	assert_int_equal(parse(c, sizeof(c)), -1);
	assert_string_equal(err, "mass-storage interface 0 has 2 bulk IN and 0 bulk OUT endpoints (1 and 1 expected)");
	memcpy(c, stick_config, sizeof(c));
	c[28] = 0x03;   /* interrupt, not bulk */
	assert_int_equal(parse(c, sizeof(c)), -1);
	assert_string_equal(err, "mass-storage interface 0 has 1 bulk IN and 0 bulk OUT endpoints (1 and 1 expected)");
	memcpy(c, stick_config, sizeof(c));
	c[22] = 0; c[23] = 0;
	assert_int_equal(parse(c, sizeof(c)), -1);
	assert_string_equal(err, "a bulk endpoint descriptor at offset 18 with address 0x81 and max packet 0");
	memcpy(c, stick_config, sizeof(c));
	c[20] = 0x80;
	assert_int_equal(parse(c, sizeof(c)), -1);
	assert_string_equal(err, "a bulk endpoint descriptor at offset 18 with address 0x80 and max packet 512");
}

/* usb_find_storage over a fake endpoint 0 that answers from the tables above. */
static const uint8_t hub_device[USB_DEVICE_DESC_BYTES] = {
	18, USB_DT_DEVICE, 0x00, 0x02, USB_CLASS_HUB, 0, 2, 64, 0x09, 0x04, 0xaa, 0x55, 0x00, 0x01, 0, 0, 0, 1,
};
static const uint8_t *fake_device = stick_device;
static const uint8_t *fake_config;
static uint16_t fake_config_len;
static unsigned fake_set_config = 0xFFFF, fake_configured;

static int fake_control(struct usb_dev *d, const struct usb_setup *s, void *data, uint16_t len, uint32_t *done,
			char *e, size_t elen)
{
	const uint8_t *src = NULL;
	uint16_t n = 0;
	(void)d;
	if (s->request == USB_REQ_SET_CONFIGURATION && s->request_type == 0) {
		fake_set_config = s->value;
		return 0;
	}
	assert_int_equal(s->request, USB_REQ_GET_DESCRIPTOR);
	assert_int_equal(s->request_type, USB_DIR_IN);
	assert_int_equal(s->length, len);
	if (s->value >> 8 == USB_DT_DEVICE) {
		src = fake_device;
		n = USB_DEVICE_DESC_BYTES;
	} else if (s->value >> 8 == USB_DT_CONFIG) {
		src = fake_config;
		n = fake_config_len;
	} else {
		snprintf(e, elen, "stall");
		return USB_XFER_STALL;
	}
	if (n > len)
		n = len;
	memcpy(data, src, n);
	if (done)
		*done = n;
	return 0;
}

static int fake_configure(struct usb_dev *d, char *e, size_t elen)
{
	(void)d; (void)e; (void)elen;
	fake_configured++;
	return 0;
}

static const struct usb_hc_ops fake_ops = { .control = fake_control, .configure_bulk = fake_configure };

static void test_find_storage(void **state)
{
	struct usb_dev d = { .ops = &fake_ops, .where = "fake, port 1" };
	(void)state;

	fake_config = composite_config;
	fake_config_len = sizeof(composite_config);
	assert_int_equal(usb_find_storage(&d, err, sizeof(err)), 0);
	assert_int_equal(fake_set_config, 2);
	assert_int_equal(fake_configured, 1);
	assert_int_equal(d.interface, 1);
	assert_int_equal(d.ep_in, 5);

	/* The device returns fewer bytes than its wTotalLength. */
	fake_config_len = 40;
	assert_int_equal(usb_find_storage(&d, err, sizeof(err)), -1);
	assert_string_equal(err, "fake, port 1 (0781:5551): a configuration of 82 bytes, of which only 40 were read");
	assert_int_equal(fake_configured, 1);

	uint8_t uas[sizeof(stick_config)];
	memcpy(uas, stick_config, sizeof(uas));
	uas[16] = 0x62;
	fake_config = uas;
	fake_config_len = sizeof(uas);
	assert_int_equal(usb_find_storage(&d, err, sizeof(err)), 1);
}

/* A hub: found as such, with its configuration value and protocol for usb_hub_open. */
static void test_find_hub(void **state)
{
	struct usb_dev d = { .ops = &fake_ops, .where = "fake, port 2" };
	static const uint8_t hub_config[] = {
		9, USB_DT_CONFIG, 25, 0, 1, 3, 0, 0xE0, 0,
		9, USB_DT_INTERFACE, 0, 0, 1, 0x09, 0, 0, 0,
		7, USB_DT_ENDPOINT, 0x81, 0x03, 0x01, 0x00, 12,
	};
	(void)state;

	fake_device = hub_device;
	fake_config = hub_config;
	fake_config_len = sizeof(hub_config);
	fake_configured = 0;
	assert_int_equal(usb_find_storage(&d, err, sizeof(err)), USB_FOUND_HUB);
	assert_string_equal(err, "fake, port 2: a hub (0409:55aa)");
	assert_int_equal(d.config_value, 3);
	assert_int_equal(d.dev_protocol, 2);
	assert_int_equal(fake_configured, 0);
	fake_device = stick_device;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_device_descriptor),
		cmocka_unit_test(test_stick),
		cmocka_unit_test(test_composite),
		cmocka_unit_test(test_not_storage),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_wrong_endpoints),
		cmocka_unit_test(test_find_storage),
		cmocka_unit_test(test_find_hub),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
