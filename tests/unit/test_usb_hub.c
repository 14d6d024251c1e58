/* drivers/usb-hub.c against a fake hub: a USB 2.0 hub of a few ports that answers the hub
 * class requests (USB 2.0 11.24), with devices of each speed on some ports, and that can be
 * told to answer wrongly (a port whose reset never ends, a bad hub descriptor). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "drivers/usb-hub.h"

#define FAKE_PORTS 4

static struct {
	uint8_t nports, desc_type, config_set;
	bool powered[FAKE_PORTS + 1], reset_done[FAKE_PORTS + 1], reset_hangs;
	uint16_t device[FAKE_PORTS + 1];        /* 0 none, else wPortStatus speed bits | CONNECTION */
	unsigned resets, status_reads, delays_us, children, c_reset_cleared;
	unsigned child_port[FAKE_PORTS + 1];
	enum usb_speed child_speed[FAKE_PORTS + 1];
	unsigned hub_ports, hub_ttt;
	int hub_mtt;
} fh;

static struct usb_dev child;

static int fake_control(struct usb_dev *d, const struct usb_setup *s, void *data, uint16_t len, uint32_t *done,
			char *err, size_t errlen)
{
	(void)d;
	uint8_t *out = data;
	unsigned port = s->index;
	if (s->request_type == 0 && s->request == USB_REQ_SET_CONFIGURATION) {
		fh.config_set = (uint8_t)s->value;
		return 0;
	}
	if (s->request_type == 0xA0 && s->request == USB_REQ_GET_DESCRIPTOR && s->value == USB_DT_HUB << 8) {
		uint8_t desc[9] = { 9, fh.desc_type, fh.nports, 0x40, 0, 50, 0, 0, 0xFF };   /* TTT 2, 100 ms */
		uint16_t n = len < 9 ? len : 9;
		memcpy(out, desc, n);
		*done = n;
		return 0;
	}
	if (port < 1 || port > fh.nports) {
		snprintf(err, errlen, "stall");
		return USB_XFER_STALL;
	}
	if (s->request_type == 0x23 && s->request == USB_REQ_SET_FEATURE && s->value == USB_PORT_FEAT_POWER) {
		fh.powered[port] = true;
		return 0;
	}
	if (s->request_type == 0x23 && s->request == USB_REQ_SET_FEATURE && s->value == USB_PORT_FEAT_RESET) {
		fh.resets++;
		fh.reset_done[port] = !fh.reset_hangs;
		return 0;
	}
	if (s->request_type == 0x23 && s->request == USB_REQ_CLEAR_FEATURE) {
		if (s->value == USB_PORT_FEAT_C_RESET)
			fh.c_reset_cleared++;
		return 0;
	}
	if (s->request_type == 0xA3 && s->request == USB_REQ_GET_STATUS && len == 4) {
		uint16_t st = fh.powered[port] ? fh.device[port] : 0, ch = 0;
		if (fh.reset_done[port]) {
			st |= USB_PORT_STAT_ENABLE;
			ch |= USB_PORT_CHANGE_RESET;
		}
		fh.status_reads++;
		out[0] = (uint8_t)st; out[1] = (uint8_t)(st >> 8); out[2] = (uint8_t)ch; out[3] = (uint8_t)(ch >> 8);
		*done = 4;
		return 0;
	}
	snprintf(err, errlen, "unexpected request 0x%02x/0x%02x", s->request_type, s->request);
	return USB_XFER_STALL;
}

static void fake_delay(struct usb_dev *d, uint32_t us)
{
	(void)d;
	fh.delays_us += us;
}

static int fake_configure_hub(struct usb_dev *hub, unsigned nports, int mtt, unsigned ttt, char *err, size_t errlen)
{
	(void)hub; (void)err; (void)errlen;
	fh.hub_ports = nports;
	fh.hub_mtt = mtt;
	fh.hub_ttt = ttt;
	return 0;
}

static int fake_attach_child(struct usb_dev *hub, unsigned port, enum usb_speed speed, struct usb_dev **out,
			     char *err, size_t errlen)
{
	(void)hub; (void)err; (void)errlen;
	fh.child_port[fh.children] = port;
	fh.child_speed[fh.children++] = speed;
	*out = &child;
	return 0;
}

