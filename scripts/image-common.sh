# What scripts/mkimage (the stick) and scripts/mkiso (the ISO) share; sourced by both,
# after they set prog (their name, for messages) and here (the scripts folder).

GRUB_DIR=/usr/lib/grub/i386-pc

# need_tools TOOL...: each on PATH or in /usr/sbin, else the run stops naming it.
need_tools() {
	for t in "$@"; do
		command -v "$t" >/dev/null || [ -x "/usr/sbin/$t" ] ||
			{ echo "$prog: $t missing: run scripts/install-deps" >&2; exit 1; }
	done
	PATH=$PATH:/usr/sbin
}

# need_files FILE...: each exists, else the run stops naming it.
need_files() {
	for f in "$@"; do
		[ -f "$f" ] || { echo "$prog: $f not found" >&2; exit 1; }
	done
}

# need_output OUT INPUT...: OUT is a new file or a regular file that is none of the inputs:
# the image is built aside and moved there, which would replace a device node (a stick
# named by mistake) or a link, or an input, rather than write into it.
need_output() {
	out_file=$1
	shift
	if [ -e "$out_file" ] || [ -L "$out_file" ]; then
		[ -f "$out_file" ] && [ ! -L "$out_file" ] ||
			{ echo "$prog: $out_file exists and is not a regular file: give a file name (write a stick with dd)" >&2; exit 1; }
		for f in "$@"; do
			[ ! "$out_file" -ef "$f" ] || { echo "$prog: $out_file is also an input" >&2; exit 1; }
		done
	fi
}

# image_seed: sets seed, 64 hex digits. From SOURCE_DATE_EPOCH (as `date +%s` writes it)
# and the commit when it is set and not empty, so that two builds of one commit are the
# same (reproducible-builds.org); random otherwise. The value must lie within what a FAT
# timestamp holds, 1980-01-01 to 2107-12-31, local time, which mtools takes from TZ, so
# TZ is UTC here (a FAT date of 0 is 1980, the 7-bit year ends at 2107; mtools wraps a
# time outside, and crashes on one that overflows a time_t). FAT times have 2-second
# steps: N and N+1 differ in the seed only. KIND names the product in the seed ("image",
# "iso"), so that a stick and an ISO of one commit differ.
FAT_EPOCH_MIN=315532800 FAT_EPOCH_MAX=4354819199
image_seed() {
	if [ -n "${SOURCE_DATE_EPOCH:-}" ]; then
		case $SOURCE_DATE_EPOCH in
		*[!0-9]*|0?*|???????????*) epoch_ok= ;;       # not decimal, a leading zero, over 10 digits
		*) epoch_ok=1; [ "$SOURCE_DATE_EPOCH" -ge $FAT_EPOCH_MIN ] &&
			[ "$SOURCE_DATE_EPOCH" -le $FAT_EPOCH_MAX ] || epoch_ok= ;;
		esac
		[ -n "$epoch_ok" ] || { echo "$prog: SOURCE_DATE_EPOCH='$SOURCE_DATE_EPOCH' is not a number of seconds" \
			"in FAT's range: a decimal integer from $FAT_EPOCH_MIN (1980-01-01 00:00:00 UTC) to" \
			"$FAT_EPOCH_MAX (2107-12-31 23:59:59 UTC), without leading zeros" >&2; exit 1; }
		export TZ=UTC0
		commit=$(git -C "$here" rev-parse HEAD 2>/dev/null || echo no-commit)
		seed=$(printf 'bareperf %s %s %s' "$1" "$SOURCE_DATE_EPOCH" "$commit" | sha256sum | cut -c1-64)
	else
		seed=$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')
	fi
}

# grub_modules CORE: normal, the modules grub.cfg loads (scripts/gen/grub-cfg --modules),
# and every module they need (GRUB's moddep.lst), less those in CORE (core.img's), one a
# line: what goes beside core.img in $prefix/i386-pc.
grub_modules() {
	awk -v want="normal $("$here/gen/grub-cfg" --modules)" -v core="$1" '
	{ sub(":", ""); deps[$1] = $0 }
	function add(m,   n, i, d) { if (m in seen) return; seen[m] = 1
		n = split(deps[m], d, " "); for (i = 2; i <= n; i++) add(d[i]) }
	END { n = split(core, c, " "); for (i = 1; i <= n; i++) add(c[i])
		for (m in seen) incore[m] = 1
		n = split(want, w, " "); for (i = 1; i <= n; i++) add(w[i])
		for (m in seen) if (!(m in incore)) print m }' "$GRUB_DIR/moddep.lst" | LC_ALL=C sort
}

# default_cfg FILE: the comment-only bareperf.cfg a medium gets when none is given, for
# the user to edit.
default_cfg() {
	printf '%s\n' "# bareperf configuration: key=value lines, read at boot (docs/config.md)." > "$1"
}
