#include "lib/bootinfo.h"
#include "lib/format.h"
#include "lib/str.h"

/* Each memory map entry: a known type, page aligned, not wrapping. */
static int validate_mmap(const struct boot_info *bi, char *err, size_t errlen)
{
	for (uint32_t i = 0; i < bi->mmap_count; i++) {
		const struct bi_mem_range *r = &bi->mmap[i];
		if (r->type < BI_MEM_USABLE || r->type > BI_MEM_UNUSABLE) {
			bp_snprintf(err, errlen, "memory map entry %u has unknown type %u", i, r->type);
			return -1;
		}
		if (r->base & (BI_PAGE_SIZE - 1)) {
			bp_snprintf(err, errlen, "memory map entry %u base 0x%llx not page aligned",
				    i, (unsigned long long)r->base);
			return -1;
		}
		if (r->pages > (1ull << 40) || r->base + r->pages * BI_PAGE_SIZE < r->base) {
			bp_snprintf(err, errlen, "memory map entry %u wraps the address space", i);
			return -1;
		}
	}
	return 0;
}

int bootinfo_validate(const struct boot_info *bi, char *err, size_t errlen)
{
	if (!bi) {
		bp_snprintf(err, errlen, "no boot-info pointer");
		return -1;
	}
	if (bi->magic != BOOTINFO_MAGIC) {
		bp_snprintf(err, errlen, "bad magic 0x%016llx (expected 0x%016llx)",
			    (unsigned long long)bi->magic, (unsigned long long)BOOTINFO_MAGIC);
		return -1;
	}
	if (bi->version != BOOTINFO_VERSION) {
		bp_snprintf(err, errlen, "boot-info version %u, kernel understands %u",
			    bi->version, BOOTINFO_VERSION);
		return -1;
	}
	if (bi->size != sizeof(*bi)) {
		bp_snprintf(err, errlen, "boot-info size %u, kernel expects %u",
			    bi->size, (unsigned)sizeof(*bi));
		return -1;
	}
	if (bi->firmware != BI_FIRMWARE_UEFI && bi->firmware != BI_FIRMWARE_BIOS) {
		bp_snprintf(err, errlen, "boot-info names unknown firmware %u", bi->firmware);
		return -1;
	}
	if (bi->protocol > BI_PROTOCOL_PVH) {
		bp_snprintf(err, errlen, "boot-info names unknown hand-over protocol %u", bi->protocol);
		return -1;
	}
	if (bi->medium > BI_MEDIUM_LAST) {
		bp_snprintf(err, errlen, "boot-info names unknown boot medium %u", bi->medium);
		return -1;
	}
	if (bi->mmap_count == 0 || bi->mmap_count > BI_MMAP_MAX) {
		bp_snprintf(err, errlen, "memory map has %u entries (1..%u allowed)",
			    bi->mmap_count, BI_MMAP_MAX);
		return -1;
	}
	if (bi->cmdline_len >= BI_CMDLINE_MAX || bi->config_len >= BI_CONFIG_MAX) {
		bp_snprintf(err, errlen, "command line (%u) or config (%u) longer than its buffer",
			    bi->cmdline_len, bi->config_len);
		return -1;
	}
	if (bi->identity_len > BI_IDENTITY_MAX) {
		bp_snprintf(err, errlen, "identity (%u bytes) longer than its buffer (%u)", bi->identity_len,
			    BI_IDENTITY_MAX);
		return -1;
	}
	if ((BI_CMDLINE_REFUSED(bi) && bi->cmdline_len) || (BI_CONFIG_REFUSED(bi) && bi->config_len)) {
		bp_snprintf(err, errlen, "a refused command line (%u characters) or config (%llu "
			    "bytes) still has text", bi->cmdline_size,
			    (unsigned long long)bi->config_size);
		return -1;
	}
	if (strnlen(bi->menu, sizeof(bi->menu)) == sizeof(bi->menu)) {
		bp_snprintf(err, errlen, "boot menu choice not NUL-terminated within %u bytes",
			    BI_MENU_MAX);
		return -1;
	}
	if (validate_mmap(bi, err, errlen))
		return -1;
	if (bi->kernel_phys & (BI_PAGE_SIZE - 1)) {
		bp_snprintf(err, errlen, "kernel loaded at unaligned 0x%llx",
			    (unsigned long long)bi->kernel_phys);
		return -1;
	}
	return 0;
}

uint64_t bootinfo_usable_bytes(const struct boot_info *bi)
{
	uint64_t total = 0;
	for (uint32_t i = 0; i < bi->mmap_count && i < BI_MMAP_MAX; i++)
		if (bi->mmap[i].type == BI_MEM_USABLE)
			total += bi->mmap[i].pages * BI_PAGE_SIZE;
	return total;
}

const char *bootinfo_firmware_name(const struct boot_info *bi)
{
	return bi->firmware == BI_FIRMWARE_BIOS ? "bios" : bi->firmware == BI_FIRMWARE_UEFI ? "uefi" : "unknown";
}

const char *bootinfo_medium_name(const struct boot_info *bi)
{
	static const char *const names[] = { [BI_MEDIUM_DISK] = "disk",
					     [BI_MEDIUM_NETWORK] = "network",
					     [BI_MEDIUM_CD] = "cd" };
	if (bi->medium == BI_MEDIUM_DISK && bi->protocol == BI_PROTOCOL_PVH)
		return "unknown";       /* QEMU's -kernel: no medium at all */
	return bi->medium < sizeof(names) / sizeof(names[0]) ? names[bi->medium] : "unknown";
}

const char *bootinfo_protocol_name(const struct boot_info *bi)
{
	static const char *const names[] = { [BI_PROTOCOL_UEFI] = "uefi",
					     [BI_PROTOCOL_MULTIBOOT2] = "multiboot2",
					     [BI_PROTOCOL_PVH] = "pvh" };
	return bi->protocol < sizeof(names) / sizeof(names[0]) ? names[bi->protocol] : "unknown";
}
