"""The measurement engine: the catalogue exact under -icount, faults, trace=msr, odd CPUs."""
from cases.basics import *  # noqa: F401,F403 (the helpers of the areas before)

CASES = []

# ---------------------------------------------------------------- measurement engine
import json
import re

# The kernel's own catalogue listing: what the icount test holds each payload to. Through
# SeaBIOS (uefi=False) even as the prelude of a UEFI case: the firmware has no part in it.
# It is the same on every CPU model (what a CPU lacks is a run's @skip), so the preludes
# share payload-list's boot.
LISTING = dict(uefi=False, args=["--cpu", "qemu64"], config="mode=list")

# The UEFI icount boot: the whole catalogue and a user benchmark (payloads=* runs it beside
# the catalogue), which icount-exact-catalogue and user-asm-icount-exact (cases/user.py)
# share: OVMF takes about 2 s a boot.
UEFI_ICOUNT_ARGS = ["--cpu", "max", "--icount", "--asm", "add rax, 1", "--unroll", "100", "--loop", "10"]
UEFI_ICOUNT_CONFIG = "payloads=* reps=4 warmup=1 iters=64 sizes=4K,64K,1M cpl=both events=cycles,instructions"


def tagged(out, tag):
    return [json.loads(l[len(tag) + 2:]) for l in out.split("\n") if l.startswith("@" + tag + " ")]


def catalogue(listing):
    """Payloads as mode=list prints them: name -> @payload record (docs/results.md)."""
    return {p["name"]: p for p in tagged(listing, "payload")}


def icount_exact(out, listing, min_results=100, skips=None):
    """Under -icount shift=5 every instruction is 32 TSC ticks: each payload's TSC figure
    must equal 32 x its declared instructions (from the mode=list boot), with zero spread,
    the same at CPL 0 and 3; single-stepped instruction counts must equal the declaration.
    skips, when given: exactly the payloads the CPU lacks something for, each with a reason."""
    problems = []
    cat = catalogue(listing)
    results = [r for r in tagged(out, "result") if "unroll" not in r]    # user benchmarks aside
    skipped = {s["bench"] for s in tagged(out, "skip")}
    for s in tagged(out, "skip"):
        if not s.get("reason"):
            problems.append("@skip without a reason: %s" % s)
    if skips is not None and skipped != set(skips):
        problems.append("skipped %s, expected %s" % (sorted(skipped), sorted(skips)))
    seen = {r["bench"] for r in results}
    for name, p in cat.items():
        if p["fault"] or name in skipped:
            continue
        if name not in seen:
            problems.append("no result for payload %s" % name)
    if len(cat) < 30:
        problems.append("mode=list printed only %d payloads" % len(cat))
    by_key = {}
    for r in results:
        p = cat.get(r["bench"])
        if p is None:
            problems.append("result for unknown payload %s" % r["bench"])
            continue
        insns = p["insns_per_iter"]
        if r["insns_per_iter"] != insns:
            problems.append("%s: @result says %d insns/iter, catalogue %d" % (r["bench"], r["insns_per_iter"], insns))
        if r["stddev"] != 0 or r["min"] != r["max"]:
            problems.append("%s cpl%d %s: spread min=%s max=%s stddev=%s" % (r["bench"], r["cpl"], r["event"], r["min"], r["max"], r["stddev"]))
        own = not p["kernel_code"]
        if r["source"] == "tsc" and own and r["per_iter"] != 32 * insns:
            problems.append("%s size %d cpl%d: %s ticks/iter, expected 32 x %d" % (r["bench"], r["size"], r["cpl"], r["per_iter"], insns))
        if r["source"] == "single-step" and r["per_iter"] != insns:
            problems.append("%s cpl%d: %s stepped insns/iter, declared %d" % (r["bench"], r["cpl"], r["per_iter"], insns))
        by_key.setdefault((r["bench"], r["size"], r["event"], r["source"]), {})[r["cpl"]] = r["per_iter"]
    for key, cpls in by_key.items():
        if 0 in cpls and 3 in cpls and cpls[0] != cpls[3]:
            problems.append("%s: CPL 0 %s != CPL 3 %s" % (key, cpls[0], cpls[3]))
    done = tagged(out, "done")
    if not done or done[0]["errors"] or done[0]["faults"] or done[0]["timeouts"]:
        problems.append("@done: %s" % done)
    if len(results) < min_results:
        problems.append("only %d results" % len(results))
    return problems


