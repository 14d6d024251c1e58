/*
 * The boot medium from the loaded image's device path (UEFI 2.9, 10.3: messaging nodes
 * 10.3.4, media nodes 10.3.5), whether its disk holds ISO 9660 (ECMA-119 8.4), and a file
 * beside the boot file on the TFTP server through EFI_PXE_BASE_CODE_PROTOCOL.Mtftp (UEFI
 * 2.9, 24.3; TFTP errors: RFC 1350).
 */
#include <efi.h>
#include <efilib.h>

#include "boot/pxe.h"
#include "lib/bootinfo.h"

#define DEVICE_PATH_NODES_MAX 64        /* more than any firmware's path; a bad one stops */
#define MSG_IPv6_NODE   0x0d            /* gnu-efi names it MSG_IPv6_DP; the value is 10.3.4.10's */
#define TFTP_ERROR_FILE_NOT_FOUND 1     /* RFC 1350, section 5 */
#define TFTP_PATH_MAX   256

UINT32 boot_medium(EFI_HANDLE device)
{
	EFI_DEVICE_PATH *dp = DevicePathFromHandle(device);

	for (unsigned i = 0; dp && i < DEVICE_PATH_NODES_MAX && !IsDevicePathEnd(dp); i++) {
		UINT8 type = DevicePathType(dp), sub = DevicePathSubType(dp);
		if (type == MESSAGING_DEVICE_PATH &&
		    (sub == MSG_MAC_ADDR_DP || sub == MSG_IPv4_DP || sub == MSG_IPv6_NODE ||
		     sub == MSG_URI_DP))
			return BI_MEDIUM_NETWORK;
		if (type == MEDIA_DEVICE_PATH && sub == MEDIA_CDROM_DP)
			return BI_MEDIUM_CD;
		if ((UINTN)DevicePathNodeLength(dp) < sizeof(EFI_DEVICE_PATH))
			break;          /* a malformed node: nothing after it can be trusted */
		dp = NextDevicePathNode(dp);
	}
	return BI_MEDIUM_DISK;
}

/* ECMA-119 8.4: the primary volume descriptor, 2048-byte sector 16 of the volume, starts
 * with its type (1) and the standard identifier "CD001". */
#define ISO9660_PVD_OFFSET      (16 * 2048)
#define ISO9660_PVD_TYPE        1
#define ISO9660_STANDARD_ID     "CD001"

BOOLEAN boot_disk_is_iso9660(EFI_HANDLE device)
{
	EFI_DEVICE_PATH *path = DuplicateDevicePath(DevicePathFromHandle(device)), *dp = path, *rest;
	EFI_DISK_IO *dio = NULL;
	EFI_BLOCK_IO *bio = NULL;
	EFI_HANDLE disk;
	UINT8 pvd[6];
	BOOLEAN cut = FALSE, iso = FALSE;

	/* The whole disk's path: the partition's, ended before its hard-drive node. */
	for (unsigned i = 0; dp && i < DEVICE_PATH_NODES_MAX && !IsDevicePathEnd(dp); i++) {
		if (DevicePathType(dp) == MEDIA_DEVICE_PATH && DevicePathSubType(dp) == MEDIA_HARDDRIVE_DP) {
			SetDevicePathEndNode(dp);
			cut = TRUE;
			break;
		}
		if ((UINTN)DevicePathNodeLength(dp) < sizeof(EFI_DEVICE_PATH))
			break;
		dp = NextDevicePathNode(dp);
	}
	rest = path;
	if (cut &&
	    uefi_call_wrapper(BS->LocateDevicePath, 3, &DiskIoProtocol, &rest, &disk) == EFI_SUCCESS &&
	    IsDevicePathEnd(rest) &&
	    uefi_call_wrapper(BS->HandleProtocol, 3, disk, &DiskIoProtocol, (void **)&dio) == EFI_SUCCESS &&
	    uefi_call_wrapper(BS->HandleProtocol, 3, disk, &BlockIoProtocol, (void **)&bio) == EFI_SUCCESS &&
	    uefi_call_wrapper(dio->ReadDisk, 5, dio, bio->Media->MediaId, (UINT64)ISO9660_PVD_OFFSET,
			      sizeof(pvd), pvd) == EFI_SUCCESS)
		iso = pvd[0] == ISO9660_PVD_TYPE && CompareMem(pvd + 1, ISO9660_STANDARD_ID, 5) == 0;
	if (path)
		FreePool(path);
	return iso;
}

/* s, NUL-terminated, appended to out[*n..size). */
static void append(char *out, UINTN size, UINTN *n, const char *s)
{
	while (*s && *n + 1 < size)
		out[(*n)++] = *s++;
	out[*n] = 0;
}

