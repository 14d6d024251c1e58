/*
 * libFuzzer target: usb_parse_device_desc and usb_parse_config (drivers/usb.c), what the
 * kernel runs on the descriptors a USB device sends before it picks a storage interface.
 * The input is the bytes the device answered: the first 18 are also read as a device
 * descriptor, the whole as a configuration. Checks: a refusal comes with a message; an
 * accepted configuration names one bulk IN and one bulk OUT endpoint, numbers 1 to 15,
 * with a max packet size of 1 to 2047 bytes.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "drivers/usb.h"

static void fail(const char *what)
{
	fprintf(stderr, "fuzz_usb: %s\n", what);
	abort();
}

static void check_refusal(int r, const char *err)
{
	if (r != 0 && (err[0] == '\0' || !memchr(err, '\0', USB_ERR_MAX)))
		fail("refused without a message");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t buf[USB_CONFIG_TOTAL_MAX];
	struct usb_device_info info;
	struct usb_dev d;
	char err[USB_ERR_MAX];

	if (size > sizeof(buf))
		return 0;
	/* an exact-size copy, so that a read past what the device sent is caught */
	uint8_t *exact = malloc(size ? size : 1);
	memcpy(exact, data, size);
	err[0] = '\0';
	check_refusal(usb_parse_device_desc(exact, (uint32_t)size, &info, err, sizeof(err)), err);
	memset(&d, 0, sizeof(d));
	err[0] = '\0';
	int r = usb_parse_config(exact, (uint32_t)size, &d, err, sizeof(err));
	check_refusal(r, err);
	if (r == 0 && (d.ep_in == 0 || d.ep_in > 15 || d.ep_out == 0 || d.ep_out > 15 || d.ep_in_max_packet == 0 ||
		       d.ep_in_max_packet > 2047 || d.ep_out_max_packet == 0 || d.ep_out_max_packet > 2047))
		fail("accepted a configuration without usable bulk endpoints");
	free(exact);
	return 0;
}