def listing_complete(out):
    """Every @payload carries the fields docs/results.md names, with their types; test
    payloads and only they say what they must do."""
    problems = []
    fields = {"name": str, "insns_per_iter": int, "cpls": str, "sizes": bool, "kernel_code": bool,
              "fault": bool, "needs": list, "desc": str}
    pls = tagged(out, "payload")
    for p in pls:
        for k, t in fields.items():
            if not isinstance(p.get(k), t):
                problems.append("%s: field %s is %r" % (p.get("name"), k, p.get(k)))
        if p.get("cpls") not in ("0", "3", "0,3") or p.get("insns_per_iter", 0) < 1:
            problems.append("%s: %s" % (p.get("name"), p))
        if p.get("fault") != ("expect" in p) or (p.get("expect") == "fault") != ("vector" in p):
            problems.append("%s: expect/vector only for test payloads: %s" % (p.get("name"), p))
    names = [p.get("name") for p in pls]
    if len(set(names)) != len(names) or len(names) < 30:
        problems.append("%d @payload records, %d names" % (len(names), len(set(names))))
    return problems


def faults_reported(out):
    want = {("fault_priv", 3): 13, ("fault_kaddr", 3): 14, ("fault_div0", 0): 0, ("fault_div0", 3): 0,
            ("fault_ud", 0): 6, ("fault_ud", 3): 6}
    problems = []
    got = {(f["bench"], f["cpl"]): f for f in tagged(out, "fault")}
    for k, vec in want.items():
        f = got.get(k)
        if not f:
            problems.append("no @fault for %s at CPL %d" % k)
        elif f["vector"] != vec or not f["expected"] or not f["where"].startswith(k[0] + "+"):
            problems.append("%s: %s" % (k, f))
    touts = {(t["bench"], t["cpl"]) for t in tagged(out, "timeout") if t["expected"]}
    for cpl in (0, 3):
        if ("fault_hang", cpl) not in touts:
            problems.append("no expected @timeout for fault_hang at CPL %d" % cpl)
    # The run goes on: the payload after the faults still measures at both CPLs.
    after = [r for r in tagged(out, "result") if r["bench"] == "empty"]
    if {r["cpl"] for r in after} != {0, 3}:
        problems.append("payload after the faults did not run at both CPLs")
    return problems


