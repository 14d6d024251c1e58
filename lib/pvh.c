/*
 * PVH start information -> struct boot_info (lib/pvh.h). Every address the loader wrote
 * is checked to lie below 4 GiB, which both kernels map, and every string to end within
 * its bound before it is read: a malformed hand-over gives a message, never a stray read.
 */
#include "lib/pvh.h"
#include "lib/acpi.h"
#include "lib/format.h"
#include "lib/str.h"

#define PVH_LIMIT       (1ull << 32)    /* both kernels map only below 4 GiB at entry */
#define PVH_NAME_MAX    256             /* a module's name, NUL included */

/* Static: the builder needs ~22 KiB, more than the boot stack has. */
static struct bi_builder builder;

/* Whether [phys, phys + len) lies below PVH_LIMIT, and phys is not 0; else says why not. */
static int below_limit(struct bi_builder *b, const char *what, uint64_t phys, uint64_t len)
{
	if (phys && phys < PVH_LIMIT && len <= PVH_LIMIT - phys)
		return 1;
	if (!phys)
		bp_snprintf(b->err, b->errlen, "%s at address 0", what);
	else
		bp_snprintf(b->err, b->errlen, "%s at 0x%llx+0x%llx is not in the first 4 GiB", what,
			    (unsigned long long)phys, (unsigned long long)len);
	return 0;
}

/* The NUL-terminated string at phys, at most max bytes with the NUL: its length, or -1
 * with the reason. Its bytes are marked in use. */
static long string_at(struct bi_builder *b, const char *what, uint64_t phys, size_t max)
{
	if (!below_limit(b, what, phys, 1))
		return -1;
	uint64_t room = PVH_LIMIT - phys;
	size_t bound = room < max ? (size_t)room : max;
	size_t len = strnlen(bib_phys(b, phys), bound);
	if (len == bound) {
		bp_snprintf(b->err, b->errlen, "%s at 0x%llx has no NUL within %u bytes", what,
			    (unsigned long long)phys, (unsigned)bound);
		return -1;
	}
	if (bib_add_range(b, phys, len + 1, BI_MEM_LOADER))
		return -1;
	return (long)len;
}

/* The table of n entries of size bytes at phys, marked in use: readable, or NULL with the
 * reason when it does not lie below PVH_LIMIT. */
static const uint8_t *table_at(struct bi_builder *b, const char *what, uint64_t phys, uint32_t n,
			       size_t size)
{
	uint64_t bytes = (uint64_t)n * size;
	if (!below_limit(b, what, phys, bytes) || bib_add_range(b, phys, bytes, BI_MEM_LOADER))
		return NULL;
	return bib_phys(b, phys);
}

static uint32_t mem_type(uint32_t pvh_type)
{
	switch (pvh_type) {
	case PVH_MEM_RAM:      return BI_MEM_USABLE;
	case PVH_MEM_ACPI:     return BI_MEM_ACPI_RECLAIM;
	case PVH_MEM_NVS:      return BI_MEM_ACPI_NVS;
	case PVH_MEM_UNUSABLE: return BI_MEM_UNUSABLE;
	default:               return BI_MEM_RESERVED;   /* reserved, disabled, PMEM, unknown */
	}
}

static int take_memmap(struct bi_builder *b, const struct pvh_start_info *si)
{
	uint32_t n = si->memmap_entries;
	if (n == 0 || n > BI_MMAP_MAX) {
		bp_snprintf(b->err, b->errlen, "memory map of %u entries (1..%u taken)", n, BI_MMAP_MAX);
		return -1;
	}
	const uint8_t *map = table_at(b, "memory map", si->memmap_paddr, n, sizeof(struct pvh_memmap_entry));
	if (!map)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		struct pvh_memmap_entry e;
		memcpy(&e, map + (size_t)i * sizeof(e), sizeof(e));
		if (e.addr + e.size < e.addr) {
			bp_snprintf(b->err, b->errlen, "memory map entry %u (0x%llx+0x%llx) wraps the "
				    "address space", i, (unsigned long long)e.addr,
				    (unsigned long long)e.size);
			return -1;
		}
		if (bib_add_range(b, e.addr, e.size, mem_type(e.type)))
			return -1;
	}
	return 0;
}

/* A module's name: its string, or for a nameless first module (QEMU's -initrd) the
 * configuration's; "" for a later nameless one. */
