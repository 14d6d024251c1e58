#include "lib/ata-identify.h"
#include "lib/format.h"

/* ACS-3 Table 45 word numbers and bits. */
#define ID_MODEL_FIRST          27
#define ID_MODEL_WORDS          20
#define ID_CAPABILITIES         49
#define ID_CAP_LBA              (1u << 9)
#define ID_LBA28_SECTORS        60      /* words 60-61 */
#define ID_COMMAND_SET_2        83
#define ID_CMD2_LBA48           (1u << 10)
#define ID_LBA48_SECTORS        100     /* words 100-103 */
#define ID_SECTOR_SIZE          106
#define ID_SECTOR_SIZE_VALID    0x4000u /* bit 14 one, bit 15 zero: the word is valid */
#define ID_SECTOR_SIZE_CHECK    0xC000u
#define ID_SECTOR_LONG_LOGICAL  (1u << 12)      /* words 117-118 give the size */
#define ID_LOGICAL_WORDS        117     /* words 117-118: logical sector size in words */

static void model_string(const uint16_t *id, char out[41])
{
	int n = 0;

	for (int i = 0; i < ID_MODEL_WORDS; i++) {
		uint16_t w = id[ID_MODEL_FIRST + i];
		char a = (char)(w >> 8), b = (char)(w & 0xFF);
		out[n++] = a >= ' ' && a < 0x7f ? a : '?';
		out[n++] = b >= ' ' && b < 0x7f ? b : '?';
	}
	while (n > 0 && out[n - 1] == ' ')
		n--;
	out[n] = '\0';
}

int ata_identify_parse(const uint16_t id[ATA_IDENTIFY_WORDS], struct ata_disk *out, char *err, size_t errlen)
{
	out->sectors = 0;
	out->sector_size = 512;
	out->lba48 = false;
	model_string(id, out->model);
	if (!(id[ID_CAPABILITIES] & ID_CAP_LBA))
		return fmt_error(err, errlen, "the disk has no LBA addressing");
	if (id[ID_COMMAND_SET_2] & ID_CMD2_LBA48) {
		out->lba48 = true;
		for (int i = 3; i >= 0; i--)
			out->sectors = out->sectors << 16 | id[ID_LBA48_SECTORS + i];
	} else {
		out->sectors = (uint32_t)id[ID_LBA28_SECTORS + 1] << 16 | id[ID_LBA28_SECTORS];
	}
	if (out->sectors == 0)
		return fmt_error(err, errlen, "the disk reports a capacity of 0 sectors");
	if (out->sectors > ATA_LBA48_MAX_SECTORS)
		return fmt_error(err, errlen, "the disk reports %llu sectors, more than 48-bit LBA addresses",
				 (unsigned long long)out->sectors);
	if ((id[ID_SECTOR_SIZE] & ID_SECTOR_SIZE_CHECK) == ID_SECTOR_SIZE_VALID &&
	    (id[ID_SECTOR_SIZE] & ID_SECTOR_LONG_LOGICAL)) {
		uint32_t words = (uint32_t)id[ID_LOGICAL_WORDS + 1] << 16 | id[ID_LOGICAL_WORDS];
		if (words != 256 && words != 2048)
			return fmt_error(err, errlen, "the disk's logical sector of %llu bytes is neither 512 nor 4096",
					 2ull * words);
		out->sector_size = 2 * words;
	}
	return 0;
}
