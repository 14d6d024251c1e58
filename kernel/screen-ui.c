/*
 * What the screen shows (kernel/screen-ui.h). Layout, top to bottom:
 *   title bar; the machine's facts (screen_start); the console's latest lines, scrolling;
 *   a status line (what is measured); a progress bar.
 * At the end of mode=run the whole screen becomes the results screen: title, the machine
 * (so that a photo of it says where it was taken), the table, totals; the other modes end
 * on their last console lines (PASS/FAIL/SKIP and counts, the c2c matrix). Nothing here
 * touches hardware: drivers/screen.c draws the cells.
 */
#include "kernel/screen-ui.h"
#include <stdarg.h>
#include "drivers/screen.h"
#include "drivers/uart16550.h"
#include "kernel/console.h"
#include "kernel/kernel.h"
#include "kernel/kpmu.h"
#include "kernel/result-json.h"
#include "kernel/smp.h"
#include "kernel/storage.h"
#include "lib/format.h"
#include "lib/stats.h"
#include "lib/str.h"

#define ATTR_TITLE    SCR_ATTR(SCR_WHITE, SCR_BLUE)
#define ATTR_TEXT     SCR_ATTR(SCR_GREY, SCR_BLACK)
#define ATTR_KEY      SCR_ATTR(SCR_YELLOW, SCR_BLACK)
#define ATTR_RECORD   SCR_ATTR(SCR_DARK_GREY, SCR_BLACK)   /* machine-readable @ lines */
#define ATTR_BAD      SCR_ATTR(SCR_LIGHT_RED, SCR_BLACK)
#define ATTR_GOOD     SCR_ATTR(SCR_LIGHT_GREEN, SCR_BLACK)
#define ATTR_STATUS   SCR_ATTR(SCR_BLACK, SCR_GREY)
#define ATTR_BAR      SCR_ATTR(SCR_LIGHT_GREEN, SCR_BLACK)

#define LINE_MAX      SCR_COLS_MAX
#define HISTORY       64            /* console lines kept for the log area */
#define INFO_ROWS     7
#define PMU_ROW       2
#define RESULT_ROWS   512           /* results screen rows kept */
#define WRAP_INDENT   2             /* a wrapped line's further rows */
#define MACHINE_ROWS  3             /* the results screen's machine lines, at most */
/* The results table: payload, event, source, then per CPL the figure and, on a screen this
 * wide, its spread (see STATS_SPREAD_MEANING). */
#define TABLE_FMT      "%-20.20s %-24.24s %-11.11s %13s %13s"
#define TABLE_WIDE_FMT "%-20.20s %-24.24s %-11.11s %13s %-8s %13s %-8s"
#define TABLE_WIDE_COLS 103
#define FOOTER_ROWS   4             /* below the table: summary, totals, status, bar */

/* A summary leaves out ROW_MORE first, then ROW_NOTE; ROW_MAIN and ROW_ALERT stay. */
enum row_kind { ROW_MAIN, ROW_MORE, ROW_ALERT, ROW_NOTE };
enum summary_level { SHOW_ALL, SHOW_NO_MORE, SHOW_NO_NOTES };

struct screen_row {
	char text[LINE_MAX];
	uint8_t attr;
	uint8_t kind;               /* enum row_kind */
};

static struct fbcon *con;
static char history[HISTORY][LINE_MAX];
static uint8_t history_attr[HISTORY];
static unsigned history_next, history_count;
static unsigned log_top;          /* first row of the log area; 1 until screen_start */
static bool started, results_shown;
static struct screen_row rows[RESULT_ROWS];
static unsigned nrows, rows_dropped;
static char no_screen[160];       /* why there is no screen */

/* The log ends above the status line and the bar; a screen of 2 rows or fewer has none. */
static unsigned log_bottom(void) { return con->rows > 2 ? con->rows - 2 : 0; }

static bool contains(const char *s, const char *word)
{
	size_t n = strlen(word);
	for (; *s; s++)
		if (!strncmp(s, word, n))
			return true;
	return false;
}