CASES += [
    dict(name="icount-exact-catalogue", uefi=True, args=UEFI_ICOUNT_ARGS, timeout=400, prelude=LISTING,
         config=UEFI_ICOUNT_CONFIG,
         check=icount_exact, match=[r"^pmu\.functional=no \(.*RDPMC raises #UD"], absent=NO_FAIL),
    # The catalogue as the kernel lists it; nothing is measured.
    dict(name="payload-list", args=["--cpu", "qemu64"], config="mode=list", check=listing_complete,
         lines=['@payload {"name":"empty","insns_per_iter":2,"cpls":"0,3","sizes":false,"kernel_code":false,'
                '"fault":false,"needs":[],"desc":"the loop alone (dec; jnz): calibration"}',
                '@payload {"name":"fault_hang","insns_per_iter":1,"cpls":"0,3","sizes":false,"kernel_code":false,'
                '"fault":true,"needs":[],"expect":"timeout","desc":"test: a loop that never ends (watchdog)"}',
                "bareperf: stopped (exit code 0)"],
         match=[r"^mem_chase +3 instructions/iteration, CPL 0,3 pointer chase"],
         absent=[r"^@result", r"^@error", r"^FATAL", r"^config error"]),
    dict(name="fault-payloads", args=["--cpu", "max"],
         config="payloads=fault_*,empty watchdog=100 reps=2 iters=10",
         check=faults_reported, match=[r"^fault_div0 at CPL 3: #DE \(vector 0, error 0x0\) at fault_div0\+0x"],
         absent=[r"UNEXPECTED", r"^FATAL"]),
    dict(name="crashtest-fatal-report", args=["--cpu", "qemu64"], config="mode=crashtest", exit=2,
         match=[r"^FATAL: unexpected exception in the kernel$", r"^exception #GP \(vector 13\)",
                r"^  RIP=ffffffff8\w+ CS=0008 RFLAGS=", r"^  RAX=8000000000000000 ",
                r"^bareperf: stopped \(exit code 2\)$"]),
    # lava=on: a signal line per result, and a run with an error ends in a failed last case
    dict(name="payload-selection-errors", args=["--cpu", "qemu64"],
         config="payloads=add_chian,empty reps=2 iters=10 lava=on",
         check=lambda out: lava_signals(out, passed=False),
         exit=1, match=[r"^error: payloads: 'add_chian' matches no payload \(did you mean 'add_chain'\?\)$",
                        r'^@result \{"bench":"empty"'], absent=[r"^FATAL"]),
    dict(name="selects-nothing", args=["--cpu", "qemu64"], config="payloads=zzz*",
         exit=1, match=[r"selects nothing: no payload to run"], absent=[r"^FATAL"]),
    # trace=msr: the programming sequence, decoded, where the hardware ignores it.
    dict(name="trace-msr-intel-arch-skl", args=["--cpu", "Skylake-Client"],
         config="pmu=skl trace=msr payloads=empty reps=1 iters=10 cpl=3 "
                "events=cycles,instructions,branches,skl::INST_RETIRED:ANY_P:u:c=1:i",
         lines=["pmu.model=skl (forced by pmu=)",
                "wrmsr PERFEVTSEL0 0x186 <- 0x004300c4 event=0xc4 umask=0x00 usr os en",
                "wrmsr PERFEVTSEL1 0x187 <- 0x01c100c0 event=0xc0 umask=0x00 usr en inv cmask=1",
                "wrmsr FIXED_CTR_CTRL 0x38d <- 0x00000033 fixed0=os,usr fixed1=os,usr",
                "wrmsr PERF_GLOBAL_CTRL 0x38f <- 0x300000003 pmc0 pmc1 fixed0 fixed1",
                "wrmsr PERF_GLOBAL_CTRL 0x38f <- 0x00000000 none",
                "wrmsr FIXED_CTR_CTRL 0x38d <- 0x00000000 all off"],
         absent=NO_FAIL),
    dict(name="trace-msr-amd-k8", args=["--cpu", "qemu64"],
         config="trace=msr payloads=empty reps=1 iters=10 cpl=3 "
                "events=cycles,instructions,amd64_k8_revg::RETIRED_BRANCH_INSTRUCTIONS:k",
         lines=["pmu.model=amd64_k8_revg",
                "wrmsr K7_EVNTSEL0 0xc0010000 <- 0x00030076 event=0x076 umask=0x00 usr os",
                "wrmsr K7_EVNTSEL2 0xc0010002 <- 0x000200c2 event=0x0c2 umask=0x00 os",
                "wrmsr K7_EVNTSEL0 0xc0010000 <- 0x00430076 event=0x076 umask=0x00 usr os en",
                "wrmsr K7_EVNTSEL1 0xc0010001 <- 0x004300c0 event=0x0c0 umask=0x00 usr os en",
                "wrmsr K7_PERFCTR2 0xc0010006 <- 0x00000000"],
         absent=NO_FAIL),
    dict(name="trace-msr-amd-zen4-perfmon-v2", args=["--cpu", "EPYC"],
         config="pmu=amd64_fam19h_zen4 trace=msr payloads=empty reps=1 iters=10 cpl=3 events=cycles,instructions",
         lines=["wrmsr PERF_CTL0 0xc0010200 <- 0x00430076 event=0x076 umask=0x00 usr os en",
                "wrmsr PERF_CTL1 0xc0010202 <- 0x004300c0 event=0x0c0 umask=0x00 usr os en",
                "wrmsr PERF_CNTR_GLOBAL_CTL 0xc0000301 <- 0x00000003 pmc0 pmc1",
                "wrmsr PERF_CNTR_GLOBAL_CTL 0xc0000301 <- 0x00000000 none"],
         absent=NO_FAIL),
    dict(name="trace-msr-netburst", args=["--cpu", "qemu64,vendor=GenuineIntel,family=15,model=4"],
         config="trace=msr payloads=empty reps=1 iters=10 cpl=3 "
                "events=cycles,instructions,netburst::global_power_events:RUNNING:cmpl:thr=8:u",
         lines=["pmu.kind=intel-netburst",
                "wrmsr FSB_ESCR0 0x3a2 <- 0x2600020c evsel=0x13 emask=0x1 t0_os t0_usr (global_power_events)",
                "wrmsr CRU_ESCR0 0x3b8 <- 0x0400060c evsel=0x2 emask=0x3 t0_os t0_usr (instr_retired)",
                "wrmsr BPU_CCCR0 0x360 <- 0x0003d000 enable esel=6 active=any",
                "wrmsr IQ_CCCR0 0x36c <- 0x00039000 enable esel=4 active=any",
                # FSB_ESCR0 is taken by cycles, so the second global_power_events goes to
                # FSB_ESCR1, which feeds counters 2 and 3 (SDM Table 18-xx): T0_USR only (:u).
                "wrmsr FSB_ESCR1 0x3a3 <- 0x26000204 evsel=0x13 emask=0x1 t0_usr (global_power_events)",
                "wrmsr BPU_CCCR2 0x362 <- 0x008fd000 enable esel=6 active=any thr=8 compare complement"],
         absent=NO_FAIL),
]

