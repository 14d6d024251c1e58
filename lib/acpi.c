/*
 * RSDP -> RSDT/XSDT -> MADT, read through a callback (lib/acpi.h). ACPI 6.5: 5.2.5.3
 * (RSDP structure), 5.2.6 (system description table header), 5.2.7 (RSDT), 5.2.8
 * (XSDT), 5.2.12 (MADT), 5.2.12.2 (Processor Local APIC), 5.2.12.8 (Local APIC Address
 * Override), 5.2.12.12 (Processor Local x2APIC). Nothing here trusts a length or an
 * address it has not checked: the firmware's tables are outside input.
 */
#include "lib/acpi.h"
#include "lib/format.h"
#include "lib/str.h"
#include "lib/util.h"

/* 5.2.5.3 RSDP structure (its size, signature and revision: lib/acpi.h): the checksum
 * covers the first 20 bytes (the ACPI 1.0 part), the extended checksum the whole `length`
 * bytes (revision 2 and later). */
#define ACPI_RSDP_OFF_RSDT       16      /* 32-bit physical address */
#define ACPI_RSDP_OFF_LENGTH     20
#define ACPI_RSDP_OFF_XSDT       24      /* 64-bit physical address */

/* 5.2.6 system description table header, common to every SDT. */
#define ACPI_SDT_HEADER_LEN      36
#define ACPI_SDT_OFF_LENGTH      4
#define ACPI_SDT_OFF_REVISION    8
/* No table bareperf reads comes near this; a larger length is a corrupt header. */
#define ACPI_SDT_MAX_LEN         0x100000u

/* 5.2.12 MADT: after the header, the Local Interrupt Controller Address and Flags,
 * then the interrupt controller structures, each starting with type and length. */
#define ACPI_MADT_OFF_LAPIC_ADDR 36
#define ACPI_MADT_OFF_FLAGS      40
#define ACPI_MADT_OFF_ENTRIES    44
#define ACPI_MADT_PCAT_COMPAT    (1u << 0)

#define MADT_TYPE_LOCAL_APIC     0       /* 5.2.12.2, length 8 */
#define MADT_TYPE_LAPIC_OVERRIDE 5       /* 5.2.12.8, length 12 */
#define MADT_TYPE_LOCAL_X2APIC   9       /* 5.2.12.12, length 16 */
#define MADT_LOCAL_APIC_LEN      8       /* UID at 2, APIC ID at 3, flags at 4 */
#define MADT_LAPIC_OVERRIDE_LEN  12      /* 64-bit address at 4 */
#define MADT_LOCAL_X2APIC_LEN    16      /* x2APIC ID at 4, flags at 8, UID at 12 */
#define MADT_ENTRY_MAX_LEN       255     /* the length field is one byte */

/* 5.2.12.2 Local APIC Flags (also used by the x2APIC structure). Online Capable came
 * with MADT revision 5 (ACPI 6.3) and means something only while Enabled is clear. */
#define ACPI_LAPIC_ENABLED        (1u << 0)
#define ACPI_LAPIC_ONLINE_CAPABLE (1u << 1)
#define ACPI_MADT_REV_ONLINE_CAPABLE 5

#define CHECKSUM_CHUNK 64

struct acpi_src {
	acpi_read_fn rd;
	void *ctx;
};

/* A signature byte fit for a message. */
static char printable(uint8_t c)
{
	return c >= 0x20 && c < 0x7F ? (char)c : '?';
}

static uint32_t get_u32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get_u64(const uint8_t *p)
{
	return (uint64_t)get_u32(p) | (uint64_t)get_u32(p + 4) << 32;
}

/* A read that never asks for a range wrapping past the top of the address space. */
static bool src_read(const struct acpi_src *s, uint64_t phys, void *buf, uint32_t len)
{
	if (phys > UINT64_MAX - len)
		return false;
	return s->rd(s->ctx, phys, buf, len);
}

