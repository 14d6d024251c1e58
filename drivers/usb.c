/*
 * Descriptors and the choice of the storage interface (USB 2.0, 9.4 and 9.6; Mass
 * Storage Class Specification Overview 1.4). The parsing is pure and bounded: a
 * descriptor that runs past what was read, a length too short for its type or a
 * configuration that contradicts itself is refused with the offset and the reason.
 */
#include <stdbool.h>
#include "drivers/usb.h"
#include "lib/format.h"
#include "lib/str.h"

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

int usb_parse_device_desc(const uint8_t *buf, uint32_t len, struct usb_device_info *out, char *err,
			  size_t errlen)
{
	if (len < USB_DEVICE_DESC_BYTES)
		return fmt_error(err, errlen, "a device descriptor of %u bytes (18 expected)", len);
	if (buf[0] < USB_DEVICE_DESC_BYTES || buf[1] != USB_DT_DEVICE)
		return fmt_error(err, errlen, "not a device descriptor (length %u, type 0x%02x)", buf[0], buf[1]);
	out->bcd_usb = le16(buf + 2);
	out->dev_class = buf[4];
	out->dev_protocol = buf[6];
	out->max_packet0 = buf[7];
	out->vendor = le16(buf + 8);
	out->product = le16(buf + 10);
	out->nconfigs = buf[17];
	/* 9.6.1: bMaxPacketSize0 is 8, 16, 32 or 64, or 9 (2^9 = 512) for SuperSpeed. */
	if (out->max_packet0 != 8 && out->max_packet0 != 16 && out->max_packet0 != 32 && out->max_packet0 != 64 &&
	    !(out->max_packet0 == 9 && out->bcd_usb >= 0x0300))
		return fmt_error(err, errlen, "a device descriptor with bMaxPacketSize0 %u", out->max_packet0);
	if (out->nconfigs == 0)
		return fmt_error(err, errlen, "a device without configurations");
	return 0;
}

/* What the walk through a configuration has seen of the interface it looks at. */
struct if_scan {
	bool storage;               /* the current interface is BOT mass storage, alternate 0 */
	uint8_t number;
	uint8_t ep_in, ep_out;
	uint16_t mps_in, mps_out;
	unsigned bulk_in, bulk_out; /* bulk endpoints seen on it */
};

/* The interface just ended: 1 when it is the one, 0 when not, -1 when it claims mass
 * storage but lacks its endpoints. */
static int interface_done(const struct if_scan *s, struct usb_dev *d, char *err, size_t errlen)
{
	if (!s->storage)
		return 0;
	if (s->bulk_in != 1 || s->bulk_out != 1)
		return fmt_error(err, errlen, "mass-storage interface %u has %u bulk IN and %u bulk OUT endpoints "
				 "(1 and 1 expected)", s->number, s->bulk_in, s->bulk_out);
	d->interface = s->number;
	d->ep_in = s->ep_in;
	d->ep_out = s->ep_out;
	d->ep_in_max_packet = s->mps_in;
	d->ep_out_max_packet = s->mps_out;
	return 1;
}

static int endpoint_seen(struct if_scan *s, const uint8_t *p, uint32_t off, char *err, size_t errlen)
{
	uint8_t addr = p[2], num = addr & USB_EP_NUM_MASK;
	uint16_t mps = le16(p + 4) & USB_EP_MAX_PACKET_MASK;

	if (!s->storage || (p[3] & USB_EP_XFER_MASK) != USB_EP_XFER_BULK)
		return 0;
	if (num == 0 || mps == 0)
		return fmt_error(err, errlen, "a bulk endpoint descriptor at offset %u with address 0x%02x and max "
				 "packet %u", off, addr, mps);
	if (addr & USB_DIR_IN) {
		s->bulk_in++;
		s->ep_in = num;
		s->mps_in = mps;
	} else {
		s->bulk_out++;
		s->ep_out = num;
		s->mps_out = mps;
	}
	return 0;
}

