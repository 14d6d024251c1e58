/*
 * The MADT reader (lib/acpi.c) over tables built byte by byte in a small model of
 * physical memory: good RSDT and XSDT paths, the revision rules that pick between them,
 * Local APIC, x2APIC and override entries, flags, duplicates, the ACPI_MAX_CPUS cap,
 * and every check on the way (signatures, checksums, lengths, entries, reads that fail).
 * Layouts: ACPI 6.5 5.2.5.3 (RSDP), 5.2.6 (header), 5.2.7/5.2.8 (RSDT/XSDT), 5.2.12 (MADT);
 * the MCFG (PCI Firmware 3.0, 4.1.2) and the SPCR (Microsoft SPCR, revision 2).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "lib/acpi.h"

/* ------------------------------------------------------------------ memory model */

#define LOW_BASE  0x000E0000u         /* where BIOS tables live */
#define LOW_SIZE  0x10000u
#define HIGH_BASE 0x100000000ull      /* above 4 GiB, for XSDT entries */
#define HIGH_SIZE 0x1000u

struct mem {
	uint8_t low[LOW_SIZE];
	uint8_t high[HIGH_SIZE];
	unsigned reads;
};

static uint8_t *at(struct mem *m, uint64_t phys)
{
	if (phys >= LOW_BASE && phys < LOW_BASE + LOW_SIZE)
		return m->low + (phys - LOW_BASE);
	if (phys >= HIGH_BASE && phys < HIGH_BASE + HIGH_SIZE)
		return m->high + (phys - HIGH_BASE);
	fail_msg("test wrote outside its memory model at 0x%llx", (unsigned long long)phys);
	return NULL;
}