/* Sum of len bytes at phys, read in chunks (the kernel has no room for a whole table). */
static bool sum_bytes(const struct acpi_src *s, uint64_t phys, uint32_t len, uint8_t *sum)
{
	uint8_t chunk[CHECKSUM_CHUNK];
	uint8_t acc = 0;

	for (uint32_t done = 0; done < len;) {
		uint32_t n = len - done < CHECKSUM_CHUNK ? len - done : CHECKSUM_CHUNK;
		if (!src_read(s, phys + done, chunk, n))
			return false;
		for (uint32_t i = 0; i < n; i++)
			acc = (uint8_t)(acc + chunk[i]);
		done += n;
	}
	*sum = acc;
	return true;
}

/* Which root table the RSDP names: the XSDT (8-byte entries) or the RSDT (4-byte). */
struct acpi_root {
	uint64_t xsdt, rsdt;            /* 0 when not usable */
};

static int read_rsdp(const struct acpi_src *s, uint64_t rsdp, unsigned rsdp_revision,
		     struct acpi_root *root, char *err, size_t errlen)
{
	uint8_t b[ACPI_RSDP_V2_LEN];
	uint8_t sum;

	if (rsdp == 0)
		return fmt_error(err, errlen, "no RSDP: the loader found no ACPI tables");
	if (!src_read(s, rsdp, b, ACPI_RSDP_V1_LEN))
		return fmt_error(err, errlen, "RSDP at 0x%llx cannot be read", (unsigned long long)rsdp);
	if (memcmp(b, ACPI_RSDP_SIGNATURE, 8) != 0)
		return fmt_error(err, errlen, "RSDP at 0x%llx has no \"RSD PTR \" signature",
				 (unsigned long long)rsdp);
	sum = 0;
	for (unsigned i = 0; i < ACPI_RSDP_V1_LEN; i++)
		sum = (uint8_t)(sum + b[i]);
	if (sum != 0)
		return fmt_error(err, errlen, "RSDP checksum 0x%02x wrong: the first %u bytes sum "
				 "to 0x%02x, not 0", b[8], ACPI_RSDP_V1_LEN, sum);
	root->rsdt = get_u32(b + ACPI_RSDP_OFF_RSDT);
	root->xsdt = 0;

	/* The 2.0 fields exist only where both the loader and the RSDP itself say so. */
	if (rsdp_revision >= ACPI_RSDP_REV_XSDT && b[ACPI_RSDP_OFF_REVISION] >= ACPI_RSDP_REV_XSDT) {
		uint32_t len;
		if (!src_read(s, rsdp + ACPI_RSDP_V1_LEN, b + ACPI_RSDP_V1_LEN,
			      ACPI_RSDP_V2_LEN - ACPI_RSDP_V1_LEN))
			return fmt_error(err, errlen, "RSDP at 0x%llx: revision %u fields cannot be read",
					 (unsigned long long)rsdp, b[ACPI_RSDP_OFF_REVISION]);
		len = get_u32(b + ACPI_RSDP_OFF_LENGTH);
		if (len < ACPI_RSDP_V2_LEN || len > ACPI_SDT_MAX_LEN)
			return fmt_error(err, errlen, "RSDP length %u out of range (%u..%u)",
					 len, ACPI_RSDP_V2_LEN, ACPI_SDT_MAX_LEN);
		if (!sum_bytes(s, rsdp, len, &sum))
			return fmt_error(err, errlen, "RSDP at 0x%llx: its %u bytes cannot be read",
					 (unsigned long long)rsdp, len);
		if (sum != 0)
			return fmt_error(err, errlen, "RSDP extended checksum 0x%02x wrong: the %u "
					 "bytes sum to 0x%02x, not 0", b[32], len, sum);
		root->xsdt = get_u64(b + ACPI_RSDP_OFF_XSDT);
	}
	if (root->xsdt == 0 && root->rsdt == 0)
		return fmt_error(err, errlen, "RSDP names neither an RSDT nor an XSDT");
	return 0;
}

