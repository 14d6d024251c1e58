/*
 * USB mass storage, bulk-only transport (USB Mass Storage Class Bulk-Only Transport 1.0:
 * 5.1 CBW, 5.2 CSW, 5.3 the command/data/status flow, 5.3.4 reset recovery, 3.1 the
 * Bulk-Only Mass Storage Reset request) carrying SCSI commands (SPC-4: INQUIRY 6.6, REQUEST
 * SENSE 6.39, TEST UNIT READY 6.47; SBC-3: READ CAPACITY(10) 5.16, READ CAPACITY(16)
 * 5.17, READ(10) 5.8, WRITE(10) 5.35). A stick is presented as a struct blockdev; one that
 * answers nonsense (capacity 0, an odd sector size, short transfers, a bad CSW) is
 * refused with the reason.
 */
#ifndef DRIVERS_USB_MSC_H
#define DRIVERS_USB_MSC_H
#include <stddef.h>
#include <stdint.h>
#include "drivers/blockdev.h"
#include "drivers/usb.h"

/* Command Block Wrapper and Command Status Wrapper (BOT 5.1, 5.2) */
#define BOT_CBW_SIGNATURE       0x43425355u     /* "USBC" */
#define BOT_CSW_SIGNATURE       0x53425355u     /* "USBS" */
#define BOT_CBW_BYTES           31
#define BOT_CSW_BYTES           13
#define BOT_CBW_FLAG_IN         0x80u
#define BOT_CB_MAX              16
#define BOT_CSW_PASSED          0
#define BOT_CSW_FAILED          1
#define BOT_CSW_PHASE_ERROR     2
#define BOT_REQ_RESET           0xFF            /* Bulk-Only Mass Storage Reset (3.1) */

/* SCSI operation codes */
#define SCSI_TEST_UNIT_READY    0x00
#define SCSI_REQUEST_SENSE      0x03
#define SCSI_INQUIRY            0x12
#define SCSI_READ_CAPACITY10    0x25
#define SCSI_READ10             0x28
#define SCSI_WRITE10            0x2A
#define SCSI_SERVICE_ACTION_IN16 0x9E
#define SCSI_SA_READ_CAPACITY16 0x10
#define SCSI_INQUIRY_BYTES      36
#define SCSI_SENSE_BYTES        18
#define SCSI_RC10_BYTES         8
#define SCSI_RC16_BYTES         32
#define SCSI_RC10_LBA_MAX       0xFFFFFFFFu     /* READ CAPACITY(10): ask (16) */
#define SCSI_TYPE_MASK          0x1Fu           /* INQUIRY byte 0: peripheral device type */
#define SCSI_TYPE_DISK          0x00
#define SCSI_SENSE_KEY_MASK     0x0Fu
#define SCSI_SENSE_NOT_READY    0x02
#define SCSI_SENSE_UNIT_ATTENTION 0x06

/* Bytes per READ(10)/WRITE(10): what a controller's bounce buffer must hold. */
#define USB_MSC_XFER_MAX        (32u * 1024)
/* TEST UNIT READY tries, 100 ms apart: a stick spinning up its flash, a unit attention. */
#define USB_MSC_TUR_TRIES       20
#define USB_MSC_TUR_DELAY_US    100000u

struct usb_msc {
	struct blockdev bd;
	struct usb_dev *dev;
	uint32_t tag;
	char vendor[9], product[17];
};

/* INQUIRY, TEST UNIT READY, READ CAPACITY on a device usb_find_storage configured: 0 and
 * m->bd ready (kind "USB stick", where from the device), or -1 with the reason in err. */
int usb_msc_open(struct usb_msc *m, struct usb_dev *d, char *err, size_t errlen);

#endif