static uint8_t line_attr(const char *line)
{
	if (line[0] == '@')
		return ATTR_RECORD;
	if (!strncmp(line, "bareperf: ", 10) && contains(line, " results, "))
		return contains(line, " 0 faults, 0 timeouts, 0 errors") ? ATTR_GOOD
			: SCR_ATTR(SCR_YELLOW, SCR_BLACK);
	if (!strncmp(line, "FATAL", 5) || !strncmp(line, "FAIL", 4) || !strncmp(line, "error", 5) ||
	    !strncmp(line, "config error", 12) || !strncmp(line, "exception", 9))
		return ATTR_BAD;
	if (!strncmp(line, "PASS", 4))
		return ATTR_GOOD;
	if (!strncmp(line, "SKIP", 4) || !strncmp(line, "note", 4))
		return SCR_ATTR(SCR_LIGHT_CYAN, SCR_BLACK);
	return ATTR_TEXT;
}

/* The log area shows the latest history lines, the newest at its bottom. */
static void draw_log(void)
{
	unsigned top = log_top, bottom = log_bottom();
	if (bottom <= top)
		return;
	unsigned height = bottom - top, shown = history_count < height ? history_count : height;
	fbcon_clear_rows(con, top, height, ATTR_TEXT);
	for (unsigned i = 0; i < shown; i++) {
		unsigned h = (history_next + HISTORY - shown + i) % HISTORY;
		fbcon_text(con, 0, top + i, history[h], history_attr[h]);
	}
}

/* A console line in the screen's character codes: serial's UTF-8 '±' (U+00B1) is the
 * font's FONT_PLUS_MINUS. */
static void to_screen_codes(char *dst, const char *src, size_t len)
{
	size_t o = 0;
	for (; *src && o + 1 < len; src++) {
		if ((uint8_t)src[0] == 0xc2 && (uint8_t)src[1] == 0xb1) {
			dst[o++] = (char)FONT_PLUS_MINUS;
			src++;
		} else {
			dst[o++] = *src;
		}
	}
	dst[o] = 0;
}

void screen_log_line(const char *line)
{
	to_screen_codes(history[history_next], line, LINE_MAX);
	line = history[history_next];
	history_attr[history_next] = line_attr(line);
	history_next = (history_next + 1) % HISTORY;
	if (history_count < HISTORY)
		history_count++;
	if (con && !results_shown) {
		unsigned top = log_top, bottom = log_bottom();
		if (bottom > top) {
			fbcon_scroll_up(con, top, bottom, 1, ATTR_TEXT);
			fbcon_text(con, 0, bottom - 1, line, line_attr(line));
		}
	}
}

static void title(const char *what)
{
	char t[LINE_MAX];
	fbcon_clear_rows(con, 0, 1, ATTR_TITLE);
	bp_snprintf(t, sizeof(t), " bareperf %s  %s", kernel_version, what);
	fbcon_text(con, 0, 0, t, ATTR_TITLE);
}

static void status(const char *text, uint8_t attr)
{
	fbcon_clear_rows(con, con->rows - 2, 1, attr);
	fbcon_text(con, 1, con->rows - 2, text, attr);
}

void screen_attach(const struct boot_info *bi)
{
	con = screen_dev_attach(bi, no_screen, sizeof(no_screen));
	if (!con) {
		/* A screen that should be there and is not: say so (a machine without any
		 * display, the common QEMU case, stays silent: serial is unchanged). */
		if (bi->fb.base || bi->fb.format == BI_GOP_BLT_ONLY)
			kprintf("screen: none (%s)\n", no_screen);
		return;
	}
	log_top = 1;
	title("");
	draw_log();
}

void screen_report(void)
{
	char mode[LINE_MAX];
	if (!con) {
		kprintf("boot.screen=none (%s)\n", no_screen);
		return;
	}
	fbcon_describe(con, mode, sizeof(mode));
	kprintf("boot.screen=%s\n", mode);
}