/* Check the header at phys: signature sig, a length from 36 to 1 MiB, a zero checksum
 * over that length. The header goes to hdr, the length to *len. Messages call the
 * table name ("MADT" for the table signed "APIC"). */
static int check_sdt(const struct acpi_src *s, uint64_t phys, const char *name, const char *sig,
		     uint8_t hdr[ACPI_SDT_HEADER_LEN], uint32_t *len, char *err, size_t errlen)
{
	uint8_t sum;

	if (!src_read(s, phys, hdr, ACPI_SDT_HEADER_LEN))
		return fmt_error(err, errlen, "%s at 0x%llx cannot be read", name,
				 (unsigned long long)phys);
	if (memcmp(hdr, sig, 4) != 0)
		return fmt_error(err, errlen, "%s at 0x%llx has signature \"%c%c%c%c\"", name,
				 (unsigned long long)phys, printable(hdr[0]), printable(hdr[1]),
				 printable(hdr[2]), printable(hdr[3]));
	*len = get_u32(hdr + ACPI_SDT_OFF_LENGTH);
	if (*len < ACPI_SDT_HEADER_LEN || *len > ACPI_SDT_MAX_LEN)
		return fmt_error(err, errlen, "%s at 0x%llx: length 0x%x out of range (0x%x..0x%x)",
				 name, (unsigned long long)phys, *len, ACPI_SDT_HEADER_LEN,
				 ACPI_SDT_MAX_LEN);
	if (!sum_bytes(s, phys, *len, &sum))
		return fmt_error(err, errlen, "%s at 0x%llx: its 0x%x bytes cannot be read", name,
				 (unsigned long long)phys, *len);
	if (sum != 0)
		return fmt_error(err, errlen, "%s at 0x%llx: checksum 0x%02x wrong (the 0x%x bytes "
				 "sum to 0x%02x, not 0)", name, (unsigned long long)phys, hdr[9],
				 *len, sum);
	return 0;
}

/* Walk the root table (RSDT or XSDT) at phys for the first table signed sig (called
 * name in messages). Entries that cannot be read or carry another signature are skipped;
 * the table found must then pass check_sdt itself. */
static int find_table(const struct acpi_src *s, uint64_t phys, bool xsdt, const char *sig_want,
		      const char *table_name, uint64_t *found, char *err, size_t errlen)
{
	const char *name = xsdt ? "XSDT" : "RSDT";
	const uint32_t entry_len = xsdt ? 8 : 4;
	uint8_t hdr[ACPI_SDT_HEADER_LEN];
	uint32_t len, count;

	if (check_sdt(s, phys, name, name, hdr, &len, err, errlen) != 0)
		return -1;
	/* A partial entry at the end (a length not a multiple of entry_len) is not read. */
	count = (len - ACPI_SDT_HEADER_LEN) / entry_len;
	for (uint32_t i = 0; i < count; i++) {
		uint8_t e[8], sig[4];
		uint64_t table;

		if (!src_read(s, phys + ACPI_SDT_HEADER_LEN + (uint64_t)i * entry_len, e, entry_len))
			return fmt_error(err, errlen, "%s at 0x%llx: entry %u cannot be read", name,
					 (unsigned long long)phys, i);
		table = xsdt ? get_u64(e) : get_u32(e);
		if (table == 0 || !src_read(s, table, sig, sizeof(sig)))
			continue;
		if (memcmp(sig, sig_want, 4) == 0) {
			*found = table;
			return 0;
		}
	}
	return fmt_error(err, errlen, "no %s (\"%s\") among the %u entries of the %s at 0x%llx",
			 table_name, sig_want, count, name, (unsigned long long)phys);
}

/* Add a processor unless its APIC ID is already listed (firmware may describe one CPU
 * by both a Local APIC and a Local x2APIC structure: the first one wins). */
