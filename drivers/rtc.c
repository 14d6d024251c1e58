#include <stdbool.h>
#include "drivers/rtc.h"
#include "arch/x86/cpu.h"
#include "lib/format.h"
#include "lib/str.h"

#define UIP_POLLS 100000u       /* an update takes under 2 ms; each poll is an I/O access */

static unsigned cmos(unsigned reg)
{
	outb(CMOS_INDEX, (uint8_t)(CMOS_NMI_OFF | reg));
	return inb(CMOS_DATA);
}

static unsigned from_bcd(unsigned v, bool binary)
{
	return binary ? v : (v >> 4) * 10 + (v & 15);
}

void rtc_read_text(char *buf, size_t size)
{
	unsigned i, t[6], again[6];
	static const unsigned regs[6] = { RTC_YEAR, RTC_MONTH, RTC_DAY, RTC_HOURS, RTC_MINUTES, RTC_SECONDS };

	/* Read twice outside an update until both reads agree (at most a few tries). */
	for (unsigned tries = 0; tries < 5; tries++) {
		for (i = 0; i < UIP_POLLS && (cmos(RTC_STATUS_A) & RTC_STATUS_A_UIP); i++)
			;
		if (i == UIP_POLLS)
			break;
		for (unsigned k = 0; k < 6; k++)
			t[k] = cmos(regs[k]);
		for (unsigned k = 0; k < 6; k++)
			again[k] = cmos(regs[k]);
		if (memcmp(t, again, sizeof(t)) != 0)
			continue;
		unsigned b = cmos(RTC_STATUS_B);
		bool binary = b & RTC_STATUS_B_BINARY, pm = t[3] & RTC_HOURS_PM;
		unsigned year = from_bcd(t[0], binary), month = from_bcd(t[1], binary), day = from_bcd(t[2], binary);
		unsigned hour = from_bcd(t[3] & ~RTC_HOURS_PM, binary), min = from_bcd(t[4], binary);
		unsigned sec = from_bcd(t[5], binary);
		if (!(b & RTC_STATUS_B_24H))
			hour = hour % 12 + (pm ? 12 : 0);
		year += year < 70 ? 2000 : 1900;        /* no century register without ACPI's FADT */
		if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || min > 59 || sec > 59)
			break;
		bp_snprintf(buf, size, "%04u-%02u-%02u %02u:%02u:%02u", year, month, day, hour, min, sec);
		return;
	}
	str_copy(buf, "unknown", size);
}