static void info(unsigned row, const char *key, const char *value)
{
	fbcon_text(con, 1, row, key, ATTR_KEY);
	fbcon_text(con, 11, row, value, ATTR_TEXT);
}

static void pmu_line(unsigned row, const char *works)
{
	char v[LINE_MAX];
	bp_snprintf(v, sizeof(v), "%s, %u+%u counters: %s", pmu_kind_name(kernel.pmu.kind),
		    kernel.pmu.gp_counters, kernel.pmu.fixed_counters, works);
	fbcon_clear_rows(con, row, 1, ATTR_TEXT);
	info(row, "PMU", v);
}

void screen_pmu(void)
{
	char v[LINE_MAX];
	if (!con || !started || log_top == 1)
		return;
	if (kpmu.functional)
		str_copy(v, "counting", sizeof(v));
	else
		bp_snprintf(v, sizeof(v), "not counting (%s)", kpmu.reason);
	pmu_line(PMU_ROW, v);
}

static void info_lines(void)
{
	const struct cpu_info *c = &kernel.cpu;
	char v[LINE_MAX];
	unsigned r = 1;
	fbcon_clear_rows(con, 1, INFO_ROWS, ATTR_TEXT);
	bp_snprintf(v, sizeof(v), "%s family %u model %u stepping %u%s%s", c->vendor_id,
		    c->family, c->model, c->stepping, c->brand[0] ? ": " : "", c->brand);
	info(r++, "CPU", v);
	enum cfg_mode m = kernel.cfg.mode;
	bool checks = m == CFG_MODE_RUN || m == CFG_MODE_SELFTEST || m == CFG_MODE_PMUCHECK ||
		      m == CFG_MODE_C2C;
	bp_snprintf(v, sizeof(v), "not checked (mode=%s)", cfg_mode_name(m));
	pmu_line(PMU_ROW, checks ? "checked when the mode starts" : v);
	r++;
	bp_snprintf(v, sizeof(v), "%s, %s", bootinfo_firmware_name(kernel.bi),
		    sizeof(void *) == 8 ? "x86-64 kernel (long mode)" : "i686 kernel (protected mode)");
	info(r++, "Firmware", v);
	bp_snprintf(v, sizeof(v), "%u up", smp_count());
	info(r++, "CPUs", v);
	info(r++, "Config", kernel.config_sources && kernel.config_sources[0] ?
	     kernel.config_sources : "defaults");
	if (uart_present() && uart_port())
		bp_snprintf(v, sizeof(v), "port 0x%x, %u baud (the full report goes there)",
			    uart_port(), kernel.cfg.serial_baud);
	else if (uart_present())
		bp_snprintf(v, sizeof(v), "mmio 0x%llx, %u baud (the full report goes there)",
			    (unsigned long long)uart_current()->phys, kernel.cfg.serial_baud);
	else
		str_copy(v, "none", sizeof(v));
	info(r++, "Serial", v);
	fbcon_clear_rows(con, r, 1, ATTR_TEXT);
	for (unsigned col = 0; col < con->cols; col++)
		fbcon_put(con, col, r, '-', ATTR_RECORD);
}

void screen_start(void)
{
	if (!con)
		return;
	char what[64];
	bp_snprintf(what, sizeof(what), "mode=%s", cfg_mode_name(kernel.cfg.mode));
	title(what);
	log_top = 1 + INFO_ROWS;
	if (log_top + 2 >= log_bottom())
		log_top = 1;            /* too few rows for the facts: the log only */
	else
		info_lines();
	draw_log();
	status("starting", ATTR_STATUS);
	started = true;
	screen_dev_flush();
}