# A CPU whose CPUID shows no PMU (QEMU's Skylake: leaf 0xA empty): events are still checked
# by name, then measured the only ways left: TSC and single-stepped instructions.
CASES.append(dict(name="run-no-pmu-skylake", args=["--cpu", "Skylake-Client"],
                  config="payloads=add_chain,empty reps=3 iters=100 events=cycles,instructions,INST_RETIRD",
                  exit=1,
                  match=[r"^pmu\.functional=no \(CPUID reports no usable PMU \(leaf 0xA is empty",
                         r"^note: event 'cycles' not measured: no working PMU",
                         r"^error: unknown event 'INST_RETIRD' for PMU skl \(did you mean 'INST_RETIRED'\?\)",
                         r'^@result \{"bench":"add_chain","size":0,"cpl":3,"event":"instructions","group":0,"source":"single-step".*"per_iter":10\.000'],
                  absent=[r"^FATAL", r"needs fixed counter"]))

# bareperf.cfg on the ESP (read by the UEFI loader), overridden by --config (fw_cfg); the
# mode is the menu's (UEFI_CFG_MENU_XHCI).
CASES.append(dict(name="config-file-on-esp", uefi=True, args=UEFI_CFG_MENU_XHCI, exit=1,
                  lines=["cfg.mode=detect", "cfg.reps=9", "cfg.warmup=3",
                         "config error: bareperf.cfg line 5: unknown key 'rep' (did you mean 'reps'?)"],
                  absent=[r"^FATAL"]))

# NetBurst with Hyper-Threading (two threads per core): the ESCR's T0/T1 bits follow
# netburst.thread (SDM Vol. 3B 18.19.4, Table 18-29).
for _want, _escr, _bits, _label in [("both", "0x2600020f", "t0_os t0_usr t1_os t1_usr", "T0+T1"),
                                     ("1", "0x26000203", "t1_os t1_usr", "T1"),
                                     ("auto", "0x2600020c", "t0_os t0_usr", "T0")]:
    CASES.append(dict(name="trace-msr-netburst-ht-thread-" + _want,
                      args=["--smp", "2,threads=2", "--cpu", "qemu64,vendor=GenuineIntel,family=15,model=4"],
                      config="trace=msr payloads=empty reps=1 iters=10 cpl=3 events=cycles netburst.thread=" + _want,
                      lines=["pmu.netburst_ht=yes", "cpu.logical_per_package=2",
                             "wrmsr FSB_ESCR0 0x3a2 <- %s evsel=0x13 emask=0x1 %s (global_power_events)" % (_escr, _bits)],
                      match=[r"^pmu\.netburst_thread=%s " % _label.replace("+", r"\+")], absent=NO_FAIL))