static void add_cpu(struct acpi_madt_info *out, const struct acpi_cpu *c)
{
	for (unsigned i = 0; i < out->ncpus; i++)
		if (out->cpu[i].apic_id == c->apic_id)
			return;
	if (out->ncpus == ACPI_MAX_CPUS) {
		out->dropped++;
		return;
	}
	out->cpu[out->ncpus++] = *c;
}

static void set_flags(struct acpi_cpu *c, uint32_t flags, unsigned madt_revision)
{
	c->enabled = (flags & ACPI_LAPIC_ENABLED) != 0;
	c->online_capable = !c->enabled && madt_revision >= ACPI_MADT_REV_ONLINE_CAPABLE &&
			    (flags & ACPI_LAPIC_ONLINE_CAPABLE) != 0;
}

/* The structure types bareperf reads, with the length each must have at least. */
static const struct { uint8_t type, min_len; const char *name; } madt_types[] = {
	{ MADT_TYPE_LOCAL_APIC, MADT_LOCAL_APIC_LEN, "Processor Local APIC" },
	{ MADT_TYPE_LAPIC_OVERRIDE, MADT_LAPIC_OVERRIDE_LEN, "Local APIC Address Override" },
	{ MADT_TYPE_LOCAL_X2APIC, MADT_LOCAL_X2APIC_LEN, "Processor Local x2APIC" },
};

/* One interrupt controller structure, e[0..len), at offset off of the MADT. */
static int madt_entry(const uint8_t *e, uint32_t off, unsigned madt_revision,
		      struct acpi_madt_info *out, char *err, size_t errlen)
{
	struct acpi_cpu c = { 0 };

	for (unsigned i = 0; i < ARRAY_SIZE(madt_types); i++)
		if (madt_types[i].type == e[0] && e[1] < madt_types[i].min_len)
			return fmt_error(err, errlen, "MADT %s at offset 0x%x has length %u, "
					 "expected %u", madt_types[i].name, off, e[1],
					 madt_types[i].min_len);
	switch (e[0]) {
	case MADT_TYPE_LOCAL_APIC:
		c.uid = e[2];
		c.apic_id = e[3];
		set_flags(&c, get_u32(e + 4), madt_revision);
		add_cpu(out, &c);
		break;
	case MADT_TYPE_LOCAL_X2APIC:
		c.apic_id = get_u32(e + 4);
		set_flags(&c, get_u32(e + 8), madt_revision);
		c.uid = get_u32(e + 12);
		c.x2apic_entry = true;
		add_cpu(out, &c);
		break;
	case MADT_TYPE_LAPIC_OVERRIDE:
		out->lapic_phys = get_u64(e + 4);
		break;
	default:
		break;          /* I/O APICs, NMIs, overrides of ISA IRQs: not ours */
	}
	return 0;
}