static bool mem_read(void *ctx, uint64_t phys, void *buf, uint32_t len)
{
	struct mem *m = ctx;

	m->reads++;
	if (phys >= LOW_BASE && phys + len <= LOW_BASE + LOW_SIZE && phys + len >= phys) {
		memcpy(buf, m->low + (phys - LOW_BASE), len);
		return true;
	}
	if (phys >= HIGH_BASE && phys + len <= HIGH_BASE + HIGH_SIZE && phys + len >= phys) {
		memcpy(buf, m->high + (phys - HIGH_BASE), len);
		return true;
	}
	return false;
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

static uint8_t sum(const uint8_t *p, size_t n)
{
	uint8_t s = 0;

	while (n--)
		s = (uint8_t)(s + *p++);
	return s;
}

/* ------------------------------------------------------------------ table builders */

#define RSDP_AT   0x000E0000u
#define RSDT_AT   0x000E1000u
#define XSDT_AT   0x000E2000u
#define MADT_AT   0x000E3000u
#define MADT2_AT  0x000E5000u         /* a second MADT, to tell which root was used */
#define FACP_AT   0x000E7000u
#define SDT_HDR   36

static void rsdp(struct mem *m, uint8_t revision, uint32_t rsdt, uint64_t xsdt)
{
	uint8_t *p = at(m, RSDP_AT);

	memset(p, 0, 36);
	memcpy(p, "RSD PTR ", 8);
	memcpy(p + 9, "BAREPF", 6);
	p[15] = revision;
	put32(p + 16, rsdt);
	p[8] = (uint8_t)-sum(p, 20);
	if (revision >= 2) {
		put32(p + 20, 36);
		put64(p + 24, xsdt);
		p[32] = (uint8_t)-sum(p, 36);
	}
}

/* Header for a table of len bytes at phys (body already in place); checksum last. */
static void sdt(struct mem *m, uint64_t phys, const char *sig, uint8_t revision, uint32_t len)
{
	uint8_t *p = at(m, phys);

	memcpy(p, sig, 4);
	put32(p + 4, len);
	p[8] = revision;
	p[9] = 0;
	memcpy(p + 10, "BAREPF", 6);
	memcpy(p + 16, "TESTTABL", 8);
	p[9] = (uint8_t)-sum(p, len);
}

static void fix_checksum(struct mem *m, uint64_t phys)
{
	uint8_t *p = at(m, phys);
	uint32_t len = p[4] | p[5] << 8 | p[6] << 16 | (uint32_t)p[7] << 24;

	p[9] = 0;
	p[9] = (uint8_t)-sum(p, len);
}

static void rsdt(struct mem *m, const uint32_t *tables, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		put32(at(m, RSDT_AT + SDT_HDR + 4 * i), tables[i]);
	sdt(m, RSDT_AT, "RSDT", 1, SDT_HDR + 4 * n);
}

static void xsdt(struct mem *m, const uint64_t *tables, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		put64(at(m, XSDT_AT + SDT_HDR + 8 * i), tables[i]);
	sdt(m, XSDT_AT, "XSDT", 1, SDT_HDR + 8 * n);
}

/* A MADT under construction: entries are appended, then madt_end writes the header. */
struct madt {
	struct mem *m;
	uint64_t phys;
	uint32_t len;
};

static struct madt madt_begin(struct mem *m, uint64_t phys, uint32_t lapic, uint32_t flags)
{
	struct madt t = { m, phys, 44 };

	put32(at(m, phys + 36), lapic);
	put32(at(m, phys + 40), flags);
	return t;
}

static void madt_lapic(struct madt *t, uint8_t uid, uint8_t id, uint32_t flags)
{
	uint8_t *p = at(t->m, t->phys + t->len);

	p[0] = 0; p[1] = 8; p[2] = uid; p[3] = id;
	put32(p + 4, flags);
	t->len += 8;
}

static void madt_x2apic(struct madt *t, uint32_t id, uint32_t flags, uint32_t uid)
{
	uint8_t *p = at(t->m, t->phys + t->len);

	p[0] = 9; p[1] = 16; p[2] = p[3] = 0;
	put32(p + 4, id);
	put32(p + 8, flags);
	put32(p + 12, uid);
	t->len += 16;
}

static void madt_override(struct madt *t, uint64_t addr)
{
	uint8_t *p = at(t->m, t->phys + t->len);

	p[0] = 5; p[1] = 12; p[2] = p[3] = 0;
	put64(p + 4, addr);
	t->len += 12;
}

/* An I/O APIC (type 1, 12 bytes): to be skipped. */
static void madt_ioapic(struct madt *t)
{
	uint8_t *p = at(t->m, t->phys + t->len);

	p[0] = 1; p[1] = 12; p[2] = 2; p[3] = 0;
	put32(p + 4, 0xFEC00000u);
	put32(p + 8, 0);
	t->len += 12;
}

static void madt_raw(struct madt *t, const uint8_t *bytes, uint32_t n)
{
	memcpy(at(t->m, t->phys + t->len), bytes, n);
	t->len += n;
}

static void madt_end(struct madt *t, uint8_t revision)
{
	sdt(t->m, t->phys, "APIC", revision, t->len);
}

/* One memory, cleared for each machine: a failing check leaks nothing. */
static struct mem *mem_new(void)
{
	static struct mem the_mem;

	memset(&the_mem, 0, sizeof(the_mem));
	return &the_mem;
}

/* A FACP-like table, so the root has more than the MADT to look through. */
static void facp(struct mem *m)
{
	sdt(m, FACP_AT, "FACP", 6, 276);
}

/* The usual machine: RSDT -> FACP, MADT with two enabled CPUs and one disabled. */
static struct mem *machine_rsdt(void)
{
	struct mem *m = mem_new();
	const uint32_t tables[] = { FACP_AT, MADT_AT };
	struct madt t = madt_begin(m, MADT_AT, 0xFEE00000u, 1);

	madt_lapic(&t, 0, 0, 1);
	madt_ioapic(&t);
	madt_lapic(&t, 1, 2, 1);
	madt_lapic(&t, 2, 4, 0);
	madt_end(&t, 3);
	facp(m);
	rsdt(m, tables, 2);
	rsdp(m, 0, RSDT_AT, 0);
	return m;
}

static struct acpi_madt_info info;
static char err[200];

static int run(struct mem *m, unsigned revision)
{
	memset(&info, 0xA5, sizeof(info));
	strcpy(err, "(untouched)");
	return acpi_read_madt(mem_read, m, RSDP_AT, revision, &info, err, sizeof(err));
}

static void expect_ok(struct mem *m, unsigned revision)
{
	if (run(m, revision) != 0)
		fail_msg("acpi_read_madt failed: %s", err);
}

static void expect_err(struct mem *m, unsigned revision, const char *want)
{
	if (run(m, revision) == 0)
		fail_msg("acpi_read_madt accepted what should fail with \"%s\"", want);
	if (strstr(err, want) == NULL)
		fail_msg("error \"%s\" does not say \"%s\"", err, want);
}

/* ------------------------------------------------------------------ good tables */

static void test_good_rsdt(void **state)
{
	struct mem *m = machine_rsdt();

	(void)state;
	expect_ok(m, 0);
	assert_int_equal(info.lapic_phys, 0xFEE00000u);
	assert_true(info.pcat_compat);
	assert_int_equal(info.ncpus, 3);
	assert_int_equal(info.dropped, 0);
	assert_int_equal(info.cpu[0].apic_id, 0);
	assert_int_equal(info.cpu[1].apic_id, 2);
	assert_int_equal(info.cpu[1].uid, 1);
	assert_true(info.cpu[1].enabled);
	assert_false(info.cpu[1].x2apic_entry);
	assert_int_equal(info.cpu[2].apic_id, 4);
	assert_false(info.cpu[2].enabled);
	assert_false(info.cpu[2].online_capable);
}

/* RSDP revision 2 with both roots, each naming its own MADT: the XSDT's is read when
 * the loader and the RSDP both say 2.0, the RSDT's otherwise. */
static struct mem *machine_both_roots(uint64_t xsdt_madt)
{
	struct mem *m = machine_rsdt();            /* RSDT -> MADT with 3 CPUs */
	const uint64_t tables[] = { FACP_AT, xsdt_madt };
	struct madt t = madt_begin(m, xsdt_madt, 0xFEE00000u, 0);

	madt_lapic(&t, 7, 9, 1);
	madt_end(&t, 4);
	xsdt(m, tables, 2);
	rsdp(m, 2, RSDT_AT, XSDT_AT);
	return m;
}

static void test_good_xsdt_and_preferences(void **state)
{
	struct mem *m = machine_both_roots(MADT2_AT);

	(void)state;
	expect_ok(m, 2);
	assert_int_equal(info.ncpus, 1);
	assert_int_equal(info.cpu[0].apic_id, 9);
	assert_int_equal(info.cpu[0].uid, 7);
	assert_false(info.pcat_compat);

	/* The loader found only the ACPI 1.0 table: the RSDT, whatever the RSDP says. */
	expect_ok(m, 0);
	assert_int_equal(info.ncpus, 3);

	/* The loader says 2.0 but the RSDP is revision 0: it has no XSDT field. */
	rsdp(m, 0, RSDT_AT, 0);
	memset(at(m, RSDP_AT + 20), 0xFF, 16);       /* what lies beyond must not be read */
	expect_ok(m, 2);
	assert_int_equal(info.ncpus, 3);

	/* Revision 2 with a zero XSDT address: the RSDT. */
	rsdp(m, 2, RSDT_AT, 0);
	expect_ok(m, 2);
	assert_int_equal(info.ncpus, 3);

	/* Revision 2 with no RSDT: the XSDT alone is enough. */
	rsdp(m, 2, 0, XSDT_AT);
	expect_ok(m, 2);
	assert_int_equal(info.cpu[0].apic_id, 9);
}

/* XSDT entries are 64-bit: a MADT above 4 GiB is found. */
static void test_xsdt_high_madt(void **state)
{
	struct mem *m = machine_both_roots(HIGH_BASE + 0x100);

	(void)state;
	expect_ok(m, 2);
	assert_int_equal(info.ncpus, 1);
	assert_int_equal(info.cpu[0].apic_id, 9);
}

static void test_x2apic_override_duplicates(void **state)
{
	struct mem *m = mem_new();
	const uint32_t tables[] = { MADT_AT };
	struct madt t = madt_begin(m, MADT_AT, 0xFEE00000u, 1);

	(void)state;
	madt_lapic(&t, 0, 0, 1);
	madt_lapic(&t, 1, 1, 1);
	madt_x2apic(&t, 0x100, 1, 0x2000);
	madt_x2apic(&t, 1, 1, 99);                    /* CPU 1 again: dropped */
	madt_override(&t, 0x123456000ull);
	madt_x2apic(&t, 0xFFFFFFFEu, 0, 0xFFFFFFFFu);
	madt_lapic(&t, 5, 0x100 & 0xFF, 1);           /* APIC ID 0 again: dropped */
	madt_end(&t, 5);
	rsdt(m, tables, 1);
	rsdp(m, 0, RSDT_AT, 0);

	expect_ok(m, 0);
	assert_int_equal(info.lapic_phys, 0x123456000ull);
	assert_int_equal(info.ncpus, 4);
	assert_int_equal(info.dropped, 0);
	assert_int_equal(info.cpu[1].uid, 1);          /* the first entry for APIC ID 1 */
	assert_false(info.cpu[1].x2apic_entry);
	assert_int_equal(info.cpu[2].apic_id, 0x100);
	assert_int_equal(info.cpu[2].uid, 0x2000);
	assert_true(info.cpu[2].x2apic_entry);
	assert_true(info.cpu[2].enabled);
	assert_int_equal(info.cpu[3].apic_id, 0xFFFFFFFEu);
	assert_int_equal(info.cpu[3].uid, 0xFFFFFFFFu);
	assert_false(info.cpu[3].enabled);
}

/* Flags bit 1, Online Capable: only from MADT revision 5, only with Enabled clear. */
static void test_online_capable(void **state)
{
	static const struct { uint8_t revision; uint32_t flags; bool enabled, online; } rows[] = {
		{ 5, 0, false, false },
		{ 5, 1, true, false },
		{ 5, 2, false, true },
		{ 5, 3, true, false },      /* bit 1 reserved while Enabled is set */
		{ 4, 2, false, false },     /* before revision 5 bit 1 is reserved */
		{ 6, 2 | 0xF0u, false, true },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct mem *m = mem_new();
		const uint32_t tables[] = { MADT_AT };
		struct madt t = madt_begin(m, MADT_AT, 0xFEE00000u, 0);

		madt_lapic(&t, 0, 3, rows[i].flags);
		madt_x2apic(&t, 0x300, rows[i].flags, 1);
		madt_end(&t, rows[i].revision);
		rsdt(m, tables, 1);
		rsdp(m, 0, RSDT_AT, 0);
		expect_ok(m, 0);
		assert_int_equal(info.ncpus, 2);
		for (unsigned c = 0; c < 2; c++) {
			if (info.cpu[c].enabled != rows[i].enabled ||
			    info.cpu[c].online_capable != rows[i].online)
				fail_msg("row %zu cpu %u: enabled %d online %d", i, c,
					 info.cpu[c].enabled, info.cpu[c].online_capable);
		}
		}
}

static void test_more_than_max_cpus(void **state)
{
	struct mem *m = mem_new();
	const uint32_t tables[] = { MADT_AT };
	struct madt t = madt_begin(m, MADT_AT, 0xFEE00000u, 0);

	(void)state;
	for (unsigned i = 0; i < ACPI_MAX_CPUS + 6; i++)
		madt_x2apic(&t, 1000 + i, 1, i);
	madt_lapic(&t, 0, 0, 1);                      /* new, but no room: dropped */
	madt_x2apic(&t, 1000, 1, 5);                  /* duplicate: not counted as dropped */
	madt_end(&t, 5);
	rsdt(m, tables, 1);
	rsdp(m, 0, RSDT_AT, 0);

	expect_ok(m, 0);
	assert_int_equal(info.ncpus, ACPI_MAX_CPUS);
	assert_int_equal(info.dropped, 7);
	assert_int_equal(info.cpu[ACPI_MAX_CPUS - 1].apic_id, 1000 + ACPI_MAX_CPUS - 1);
}

/* An RSDT entry that cannot be read, or that is 0, is passed over. */
static void test_unreadable_root_entries(void **state)
{
	struct mem *m = machine_rsdt();
	const uint32_t tables[] = { 0, 0xDEAD0000u, FACP_AT, MADT_AT };

	(void)state;
	rsdt(m, tables, 4);
	expect_ok(m, 0);
	assert_int_equal(info.ncpus, 3);
}

/* ------------------------------------------------------------------ bad tables */

static void test_bad_rsdp(void **state)
{
	struct mem *m = machine_both_roots(MADT2_AT);

	(void)state;
	assert_int_equal(acpi_read_madt(mem_read, m, 0, 2, &info, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "no RSDP"));
	assert_int_equal(acpi_read_madt(mem_read, m, 0x5000, 2, &info, err, sizeof(err)), -1);
	assert_string_equal(err, "RSDP at 0x5000 cannot be read");
	/* The last bytes of the address space: the read would wrap. */
	assert_int_equal(acpi_read_madt(mem_read, m, UINT64_MAX - 4, 2, &info, err,
					sizeof(err)), -1);
	assert_non_null(strstr(err, "cannot be read"));

	at(m, RSDP_AT)[3] = 'X';
	expect_err(m, 2, "no \"RSD PTR \" signature");
	rsdp(m, 2, RSDT_AT, XSDT_AT);

	at(m, RSDP_AT)[8] += 0x10;                  /* ACPI 1.0 checksum */
	expect_err(m, 0, "RSDP checksum 0x");
	expect_err(m, 0, "wrong: the first 20 bytes sum to 0x10, not 0");
	rsdp(m, 2, RSDT_AT, XSDT_AT);

	at(m, RSDP_AT)[32] ^= 0x01;                 /* extended checksum: only for 2.0 */
	expect_err(m, 2, "RSDP extended checksum 0x");
	expect_ok(m, 0);
	rsdp(m, 2, RSDT_AT, XSDT_AT);

	put32(at(m, RSDP_AT + 20), 20);              /* length below 36 */
	at(m, RSDP_AT)[32] = 0;
	at(m, RSDP_AT)[32] = (uint8_t)-sum(at(m, RSDP_AT), 36);
	expect_err(m, 2, "RSDP length 20 out of range");

	rsdp(m, 0, 0, 0);
	expect_err(m, 0, "RSDP names neither an RSDT nor an XSDT");
}

static void test_bad_root_tables(void **state)
{
	struct mem *m = machine_both_roots(MADT2_AT);

	(void)state;
	at(m, RSDT_AT)[20] ^= 1;                    /* RSDT checksum */
	expect_err(m, 0, "RSDT at 0xe1000: checksum 0x");
	fix_checksum(m, RSDT_AT);

	memcpy(at(m, RSDT_AT), "RSDX", 4);
	fix_checksum(m, RSDT_AT);
	expect_err(m, 0, "RSDT at 0xe1000 has signature \"RSDX\"");
	memcpy(at(m, RSDT_AT), "RSDT", 4);
	fix_checksum(m, RSDT_AT);

	/* A broken XSDT with a good RSDT: the RSDT is used. */
	at(m, XSDT_AT)[20] ^= 1;
	expect_ok(m, 2);
	assert_int_equal(info.ncpus, 3);
	/* Both broken: the XSDT's error, and that the RSDT failed too. */
	at(m, RSDT_AT)[20] ^= 1;
	expect_err(m, 2, "XSDT at 0xe2000: checksum");
	expect_err(m, 2, "the RSDT fails too");
	assert_int_equal(info.ncpus, 0);             /* nothing half-filled is left */

	/* The XSDT's MADT fails after its first CPU, and there is no RSDT to fall back to:
	 * the CPU read before the error is not left in the result. */
	fix_checksum(m, XSDT_AT);
	memset(at(m, MADT2_AT + 52), 0, 2);
	put32(at(m, MADT2_AT + 4), 54);
	fix_checksum(m, MADT2_AT);
	rsdp(m, 2, 0, XSDT_AT);
	expect_err(m, 2, "MADT entry at offset 0x34 has length 0");
	assert_int_equal(info.ncpus, 0);
}

static void test_bad_lengths(void **state)
{
	struct mem *m = machine_rsdt();

	(void)state;
	put32(at(m, RSDT_AT + 4), 35);
	fix_checksum(m, RSDT_AT);
	expect_err(m, 0, "RSDT at 0xe1000: length 0x23 out of range (0x24..0x100000)");

	put32(at(m, RSDT_AT + 4), 0x100001);
	expect_err(m, 0, "length 0x100001 out of range");

	/* Within the limit but past the end of readable memory: a truncated table. */
	put32(at(m, RSDT_AT + 4), 0x20000);
	expect_err(m, 0, "RSDT at 0xe1000: its 0x20000 bytes cannot be read");

	/* A root with only a header: no entries, no MADT. */
	rsdt(m, NULL, 0);
	expect_err(m, 0, "no MADT (\"APIC\") among the 0 entries of the RSDT at 0xe1000");

	/* A partial entry at the end is not read (len 36 + 4 + 2). */
	const uint32_t tables[] = { FACP_AT, MADT_AT };
	rsdt(m, tables, 2);
	put32(at(m, RSDT_AT + 4), SDT_HDR + 4 + 2);
	fix_checksum(m, RSDT_AT);
	expect_err(m, 0, "no MADT (\"APIC\") among the 1 entries");

	/* MADT shorter than its fixed fields, and longer than memory. */
	rsdt(m, tables, 2);
	put32(at(m, MADT_AT + 4), 40);
	fix_checksum(m, MADT_AT);
	expect_err(m, 0, "MADT length 0x28 too short for its fixed fields (0x2c)");
	put32(at(m, MADT_AT + 4), LOW_SIZE);
	expect_err(m, 0, "MADT at 0xe3000: its 0x10000 bytes cannot be read");
}

static void test_bad_madt(void **state)
{
	struct mem *m = machine_rsdt();

	(void)state;
	at(m, MADT_AT)[50] ^= 0x40;
	expect_err(m, 0, "MADT at 0xe3000: checksum 0x");
	at(m, MADT_AT)[50] ^= 0x40;
	expect_ok(m, 0);
}

/* One MADT whose entries end with the given bytes: the error that must come out. */
static void expect_entry_error(const uint8_t *tail, uint32_t n, const char *want)
{
	struct mem *m = mem_new();
	const uint32_t tables[] = { MADT_AT };
	struct madt t = madt_begin(m, MADT_AT, 0xFEE00000u, 0);

	madt_lapic(&t, 0, 0, 1);                      /* offset 0x2c */
	madt_raw(&t, tail, n);                        /* offset 0x34 */
	madt_end(&t, 5);
	rsdt(m, tables, 1);
	rsdp(m, 0, RSDT_AT, 0);
	expect_err(m, 0, want);
	assert_int_equal(info.ncpus, 0);
}

static void test_bad_entries(void **state)
{
	static const uint8_t zero_len[] = { 0, 0, 0, 0, 0, 0, 0, 0 };
	static const uint8_t one_len[] = { 7, 1, 0, 0 };
	static const uint8_t past_end[] = { 1, 12, 0, 0, 0, 0 };
	static const uint8_t short_lapic[] = { 0, 6, 0, 1, 1, 0 };
	static const uint8_t short_x2apic[] = { 9, 12, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0 };
	static const uint8_t short_override[] = { 5, 8, 0, 0, 0, 0, 0xE0, 0xFE };
	static const uint8_t one_byte[] = { 0 };

	(void)state;
	expect_entry_error(zero_len, sizeof(zero_len), "MADT entry at offset 0x34 has length 0");
	expect_entry_error(one_len, sizeof(one_len), "MADT entry at offset 0x34 has length 1");
	expect_entry_error(past_end, sizeof(past_end),
			   "MADT entry at offset 0x34 (type 1, length 12) runs past the table "
			   "end (0x3a)");
	expect_entry_error(short_lapic, sizeof(short_lapic),
			   "MADT Processor Local APIC at offset 0x34 has length 6, expected 8");
	expect_entry_error(short_x2apic, sizeof(short_x2apic),
			   "MADT Processor Local x2APIC at offset 0x34 has length 12, expected 16");
	expect_entry_error(short_override, sizeof(short_override),
			   "MADT Local APIC Address Override at offset 0x34 has length 8, expected 12");
	expect_entry_error(one_byte, sizeof(one_byte),
			   "MADT entry at offset 0x34: its type and length run past the table end");
}

/* Longer entries than the spec's (a later revision's fields) and unknown types are read
 * by their length field. */
static void test_long_and_unknown_entries(void **state)
{
	static const uint8_t long_lapic[] = { 0, 10, 3, 7, 1, 0, 0, 0, 0xAA, 0xBB };
	static const uint8_t unknown[] = { 0x7F, 8, 0, 0, 0x80, 2, 0, 0 };
	struct mem *m = mem_new();
	const uint32_t tables[] = { MADT_AT };
	struct madt t = madt_begin(m, MADT_AT, 0xFEE00000u, 0);

	(void)state;
	madt_raw(&t, long_lapic, sizeof(long_lapic));
	madt_raw(&t, unknown, sizeof(unknown));
	madt_lapic(&t, 4, 8, 1);
	madt_end(&t, 5);
	rsdt(m, tables, 1);
	rsdp(m, 0, RSDT_AT, 0);
	expect_ok(m, 0);
	assert_int_equal(info.ncpus, 2);
	assert_int_equal(info.cpu[0].apic_id, 7);
	assert_int_equal(info.cpu[0].uid, 3);
	assert_int_equal(info.cpu[1].apic_id, 8);
}

static void test_no_madt_and_no_err_buffer(void **state)
{
	struct mem *m = machine_rsdt();
	const uint32_t tables[] = { FACP_AT };

	(void)state;
	rsdt(m, tables, 1);
	expect_err(m, 0, "no MADT (\"APIC\") among the 1 entries of the RSDT at 0xe1000");
	assert_int_equal(acpi_read_madt(mem_read, m, RSDP_AT, 0, &info, NULL, 0), -1);
}

/* ------------------------------------------------------------------ MCFG */

#define MCFG_AT 0x000E9000u

/* An MCFG with the given (base, segment, start bus, end bus) entries, named by the RSDT
 * (after the FACP and the MADT) and, with xsdt_too, by an XSDT. */
static struct mem *machine_mcfg(const uint64_t (*e)[4], unsigned n, bool xsdt_too)
{
	struct mem *m = machine_rsdt();
	const uint32_t tables[] = { FACP_AT, MADT_AT, MCFG_AT };
	const uint64_t xtables[] = { FACP_AT, MADT_AT, MCFG_AT };

	memset(at(m, MCFG_AT + SDT_HDR), 0, 8);
	for (unsigned i = 0; i < n; i++) {
		uint8_t *p = at(m, MCFG_AT + 44 + 16 * i);
		memset(p, 0, 16);
		put64(p, e[i][0]);
		p[8] = (uint8_t)e[i][1];
		p[9] = (uint8_t)(e[i][1] >> 8);
		p[10] = (uint8_t)e[i][2];
		p[11] = (uint8_t)e[i][3];
	}
	sdt(m, MCFG_AT, "MCFG", 1, 44 + 16 * n);
	rsdt(m, tables, 3);
	if (xsdt_too) {
		xsdt(m, xtables, 3);
		rsdp(m, 2, RSDT_AT, XSDT_AT);
	}
	return m;
}

static struct acpi_mcfg_info mcfg;

static int run_mcfg(struct mem *m, unsigned revision)
{
	memset(&mcfg, 0xA5, sizeof(mcfg));
	strcpy(err, "(untouched)");
	return acpi_read_mcfg(mem_read, m, RSDP_AT, revision, &mcfg, err, sizeof(err));
}

/* QEMU q35's one region: segment 0, buses 0..255 at 0xB0000000; found through the RSDT
 * and the XSDT alike. */
static void test_mcfg_q35(void **state)
{
	static const uint64_t q35[][4] = { { 0xB0000000u, 0, 0, 255 } };
	(void)state;

	for (int x = 0; x < 2; x++) {
		struct mem *m = machine_mcfg(q35, 1, x);
		if (run_mcfg(m, x ? 2 : 0) != 0)
			fail_msg("acpi_read_mcfg failed: %s", err);
		assert_int_equal(mcfg.nsegments, 1);
		assert_int_equal(mcfg.dropped, 0);
		assert_int_equal(mcfg.seg[0].base, 0xB0000000u);
		assert_int_equal(mcfg.seg[0].segment, 0);
		assert_int_equal(mcfg.seg[0].bus_start, 0);
		assert_int_equal(mcfg.seg[0].bus_end, 255);
	}
}

static void test_mcfg_many_segments(void **state)
{
	uint64_t e[ACPI_MCFG_MAX + 2][4];
	(void)state;

	for (unsigned i = 0; i < ACPI_MCFG_MAX + 2; i++) {
		e[i][0] = 0x100000000ull + 0x10000000ull * i;
		e[i][1] = i;
		e[i][2] = (uint64_t)i;
		e[i][3] = 0x40 + (uint64_t)i;
	}
	struct mem *m = machine_mcfg(e, ACPI_MCFG_MAX + 2, false);
	assert_int_equal(run_mcfg(m, 0), 0);
	assert_int_equal(mcfg.nsegments, ACPI_MCFG_MAX);
	assert_int_equal(mcfg.dropped, 2);
	assert_int_equal(mcfg.seg[3].segment, 3);
	assert_int_equal(mcfg.seg[3].bus_start, 3);
	assert_int_equal(mcfg.seg[3].bus_end, 0x43);
	assert_int_equal(mcfg.seg[3].base, 0x130000000ull);
}

static void expect_mcfg_err(struct mem *m, const char *want)
{
	if (run_mcfg(m, 0) == 0)
		fail_msg("acpi_read_mcfg accepted what should fail with \"%s\"", want);
	if (strstr(err, want) == NULL)
		fail_msg("error \"%s\" does not say \"%s\"", err, want);
	assert_int_equal(mcfg.nsegments, 0);
}

static void test_mcfg_bad(void **state)
{
	static const uint64_t backwards[][4] = { { 0xB0000000u, 0, 9, 8 } };
	static const uint64_t unaligned[][4] = { { 0xB0001000u, 0, 0, 255 } };
	static const uint64_t zero[][4] = { { 0, 0, 0, 255 } };
	static const uint64_t good[][4] = { { 0xB0000000u, 0, 0, 255 } };
	struct mem *m;
	(void)state;

	expect_mcfg_err(machine_mcfg(backwards, 1, false), "MCFG entry 0: buses 9..8 are backwards");
	expect_mcfg_err(machine_mcfg(unaligned, 1, false), "base 0xb0001000 is not a 1 MiB-aligned");
	expect_mcfg_err(machine_mcfg(zero, 1, false), "base 0x0 is not");
	/* A length that is not 44 + 16n. */
	m = machine_mcfg(good, 1, false);
	put32(at(m, MCFG_AT + 4), 44 + 15);
	fix_checksum(m, MCFG_AT);
	expect_mcfg_err(m, "MCFG length 0x3b is not 44 + 16 per entry");
	/* A bad checksum. */
	m = machine_mcfg(good, 1, false);
	at(m, MCFG_AT + 44)[1] ^= 1;
	expect_mcfg_err(m, "MCFG at 0xe9000: checksum");
	/* No MCFG at all (the MADT machine alone): the legacy mechanism only. */
	expect_mcfg_err(machine_rsdt(), "no MCFG (\"MCFG\") among the 2 entries of the RSDT");
}

/* ------------------------------------------------------------------ SPCR */

#define SPCR_AT 0x000EB000u

/* An SPCR (revision 2, 80 bytes) for a UART of interface type `type` in GAS address space
 * `space` at addr, register bit width `width`, access size `access`, baud code `baud`,
 * not a PCI function; named by the RSDT after the FACP and the MADT, and with xsdt_too by
 * an XSDT. */
static struct mem *machine_spcr(uint8_t type, uint8_t space, uint8_t width, uint8_t access,
				uint64_t addr, uint8_t baud, bool xsdt_too)
{
	struct mem *m = machine_rsdt();
	const uint32_t tables[] = { FACP_AT, MADT_AT, SPCR_AT };
	const uint64_t xtables[] = { FACP_AT, MADT_AT, SPCR_AT };
	uint8_t *p = at(m, SPCR_AT);

	memset(p, 0, 80);
	p[36] = type;
	p[40] = space;
	p[41] = width;
	p[43] = access;
	put64(p + 44, addr);
	p[52] = 1;                  /* interrupt type: 8259 */
	p[53] = 4;                  /* IRQ 4 */
	p[58] = baud;
	p[60] = 1;                  /* one stop bit */
	p[64] = p[65] = 0xff;       /* PCI device ID 0xffff: not a PCI function */
	p[66] = p[67] = 0xff;
	sdt(m, SPCR_AT, "SPCR", 2, 80);
	rsdt(m, tables, 3);
	if (xsdt_too) {
		xsdt(m, xtables, 3);
		rsdp(m, 2, RSDT_AT, XSDT_AT);
	}
	return m;
}

static struct acpi_spcr_info spcr;

static int run_spcr(struct mem *m, unsigned revision)
{
	memset(&spcr, 0xA5, sizeof(spcr));
	strcpy(err, "(untouched)");
	return acpi_read_spcr(mem_read, m, RSDP_AT, revision, &spcr, err, sizeof(err));
}

/* COM2 on I/O ports at 115200 (through the RSDT), and an MMIO UART with 32-bit registers
 * at 57600 (through the XSDT), as a BMC's serial-over-LAN may be. */
static void test_spcr_io_and_mmio(void **state)
{
	struct mem *m = machine_spcr(ACPI_SPCR_16550, 1, 8, 1, 0x2f8, 7, false);
	(void)state;

	if (run_spcr(m, 0) != 0)
		fail_msg("acpi_read_spcr failed: %s", err);
	assert_false(spcr.mmio);
	assert_int_equal(spcr.address, 0x2f8);
	assert_int_equal(spcr.reg_shift, 0);
	assert_int_equal(spcr.access_bytes, 1);
	assert_int_equal(spcr.baud, 115200);
	assert_int_equal(spcr.revision, 2);
	assert_false(spcr.pci);

	m = machine_spcr(ACPI_SPCR_16550_GAS, 0, 32, 3, 0xfe030000u, 6, true);
	if (run_spcr(m, 2) != 0)
		fail_msg("acpi_read_spcr failed: %s", err);
	assert_true(spcr.mmio);
	assert_int_equal(spcr.interface_type, ACPI_SPCR_16550_GAS);
	assert_int_equal(spcr.address, 0xfe030000u);
	assert_int_equal(spcr.reg_shift, 2);
	assert_int_equal(spcr.access_bytes, 4);
	assert_int_equal(spcr.baud, 57600);

	/* Access size 0 (legacy tables): the register width says; baud code 0 keeps the
	 * firmware's rate; a 16450 is driven as a 16550. */
	m = machine_spcr(ACPI_SPCR_16450, 0, 32, 0, 0xfe031000u, 0, false);
	if (run_spcr(m, 0) != 0)
		fail_msg("acpi_read_spcr failed: %s", err);
	assert_int_equal(spcr.access_bytes, 4);
	assert_int_equal(spcr.baud, 0);
	assert_int_equal(spcr.interface_type, ACPI_SPCR_16450);
}

/* A PCI UART (Intel AMT's SOL): the PCI fields come through. */
static void test_spcr_pci(void **state)
{
	struct mem *m = machine_spcr(ACPI_SPCR_16550, 1, 8, 1, 0xf0e0, 4, false);
	uint8_t *p = at(m, SPCR_AT);
	(void)state;

	p[64] = 0x3d; p[65] = 0x1c;         /* device 0x1c3d */
	p[66] = 0x86; p[67] = 0x80;         /* Intel */
	p[68] = 0; p[69] = 22; p[70] = 3;
	p[75] = 0;
	fix_checksum(m, SPCR_AT);
	if (run_spcr(m, 0) != 0)
		fail_msg("acpi_read_spcr failed: %s", err);
	assert_true(spcr.pci);
	assert_int_equal(spcr.pci_vendor, 0x8086);
	assert_int_equal(spcr.pci_device, 0x1c3d);
	assert_int_equal(spcr.pci_dev, 22);
	assert_int_equal(spcr.pci_fn, 3);
	assert_int_equal(spcr.baud, 19200);
}

static void expect_spcr_err(struct mem *m, const char *want)
{
	if (run_spcr(m, 0) == 0)
		fail_msg("acpi_read_spcr accepted what should fail with \"%s\"", want);
	if (strstr(err, want) == NULL)
		fail_msg("error \"%s\" does not say \"%s\"", err, want);
	assert_int_equal(spcr.address, 0);
	assert_false(spcr.mmio);
}

static void test_spcr_bad(void **state)
{
	struct mem *m;
	(void)state;

	/* Malformed tables. */
	m = machine_spcr(ACPI_SPCR_16550, 1, 8, 1, 0x3f8, 7, false);
	put32(at(m, SPCR_AT + 4), 79);
	fix_checksum(m, SPCR_AT);
	expect_spcr_err(m, "SPCR length 0x4f too short for its fields (0x50)");
	m = machine_spcr(ACPI_SPCR_16550, 1, 8, 1, 0x3f8, 7, false);
	put32(at(m, SPCR_AT + 4), 0x200000);
	expect_spcr_err(m, "SPCR at 0xeb000: length 0x200000 out of range");
	m = machine_spcr(ACPI_SPCR_16550, 1, 8, 1, 0x3f8, 7, false);
	at(m, SPCR_AT + 58)[0] ^= 0x40;
	expect_spcr_err(m, "SPCR at 0xeb000: checksum");
	/* UARTs bareperf cannot drive, or that are no UART at all. */
	expect_spcr_err(machine_spcr(0x03, 0, 32, 3, 0x9000000, 7, false),
			"SPCR: interface type 0x03 is no 16550 (0x00, 0x01 or 0x12)");
	expect_spcr_err(machine_spcr(0x0e, 0, 32, 3, 0x9000000, 7, false), "interface type 0x0e");
	expect_spcr_err(machine_spcr(ACPI_SPCR_16550, 2, 8, 1, 0x3f8, 7, false),
			"SPCR: the UART is in address space 2 (PCI configuration space), not "
			"system memory or I/O");
	expect_spcr_err(machine_spcr(ACPI_SPCR_16550, 0x7f, 8, 1, 0x3f8, 7, false),
			"address space 127 (unknown)");
	expect_spcr_err(machine_spcr(ACPI_SPCR_16550, 1, 8, 1, 0, 7, false),
			"SPCR: base address 0 (console redirection disabled)");
	expect_spcr_err(machine_spcr(ACPI_SPCR_16550, 1, 32, 3, 0x3f8, 7, false),
			"SPCR: an I/O-port UART with 4-byte registers");
	expect_spcr_err(machine_spcr(ACPI_SPCR_16550, 1, 8, 1, 0x1fff8, 7, false),
			"SPCR: I/O port 0x1fff8 is past 0xfff8");
	expect_spcr_err(machine_spcr(ACPI_SPCR_16550, 0, 12, 1, 0xfe030000u, 7, false),
			"SPCR: register bit width 12 (bareperf takes 8, 16 or 32)");
	expect_spcr_err(machine_spcr(ACPI_SPCR_16550, 0, 32, 2, 0xfe030000u, 7, false),
			"SPCR: access size 2 (bareperf takes 1 = byte or 3 = dword)");
	expect_spcr_err(machine_spcr(ACPI_SPCR_16550, 0, 8, 3, 0xfe030000u, 7, false),
			"SPCR: 4-byte accesses to registers 1 bytes apart");
	expect_spcr_err(machine_spcr(ACPI_SPCR_16550, 1, 8, 1, 0x3f8, 5, false),
			"SPCR: baud rate code 5 unknown (0, 3, 4, 6 or 7)");
	/* No SPCR: the machine has no console redirection to offer (1, not an error). */
	expect_spcr_err(machine_rsdt(), "no SPCR (\"SPCR\") among the 2 entries of the RSDT");
	assert_int_equal(run_spcr(machine_rsdt(), 0), 1);
	assert_int_equal(run_spcr(machine_spcr(0x03, 0, 32, 3, 0x9000000, 7, false), 0), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_rsdt),
		cmocka_unit_test(test_good_xsdt_and_preferences),
		cmocka_unit_test(test_xsdt_high_madt),
		cmocka_unit_test(test_x2apic_override_duplicates),
		cmocka_unit_test(test_online_capable),
		cmocka_unit_test(test_more_than_max_cpus),
		cmocka_unit_test(test_unreadable_root_entries),
		cmocka_unit_test(test_bad_rsdp),
		cmocka_unit_test(test_bad_root_tables),
		cmocka_unit_test(test_bad_lengths),
		cmocka_unit_test(test_bad_madt),
		cmocka_unit_test(test_bad_entries),
		cmocka_unit_test(test_long_and_unknown_entries),
		cmocka_unit_test(test_no_madt_and_no_err_buffer),
		cmocka_unit_test(test_mcfg_q35),
		cmocka_unit_test(test_mcfg_many_segments),
		cmocka_unit_test(test_mcfg_bad),
		cmocka_unit_test(test_spcr_io_and_mmio),
		cmocka_unit_test(test_spcr_pci),
		cmocka_unit_test(test_spcr_bad),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