static struct usb_hc_ops ops = {
	.control = fake_control, .delay = fake_delay, .configure_hub = fake_configure_hub,
	.attach_child = fake_attach_child,
};
static struct usb_dev hub = { .ops = &ops, .speed = USB_SPEED_HIGH, .config_value = 1, .dev_protocol = 2,
			      .where = "fake, port 5" };
static struct usb_hub h;
static char err[USB_ERR_MAX];

static int setup(void **state)
{
	(void)state;
	memset(&fh, 0, sizeof(fh));
	fh.nports = FAKE_PORTS;
	fh.desc_type = USB_DT_HUB;
	fh.device[1] = USB_PORT_STAT_CONNECTION | USB_PORT_STAT_HIGH_SPEED;
	fh.device[3] = USB_PORT_STAT_CONNECTION | USB_PORT_STAT_LOW_SPEED;
	fh.device[4] = USB_PORT_STAT_CONNECTION;
	ops.attach_child = fake_attach_child;
	hub.speed = USB_SPEED_HIGH;
	return 0;
}

static void test_ports(void **state)
{
	struct usb_dev *ud;
	(void)state;

	assert_int_equal(usb_hub_open(&h, &hub, err, sizeof(err)), 0);
	assert_int_equal(fh.config_set, 1);
	assert_int_equal(h.nports, FAKE_PORTS);
	assert_int_equal(fh.hub_ports, FAKE_PORTS);
	assert_int_equal(fh.hub_mtt, 1);
	assert_int_equal(fh.hub_ttt, 2);
	for (unsigned p = 1; p <= FAKE_PORTS; p++)
		assert_true(fh.powered[p]);
	assert_true(fh.delays_us >= 100000u + 100000u);     /* power good, then the debounce */
	assert_int_equal(usb_hub_attach_port(&h, 1, &ud, err, sizeof(err)), 1);
	assert_ptr_equal(ud, &child);
	assert_int_equal(usb_hub_attach_port(&h, 2, &ud, err, sizeof(err)), 0);
	assert_int_equal(usb_hub_attach_port(&h, 3, &ud, err, sizeof(err)), 1);
	assert_int_equal(usb_hub_attach_port(&h, 4, &ud, err, sizeof(err)), 1);
	assert_int_equal(fh.children, 3);
	assert_int_equal(fh.child_port[0], 1);
	assert_int_equal(fh.child_speed[0], USB_SPEED_HIGH);
	assert_int_equal(fh.child_speed[1], USB_SPEED_LOW);
	assert_int_equal(fh.child_speed[2], USB_SPEED_FULL);
	assert_int_equal(fh.resets, 3);
	assert_int_equal(fh.c_reset_cleared, 3);
}

static void test_reset_hangs(void **state)
{
	struct usb_dev *ud;
	(void)state;

	assert_int_equal(usb_hub_open(&h, &hub, err, sizeof(err)), 0);
	fh.reset_hangs = true;
	unsigned before = fh.status_reads;
	assert_int_equal(usb_hub_attach_port(&h, 1, &ud, err, sizeof(err)), -1);
	assert_string_equal(err, "fake, port 5: hub port 1: the port reset does not finish (status 0x0401, "
			    "change 0x0000)");
	assert_int_equal(fh.status_reads - before, 1 + 50);
	assert_int_equal(fh.children, 0);
}

static void test_refusals(void **state)
{
	(void)state;

	fh.desc_type = 0x2A;
	assert_int_equal(usb_hub_open(&h, &hub, err, sizeof(err)), -1);
	assert_string_equal(err, "fake, port 5: a hub descriptor of 9 bytes, type 0x2a, 4 ports");
	fh.desc_type = USB_DT_HUB;
	fh.nports = 0;
	assert_int_equal(usb_hub_open(&h, &hub, err, sizeof(err)), -1);
	hub.speed = USB_SPEED_SUPER;
	assert_int_equal(usb_hub_open(&h, &hub, err, sizeof(err)), -1);
	assert_string_equal(err, "fake, port 5: a SuperSpeed hub; devices behind it are not searched");
	hub.speed = USB_SPEED_FULL;
	ops.attach_child = NULL;
	assert_int_equal(usb_hub_open(&h, &hub, err, sizeof(err)), -1);
	assert_string_equal(err, "fake, port 5: a hub; this controller's driver does not follow hubs");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_ports, setup),
		cmocka_unit_test_setup(test_reset_hangs, setup),
		cmocka_unit_test_setup(test_refusals, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