/* The configuration header (9.6.3), of which len bytes were read: 0, or -1. */
static int config_header(const uint8_t *buf, uint32_t len, uint32_t *total, char *err, size_t errlen)
{
	if (len < USB_CONFIG_DESC_BYTES)
		return fmt_error(err, errlen, "a configuration descriptor of %u bytes (9 at least)", len);
	if (buf[0] < USB_CONFIG_DESC_BYTES || buf[1] != USB_DT_CONFIG)
		return fmt_error(err, errlen, "not a configuration descriptor (length %u, type 0x%02x)", buf[0], buf[1]);
	*total = le16(buf + 2);
	if (*total < buf[0])
		return fmt_error(err, errlen, "a configuration whose wTotalLength %u is shorter than its own "
				 "descriptor", *total);
	return 0;
}

int usb_parse_config(const uint8_t *buf, uint32_t len, struct usb_dev *d, char *err, size_t errlen)
{
	struct if_scan s = { 0 };
	uint32_t total, off;
	int r;

	if (config_header(buf, len, &total, err, errlen))
		return -1;
	if (total > len)
		return fmt_error(err, errlen, "a configuration of %u bytes, of which only %u were read", total, len);
	for (off = buf[0]; off < total; off += buf[off]) {
		const uint8_t *p = buf + off;
		if (total - off < 2 || p[0] < 2 || p[0] > total - off)
			return fmt_error(err, errlen, "a descriptor at offset %u runs past the configuration's %u bytes "
					 "(length %u)", off, total, total - off < 2 ? 0 : p[0]);
		if (p[1] == USB_DT_INTERFACE) {
			if (p[0] < USB_INTERFACE_DESC_BYTES)
				return fmt_error(err, errlen, "an interface descriptor of %u bytes at offset %u", p[0], off);
			if ((r = interface_done(&s, d, err, errlen)) != 0)
				break;
			memset(&s, 0, sizeof(s));
			s.number = p[2];
			s.storage = p[3] == 0 && p[5] == USB_CLASS_MASS_STORAGE && p[6] == USB_MSC_SUBCLASS_SCSI &&
				    p[7] == USB_MSC_PROTOCOL_BOT;
		} else if (p[1] == USB_DT_ENDPOINT) {
			if (p[0] < USB_ENDPOINT_DESC_BYTES)
				return fmt_error(err, errlen, "an endpoint descriptor of %u bytes at offset %u", p[0], off);
			if (endpoint_seen(&s, p, off, err, errlen))
				return -1;
		}
	}
	if (off >= total)
		r = interface_done(&s, d, err, errlen);
	if (r < 0)
		return -1;
	if (r == 0)
		return fmt_error(err, errlen, "no bulk-only mass-storage interface (class 08h, subclass 06h, "
				 "protocol 50h)"), 1;
	d->config_value = buf[5];
	return 0;
}

int usb_get_descriptor(struct usb_dev *d, uint8_t type, uint8_t index, void *buf, uint16_t len,
		       uint32_t *done, char *err, size_t errlen)
{
	struct usb_setup s = {
		.request_type = USB_DIR_IN | USB_TYPE_STANDARD | USB_RECIP_DEVICE,
		.request = USB_REQ_GET_DESCRIPTOR,
		.value = (uint16_t)(type << 8 | index),
		.index = 0,
		.length = len,
	};
	return d->ops->control(d, &s, buf, len, done, err, errlen);
}

static int set_configuration(struct usb_dev *d, char *err, size_t errlen)
{
	struct usb_setup s = {
		.request_type = USB_DIR_OUT | USB_TYPE_STANDARD | USB_RECIP_DEVICE,
		.request = USB_REQ_SET_CONFIGURATION,
		.value = d->config_value,
	};
	return d->ops->control(d, &s, NULL, 0, NULL, err, errlen);
}

