/*
 * What the USB mass-storage path needs from a host controller, and the standard requests
 * and descriptors it reads (Universal Serial Bus Specification 2.0, chapter 9). A host
 * controller driver (drivers/xhci.c, drivers/ehci.c) finds a device on a port, gives it an
 * address, and then offers control transfers on endpoint 0 and bulk transfers on the two
 * endpoints of the storage interface, all polled and bounded in time. drivers/usb.c reads
 * the descriptors and picks the interface; drivers/usb-msc.c speaks bulk-only transport
 * and SCSI over it and presents the stick as a struct blockdev.
 */
#ifndef DRIVERS_USB_H
#define DRIVERS_USB_H
#include <stddef.h>
#include <stdint.h>
#include "drivers/poll.h"

/* Setup packet (9.3), bmRequestType bits */
#define USB_DIR_IN              0x80u
#define USB_DIR_OUT             0x00u
#define USB_TYPE_STANDARD       0x00u
#define USB_TYPE_CLASS          0x20u
#define USB_RECIP_DEVICE        0x00u
#define USB_RECIP_INTERFACE     0x01u
#define USB_RECIP_ENDPOINT      0x02u
#define USB_RECIP_OTHER         0x03u   /* a hub's port */

/* Standard requests (Table 9-4) */
#define USB_REQ_GET_STATUS      0x00
#define USB_REQ_CLEAR_FEATURE   0x01
#define USB_REQ_SET_FEATURE     0x03
#define USB_REQ_SET_ADDRESS     0x05
#define USB_REQ_GET_DESCRIPTOR  0x06
#define USB_REQ_SET_CONFIGURATION 0x09
#define USB_FEATURE_ENDPOINT_HALT 0x00

/* Descriptor types (Table 9-5) */
#define USB_DT_DEVICE           0x01
#define USB_DT_CONFIG           0x02
#define USB_DT_INTERFACE        0x04
#define USB_DT_ENDPOINT         0x05

/* Descriptor sizes and fields (Tables 9-8, 9-10, 9-12, 9-13) */
#define USB_DEVICE_DESC_BYTES   18
#define USB_DEVICE_DESC_PREFIX  8       /* through bMaxPacketSize0: what a first read asks */
#define USB_CONFIG_DESC_BYTES   9
#define USB_INTERFACE_DESC_BYTES 9
#define USB_ENDPOINT_DESC_BYTES 7
#define USB_CONFIG_TOTAL_MAX    1024    /* the most of a configuration that bareperf reads */
#define USB_EP_MAX_PACKET_MASK  0x07FFu /* wMaxPacketSize 10:0 */

/* Endpoint descriptor (9.6.6): bEndpointAddress bit 7 is the direction, bmAttributes 1:0
 * the transfer type */
#define USB_EP_NUM_MASK         0x0Fu
#define USB_EP_XFER_MASK        0x03u
#define USB_EP_XFER_BULK        0x02u

/* Mass storage class (USB Mass Storage Class Specification Overview 1.4, 2 and 3):
 * interface class 08h, SCSI transparent command set 06h, bulk-only transport 50h */
#define USB_CLASS_MASS_STORAGE  0x08
#define USB_MSC_SUBCLASS_SCSI   0x06
#define USB_MSC_PROTOCOL_BOT    0x50
#define USB_CLASS_HUB           0x09

/* Device speeds, as the port reports them */
enum usb_speed { USB_SPEED_FULL = 1, USB_SPEED_LOW, USB_SPEED_HIGH, USB_SPEED_SUPER };

struct usb_setup {
	uint8_t request_type;
	uint8_t request;
	uint16_t value;
	uint16_t index;
	uint16_t length;
} __attribute__((packed));

#define USB_WHERE_MAX   48
/* The longest chain of reasons a command gives: a bulk transfer's timeout (about 100
 * characters), "; the reset recovery failed too: " and a control transfer's (130), "; endpoint
 * 0 stays halted: " and a command's (110), after "WRITE(10): ". A longer one is cut at a word
 * (fmt_append). */
#define USB_ERR_MAX     384

struct usb_dev;

/*
 * A host controller's transfers. Each returns 0, or -1 with the reason in err; a stalled
 * endpoint is reported as such (USB_XFER_STALL), so that the caller can clear it, and a
 * device that is gone (its port disconnected) as USB_XFER_GONE, so that the caller does
 * not try to recover it. The reason does not name the device: the caller adds d->where.
 */
#define USB_XFER_STALL  (-2)
#define USB_XFER_GONE   (-3)