void screen_progress(const struct payload *pl, uint64_t size, unsigned cpl, unsigned group,
		     unsigned groups, unsigned cpu, unsigned k, unsigned n)
{
	if (!con || results_shown)
		return;
	char t[LINE_MAX];
	bp_snprintf(t, sizeof(t), "measuring %s%s%llu  CPL %u  event group %u of %u  CPU %u",
		    pl->name, size ? " size " : "", (unsigned long long)size, cpl, group + 1,
		    groups, cpu);
	if (!size)      /* no size: drop the "0" the format needs for a constant layout */
		bp_snprintf(t, sizeof(t), "measuring %s  CPL %u  event group %u of %u  CPU %u",
			    pl->name, cpl, group + 1, groups, cpu);
	status(t, ATTR_STATUS);
	unsigned bar_row = con->rows - 1;
	bp_snprintf(t, sizeof(t), " %u of %u ", k, n);
	fbcon_clear_rows(con, bar_row, 1, ATTR_TEXT);
	unsigned col = fbcon_text(con, 0, bar_row, t, ATTR_TEXT);
	unsigned width = con->cols > col + 1 ? con->cols - col - 1 : 0;
	unsigned full = n ? (unsigned)((uint64_t)width * k / n) : 0;
	for (unsigned i = 0; i < width; i++)
		fbcon_put(con, col + i, bar_row, i < full ? FONT_BLOCK_FULL : FONT_SHADE_LIGHT,
			  ATTR_BAR);
	screen_dev_flush();
}

static struct screen_row *new_row(uint8_t kind, uint8_t attr)
{
	if (nrows == RESULT_ROWS) {
		rows_dropped++;
		return 0;
	}
	struct screen_row *r = &rows[nrows++];
	r->kind = kind;
	r->attr = attr;
	return r;
}

/* A figure's spread, as the serial report has it after the figure: "±0.120%". */
static void spread_text(const struct result *r, char *buf, size_t len)
{
	char pct[24];
	if (!r) {
		buf[0] = 0;
		return;
	}
	stats_fmt_milli(pct, sizeof(pct), stats_spread_pct_milli(&r->st));
	bp_snprintf(buf, len, "%c%s%%", FONT_PLUS_MINUS, pct);
}

static bool table_wide(void)
{
	return con && con->cols >= TABLE_WIDE_COLS;
}

void screen_block(const struct payload *pl, uint64_t size, const struct result *rs, unsigned n)
{
	char name[48], a[24], b[24], sa[24], sb[24];
	bool first = true;
	if (size >= (1u << 20) && !(size & ((1u << 20) - 1)))
		bp_snprintf(name, sizeof(name), "%s %lluM", pl->name, (unsigned long long)(size >> 20));
	else if (size)
		bp_snprintf(name, sizeof(name), "%s %lluK", pl->name, (unsigned long long)(size >> 10));
	else
		str_copy(name, pl->name, sizeof(name));
	for (unsigned i = 0; i < n; i++) {
		const struct result *r = &rs[i];
		if (result_find(rs, i, 0, r->event, r->source) || result_find(rs, i, 3, r->event, r->source))
			continue;
		const struct result *c0 = result_find(rs, n, 0, r->event, r->source);
		const struct result *c3 = result_find(rs, n, 3, r->event, r->source);
		if (c0)
			stats_fmt_milli(a, sizeof(a), c0->per_iter_milli);
		else
			str_copy(a, "-", sizeof(a));
		if (c3)
			stats_fmt_milli(b, sizeof(b), c3->per_iter_milli);
		else
			str_copy(b, "-", sizeof(b));
		struct screen_row *row = new_row(first ? ROW_MAIN : ROW_MORE, ATTR_TEXT);
		spread_text(c0, sa, sizeof(sa));
		spread_text(c3, sb, sizeof(sb));
		if (row && table_wide())
			bp_snprintf(row->text, sizeof(row->text), TABLE_WIDE_FMT, first ? name : "", r->event,
				    result_source_name(r->source), a, sa, b, sb);
		else if (row)
			bp_snprintf(row->text, sizeof(row->text), TABLE_FMT, first ? name : "", r->event,
				    result_source_name(r->source), a, b);
		first = false;
	}
}

/* The screen's width for text (the longest row kept before there is a screen). */
static unsigned text_width(void)
{
	return con && con->cols < LINE_MAX ? con->cols : LINE_MAX - 1;
}