static void append_uint(char *out, UINTN size, UINTN *n, unsigned v)
{
	char digits[12];
	int i = sizeof(digits) - 1;
	digits[i] = 0;
	do {
		digits[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v && i > 0);
	append(out, size, n, digits + i);
}

/* The DHCP answer that names the boot file, as the firmware chose it: a PXE server's
 * reply, a proxy DHCP offer, or the DHCP acknowledgement. NULL when none has one. */
static const EFI_PXE_BASE_CODE_DHCPV4_PACKET *boot_answer(const EFI_PXE_BASE_CODE_MODE *m)
{
	if (m->PxeReplyReceived && m->PxeReply.Dhcpv4.BootpBootFile[0])
		return &m->PxeReply.Dhcpv4;
	if (m->ProxyOfferReceived && m->ProxyOffer.Dhcpv4.BootpBootFile[0])
		return &m->ProxyOffer.Dhcpv4;
	if (m->DhcpAckReceived && m->DhcpAck.Dhcpv4.BootpBootFile[0])
		return &m->DhcpAck.Dhcpv4;
	return NULL;
}

/* path: the boot file's folder (up to its last '/') and name; FALSE if too long. */
static BOOLEAN path_beside(const UINT8 bootfile[128], const char *name, UINT8 *path)
{
	UINTN dir = 0, n = 0;
	for (UINTN i = 0; i < 128 && bootfile[i]; i++)
		if (bootfile[i] == '/')
			dir = i + 1;
	for (; n < dir; n++)
		path[n] = bootfile[n];
	for (; *name; name++) {
		if (n + 1 >= TFTP_PATH_MAX)
			return FALSE;
		path[n++] = (UINT8)*name;
	}
	path[n] = 0;
	return TRUE;
}

static void describe(char *where, UINTN wherelen, const UINT8 ip[4], const UINT8 *path)
{
	UINTN n = 0;
	where[0] = 0;
	append(where, wherelen, &n, "tftp://");
	for (int i = 0; i < 4; i++) {
		append_uint(where, wherelen, &n, ip[i]);
		append(where, wherelen, &n, i < 3 ? "." : "/");
	}
	append(where, wherelen, &n, (const char *)path);
}

static void say(char *where, UINTN wherelen, const char *why)
{
	UINTN n = 0;
	append(where, wherelen, &n, why);
}

EFI_STATUS pxe_read_beside_bootfile(EFI_HANDLE device, const char *name, void *buf, UINTN max,
				    UINT64 *size, char *where, UINTN wherelen)
{
	EFI_PXE_BASE_CODE_PROTOCOL *pxe = NULL;
	UINT8 path[TFTP_PATH_MAX];
	EFI_IP_ADDRESS server;

	*size = 0;
	if (uefi_call_wrapper(BS->HandleProtocol, 3, device, &PxeBaseCodeProtocol,
			      (void **)&pxe) != EFI_SUCCESS || !pxe || !pxe->Mode->Started)
		return say(where, wherelen, "no PXE Base Code on the boot device"), EFI_UNSUPPORTED;
	if (pxe->Mode->UsingIpv6)
		return say(where, wherelen, "an IPv6 network boot"), EFI_UNSUPPORTED;
	const EFI_PXE_BASE_CODE_DHCPV4_PACKET *answer = boot_answer(pxe->Mode);
	if (!answer)
		return say(where, wherelen, "no DHCP answer names a boot file"), EFI_UNSUPPORTED;
	if (!path_beside(answer->BootpBootFile, name, path))
		return say(where, wherelen, "the boot file's path is too long"), EFI_UNSUPPORTED;
	SetMem(&server, sizeof(server), 0);
	CopyMem(server.v4.Addr, (void *)answer->BootpSiAddr, 4);
	describe(where, wherelen, answer->BootpSiAddr, path);
	if (!(server.v4.Addr[0] | server.v4.Addr[1] | server.v4.Addr[2] | server.v4.Addr[3]))
		return EFI_UNSUPPORTED;         /* no next-server: where says 0.0.0.0 */

	/* The size first (RFC 2349's tsize), so that a file too long is refused unread. */
	UINT64 want = 0;
	EFI_STATUS err = uefi_call_wrapper(pxe->Mtftp, 10, pxe, EFI_PXE_BASE_CODE_TFTP_GET_FILE_SIZE,
					   NULL, FALSE, &want, NULL, &server, path, NULL, FALSE);
	if (err == EFI_SUCCESS && want > max) {
		*size = want;
		return EFI_BUFFER_TOO_SMALL;
	}
	UINT64 got = max;
	err = uefi_call_wrapper(pxe->Mtftp, 10, pxe, EFI_PXE_BASE_CODE_TFTP_READ_FILE, buf, FALSE,
				&got, NULL, &server, path, NULL, FALSE);
	if (err == EFI_BUFFER_TOO_SMALL) {
		*size = got > max ? got : (UINT64)max + 1;
		return EFI_BUFFER_TOO_SMALL;
	}
	if (err != EFI_SUCCESS && pxe->Mode->TftpErrorReceived &&
	    pxe->Mode->TftpError.ErrorCode == TFTP_ERROR_FILE_NOT_FOUND)
		return EFI_NOT_FOUND;
	if (err == EFI_SUCCESS)
		*size = got;
	return err;
}
