/*
 * The screen console's hardware half: the framebuffer boot_info describes (a UEFI GOP, or
 * GRUB's framebuffer by Multiboot2), or, on a BIOS boot without one, the VGA text buffer.
 * It checks that the kernel's page tables reach it and hands back the lib/fbcon.h grid
 * that kernel/screen-ui.c fills; screen_dev_flush puts the changes on the screen.
 */
#ifndef DRIVERS_SCREEN_H
#define DRIVERS_SCREEN_H
#include <stddef.h>
#include "lib/bootinfo.h"
#include "lib/fbcon.h"

#define VGA_TEXT_BASE   0xb8000     /* colour text buffer, 80x25 cells of 2 bytes */
#define VGA_TEXT_COLS   80
#define VGA_TEXT_ROWS   25

/* scripts/qemu-run --screen sets this fw_cfg file: at its stop the kernel waits for a key
 * (the monitor sends one once the screendump is taken), so that the final screen is there
 * to be saved before isa-debug-exit ends QEMU; after SCREEN_HOLD_POLLS polls it goes on. */
#define SCREEN_HOLD_FWCFG   "opt/bareperf/screen-hold"
#define SCREEN_HOLD_POLLS   50000000ul

/* The grid to draw on, or 0 with the reason in why (no display, or none usable). */
struct fbcon *screen_dev_attach(const struct boot_info *bi, char *why, size_t whylen);
/* Draws what changed. A fault while drawing detaches the screen for good. */
void screen_dev_flush(void);
/* Whether a screen is attached (and still drawn on). */
bool screen_dev_present(void);

#endif