/* Row `i` (from 0) of text wrapped at width: its further rows indented by WRAP_INDENT.
 * Returns the rows there are; out gets row i where there is one. */
static unsigned wrapped_row(const char *text, unsigned width, unsigned i, char *out, size_t len)
{
	size_t at = 0, next;
	unsigned n = 0;
	out[0] = 0;
	do {
		unsigned indent = n && width > 2 * WRAP_INDENT ? WRAP_INDENT : 0;
		size_t k = str_wrap(text + at, width - indent, &next);
		if (n == i)
			bp_snprintf(out, len, "%*s%.*s", (int)indent, "", (int)k, text + at);
		at += next;
		n++;
	} while (text[at]);
	return n;
}

void screen_alert(bool note, uint8_t colour, const char *fmt, ...)
{
	char text[1024];
	va_list ap;
	va_start(ap, fmt);
	bp_vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	/* A note longer than the screen is wrapped, not cut; its rows go or stay together. */
	unsigned width = text_width();
	for (unsigned i = 0, n = 1; i < n; i++) {
		struct screen_row *row = new_row(note ? ROW_NOTE : ROW_ALERT, SCR_ATTR(colour, SCR_BLACK));
		if (!row)
			return;
		n = wrapped_row(text, width, i, row->text, sizeof(row->text));
	}
}

static bool row_shown(const struct screen_row *row, enum summary_level level)
{
	return !(level >= SHOW_NO_MORE && row->kind == ROW_MORE) &&
	       !(level >= SHOW_NO_NOTES && row->kind == ROW_NOTE);
}

/* The least summary that fits `height` rows (the last, cut, when none does). */
static enum summary_level level_for(unsigned height)
{
	enum summary_level level = SHOW_ALL;
	for (; level < SHOW_NO_NOTES; level++) {
		unsigned n = rows_dropped;
		for (unsigned i = 0; i < nrows; i++)
			n += row_shown(&rows[i], level);
		if (n <= height)
			break;
	}
	return level;
}

/* The rows the level shows, as many as fit; returns how many were left out. */
static unsigned draw_rows(unsigned top, unsigned height, enum summary_level level)
{
	unsigned r = top, left_out = rows_dropped;
	for (unsigned i = 0; i < nrows; i++) {
		if (!row_shown(&rows[i], level))
			continue;
		if (r == top + height) {
			left_out++;
			continue;
		}
		fbcon_text(con, 0, r++, rows[i].text, rows[i].attr);
	}
	return left_out;
}

/* Draws text from row `row`, wrapped, in at most max rows; returns the rows drawn. */
static unsigned draw_wrapped(unsigned row, unsigned max, const char *text, uint8_t attr)
{
	char part[LINE_MAX];
	unsigned n = 1;
	for (unsigned i = 0; i < n && i < max; i++) {
		n = wrapped_row(text, con->cols, i, part, sizeof(part));
		fbcon_text(con, 0, row + i, part, attr);
	}
	return n < max ? n : max;
}

/* The results screen's lines under the title, from `row`: the machine (CPU, PMU,
 * firmware, the image and the run), and what a figure and its spread are where the table
 * shows spreads. Returns the rows drawn (none on a screen too small for a table). */
static unsigned results_machine(unsigned row)
{
	const struct cpu_info *c = &kernel.cpu;
	char text[512], cpu[200], image[96];
	if (con->rows < 2 * MACHINE_ROWS + FOOTER_ROWS + 4)
		return 0;
	storage_describe(image, sizeof(image));
	if (c->brand[0])
		bp_snprintf(cpu, sizeof(cpu), "%s (%s family %u model %u stepping %u)", c->brand, c->vendor_id,
			    c->family, c->model, c->stepping);
	else
		bp_snprintf(cpu, sizeof(cpu), "%s family %u model %u stepping %u", c->vendor_id, c->family,
			    c->model, c->stepping);
	bp_snprintf(text, sizeof(text), "%s; PMU %s, %s; %s, %s kernel; %s", cpu, pmu_kind_name(kernel.pmu.kind),
		    kpmu.functional ? "counting" : "not counting", bootinfo_firmware_name(kernel.bi),
		    sizeof(void *) == 8 ? "x86-64" : "i686", image);
	unsigned n = draw_wrapped(row, MACHINE_ROWS, text, ATTR_TEXT);
	if (table_wide()) {
		bp_snprintf(text, sizeof(text), "figures: the repetitions' median; %c: the " STATS_SPREAD_MEANING,
			    FONT_PLUS_MINUS);
		n += draw_wrapped(row + n, 2, text, ATTR_RECORD);
	}
	return n;
}