struct usb_hc_ops {
	/* A control transfer on endpoint 0; the data stage (len bytes, may be 0) goes the way
	 * setup->request_type says. *done (may be NULL) gets the bytes moved. */
	int (*control)(struct usb_dev *d, const struct usb_setup *setup, void *data, uint16_t len,
		       uint32_t *done, char *err, size_t errlen);
	/* Make the two bulk endpoints of the chosen interface usable (xHCI: Configure
	 * Endpoint), after SET_CONFIGURATION. May be NULL. */
	int (*configure_bulk)(struct usb_dev *d, char *err, size_t errlen);
	/* A bulk transfer of len bytes on the IN (in != 0) or OUT endpoint. *done gets the
	 * bytes moved; a short IN transfer is not an error. */
	int (*bulk)(struct usb_dev *d, int in, void *buf, uint32_t len, uint32_t *done, char *err,
		    size_t errlen);
	/* After CLEAR_FEATURE(ENDPOINT_HALT): the controller's side of the endpoint reset
	 * (data toggle, xHCI Reset Endpoint and dequeue pointer). */
	int (*reset_bulk)(struct usb_dev *d, int in, char *err, size_t errlen);
	/* Wait about us microseconds (between TEST UNIT READY tries). May be NULL. */
	void (*delay)(struct usb_dev *d, uint32_t us);
	/* Hubs (drivers/usb-hub.c), both may be NULL where the controller does not follow
	 * them. configure_hub: tell the controller that d is a hub of nports ports (with a
	 * multi-TT, think time ttt for a high-speed hub). attach_child: give the device on
	 * the hub's port (its reset done, its speed read) an address and endpoint 0; *out is
	 * then ready for usb_find_storage. */
	int (*configure_hub)(struct usb_dev *hub, unsigned nports, int mtt, unsigned ttt, char *err, size_t errlen);
	int (*attach_child)(struct usb_dev *hub, unsigned port, enum usb_speed speed, struct usb_dev **out, char *err,
			    size_t errlen);
};

struct usb_dev {
	const struct usb_hc_ops *ops;
	void *hc;                       /* the controller driver's */
	void *hc_dev;                   /* the controller driver's per-device state */
	enum usb_speed speed;
	uint8_t address;
	uint16_t ep0_max_packet;
	uint8_t dev_protocol;            /* bDeviceProtocol: a hub's TT kind */
	/* the bulk-only storage interface, filled by usb_find_storage() */
	uint8_t config_value;
	uint8_t interface;
	uint8_t ep_in, ep_out;          /* endpoint numbers, without the direction bit */
	uint16_t ep_in_max_packet, ep_out_max_packet;
	char where[USB_WHERE_MAX];      /* "xHCI 00:04.0, port 3" */
};

/* The device descriptor's fields that matter here (9.6.1). */
struct usb_device_info {
	uint16_t bcd_usb, vendor, product;
	uint8_t dev_class, dev_protocol, max_packet0, nconfigs;
};

/* Pure parsing, tested on the host: 0, or -1 with the reason in err. */
int usb_parse_device_desc(const uint8_t *buf, uint32_t len, struct usb_device_info *out, char *err,
			  size_t errlen);
/* A whole configuration (wTotalLength bytes, len read): find the bulk-only mass-storage
 * interface with one bulk IN and one bulk OUT endpoint and fill d's config_value,
 * interface, ep_in/ep_out and their max packet sizes. 0; -1 for a malformed
 * configuration; 1 for a well-formed one without such an interface. */
int usb_parse_config(const uint8_t *buf, uint32_t len, struct usb_dev *d, char *err, size_t errlen);

/* Over the wire, on an addressed device: GET_DESCRIPTOR(DEVICE), GET_DESCRIPTOR(CONFIG)
 * (first 9 bytes, then wTotalLength), the interface found, SET_CONFIGURATION and the
 * controller's configure_bulk. 0, -1 with the reason in err, 1 when the device is simply
 * not a bulk-only mass-storage device (err says what it is), USB_FOUND_HUB for a hub
 * (err names it; d->config_value is its first configuration's, for usb_hub_open). */
#define USB_FOUND_HUB   2
int usb_find_storage(struct usb_dev *d, char *err, size_t errlen);

/* GET_DESCRIPTOR of type and index, len bytes; *done gets the bytes read. */
int usb_get_descriptor(struct usb_dev *d, uint8_t type, uint8_t index, void *buf, uint16_t len,
		       uint32_t *done, char *err, size_t errlen);

/* A device at address 0 on a controller that addresses it in software (EHCI, UHCI, OHCI;
 * xHCI does it in its Address Device command): the device descriptor's first 8 bytes,
 * whose bMaxPacketSize0 must be one d->speed allows (USB 2.0 5.5.3: 64 at high speed; 8,
 * 16, 32 or 64 below), then SET_ADDRESS(address) and the 2 ms the device may take to
 * answer there (9.2.6.3, TDSETADDR; through the controller's delay op). 0 with d->address and d->ep0_max_packet set, for the
 * caller to give its endpoint 0; -1 with the reason in err. */
int usb_set_address(struct usb_dev *d, uint8_t address, char *err, size_t errlen);
#define USB_SET_ADDRESS_US      2000
#define USB_HS_EP0_MAX_PACKET   64      /* 5.5.3: a high-speed device's control packets */

/* A control request as the controller drivers' messages name it: "GET_DESCRIPTOR (0x06)",
 * "a control request (0x..)" for one the storage path does not send itself. */
void usb_request_text(const struct usb_setup *s, char *buf, size_t len);

/* The controller drivers' delay op: us microseconds of polls (drivers/poll.h). Inline, so
 * that each driver waits through its own poll_pause (a host test's fake one, there). */
static inline void usb_poll_delay(struct usb_dev *d, uint32_t us)
{
	(void)d;
	poll_delay(us * POLLS_PER_MS / 1000);
}

#endif
