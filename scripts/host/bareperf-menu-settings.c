/*
 * bareperf-menu-settings [bareperf.cfg]: prints the boot menu's settings that
 * scripts/gen/grub-cfg writes into grub.cfg, as one line "MENU SECONDS" (for example
 * "off 5"): boot.menu (on or off) and boot.menu_timeout, read from the file by the rules
 * the kernel and the UEFI loader use (lib/bootmenu.c through lib/cfg-lex.c), the defaults
 * where it sets neither or is not given. GRUB cannot read bareperf.cfg itself.
 * The file's configuration errors, as the kernel will report them at boot, are printed on
 * stderr as warnings: the settings above are read all the same.
 * Exit status: 0; 1 when the file cannot be read; 64 on a usage error.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "lib/bootmenu.h"
#include "lib/config.h"

static char text[CFG_SOURCE_MAX + 1];   /* one byte more than a source may have */
static struct bp_config cfg;

static void warn(void *ctx, const char *msg)
{
	fprintf(stderr, "bareperf-menu-settings: warning: %s\n", msg);
	(void)ctx;
}

/* Reads at most sizeof(text) bytes of path: enough to know the kernel refuses a longer
 * source whole. Returns the length, or -1 (said on stderr). */
static long read_source(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "bareperf-menu-settings: %s: %s\n", path, strerror(errno));
		return -1;
	}
	size_t n = fread(text, 1, sizeof(text), f);
	int bad = ferror(f);
	fclose(f);
	if (bad) {
		fprintf(stderr, "bareperf-menu-settings: %s: read error\n", path);
		return -1;
	}
	return (long)n;
}

int main(int argc, char **argv)
{
	int menu = -1, seconds = -1;

	if (argc > 2) {
		fprintf(stderr, "usage: bareperf-menu-settings [bareperf.cfg]\n");
		return 64;
	}
	if (argc == 2) {
		long n = read_source(argv[1]);
		if (n < 0)
			return 1;
		menu = bootmenu_cfg_setting(text, (size_t)n);
		seconds = bootmenu_cfg_seconds(text, (size_t)n);
		config_defaults(&cfg);
		config_apply(&cfg, argv[1], text, (size_t)n, warn, NULL);
	}
	printf("%s %d\n", menu == 0 ? "off" : "on", seconds >= 0 ? seconds : BOOTMENU_SECONDS);
	return 0;
}