static int module_name(struct bi_builder *b, const struct pvh_module *m, uint32_t i,
		       char *name, size_t len)
{
	if (!m->cmdline_paddr) {
		str_copy(name, i == 0 ? BIB_CONFIG_MODULE : "", len);
		return 0;
	}
	long n = string_at(b, "module name", m->cmdline_paddr, PVH_NAME_MAX);
	if (n < 0)
		return -1;
	str_copy(name, bib_phys(b, m->cmdline_paddr), len);
	return 0;
}

static int take_modules(struct bi_builder *b, const struct pvh_start_info *si)
{
	uint32_t n = si->nr_modules;
	if (n == 0)
		return 0;
	if (n > BIB_MODULES_MAX) {
		bp_snprintf(b->err, b->errlen, "%u modules (at most %u)", n, BIB_MODULES_MAX);
		return -1;
	}
	const uint8_t *list = table_at(b, "module list", si->modlist_paddr, n, sizeof(struct pvh_module));
	if (!list)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		struct pvh_module m;
		char name[PVH_NAME_MAX];
		memcpy(&m, list + (size_t)i * sizeof(m), sizeof(m));
		if (module_name(b, &m, i, name, sizeof(name)))
			return -1;
		if (m.size && !below_limit(b, "module", m.paddr, m.size))
			return -1;
		if (!name[0]) {
			bib_note(b->bi, "a module without a name ignored");
			if (bib_add_range(b, m.paddr, m.size, BI_MEM_LOADER))
				return -1;
			continue;
		}
		if (bib_module(b, name, m.paddr, m.paddr + m.size))
			return -1;
	}
	return 0;
}

/* The RSDP where the loader says, checked by its signature; one that is not is left out
 * with a note (the kernel then runs without ACPI, as on a machine without it). */
static int take_rsdp(struct bi_builder *b, uint64_t phys)
{
	if (!phys)
		return 0;
	if (!below_limit(b, "RSDP", phys, ACPI_RSDP_V2_LEN))
		return -1;
	const uint8_t *r = bib_phys(b, phys);
	if (memcmp(r, ACPI_RSDP_SIGNATURE, 8) != 0) {
		bib_note(b->bi, "no RSDP signature where the PVH start information points: ACPI not used");
		return 0;
	}
	bool v2 = r[ACPI_RSDP_OFF_REVISION] >= ACPI_RSDP_REV_XSDT;
	b->bi->rsdp = phys;
	b->bi->rsdp_revision = v2 ? ACPI_RSDP_REV_XSDT : 0;     /* boot_info: 0 or 2 */
	return bib_add_range(b, phys, v2 ? ACPI_RSDP_V2_LEN : ACPI_RSDP_V1_LEN, BI_MEM_LOADER);
}

int pvh_fill_boot_info(const struct boot_source *src, struct boot_info *bi, char *err, size_t errlen)
{
	struct bi_builder *b = &builder;
	struct pvh_start_info si;

	bib_begin(b, src, bi, err, errlen);
	bi->protocol = BI_PROTOCOL_PVH;
	if (!below_limit(b, "start information", src->info_phys, sizeof(si)))
		return -1;
	memcpy(&si, bib_phys(b, src->info_phys), sizeof(si));
	if (si.magic != PVH_START_MAGIC) {
		bp_snprintf(err, errlen, "start information has magic 0x%08x, not 0x%08x", si.magic,
			    PVH_START_MAGIC);
		return -1;
	}
	if (si.version < PVH_VERSION_MEMMAP) {
		bp_snprintf(err, errlen, "start information version %u has no memory map (version %u "
			    "or later needed)", si.version, PVH_VERSION_MEMMAP);
		return -1;
	}
	if (bib_add_range(b, src->info_phys, sizeof(si), BI_MEM_LOADER) || take_memmap(b, &si) ||
	    take_modules(b, &si) || take_rsdp(b, si.rsdp_paddr))
		return -1;
	if (si.cmdline_paddr) {
		long len = string_at(b, "command line", si.cmdline_paddr, PVH_CMDLINE_MAX);
		if (len < 0)
			return -1;
		bib_cmdline(b, bib_phys(b, si.cmdline_paddr), (size_t)len);
	}
	return bib_finish(b);
}
