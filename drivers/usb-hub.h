/*
 * USB 2.0 hubs (Universal Serial Bus Specification 2.0, 11.23.2.1 hub descriptor, 11.24
 * hub class requests, 11.24.2.7 port status): a hub's ports powered, a connected device's
 * port reset, its speed read, and the device handed to the host controller's attach_child.
 * One tier: a hub behind a hub is named, not followed. SuperSpeed hubs are not followed.
 */
#ifndef DRIVERS_USB_HUB_H
#define DRIVERS_USB_HUB_H
#include <stddef.h>
#include <stdint.h>
#include "drivers/usb.h"

#define USB_DT_HUB              0x29
#define USB_HUB_DESC_BYTES      9       /* without the port bitmaps past 7 ports */
/* Port features (Table 11-17) */
#define USB_PORT_FEAT_RESET     4
#define USB_PORT_FEAT_POWER     8
#define USB_PORT_FEAT_C_CONNECTION 16
#define USB_PORT_FEAT_C_RESET   20
/* wPortStatus and wPortChange (Tables 11-21, 11-22) */
#define USB_PORT_STAT_CONNECTION 0x0001u
#define USB_PORT_STAT_ENABLE    0x0002u
#define USB_PORT_STAT_LOW_SPEED 0x0200u
#define USB_PORT_STAT_HIGH_SPEED 0x0400u
#define USB_PORT_CHANGE_CONNECTION 0x0001u
#define USB_PORT_CHANGE_RESET   0x0010u
/* wHubCharacteristics 6:5: TT think time; the device protocol 2 for a multi-TT hub (11.23.1) */
#define USB_HUB_TTT(c)          (((c) >> 5) & 0x3u)
#define USB_HUB_PROTOCOL_MTT    2
#define USB_HUB_PORTS_MAX       15

struct usb_hub {
	struct usb_dev *dev;
	unsigned nports;
	uint32_t power_good_us;         /* bPwrOn2PwrGood, 2 ms units */
};

/* SET_CONFIGURATION, the hub descriptor, the controller told, every port powered. 0, or -1
 * with the reason in err. */
int usb_hub_open(struct usb_hub *h, struct usb_dev *hub, char *err, size_t errlen);

/* The device on port (1..h->nports): 0 when none is connected, 1 with *out addressed, -1
 * with the reason in err. */
int usb_hub_attach_port(struct usb_hub *h, unsigned port, struct usb_dev **out, char *err, size_t errlen);

#endif
