#include "drivers/qemu-fwcfg.h"
#include "arch/x86/cpu.h"
#include "lib/pc-io.h"
#include "lib/str.h"

#define FW_CFG_SIGNATURE  0x0000
#define FW_CFG_FILE_DIR   0x0019
#define FW_CFG_NAME_MAX   56

static uint32_t be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3]; }

static void read_bytes(void *dst, size_t n)
{
	uint8_t *d = dst;
	for (size_t i = 0; i < n; i++)
		d[i] = inb(QEMU_FW_CFG_PORT_DATA);
}

bool fwcfg_present(void)
{
	char sig[4];
	outw(QEMU_FW_CFG_PORT_SEL, FW_CFG_SIGNATURE);
	read_bytes(sig, 4);
	return memcmp(sig, "QEMU", 4) == 0;
}

long fwcfg_read_file(const char *name, char *buf, size_t max)
{
	if (!fwcfg_present() || max == 0)
		return -1;
	uint8_t hdr[4];
	outw(QEMU_FW_CFG_PORT_SEL, FW_CFG_FILE_DIR);
	read_bytes(hdr, 4);
	uint32_t count = be32(hdr);
	for (uint32_t i = 0; i < count && i < 4096; i++) {
		uint8_t ent[8];
		char fname[FW_CFG_NAME_MAX];
		read_bytes(ent, 8);
		read_bytes(fname, sizeof(fname));
		fname[FW_CFG_NAME_MAX - 1] = 0;
		if (strcmp(fname, name))
			continue;
		uint32_t size = be32(ent);
		uint16_t sel = (uint16_t)(ent[4] << 8 | ent[5]);
		outw(QEMU_FW_CFG_PORT_SEL, sel);
		size_t n = size < max - 1 ? size : max - 1;
		read_bytes(buf, n);
		buf[n] = 0;
		return size;
	}
	return -1;
}
