/*
 * What the loader was booted from, and bareperf.cfg from the TFTP server of a network
 * boot, through the firmware's PXE Base Code protocol (UEFI 2.9, 24.3).
 */
#ifndef BOOT_PXE_H
#define BOOT_PXE_H
#include <efi.h>

/* BI_MEDIUM_NETWORK when the device the image came from is a network device (its device
 * path has a MAC, IPv4, IPv6 or URI node: PXE, HTTP boot, iPXE), BI_MEDIUM_CD for a CD
 * (an El Torito CD-ROM node), else BI_MEDIUM_DISK. */
UINT32 boot_medium(EFI_HANDLE device);

/* Whether the disk that holds device, a partition, carries an ISO 9660 file system: an ISO
 * image written to a stick, booted through its EFI partition (scripts/mkiso). */
BOOLEAN boot_disk_is_iso9660(EFI_HANDLE device);

#define PXE_WHERE_MAX 160

/* Reads file name, in the boot file's folder on the TFTP server the firmware booted from,
 * into buf (at most max bytes). EFI_SUCCESS with *size its length; EFI_BUFFER_TOO_SMALL
 * when it is longer than max (*size its length where the server says it, else max + 1);
 * EFI_NOT_FOUND when the server has no such file; EFI_UNSUPPORTED when there is no PXE
 * Base Code on device or it holds no DHCP answer. where gets "tftp://SERVER/PATH" (or
 * why there is none) for messages. */
EFI_STATUS pxe_read_beside_bootfile(EFI_HANDLE device, const char *name, void *buf, UINTN max,
				    UINT64 *size, char *where, UINTN wherelen);

#endif