# A payload the chosen CPLs exclude is skipped with a reason, not dropped silently.
CASES.append(dict(name="cpl-selection-skip", args=["--cpu", "qemu64"],
                  config="payloads=cost_rdmsr,sys_int80 cpl=3 reps=2 iters=10",
                  lines=['@skip {"bench":"cost_rdmsr","reason":"runs only at CPL 0, and cpl= leaves CPL 0 out"}'],
                  match=[r'^@result \{"bench":"sys_int80","size":0,"cpl":3,'], absent=[r'"cpl":0', r"^FATAL"]))

# APERF/MPERF: read by RDMSR in the CPL 0 runs (QEMU implements them as reading 0); the
# CPL 3 runs say why they have none. Without pmu=, QEMU's Skylake has no CPUID.06H:ECX[0].
CASES.append(dict(name="aperf-mperf-cpl0-only", args=["--cpu", "Skylake-Client"],
                  config="pmu=skl payloads=add_chain reps=2 iters=100 events=aperf,mperf,aperf",
                  lines=["note: event 'aperf' is measured in the CPL 0 runs only: it is read with RDMSR, "
                         "which CPL 3 may not execute"],
                  match=[r'^@result \{"bench":"add_chain","size":0,"cpl":0,"event":"aperf","group":0,"source":"msr"',
                         r'^@result \{"bench":"add_chain","size":0,"cpl":0,"event":"mperf","group":0,"source":"msr"',
                         r'^@result \{"bench":"add_chain","size":0,"cpl":3,"event":"tsc"'],
                  absent=[r'"cpl":3,"event":"[am]perf"', r"^FATAL", r"^error"]))
CASES.append(dict(name="aperf-refused-without-cpuid6", args=["--cpu", "Skylake-Client"],
                  config="payloads=empty reps=2 iters=10 events=aperf", exit=1,
                  match=[r"^error: aperf: this CPU has no APERF/MPERF \(CPUID\.06H:ECX bit 0 is clear\)$"]))

# RAPL energy counters: QEMU's Skylake is a RAPL model, but TCG reads MSR_RAPL_POWER_UNIT
# as 0, so the boot probe finds none and energy events are refused (never read by a
# plain RDMSR); QEMU's EPYC does not set CPUID 0x80000007 EDX[14] at all.
_RAPL_TCG = ("the RAPL power-unit MSR reads 0: this machine does not implement RAPL; "
             "QEMU TCG, for one, reads unknown MSRs as 0")
CASES.append(dict(name="energy-refused-under-tcg", args=["--cpu", "Skylake-Client"],
                  config="payloads=add_chain reps=2 iters=10 events=energy-pkg,power/energy-cores/,aperf",
                  exit=1,
                  lines=["rapl=no (%s)" % _RAPL_TCG, "error: energy-pkg: " + _RAPL_TCG,
                         "error: power/energy-cores/: " + _RAPL_TCG],
                  match=[r"^cpu\.features=.*,rapl$",
                         r'^@result \{"bench":"add_chain","size":0,"cpl":0,"event":"tsc"'],
                  absent=[r"^FATAL", r'"event":"energy', r"^@fault"]))
CASES.append(dict(name="energy-refused-amd-no-cpuid", args=["--cpu", "EPYC"],
                  config="payloads=empty reps=2 iters=10 events=energy-ram", exit=1,
                  lines=["rapl=no (this CPU has no RAPL energy counters: CPUID 0x80000007 EDX bit 14 is "
                         "clear (AMD), or it is no Intel family 6 model from Sandy Bridge on)"],
                  match=[r"^error: energy-ram: this CPU has no RAPL energy counters"],
                  absent=[r"^FATAL", r"^cpu\.features=.*rapl"]))

# A board without COM1: the kernel finds the UART at COM2 and says so.
CASES.append(dict(name="serial-fallback-com2", args=["--cpu", "qemu64", "--com", "2"], config="mode=detect",
                  lines=["console: no UART at COM1; using port 0x2f8", "cfg.serial.port=0x2f8",
                         "cpu.vendor=AuthenticAMD"], absent=[r"^FATAL", r"staying on"]))

