"""Self-tests across CPU identities and the first configuration errors."""

SELFTEST_OK = [r"^\d+ passed, 0 failed", r"^PASS: cpl3\.round_trip$"]
NO_FAIL = [r"^FAIL:", r"^FATAL", r"unexpected exception"]

# OVMF takes about 3 s of CPU a boot and GRUB with its menu about 1.5 s, so cases that can
# share a boot do: tests/qemu/run-boots boots alike commands once and judges each case on
# that output. The self-test on qemu64 with SMEP, SMAP and UMIP, chosen from the boot menu,
# the image on q35's AHCI: one OVMF boot for this case, menu-uefi-selftest and
# storage-pci-q35-ahci-uefi; one GRUB boot for bios-selftest-qemu64, menu-bios-selftest
# and storage-pci-q35-ahci.
# OVMF maps the whole physical address space 1:1 before it starts the loader, with 1 GiB
# pages where the CPU has them (CPUID 0x80000001 EDX bit 26) and 2 MiB pages where not: 512
# page directories for qemu64's 40 address bits, about 1 s of CPU a boot under TCG. Every
# 64-bit CPU since about 2010 has them; QEMU's qemu64 and Skylake-Client models do not, so
# the UEFI cases give them the bit (the kernel neither prints nor uses it).
UEFI_QEMU64 = "qemu64,+pdpe1gb"
SELFTEST_MENU = ["--menu", "down down ret", "--cpu", UEFI_QEMU64 + ",+smep,+smap,+umip"]
# Two OVMF boots (about 3 s of CPU each) that cases of three areas share, each judged on
# the same output:
# - the ESP's bareperf.cfg (tests/qemu/bareperf-test.cfg: mode=detect, a typo on line 5)
#   on a stick behind qemu-xhci, detect chosen in the UEFI menu by its digit, --config over
#   both: config-file-on-esp (engine.py), menu-uefi-detect (menu.py),
#   storage-xhci-stick-uefi (storage.py);
# - an ESP whose bareperf.cfg is over the size limit, on an EHCI stick, under a GOP without
#   a framebuffer (virtio-gpu): config-file-too-big (config.py), screen-uefi-blt-only-gop
#   (screen.py), storage-usb-ehci-uefi (storage.py).
# Both runs end with a failing status, for the configuration errors.
UEFI_CFG_MENU_XHCI = ["--menu", "6", "--image", "build/test-cfg.img", "--cpu", UEFI_QEMU64, "--usb", "xhci",
                      "--config", "reps=9"]
UEFI_BIG_CFG_BLT_EHCI = ["--image", "build/test-cfg-big.img", "--cpu", UEFI_QEMU64, "--usb", "ehci",
                         "--vga", "none", "--config", "mode=detect", "--", "-device", "virtio-gpu-pci"]


def ident(vendor, family, model, stepping=None, kind=None):
    lines = ["cpu.vendor=" + vendor, "cpu.family=%d" % family, "cpu.model=%d" % model]
    if stepping is not None:
        lines.append("cpu.stepping=%d" % stepping)
    if kind:
        lines.append("pmu.kind=" + kind)
    return lines


def lava_pattern():
    """The one LAVA monitor pattern, as docs/lava.md gives it (the jobs in lava/ use it)."""
    import os
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))), "docs", "lava.md")
    with open(path) as f:
        for line in f:
            if line.startswith("<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=(?P<test_case_id>"):
                return line.rstrip("\n")
    raise SystemExit("docs/lava.md gives no monitor pattern")


def lava_signals(out, passed=True):
    """lava=on: between the start and end lines, one signal line per @result (its
    per_iter as MEASUREMENT), @c2c record, @check and self-test case, ids as LAVA keeps them and
    unique, every line read whole by the documented pattern; last, bareperf_errors, pass
    when the run passed."""
    import json, re
    pattern = re.compile(lava_pattern())
    lines = out.split("\n")
    problems = []
    if "<LAVA_SIGNAL_STARTRUN bareperf>" not in lines or "<LAVA_SIGNAL_ENDRUN bareperf>" not in lines:
        return ["no LAVA start or end line"]
    body = lines[lines.index("<LAVA_SIGNAL_STARTRUN bareperf>") + 1:lines.index("<LAVA_SIGNAL_ENDRUN bareperf>")]
    signals = [l for l in lines if l.startswith("<LAVA_SIGNAL_TESTCASE")]
    cases = []
    for l in signals:
        m = pattern.fullmatch(l)
        if not m:
            problems.append("not read whole by the monitor pattern: " + l)
            continue
        cases.append(m.groupdict())
    if len(signals) != len([l for l in body if l.startswith("<LAVA_SIGNAL_TESTCASE")]):
        problems.append("signal lines outside the start and end lines")
    ids = [c["test_case_id"] for c in cases]
    for i in ids:
        if not re.fullmatch(r"[a-z0-9_]{1,100}", i):
            problems.append("id LAVA would change: " + i)
    dups = sorted({i for i in ids if ids.count(i) > 1})
    if dups:
        problems.append("ids given twice: %s" % dups)
    results = [json.loads(l[len("@result "):]) for l in lines if l.startswith("@result ")]
    # mode=c2c's records: the figure each case carries (kernel/c2c-mode.c)
    c2c = [json.loads(l[len("@c2c "):]) for l in lines if l.startswith("@c2c ")]
    c2c_figure = {"c2c_latency": "one_way_median", "false_sharing": "ratio", "shared_bw": "read"}
    checks = [l for l in lines if l.startswith("@check ")]
    selftests = [l for l in lines if re.match(r"^(PASS|FAIL|SKIP): ", l) and not l[6:].startswith("pmucheck.")]
    want = len(results) + len(c2c) + len(checks) + len(selftests) + 1
    if len(cases) != want:
        problems.append("%d signal lines for %d results, %d checks, %d self-test cases and the "
                        "last case" % (len(cases), len(results) + len(c2c), len(checks), len(selftests)))
    measured = sorted(float(c["measurement"]) for c in cases if c["measurement"] is not None)
    figures = [float(r["per_iter"]) for r in results] + [float(r[c2c_figure[r["test"]]]) for r in c2c]
    if measured != sorted(figures):
        problems.append("the measurements are not the results' figures")
    if not cases or cases[-1]["test_case_id"] != "bareperf_errors" or \
            cases[-1]["result"] != ("pass" if passed else "fail"):
        problems.append("last case %s, expected bareperf_errors %s" % (cases[-1] if cases else None,
                        "pass" if passed else "fail"))
    return problems