void screen_results(unsigned results, unsigned faults, unsigned timeouts, unsigned errors)
{
	if (!con)
		return;
	/* pmucheck and c2c end on their own lines (PASS/FAIL/SKIP and counts, the matrix),
	 * which the log shows with this totals line under them. */
	if (kernel.cfg.mode != CFG_MODE_RUN) {
		screen_dev_flush();
		return;
	}
	char t[LINE_MAX];
	results_shown = true;
	fbcon_clear_rows(con, 0, con->rows, ATTR_TEXT);
	title("results: per iteration");
	unsigned top = 1 + results_machine(1);
	if (table_wide())
		bp_snprintf(t, sizeof(t), TABLE_WIDE_FMT, "payload", "event", "source", "CPL 0", "", "CPL 3", "");
	else
		bp_snprintf(t, sizeof(t), TABLE_FMT, "payload", "event", "source", "CPL 0", "CPL 3");
	fbcon_text(con, 0, top++, t, ATTR_KEY);
	/* Title, machine and header above the table; the summary's note, totals, status and
	 * the bar's row below it. */
	unsigned height = con->rows > top + FOOTER_ROWS ? con->rows - top - FOOTER_ROWS : 0;
	enum summary_level level = level_for(height);
	bool summary = level != SHOW_ALL;
	unsigned left_out = draw_rows(top, height, level);
	unsigned totals_row = con->rows - 3;
	bp_snprintf(t, sizeof(t), "bareperf: %u results, %u faults, %u timeouts, %u errors",
		    results, faults, timeouts, errors);
	/* Red for errors; yellow for faults and timeouts, which fault payloads expect. */
	fbcon_text(con, 0, totals_row, t, errors ? ATTR_BAD : faults || timeouts ?
		   SCR_ATTR(SCR_YELLOW, SCR_BLACK) : ATTR_GOOD);
	if (summary) {
		char where[64];
		if (uart_present() && uart_port())
			bp_snprintf(where, sizeof(where), "serial port 0x%x", uart_port());
		else if (uart_present())
			bp_snprintf(where, sizeof(where), "serial mmio 0x%llx",
				    (unsigned long long)uart_current()->phys);
		else
			str_copy(where, "serial (no port here)", sizeof(where));
		/* Short: 80 columns (VGA text) should hold it. */
		char left[40] = "";
		if (left_out)
			bp_snprintf(left, sizeof(left), ", %u rows cut", left_out);
		bp_snprintf(t, sizeof(t), "summary: first figures%s%s; full report: %s",
			    level == SHOW_NO_NOTES ? ", no notes" : "", left, where);
		fbcon_text(con, 0, totals_row - 1, t, ATTR_KEY);
	}
	screen_dev_flush();
}

void screen_saved(const char *line)
{
	if (!con || con->rows < 2)
		return;
	unsigned row = con->rows - 1;
	fbcon_clear_rows(con, row, 1, ATTR_TEXT);
	fbcon_text(con, 0, row, line, !strncmp(line, "saved:", 6) ? ATTR_GOOD : ATTR_BAD);
	screen_dev_flush();
}

void screen_final(const char *how)
{
	if (!con)
		return;
	if (!started && !results_shown)
		title("");
	status(how, contains(how, "exit code 0") || contains(how, "halted") ? ATTR_STATUS :
		    SCR_ATTR(SCR_WHITE, SCR_RED));
	screen_dev_flush();
}