/* The MADT at phys, checked, into out. */
static int parse_madt(const struct acpi_src *s, uint64_t phys, struct acpi_madt_info *out,
		      char *err, size_t errlen)
{
	uint8_t hdr[ACPI_SDT_HEADER_LEN], fixed[8], e[MADT_ENTRY_MAX_LEN];
	uint32_t len, off, e_len;

	if (check_sdt(s, phys, "MADT", "APIC", hdr, &len, err, errlen) != 0)
		return -1;
	if (len < ACPI_MADT_OFF_ENTRIES)
		return fmt_error(err, errlen, "MADT length 0x%x too short for its fixed fields "
				 "(0x%x)", len, ACPI_MADT_OFF_ENTRIES);
	if (!src_read(s, phys + ACPI_MADT_OFF_LAPIC_ADDR, fixed, sizeof(fixed)))
		return fmt_error(err, errlen, "MADT at 0x%llx: fixed fields cannot be read",
				 (unsigned long long)phys);
	out->lapic_phys = get_u32(fixed);
	out->pcat_compat = (get_u32(fixed + 4) & ACPI_MADT_PCAT_COMPAT) != 0;

	for (off = ACPI_MADT_OFF_ENTRIES; off < len; off += e_len) {
		if (len - off < 2)
			return fmt_error(err, errlen, "MADT entry at offset 0x%x: its type and length "
					 "run past the table end (0x%x)", off, len);
		if (!src_read(s, phys + off, e, 2))
			return fmt_error(err, errlen, "MADT entry at offset 0x%x cannot be read", off);
		e_len = e[1];
		if (e_len < 2)
			return fmt_error(err, errlen, "MADT entry at offset 0x%x has length %u",
					 off, e_len);
		if (e_len > len - off)
			return fmt_error(err, errlen, "MADT entry at offset 0x%x (type %u, length %u) "
					 "runs past the table end (0x%x)", off, e[0], e_len, len);
		if (!src_read(s, phys + off, e, e_len))
			return fmt_error(err, errlen, "MADT entry at offset 0x%x cannot be read", off);
		e[1] = (uint8_t)e_len;  /* what was checked, whatever a second read said */
		if (madt_entry(e, off, hdr[ACPI_SDT_OFF_REVISION], out, err, errlen) != 0)
			return -1;
	}
	return 0;
}

static int madt_from_root(const struct acpi_src *s, uint64_t root, bool xsdt,
			  struct acpi_madt_info *out, char *err, size_t errlen)
{
	uint64_t madt;

	if (find_table(s, root, xsdt, "APIC", "MADT", &madt, err, errlen) != 0)
		return -1;
	return parse_madt(s, madt, out, err, errlen);
}

int acpi_read_madt(acpi_read_fn rd, void *ctx, uint64_t rsdp, unsigned rsdp_revision,
		   struct acpi_madt_info *out, char *err, size_t errlen)
{
	const struct acpi_src s = { rd, ctx };
	struct acpi_root root = { 0, 0 };
	char xsdt_err[160];

	memset(out, 0, sizeof(*out));
	if (read_rsdp(&s, rsdp, rsdp_revision, &root, err, errlen) != 0)
		return -1;
	if (root.xsdt != 0) {
		if (madt_from_root(&s, root.xsdt, true, out, xsdt_err, sizeof(xsdt_err)) == 0)
			return 0;
		/* A broken XSDT with a usable RSDT beside it: ACPICA falls back too. */
		memset(out, 0, sizeof(*out));
		if (root.rsdt == 0)
			return fmt_error(err, errlen, "%s", xsdt_err);
		if (madt_from_root(&s, root.rsdt, false, out, err, errlen) == 0)
			return 0;
		memset(out, 0, sizeof(*out));
		return fmt_error(err, errlen, "%s; the RSDT fails too", xsdt_err);
	}
	if (madt_from_root(&s, root.rsdt, false, out, err, errlen) == 0)
		return 0;
	memset(out, 0, sizeof(*out));
	return -1;
}

/* ---- MCFG: PCI Firmware Specification 3.0, 4.1.2, Table 4-3 (the table) and 4-4 (one
 * configuration space base address allocation structure) */
#define MCFG_OFF_ENTRIES        44      /* after the header and 8 reserved bytes */
#define MCFG_ENTRY_LEN          16
#define MCFG_ENTRY_OFF_BASE     0       /* 64-bit: the ECAM address of bus 0 of the segment */
#define MCFG_ENTRY_OFF_SEGMENT  8
#define MCFG_ENTRY_OFF_BUS_START 10
#define MCFG_ENTRY_OFF_BUS_END  11
#define ECAM_BUS_BYTES          0x100000ull     /* 32 devices x 8 functions x 4 KiB */