int usb_find_storage(struct usb_dev *d, char *err, size_t errlen)
{
	static uint8_t buf[USB_CONFIG_TOTAL_MAX];
	struct usb_device_info info;
	uint32_t done = 0, total;
	char why[USB_ERR_MAX];

	if (usb_get_descriptor(d, USB_DT_DEVICE, 0, buf, USB_DEVICE_DESC_BYTES, &done, why, sizeof(why)) ||
	    usb_parse_device_desc(buf, done, &info, why, sizeof(why)))
		return fmt_error(err, errlen, "%s: %s", d->where, why);
	if (usb_get_descriptor(d, USB_DT_CONFIG, 0, buf, USB_CONFIG_DESC_BYTES, &done, why, sizeof(why)) ||
	    config_header(buf, done, &total, why, sizeof(why)))
		return fmt_error(err, errlen, "%s: %s", d->where, why);
	if (info.dev_class == USB_CLASS_HUB) {
		d->config_value = buf[5];
		d->dev_protocol = info.dev_protocol;
		return fmt_error(err, errlen, "%s: a hub (%04x:%04x)", d->where, info.vendor, info.product),
		       USB_FOUND_HUB;
	}
	if (total > sizeof(buf))
		return fmt_error(err, errlen, "%s: a configuration of %u bytes (at most %u are read)", d->where, total,
				 (unsigned)sizeof(buf));
	if (usb_get_descriptor(d, USB_DT_CONFIG, 0, buf, (uint16_t)total, &done, why, sizeof(why)))
		return fmt_error(err, errlen, "%s: %s", d->where, why);
	int r = usb_parse_config(buf, done, d, why, sizeof(why));
	if (r)
		return fmt_error(err, errlen, "%s (%04x:%04x): %s", d->where, info.vendor, info.product, why), r;
	if (set_configuration(d, why, sizeof(why)) ||
	    (d->ops->configure_bulk && d->ops->configure_bulk(d, why, sizeof(why))))
		return fmt_error(err, errlen, "%s: %s", d->where, why);
	return 0;
}

int usb_set_address(struct usb_dev *d, uint8_t address, char *err, size_t errlen)
{
	uint8_t desc[USB_DEVICE_DESC_PREFIX];
	uint32_t got = 0;
	struct usb_setup set = { USB_DIR_OUT | USB_TYPE_STANDARD | USB_RECIP_DEVICE, USB_REQ_SET_ADDRESS, address,
				 0, 0 };

	if (usb_get_descriptor(d, USB_DT_DEVICE, 0, desc, sizeof(desc), &got, err, errlen))
		return -1;
	if (got < sizeof(desc) || desc[1] != USB_DT_DEVICE)
		return fmt_error(err, errlen, "the device descriptor's first 8 bytes came back as %u bytes of type "
				 "0x%02x", got, desc[1]);
	if (d->speed == USB_SPEED_HIGH && desc[7] != USB_HS_EP0_MAX_PACKET)
		return fmt_error(err, errlen, "a high-speed device with a control packet size of %u (USB 2.0 "
				 "5.5.3: 64)", desc[7]);
	if (d->speed != USB_SPEED_HIGH && desc[7] != 8 && desc[7] != 16 && desc[7] != 32 && desc[7] != 64)
		return fmt_error(err, errlen, "a %s device with a control packet size of %u (USB 2.0 5.5.3: 8, "
				 "16, 32 or 64)", d->speed == USB_SPEED_LOW ? "low-speed" : "full-speed", desc[7]);
	if (d->ops->control(d, &set, NULL, 0, NULL, err, errlen))
		return -1;
	if (d->ops->delay)
		d->ops->delay(d, USB_SET_ADDRESS_US);
	d->address = address;
	d->ep0_max_packet = desc[7];
	return 0;
}

static const struct {
	uint8_t request;
	const char *name;
} request_names[] = {
	{ USB_REQ_GET_DESCRIPTOR, "GET_DESCRIPTOR" },
	{ USB_REQ_SET_ADDRESS, "SET_ADDRESS" },
	{ USB_REQ_SET_CONFIGURATION, "SET_CONFIGURATION" },
	{ USB_REQ_CLEAR_FEATURE, "CLEAR_FEATURE" },
};

void usb_request_text(const struct usb_setup *s, char *buf, size_t len)
{
	const char *name = "a control request";
	for (size_t i = 0; i < sizeof(request_names) / sizeof(request_names[0]); i++)
		if (request_names[i].request == s->request)
			name = request_names[i].name;
	bp_snprintf(buf, len, "%s (0x%02x)", name, s->request);
}