# ---------------------------------------------------------------- lab consoles
# An ACPI SPCR table (Microsoft SPCR revision 2, 80 bytes), given to QEMU whole by
# -acpitable file=: a 16550 (interface type 0) at I/O port `port`, 115200 baud (code 7),
# not a PCI function (device and vendor ID 0xffff).
def spcr_table(port):
    import os as _os, struct as _struct
    body = bytes([0, 0, 0, 0]) + _struct.pack("<BBBBQ", 1, 8, 0, 1, port)    # GAS: I/O, 8 bits, byte access
    body += bytes([1, 3]) + _struct.pack("<I", 0) + bytes([7, 0, 1, 0, 0, 0])
    body += _struct.pack("<HHBBBIB", 0xffff, 0xffff, 0, 0, 0, 0, 0) + bytes(4)
    t = bytearray(b"SPCR" + _struct.pack("<IBB", 36 + len(body), 2, 0) + b"BAREPF" + b"SPCRTEST" +
                  _struct.pack("<I", 1) + b"BPRF" + _struct.pack("<I", 1) + body)
    t[9] = -sum(t) & 0xff
    root = _os.path.dirname(_os.path.dirname(_os.path.dirname(_os.path.dirname(_os.path.abspath(__file__)))))
    path = _os.path.join(root, "build", "test-logs", "boots", "spcr-0x%x.bin" % port)
    _os.makedirs(_os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(t)
    return path


# A lab server whose console is what the SPCR names (COM2 here), with a COM1 beside it:
# the whole run arrives on COM2, what was printed before the move included; COM1 carries
# only the start and where the console went.
CASES.append(dict(name="console-spcr-com2", args=["--cpu", "qemu64", "--com", "2", "--com1-too",
                                                  "--", "-acpitable", "file=" + spcr_table(0x2f8)],
                  config="mode=detect",
                  lines=["console.serial=io 0x2f8 (ACPI SPCR, 115200)", "cfg.serial.port=0x2f8",
                         "console: continuing on io 0x2f8 (ACPI SPCR)", "com1| console: continuing on io 0x2f8 (ACPI SPCR)",
                         "bareperf: stopped (exit code 0)"],
                  match=[r"^bareperf [0-9a-f]", r"^com1\| bareperf [0-9a-f]"],
                  absent=[r"^FATAL", r"^config error", r"^com1\| (console\.serial|cpu\.|cfg\.|bareperf: stopped)"]))
# No COM port at all, the console a PCI 16550 (Intel AMT's SOL, a PCIe card): the i686
# kernel passes over a serial.port MMIO address where nothing answers (its MMIO window,
# mapped uncached) and an SPCR that names a port without a UART, each with its reason,
# and finds the PCI UART; what it printed before arrives there too.
CASES.append(dict(name="console-pci-uart-i686", args=["--cpu", "pentium3", "--pci-serial",
                                                      "--", "-acpitable", "file=" + spcr_table(0x3e8)],
                  config="mode=detect serial.port=mmio32:0xfe800000", exit=1,
                  lines=["console: no UART at COM1-COM4; the ACPI SPCR's or a PCI one gets this output once the "
                         "kernel can reach them",
                         "console: serial.port=mmio32:0xfe800000: no UART answers at mmio32 0xfe800000; "
                         "searching as without it",
                         "console: not the ACPI SPCR's UART: no UART answers at io 0x3e8",
                         "cpu.mode=protected", "bareperf: stopped (exit code 1)"],
                  match=[r"^bareperf [0-9a-f]",
                         r"^console\.serial=io 0x[0-9a-f]+ \(PCI 00:[0-9a-f]{2}\.0 1b36:0002, 115200; "
                         r"no UART at COM1-COM4\)$",
                         r"^config error: serial\.port=mmio32:0xfe800000: no UART answers at mmio32 0xfe800000; "
                         r"using io 0x[0-9a-f]+ \(PCI 00:[0-9a-f]{2}\.0 1b36:0002\) instead$",
                         r"^cfg\.serial\.port=00:[0-9a-f]{2}\.0$"],
                  absent=[r"^FATAL"]))

# QEMU with the CPUID hypervisor bit hidden is still QEMU: fw_cfg answers the probe, so
# the --config string is read and the run leaves through isa-debug-exit.
CASES.append(dict(name="qemu-hypervisor-bit-hidden", args=["--cpu", "max,hypervisor=off"],
                  config="mode=detect reps=5", timeout=60,
                  lines=["cpu.hypervisor=none", "cfg.mode=detect", "cfg.reps=5",
                         "bareperf: stopped (exit code 0)"],
                  absent=[r"^@result", r"^FATAL", r"^config error"]))
# Its selftest knows TCG without the hypervisor vendor: unknown MSRs read as 0 without
# #GP there, so RDPMC must raise #UD and the unknown-MSR checks are skipped with why.
CASES.append(dict(name="selftest-hypervisor-bit-hidden", args=["--cpu", "max,hypervisor=off"],
                  config="mode=selftest",
                  lines=["cpu.hypervisor=none", "PASS: fixup.rdpmc_cpl0",
                         "SKIP: fixup.rdmsr_nonexistent (the hypervisor (QEMU, found by fw_cfg) "
                         "reads unknown MSRs as 0 instead of raising #GP)"],
                  match=SELFTEST_OK, absent=NO_FAIL))

# A CPU without SYSCALL (CPUID.80000001H:EDX[11] clear): CPL 3 runs still return their
# results (they leave ring 3 by INT), and what needs SYSCALL is skipped with the reason.
NO_SYSCALL = "CPU has no SYSCALL (CPUID.80000001H:EDX[11] is clear)"
CASES += [
    dict(name="selftest-no-syscall", args=["--cpu", "max,-syscall"], config="mode=selftest",
         lines=["SKIP: cpl3.syscall_sysret_round_trip (%s)" % NO_SYSCALL, "PASS: cpl3.int_iret_round_trip"],
         match=SELFTEST_OK, absent=NO_FAIL),
    dict(name="run-no-syscall", args=["--cpu", "max,-syscall"], config="payloads=sys_*,empty reps=2 iters=10",
         lines=['@skip {"bench":"sys_syscall","reason":"%s"}' % NO_SYSCALL],
         match=[r'^@result \{"bench":"sys_int80","size":0,"cpl":3,', r'^@result \{"bench":"sys_int3","size":0,"cpl":3,',
                r'^@result \{"bench":"empty","size":0,"cpl":3,', r'^@result \{"bench":"empty","size":0,"cpl":0,',
                r'^@done \{"results":\d+,"faults":0,"timeouts":0,"errors":0\}'],
         absent=NO_FAIL + [r"^@fault"]),
]


def pit_watchdog_stops(out):
    """Without a local APIC the PIT is the watchdog: fault_hang ends by timeout at both
    CPLs, and the payload after it measures normally."""
    problems = []
    touts = {(t["bench"], t["cpl"]) for t in tagged(out, "timeout") if t["expected"]}
    for cpl in (0, 3):
        if ("fault_hang", cpl) not in touts:
            problems.append("no expected @timeout for fault_hang at CPL %d" % cpl)
    if {r["cpl"] for r in tagged(out, "result") if r["bench"] == "empty"} != {0, 3}:
        problems.append("empty did not measure at both CPLs after fault_hang")
    return problems


# No local APIC (-apic): the 8254 PIT, through the 8259 PIC, stops a payload that never ends.
CASES += [
    dict(name="watchdog-pit-no-apic", args=["--cpu", "max,-apic"], timeout=90,
         config="payloads=fault_hang,empty watchdog=200 reps=2 iters=10", check=pit_watchdog_stops,
         match=[r"^sys\.watchdog=pit \(CPU has no local APIC; "], absent=NO_FAIL + [r"UNEXPECTED", r"cannot be stopped"]),
    dict(name="selftest-no-apic", args=["--cpu", "max,-apic"], config="mode=selftest", timeout=90,
         lines=["PASS: watchdog.stops_endless_loop_cpl0",
                "PASS: watchdog.stops_endless_loop_cpl3", "PASS: watchdog.next_run_normal",
                "SKIP: nmi.noted_and_survived (no local APIC)"],
         match=SELFTEST_OK + [r"^sys\.watchdog=pit "], absent=NO_FAIL),
]