static int mcfg_entry(const uint8_t *e, unsigned i, struct acpi_mcfg_info *out, char *err, size_t errlen)
{
	struct acpi_mcfg_segment seg = {
		.base = get_u64(e + MCFG_ENTRY_OFF_BASE),
		.segment = (uint16_t)(e[MCFG_ENTRY_OFF_SEGMENT] | e[MCFG_ENTRY_OFF_SEGMENT + 1] << 8),
		.bus_start = e[MCFG_ENTRY_OFF_BUS_START],
		.bus_end = e[MCFG_ENTRY_OFF_BUS_END],
	};

	if (seg.bus_start > seg.bus_end)
		return fmt_error(err, errlen, "MCFG entry %u: buses %u..%u are backwards", i, seg.bus_start,
				 seg.bus_end);
	if (seg.base == 0 || seg.base % ECAM_BUS_BYTES != 0)
		return fmt_error(err, errlen, "MCFG entry %u: base 0x%llx is not a 1 MiB-aligned address", i,
				 (unsigned long long)seg.base);
	if (out->nsegments == ACPI_MCFG_MAX) {
		out->dropped++;
		return 0;
	}
	out->seg[out->nsegments++] = seg;
	return 0;
}

static int parse_mcfg(const struct acpi_src *s, uint64_t phys, struct acpi_mcfg_info *out,
		      char *err, size_t errlen)
{
	uint8_t hdr[ACPI_SDT_HEADER_LEN], e[MCFG_ENTRY_LEN];
	uint32_t len;

	if (check_sdt(s, phys, "MCFG", "MCFG", hdr, &len, err, errlen) != 0)
		return -1;
	if (len < MCFG_OFF_ENTRIES || (len - MCFG_OFF_ENTRIES) % MCFG_ENTRY_LEN != 0)
		return fmt_error(err, errlen, "MCFG length 0x%x is not 44 + 16 per entry", len);
	for (unsigned i = 0; i < (len - MCFG_OFF_ENTRIES) / MCFG_ENTRY_LEN; i++) {
		if (!src_read(s, phys + MCFG_OFF_ENTRIES + (uint64_t)i * MCFG_ENTRY_LEN, e, sizeof(e)))
			return fmt_error(err, errlen, "MCFG entry %u cannot be read", i);
		if (mcfg_entry(e, i, out, err, errlen) != 0)
			return -1;
	}
	return 0;
}

int acpi_read_mcfg(acpi_read_fn rd, void *ctx, uint64_t rsdp, unsigned rsdp_revision,
		   struct acpi_mcfg_info *out, char *err, size_t errlen)
{
	const struct acpi_src s = { rd, ctx };
	struct acpi_root root = { 0, 0 };
	uint64_t mcfg;

	memset(out, 0, sizeof(*out));
	if (read_rsdp(&s, rsdp, rsdp_revision, &root, err, errlen) != 0)
		return -1;
	/* The XSDT where there is one, as for the MADT; the RSDT when it has no MCFG. */
	if (!(root.xsdt && find_table(&s, root.xsdt, true, "MCFG", "MCFG", &mcfg, err, errlen) == 0) &&
	    !(root.rsdt && find_table(&s, root.rsdt, false, "MCFG", "MCFG", &mcfg, err, errlen) == 0))
		return -1;
	if (parse_mcfg(&s, mcfg, out, err, errlen) == 0)
		return 0;
	memset(out, 0, sizeof(*out));
	return -1;
}

/* ---- SPCR: Microsoft Serial Port Console Redirection Table, revision 2 (the layout
 * revisions 3 and 4 keep for these fields); ACPI 6.5 5.2.3.2 (Generic Address Structure).
 * Interface types are the DBG2 serial port subtypes (Microsoft DBG2, Table 3). */
#define SPCR_OFF_INTERFACE      36
#define SPCR_OFF_BASE           40      /* 12-byte Generic Address Structure */
#define SPCR_OFF_BAUD           58
#define SPCR_OFF_PCI_DEVICE_ID  64
#define SPCR_OFF_PCI_VENDOR_ID  66
#define SPCR_OFF_PCI_BUS        68
#define SPCR_OFF_PCI_DEV        69
#define SPCR_OFF_PCI_FN         70
#define SPCR_OFF_PCI_SEGMENT    75
#define SPCR_MIN_LEN            80      /* revision 2's whole table */
#define SPCR_PCI_NONE           0xffffu /* PCI device ID of a UART that is not a PCI function */

