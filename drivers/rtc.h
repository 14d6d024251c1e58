/*
 * The PC's real-time clock in CMOS (MC146818A datasheet; registers 0x00-0x0B), read for
 * the saved log's header. The update-in-progress wait is bounded.
 */
#ifndef DRIVERS_RTC_H
#define DRIVERS_RTC_H
#include <stddef.h>

#define CMOS_INDEX      0x70
#define CMOS_DATA       0x71
#define CMOS_NMI_OFF    0x80    /* index bit 7: keep NMI masked while selecting */
#define RTC_SECONDS     0x00
#define RTC_MINUTES     0x02
#define RTC_HOURS       0x04
#define RTC_DAY         0x07
#define RTC_MONTH       0x08
#define RTC_YEAR        0x09
#define RTC_STATUS_A    0x0A
#define RTC_STATUS_A_UIP 0x80   /* an update is in progress: the time registers are changing */
#define RTC_STATUS_B    0x0B
#define RTC_STATUS_B_24H 0x02
#define RTC_STATUS_B_BINARY 0x04
#define RTC_HOURS_PM    0x80    /* 12-hour mode */

/* "YYYY-MM-DD hh:mm:ss" as the RTC keeps it (usually local time) into buf (20 bytes);
 * "unknown" when the RTC never leaves its update or reads out of range. */
void rtc_read_text(char *buf, size_t size);

#endif