CASES = [
    dict(name="selftest-qemu64", uefi=True, args=SELFTEST_MENU,
         lines=ident("AuthenticAMD", 15, 107, kind="amd-legacy") + ["cpu.hypervisor=TCGTCGTCGTCG",
               "sys.smep=on", "sys.smap=on", "sys.umip=on", "boot.firmware=uefi", "cpu.mode=long"],
         match=SELFTEST_OK, absent=NO_FAIL),
    # lava=on (docs/lava.md): a signal line per self-test case, besides the PASS lines
    dict(name="selftest-skylake", args=["--cpu", "Skylake-Client"], config="mode=selftest lava=on",
         check=lava_signals,
         lines=ident("GenuineIntel", 6, 94, 3, "none") + ["pmu.version=0", "pmu.gp_counters=0"],
         match=SELFTEST_OK + [r"^cpu\.brand=Intel Core Processor \(Skylake\)$"], absent=NO_FAIL),
    dict(name="selftest-epyc", args=["--cpu", "EPYC"], config="mode=selftest",
         lines=ident("AuthenticAMD", 23, 1, kind="amd-legacy") + ["pmu.gp_counters=4", "pmu.gp_width=48",
                                                                  "PASS: paging.mmio_uncached_split"],
         match=SELFTEST_OK, absent=NO_FAIL),
    dict(name="selftest-phenom", args=["--cpu", "phenom"], config="mode=selftest",
         lines=ident("AuthenticAMD", 16, 2, kind="amd-legacy"), match=SELFTEST_OK, absent=NO_FAIL),
    dict(name="selftest-core2duo", args=["--cpu", "core2duo"], config="mode=selftest",
         lines=ident("GenuineIntel", 6, 15, kind="none"), match=SELFTEST_OK, absent=NO_FAIL),
    dict(name="selftest-netburst-f15m4", args=["--cpu", "qemu64,vendor=GenuineIntel,family=15,model=4"],
         config="mode=selftest",
         lines=ident("GenuineIntel", 15, 4, kind="intel-netburst") + ["pmu.gp_counters=18", "pmu.gp_width=40"],
         match=SELFTEST_OK, absent=NO_FAIL),
    # Bad configuration: each bad entry named, the rest applied, the run goes on.
    dict(name="config-errors", args=["--cpu", "qemu64"],
         config="mode=detect rep=5 reps=0 bogus reps=7", exit=1,
         lines=["cfg.reps=7", "cfg.mode=detect"],
         match=[r"^config error: --config line 1: unknown key 'rep' \(did you mean 'reps'\?\)",
                r"^config error: --config line 1: reps=0 out of range",
                r"^config error: .*'bogus'"],
         absent=[r"^FATAL"]),
]


# A UEFI loader that cannot start the kernel (here: 48 MiB, too little below 4 GiB for its
# image; OVMF starts it at 46 to 50 MiB with 1 GiB pages, docs/old-machines.md) says why and
# powers the machine off, rather than return to OVMF, whose shell would wait out the timeout
# (exit 124). QEMU then exits 0: qemu-run's 3, with its reason.
CASES.append(dict(name="uefi-loader-failure-powers-off", uefi=True, args=["--cpu", UEFI_QEMU64, "--mem", "48"],
                  config="mode=detect", timeout=45, exit=3,
                  lines=["bareperf: no memory below 4 GiB for the kernel (Out of Resources)",
                         "bareperf: the kernel cannot be started; powering off",
                         "qemu-run: the guest powered off or reset without reporting: the UEFI loader could "
                         "not start the kernel (its message is above), or a triple fault"],
                  absent=[r"Shell>", r"did not finish"]))
