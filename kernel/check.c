#include "kernel/check.h"
#include <stdarg.h>
#include "kernel/console.h"
#include "kernel/lava-report.h"
#include "kernel/platform.h"

struct check_counts checks;

bool check(bool ok, const char *name, const char *why_fmt, ...)
{
	if (ok) {
		checks.passed++;
		kprintf("PASS: %s\n", name);
		lava_report_selftest(name, true, false);
		return true;
	}
	checks.failed++;
	kprintf("FAIL: %s (", name);
	va_list ap;
	va_start(ap, why_fmt);
	kvprintf(why_fmt, ap);
	va_end(ap);
	kprintf(")\n");
	lava_report_selftest(name, false, false);
	return false;
}

void check_skip(const char *name, const char *why_fmt, ...)
{
	checks.skipped++;
	kprintf("SKIP: %s (", name);
	va_list ap;
	va_start(ap, why_fmt);
	kvprintf(why_fmt, ap);
	va_end(ap);
	kprintf(")\n");
	lava_report_selftest(name, false, true);
}

int check_summary(void)
{
	kprintf("%u passed, %u failed, %u skipped\n", checks.passed, checks.failed, checks.skipped);
	return checks.failed ? PLATFORM_EXIT_FAIL : PLATFORM_EXIT_OK;
}
