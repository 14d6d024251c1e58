"""The screen console: screendumps pixel-exact against the host renderer."""
from cases.menu import *  # noqa: F401,F403 (the helpers of the areas before)

CASES = []

# ---------------------------------------------------------------- the screen console
# Each case boots with a display (scripts/qemu-run --screen, a screendump at the kernel's
# stop) and holds the picture to build/host/screen-check: every character cell must be a
# glyph of the kernel's font in console colours, and the whole screen exactly the host
# renderer's (lib/fbcon.c) image of that text. The text itself is then checked against
# what serial said. Under --icount the @result lines must not change with a display.
SCREEN_DIR = os.path.join(ROOT, "build", "test-logs", "boots")
SCREEN_RUN = "mode=run payloads=add_chain,imul_chain reps=2"


def screen_text(name):
    """The screen's text rows (screen-check's output) and the problems found."""
    ppm = os.path.join(SCREEN_DIR, name + ".ppm")
    if not os.path.exists(ppm):
        return [], ["no screendump %s" % ppm]
    p = subprocess.run([os.path.join(ROOT, "build", "host", "screen-check"), ppm],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    problems = ["screen-check: " + l for l in p.stderr.decode().splitlines() if l.strip()]
    if p.returncode != 0 and not problems:
        problems.append("screen-check exit status %d" % p.returncode)
    return p.stdout.decode().splitlines(), problems


def spread(r):
    """A result's spread as the report prints it after its figure (lib/stats.c
    stats_spread_pct_milli: the standard deviation over the mean, percent x1000, truncated)."""
    sd, mean = abs(round(r["stddev"] * 1000)), abs(round(r["mean"] * 1000))
    s = sd * 100000 // mean if mean else 0
    return "\u00b1%d.%03d%%" % divmod(s, 1000)


# kernel/screen-ui.c's table rows: narrow, and with each figure's spread on a screen of
# 103 columns or more (TABLE_WIDE_COLS)
TABLE_FMT = "%-20.20s %-24.24s %-11.11s %13s %13s"
TABLE_WIDE_FMT = "%-20.20s %-24.24s %-11.11s %13s %-8s %13s %-8s"


def table_header(wide):
    if wide:
        return (TABLE_WIDE_FMT % ("payload", "event", "source", "CPL 0", "", "CPL 3", "")).rstrip()
    return (TABLE_FMT % ("payload", "event", "source", "CPL 0", "CPL 3")).rstrip()


def result_rows(out, wide=False):
    """The results screen's rows of each payload, as kernel/screen-ui.c formats them."""
    rows, blocks = [], {}
    for r in tagged(out, "result"):
        key = (r["bench"], r["size"])
        ev = blocks.setdefault(key, {})
        ev.setdefault((r["event"], r["source"]), {})[r["cpl"]] = ("%.3f" % r["per_iter"], spread(r))
    for (bench, size), events in blocks.items():
        name = bench if not size else "%s %dM" % (bench, size >> 20) if size % (1 << 20) == 0 \
            else "%s %dK" % (bench, size >> 10)
        for i, ((event, source), cpls) in enumerate(events.items()):
            c0, c3 = cpls.get(0, ("-", "")), cpls.get(3, ("-", ""))
            if wide:
                row = TABLE_WIDE_FMT % (name if i == 0 else "", event, source, c0[0], c0[1], c3[0], c3[1])
            else:
                row = TABLE_FMT % (name if i == 0 else "", event, source, c0[0], c3[0])
            rows.append(row.rstrip())
    return rows


def unwrapped(text, first):
    """The line whose first row on the screen starts with `first`, its further rows (indented
    by kernel/screen-ui.c's WRAP_INDENT) joined back; None when no row starts so."""
    for i, row in enumerate(text):
        if row.startswith(first):
            parts = [row]
            for more in text[i + 1:]:
                if not more.startswith("  ") or not more.strip():
                    break
                parts.append(more[2:])
            return " ".join(parts)
    return None


def machine_line(out):
    """The results screen's machine lines as kernel/screen-ui.c writes them, from the run's
    @meta record, its boot.image line and its last line (the run's number)."""
    meta = tagged(out, "meta")[0]
    c, pmu = meta["cpu"], meta["pmu"]
    cpu = "%s family %d model %d stepping %d" % (c["vendor"], c["family"], c["model"], c["stepping"])
    if c["brand"]:
        cpu = "%s (%s)" % (c["brand"], cpu)
    ident = re.search(r"^boot\.image=([0-9a-f]{32})", out, re.M)
    run = re.search(r"^(?:saved: run (\d+) |not saved: .*; run (\d+) went to )", out, re.M)
    image = "image unknown"
    if ident:
        image = "image %s, run %s" % (ident.group(1), (run.group(1) or run.group(2)) if run else "not saved")
    return "%s; PMU %s, %s; %s, %s kernel; %s" % (
        cpu, pmu["kind"], "counting" if pmu["functional"] else "not counting", meta["boot"]["firmware"],
        "x86-64" if c["mode"] == "long" else "i686", image)


def results_machine_on_screen(out, text):
    """The machine lines under the title, and each note wrapped whole, not cut."""
    problems = []
    want = machine_line(out)
    shown = unwrapped(text[1:], text[1][:20]) if len(text) > 1 and text[1] else None
    if shown != want:
        problems.append("the results screen's machine lines say %r, expected %r" % (shown, want))
    for note in [l for l in out.split("\n") if l.startswith("note: ")]:
        on_screen = unwrapped(text, note[:40])
        if on_screen != note:
            problems.append("the note %r is on the screen as %r" % (note[:60], on_screen))
    return problems


def serial_first(out, prefix, rx=None):
    return next((l for l in out.split("\n") if l.startswith(prefix) and (not rx or re.match(rx, l))),
                None)


def saved_on_screen(out, text):
    """The bottom row says where the log went, as serial's saved: or not saved: line does
    (cut at the screen's width)."""
    saved = serial_first(out, "saved: ") or serial_first(out, "not saved: ")
    if not saved:
        return ["no saved: or not saved: line on serial"]
    if not text or not saved.startswith(text[-1]) or len(text[-1]) < min(len(saved), 60):
        return ["the screen's bottom row %r is not serial's %r" % (text[-1] if text else "", saved)]
    return []


def results_screen(name):
    def check(out, plain=None):
        text, problems = screen_text(name)
        if problems:
            return problems
        version = serial_first(out, "bareperf ", r"^bareperf (?!loader$)\S+$")
        want_title = " %s  results: per iteration" % version
        if text[0] != want_title:
            problems.append("title %r, expected %r" % (text[0], want_title))
        wide = table_header(True) in text
        if not wide and table_header(False) not in text:
            problems.append("no table header on the results screen")
        if wide and not any(l.startswith("figures: the repetitions' median; \u00b1: the standard deviation")
                            for l in text):
            problems.append("the results screen shows spreads and does not say what they are")
        for row in result_rows(out, wide):
            if row not in text:
                problems.append("results screen lacks %r" % row)
        problems += results_machine_on_screen(out, text)
        told = [l for l in out.split("\n") if "\u00b1: the standard deviation of the repetitions" in l]
        if len(told) != 1:
            problems.append("serial explains the spread %d times, not once" % len(told))
        totals = serial_first(out, "bareperf: ", r"^bareperf: \d+ results") or "(none on serial)"
        if totals not in text:
            problems.append("results screen lacks the totals line %r" % totals)
        if " bareperf: stopped (exit code 0)" not in text:
            problems.append("no stop line on the screen")
        problems += saved_on_screen(out, text)
        if plain is not None:
            if re.search(r"^screen:", plain, re.M):
                problems.append("a boot without a display speaks of the screen on serial")
            with_screen = [l for l in out.split("\n") if l.startswith("@result ")]
            without = [l for l in plain.split("\n") if l.startswith("@result ")]
            if not with_screen or with_screen != without:
                problems.append("@result lines differ with a display (%d) and without (%d)" %
                                (len(with_screen), len(without)))
        return problems
    return check


def start_screen(name):
    def check(out):
        text, problems = screen_text(name)
        if problems:
            return problems
        get = lambda k: serial_first(out, k + "=").split("=", 1)[1]
        cpu = " CPU       %s family %s model %s stepping %s: %s" % (
            get("cpu.vendor"), get("cpu.family"), get("cpu.model"), get("cpu.stepping"), get("cpu.brand"))
        for want in [cpu, " Firmware  bios, x86-64 kernel (long mode)", " CPUs      1 up",
                     " Serial    port 0x3f8, 115200 baud (the full report goes there)",
                     " bareperf: stopped (exit code 0)"]:
            if want not in text:
                problems.append("start screen lacks %r" % want)
        problems += saved_on_screen(out, text)
        if not any(l.startswith(" PMU       ") and "not checked (mode=detect)" in l for l in text):
            problems.append("no PMU line on the start screen")
        return problems
    return check


def screen_case(name, args, config, check, uefi=False, prelude=None):
    """A boot with a display whose final screen is saved (qemu-run --screen, before any
    QEMU arguments after '--' in args)."""
    ppm = os.path.join(SCREEN_DIR, name + ".ppm")
    cut = args.index("--") if "--" in args else len(args)
    case = dict(name=name, uefi=uefi, args=args[:cut] + ["--screen", ppm] + args[cut:], config=config,
                timeout=120, check=check, absent=NO_FAIL)
    if prelude:
        # the same run without a display, to compare its results with: by PVH (uefi=False:
        # the firmware is not what differs), 0.3 s sooner than through GRUB
        case["prelude"] = dict(uefi=False, args=args, config=config)
    return case


# The loader's last words no longer send the user away from a screen that shows the run.
# On QEMU's -machine pc (i440fx, IDE), whose disk storage-pci-pc-ide-uefi (cases/storage.py)
# checks in the same boot: OVMF takes about 2 s a boot. The configuration goes in args, before
# the '--' that run-boots would otherwise put it after.
UEFI_SCREEN_RESULTS = dict(screen_case("screen-uefi-results",
                                       ["--cpu", "max", "--config", SCREEN_RUN, "--", "-machine", "pc"], None,
                                       results_screen("screen-uefi-results"), uefi=True),
                           lines=["          or as bareperf.cfg says) and to this screen"])
# The mode GRUB sets (scripts/gen/grub-cfg's gfxpayload list) as the kernel reports it: 32
# bits per pixel on both of QEMU's cards under SeaBIOS. tests/bochs/run checks Bochs' VGA
# BIOS, which offers GRUB only 8-bit modes.
GRUB_32BPP = [r"^boot\.screen=800x600x32 direct colour, 100x37 cells$"]
CASES += [
    UEFI_SCREEN_RESULTS,
    dict(screen_case("screen-bios-results", ["--cpu", "max", "--icount"], SCREEN_RUN,
                     results_screen("screen-bios-results"), prelude=True), match=GRUB_32BPP),
    screen_case("screen-i686-results", ["--cpu", "pentium3", "--icount"], SCREEN_RUN,
                results_screen("screen-i686-results")),
    dict(screen_case("screen-cirrus-detect", ["--cpu", "qemu64", "--vga", "cirrus"], "mode=detect",
                     start_screen("screen-cirrus-detect")), match=GRUB_32BPP),
]


def summary_screen(name):
    """64 payload-size blocks do not fit 800x600's 37 rows, not even as one row each: the
    screen drops the other events, then the notes, keeps the blocks' first rows in the order
    run as far as they fit, says how many were left out and where the rest is."""
    def check(out):
        text, problems = screen_text(name)
        if problems:
            return problems
        if any(l.startswith("note:") for l in text):
            problems.append("a note left on a summary that does not fit")
        firsts = [r for r in result_rows(out) if r[:20].strip()]    # each block's first row
        shown = [r for r in firsts if r in text]
        if len(shown) < 20 or shown != firsts[:len(shown)]:
            problems.append("the screen does not show the blocks' first rows in order")
        want = "summary: first figures, no notes, %d rows cut; full report: serial port 0x3f8" % (
            len(firsts) - len(shown))
        if want not in text:
            problems.append("no line %r" % want)
        totals = serial_first(out, "bareperf: ", r"^bareperf: \d+ results")
        if totals not in text:
            problems.append("results screen lacks the totals line %r" % totals)
        return problems
    return check


# At CPL 0 alone: as many blocks, in a third less CPU time.
CASES.append(screen_case(
    "screen-results-summary", ["--cpu", "max", "--icount"],
    "mode=run payloads=mem_seq_read,mem_chase cpl=0 reps=2 iters=100 sizes=" +
    ",".join("%dK" % (4 * i) for i in range(1, 33)), summary_screen("screen-results-summary")))


def refusal_screen(name, reason_start):
    """The i686 kernel's refusal of a pre-P6 CPU, drawn on GRUB's framebuffer with code
    built for the i486: the title, the reason as serial has it (wrapped), "Stopped."."""
    def check(out):
        text, problems = screen_text(name)
        if problems:
            return problems
        line = serial_first(out, "bareperf: " + reason_start) or ""
        reason = line[len("bareperf: "):-len(" Stopped.")]
        shown = " ".join(l.strip() for l in text[2:] if l.strip() and l.strip() != "Stopped.")
        if text[0] != " bareperf cannot run on this CPU":
            problems.append("title %r" % text[0])
        if not reason or shown != reason:
            problems.append("the screen says %r, serial %r" % (shown, reason))
        if " Stopped." not in text:
            problems.append("no 'Stopped.' on the screen")
        return problems
    return check


CASES.append(dict(screen_case("screen-i686-refuses-pentium", ["--cpu", "pentium"], None,
                              refusal_screen("screen-i686-refuses-pentium", "this CPU has no CMOV")),
                  exit=2))


def log_screen(name, summary_rx):
    """Modes other than run end on their last console lines: the mode's own summary and the
    totals line as serial has them, above the stop line."""
    def check(out):
        text, problems = screen_text(name)
        if problems:
            return problems
        for rx in [summary_rx, r"^bareperf: \d+ results"]:
            line = serial_first(out, "", rx)
            if not line or line not in text:
                problems.append("the screen lacks serial's %r" % line)
        rows = text[:-1] if text and text[-1] == "" else text     # the output's last newline
        if rows[-2] != " bareperf: stopped (exit code 0)":    # the status row, above the bar's
            problems.append("status line %r" % rows[-2])
        return problems
    return check


CASES.append(screen_case("screen-pmucheck-end", ["--cpu", "qemu64"], "mode=pmucheck",
                         log_screen("screen-pmucheck-end", r"^pmucheck: \d+ passed, \d+ failed")))


# OVMF's virtio-gpu driver gives a GOP without a framebuffer (blt-only): nothing to draw on,
# and serial says so (a machine with no display at all stays silent, checked above). The
# image is on an EHCI stick: one OVMF boot (UEFI_BIG_CFG_BLT_EHCI) for config-file-too-big
# and storage-usb-ehci-uefi too.
CASES.append(dict(name="screen-uefi-blt-only-gop", uefi=True, args=UEFI_BIG_CFG_BLT_EHCI, exit=1,
                  lines=["screen: none (the GOP is blt-only (no framebuffer))"], absent=NO_FAIL))