#define GAS_OFF_SPACE           0
#define GAS_OFF_BIT_WIDTH       1
#define GAS_OFF_ACCESS_SIZE     3
#define GAS_OFF_ADDRESS         4
#define GAS_SPACE_MEMORY        0
#define GAS_SPACE_IO            1
#define GAS_ACCESS_UNDEFINED    0       /* legacy: the register width says */
#define GAS_ACCESS_BYTE         1
#define GAS_ACCESS_DWORD        3
#define IO_PORT_LAST            0xffffu
#define UART_REGS               8       /* the 16550's registers 0..7 */

/* SPCR Configured Baud Rate codes; 0 keeps what the firmware set. */
static const struct { uint8_t code; uint32_t baud; } spcr_bauds[] = {
	{ 0, 0 }, { 3, 9600 }, { 4, 19200 }, { 6, 57600 }, { 7, 115200 },
};

static const char *const gas_spaces[] = {
	"system memory", "system I/O", "PCI configuration space", "embedded controller",
	"SMBus", "SystemCMOS", "PCI BAR target", "IPMI", "general-purpose I/O",
	"generic serial bus", "platform communications channel",
};

/* Register stride and access size from the Generic Address Structure g: 8-bit registers
 * side by side, or 32-bit ones 4 bytes apart, as Linux's earlycon mmio and mmio32. */
static int spcr_registers(const uint8_t *g, struct acpi_spcr_info *out, char *err, size_t errlen)
{
	uint8_t width = g[GAS_OFF_BIT_WIDTH], access = g[GAS_OFF_ACCESS_SIZE];

	switch (width) {
	case 0: case 8:  out->reg_shift = 0; break;
	case 16:         out->reg_shift = 1; break;
	case 32:         out->reg_shift = 2; break;
	default:
		return fmt_error(err, errlen, "SPCR: register bit width %u (bareperf takes 8, 16 "
				 "or 32)", width);
	}
	if (access == GAS_ACCESS_UNDEFINED)
		access = width == 32 ? GAS_ACCESS_DWORD : GAS_ACCESS_BYTE;
	if (access != GAS_ACCESS_BYTE && access != GAS_ACCESS_DWORD)
		return fmt_error(err, errlen, "SPCR: access size %u (bareperf takes 1 = byte or "
				 "3 = dword)", access);
	out->access_bytes = access == GAS_ACCESS_DWORD ? 4 : 1;
	if (out->access_bytes > 1u << out->reg_shift)
		return fmt_error(err, errlen, "SPCR: %u-byte accesses to registers %u bytes apart",
				 out->access_bytes, 1u << out->reg_shift);
	return 0;
}

static int spcr_address(const uint8_t *g, struct acpi_spcr_info *out, char *err, size_t errlen)
{
	uint8_t space = g[GAS_OFF_SPACE];

	out->address = get_u64(g + GAS_OFF_ADDRESS);
	if (space != GAS_SPACE_MEMORY && space != GAS_SPACE_IO)
		return fmt_error(err, errlen, "SPCR: the UART is in address space %u (%s), not "
				 "system memory or I/O", space,
				 space < ARRAY_SIZE(gas_spaces) ? gas_spaces[space] : "unknown");
	out->mmio = space == GAS_SPACE_MEMORY;
	/* The spec: a zero address means console redirection is disabled. */
	if (out->address == 0)
		return fmt_error(err, errlen, "SPCR: base address 0 (console redirection disabled)");
	if (spcr_registers(g, out, err, errlen) != 0)
		return -1;
	if (!out->mmio && (out->reg_shift != 0 || out->access_bytes != 1))
		return fmt_error(err, errlen, "SPCR: an I/O-port UART with %u-byte registers",
				 1u << out->reg_shift);
	if (!out->mmio && out->address > IO_PORT_LAST - (UART_REGS - 1))
		return fmt_error(err, errlen, "SPCR: I/O port 0x%llx is past 0x%x",
				 (unsigned long long)out->address, IO_PORT_LAST - (UART_REGS - 1));
	return 0;
}

