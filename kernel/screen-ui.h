/*
 * What the screen shows (drivers/screen.c draws it): a start screen with the machine's
 * facts and the latest console lines, a status line and progress bar between
 * measurements, and at the end a results screen (mode=run) or the mode's own last lines.
 * Cells change as the kernel prints; the screen is drawn only at screen_start,
 * screen_progress, screen_results, screen_saved and screen_final, never while a
 * measurement runs.
 * Without a screen every call does nothing.
 */
#ifndef KERNEL_SCREEN_UI_H
#define KERNEL_SCREEN_UI_H
#include <stdint.h>
#include "kernel/engine.h"
#include "lib/bootinfo.h"
#include "lib/fbcon.h"        /* SCR_* colours for screen_alert */

/* Finds the screen (say on serial why there is none only where a GOP or framebuffer
 * tag could not be used). */
void screen_attach(const struct boot_info *bi);
/* The report's boot.screen line: the mode drawn on (lib/fbcon.h fbcon_describe), or none
 * and why. */
void screen_report(void);
/* One console line (no '\n'), as serial got it. */
void screen_log_line(const char *line);
/* The start screen: version, CPU, PMU, firmware, CPUs up, configuration, serial port. */
void screen_start(void);
/* The start screen's PMU line, once kernel/kpmu.c has checked that the counters count. */
void screen_pmu(void);
/* Before a measurement: payload, CPL, event group, CPU, and k of n payloads done. */
void screen_progress(const struct payload *pl, uint64_t size, unsigned cpl, unsigned group,
		     unsigned groups, unsigned cpu, unsigned k, unsigned n);
/* The report's pieces, kept for the results screen. */
void screen_block(const struct payload *pl, uint64_t size, const struct result *rs, unsigned n);
/* A fault, timeout or error (note false), or a note or skip (note true), which a summary
 * leaves out before a payload's figure. */
void screen_alert(bool note, uint8_t colour, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The results screen, ending in the totals line as serial has it. */
void screen_results(unsigned results, unsigned faults, unsigned timeouts, unsigned errors);
/* Where the run's log went (the saved: or not saved: line), on the bottom row, where the
 * progress bar was: most machines have no serial cable. */
void screen_saved(const char *line);
/* The last drawing, at a stop or halt: the status line says how it ended. */
void screen_final(const char *how);

#endif
