#include "drivers/usb-hub.h"
#include "lib/format.h"
#include "lib/str.h"

/* Times of USB 2.0 7.1.7.3 (100 ms connect debounce) and 7.1.7.5 (a reset of 10-20 ms,
 * 10 ms recovery); a port reset is polled every 10 ms, 50 times at most. */
#define HUB_DEBOUNCE_US         100000u
#define HUB_RESET_POLL_US       10000u
#define HUB_RESET_POLLS         50
#define HUB_RESET_RECOVERY_US   10000u

static void delay(struct usb_dev *d, uint32_t us)
{
	if (d->ops->delay)
		d->ops->delay(d, us);
}

static int port_request(struct usb_dev *hub, uint8_t request, uint16_t feature, unsigned port, char *err,
			size_t errlen)
{
	struct usb_setup s = {
		.request_type = USB_DIR_OUT | USB_TYPE_CLASS | USB_RECIP_OTHER,
		.request = request,
		.value = feature,
		.index = (uint16_t)port,
	};
	return hub->ops->control(hub, &s, NULL, 0, NULL, err, errlen);
}

/* GET_STATUS of a port: wPortStatus, wPortChange. */
static int port_status(struct usb_dev *hub, unsigned port, uint16_t *status, uint16_t *change, char *err,
		       size_t errlen)
{
	struct usb_setup s = {
		.request_type = USB_DIR_IN | USB_TYPE_CLASS | USB_RECIP_OTHER,
		.request = USB_REQ_GET_STATUS,
		.index = (uint16_t)port,
		.length = 4,
	};
	uint8_t st[4];
	uint32_t done = 0;

	if (hub->ops->control(hub, &s, st, sizeof(st), &done, err, errlen))
		return -1;
	if (done != sizeof(st))
		return fmt_error(err, errlen, "a port status of %u bytes", done);
	*status = (uint16_t)(st[0] | st[1] << 8);
	*change = (uint16_t)(st[2] | st[3] << 8);
	return 0;
}

int usb_hub_open(struct usb_hub *h, struct usb_dev *hub, char *err, size_t errlen)
{
	struct usb_setup set_config = {
		.request_type = USB_DIR_OUT | USB_TYPE_STANDARD | USB_RECIP_DEVICE,
		.request = USB_REQ_SET_CONFIGURATION,
		.value = hub->config_value,
	};
	struct usb_setup get_hub = {
		.request_type = USB_DIR_IN | USB_TYPE_CLASS | USB_RECIP_DEVICE,
		.request = USB_REQ_GET_DESCRIPTOR,
		.value = USB_DT_HUB << 8,
		.length = USB_HUB_DESC_BYTES,
	};
	uint8_t desc[USB_HUB_DESC_BYTES];
	uint32_t done = 0;
	char why[USB_ERR_MAX];

	memset(h, 0, sizeof(*h));
	h->dev = hub;
	if (hub->speed == USB_SPEED_SUPER)
		return fmt_error(err, errlen, "%s: a SuperSpeed hub; devices behind it are not searched", hub->where);
	if (!hub->ops->attach_child)
		return fmt_error(err, errlen, "%s: a hub; this controller's driver does not follow hubs", hub->where);
	if (hub->ops->control(hub, &set_config, NULL, 0, NULL, why, sizeof(why)) ||
	    hub->ops->control(hub, &get_hub, desc, sizeof(desc), &done, why, sizeof(why)))
		return fmt_error(err, errlen, "%s: hub: %s", hub->where, why);
	if (done < 7 || desc[1] != USB_DT_HUB || desc[2] == 0)
		return fmt_error(err, errlen, "%s: a hub descriptor of %u bytes, type 0x%02x, %u ports", hub->where,
				 done, desc[1], done > 2 ? desc[2] : 0);
	h->nports = desc[2] < USB_HUB_PORTS_MAX ? desc[2] : USB_HUB_PORTS_MAX;
	h->power_good_us = desc[5] * 2000u;
	uint16_t chars = (uint16_t)(desc[3] | desc[4] << 8);
	if (hub->ops->configure_hub &&
	    hub->ops->configure_hub(hub, h->nports, hub->dev_protocol == USB_HUB_PROTOCOL_MTT, USB_HUB_TTT(chars),
				    why, sizeof(why)))
		return fmt_error(err, errlen, "%s: hub: %s", hub->where, why);
	for (unsigned p = 1; p <= h->nports; p++)
		if (port_request(hub, USB_REQ_SET_FEATURE, USB_PORT_FEAT_POWER, p, why, sizeof(why)))
			return fmt_error(err, errlen, "%s: hub port %u: power: %s", hub->where, p, why);
	delay(hub, h->power_good_us + HUB_DEBOUNCE_US);
	return 0;
}

/* Reset the port and wait for it to be enabled (11.24.2.7.1.5, C_PORT_RESET). */
static int reset_port(struct usb_hub *h, unsigned port, uint16_t *status, char *err, size_t errlen)
{
	uint16_t change = 0;

	if (port_request(h->dev, USB_REQ_SET_FEATURE, USB_PORT_FEAT_RESET, port, err, errlen))
		return -1;
	for (unsigned i = 0; i < HUB_RESET_POLLS; i++) {
		delay(h->dev, HUB_RESET_POLL_US);
		if (port_status(h->dev, port, status, &change, err, errlen))
			return -1;
		if (change & USB_PORT_CHANGE_RESET)
			break;
	}
	if (!(change & USB_PORT_CHANGE_RESET) || !(*status & USB_PORT_STAT_ENABLE))
		return fmt_error(err, errlen, "the port reset does not finish (status 0x%04x, change 0x%04x)", *status,
				 change);
	if (port_request(h->dev, USB_REQ_CLEAR_FEATURE, USB_PORT_FEAT_C_RESET, port, err, errlen))
		return -1;
	delay(h->dev, HUB_RESET_RECOVERY_US);
	return 0;
}

int usb_hub_attach_port(struct usb_hub *h, unsigned port, struct usb_dev **out, char *err, size_t errlen)
{
	struct usb_dev *hub = h->dev;
	uint16_t status, change;
	char why[USB_ERR_MAX];

	if (port_status(hub, port, &status, &change, why, sizeof(why)))
		return fmt_error(err, errlen, "%s: hub port %u: %s", hub->where, port, why);
	if (!(status & USB_PORT_STAT_CONNECTION))
		return 0;
	if (change & USB_PORT_CHANGE_CONNECTION)
		port_request(hub, USB_REQ_CLEAR_FEATURE, USB_PORT_FEAT_C_CONNECTION, port, why, sizeof(why));
	if (reset_port(h, port, &status, why, sizeof(why)))
		return fmt_error(err, errlen, "%s: hub port %u: %s", hub->where, port, why);
	enum usb_speed speed = status & USB_PORT_STAT_LOW_SPEED ? USB_SPEED_LOW :
			       status & USB_PORT_STAT_HIGH_SPEED ? USB_SPEED_HIGH : USB_SPEED_FULL;
	return hub->ops->attach_child(hub, port, speed, out, err, errlen) ? -1 : 1;
}