static int parse_spcr(const struct acpi_src *s, uint64_t phys, struct acpi_spcr_info *out,
		      char *err, size_t errlen)
{
	uint8_t t[SPCR_MIN_LEN];
	uint32_t len;
	unsigned i;

	if (check_sdt(s, phys, "SPCR", "SPCR", t, &len, err, errlen) != 0)
		return -1;
	if (len < SPCR_MIN_LEN)
		return fmt_error(err, errlen, "SPCR length 0x%x too short for its fields (0x%x)",
				 len, SPCR_MIN_LEN);
	if (!src_read(s, phys, t, sizeof(t)))
		return fmt_error(err, errlen, "SPCR at 0x%llx cannot be read", (unsigned long long)phys);
	out->revision = t[ACPI_SDT_OFF_REVISION];
	out->interface_type = t[SPCR_OFF_INTERFACE];
	if (out->interface_type != ACPI_SPCR_16550 && out->interface_type != ACPI_SPCR_16450 &&
	    out->interface_type != ACPI_SPCR_16550_GAS)
		return fmt_error(err, errlen, "SPCR: interface type 0x%02x is no 16550 (0x00, 0x01 "
				 "or 0x12)", out->interface_type);
	if (spcr_address(t + SPCR_OFF_BASE, out, err, errlen) != 0)
		return -1;
	for (i = 0; i < ARRAY_SIZE(spcr_bauds) && spcr_bauds[i].code != t[SPCR_OFF_BAUD]; i++)
		;
	if (i == ARRAY_SIZE(spcr_bauds))
		return fmt_error(err, errlen, "SPCR: baud rate code %u unknown (0, 3, 4, 6 or 7)",
				 t[SPCR_OFF_BAUD]);
	out->baud = spcr_bauds[i].baud;
	out->pci_device = (uint16_t)(t[SPCR_OFF_PCI_DEVICE_ID] | t[SPCR_OFF_PCI_DEVICE_ID + 1] << 8);
	out->pci_vendor = (uint16_t)(t[SPCR_OFF_PCI_VENDOR_ID] | t[SPCR_OFF_PCI_VENDOR_ID + 1] << 8);
	out->pci = out->pci_device != SPCR_PCI_NONE;
	out->pci_bus = t[SPCR_OFF_PCI_BUS];
	out->pci_dev = t[SPCR_OFF_PCI_DEV];
	out->pci_fn = t[SPCR_OFF_PCI_FN];
	out->pci_segment = t[SPCR_OFF_PCI_SEGMENT];
	return 0;
}

int acpi_read_spcr(acpi_read_fn rd, void *ctx, uint64_t rsdp, unsigned rsdp_revision,
		   struct acpi_spcr_info *out, char *err, size_t errlen)
{
	const struct acpi_src s = { rd, ctx };
	struct acpi_root root = { 0, 0 };
	uint64_t spcr;

	memset(out, 0, sizeof(*out));
	if (read_rsdp(&s, rsdp, rsdp_revision, &root, err, errlen) != 0)
		return -1;
	if (!(root.xsdt && find_table(&s, root.xsdt, true, "SPCR", "SPCR", &spcr, err, errlen) == 0) &&
	    !(root.rsdt && find_table(&s, root.rsdt, false, "SPCR", "SPCR", &spcr, err, errlen) == 0))
		return 1;
	if (parse_spcr(&s, spcr, out, err, errlen) == 0)
		return 0;
	memset(out, 0, sizeof(*out));
	return -1;
}
