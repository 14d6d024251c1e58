"""QEMU boot cases. Identities and what TCG shows for them: ../shared/QEMU-FACTS.md.
Under TCG leaf 0xA is zero and AMD perfctr-core is filtered, so Intel family 6 models
detect as 'none' and AMD ones as 'amd-legacy'; family 15 Intel is NetBurst by family."""

SELFTEST_OK = [r"^\d+ passed, 0 failed", r"^PASS: cpl3\.round_trip$"]
NO_FAIL = [r"^FAIL:", r"^FATAL", r"unexpected exception"]


def ident(vendor, family, model, stepping=None, kind=None):
    lines = ["cpu.vendor=" + vendor, "cpu.family=%d" % family, "cpu.model=%d" % model]
    if stepping is not None:
        lines.append("cpu.stepping=%d" % stepping)
    if kind:
        lines.append("pmu.kind=" + kind)
    return lines


CASES = [
    dict(name="selftest-qemu64", uefi=True, args=["--cpu", "qemu64,+smep,+smap,+umip"], config="mode=selftest",
         lines=ident("AuthenticAMD", 15, 107, kind="amd-legacy") + ["cpu.hypervisor=TCGTCGTCGTCG",
               "sys.smep=on", "sys.smap=on", "sys.umip=on", "boot.firmware=uefi", "cpu.mode=long"],
         match=SELFTEST_OK, absent=NO_FAIL),
    dict(name="selftest-skylake", args=["--cpu", "Skylake-Client"], config="mode=selftest",
         lines=ident("GenuineIntel", 6, 94, 3, "none") + ["pmu.version=0", "pmu.gp_counters=0"],
         match=SELFTEST_OK + [r"^cpu\.brand=Intel Core Processor \(Skylake\)$"], absent=NO_FAIL),
    dict(name="selftest-epyc", args=["--cpu", "EPYC"], config="mode=selftest",
         lines=ident("AuthenticAMD", 23, 1, kind="amd-legacy") + ["pmu.gp_counters=4", "pmu.gp_width=48"],
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


# A UEFI loader that cannot start the kernel (here: 64 MiB, too little below 4 GiB for its
# image) says why and powers the machine off, rather than return to OVMF, whose shell would
# wait out the timeout (exit 124). QEMU then exits 0: qemu-run's 3, with its reason.
CASES.append(dict(name="uefi-loader-failure-powers-off", uefi=True, args=["--cpu", "qemu64", "--mem", "64"],
                  config="mode=detect", timeout=45, exit=3,
                  lines=["bareperf: no memory below 4 GiB for the kernel (Out of Resources)",
                         "bareperf: the kernel cannot be started; powering off",
                         "qemu-run: the guest powered off or reset without reporting: the UEFI loader could "
                         "not start the kernel (its message is above), or a triple fault"],
                  absent=[r"Shell>", r"did not finish"]))


# ---------------------------------------------------------------- measurement engine
import json
import re

# The kernel's own catalogue listing: what the icount test holds each payload to.
LISTING = dict(args=["--cpu", "max"], config="mode=list")


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
    results = tagged(out, "result")
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
    dict(name="icount-exact-catalogue", uefi=True, args=["--cpu", "max", "--icount"], timeout=400, prelude=LISTING,
         config="reps=4 warmup=1 iters=64 sizes=4K,64K,1M cpl=both events=cycles,instructions",
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
    dict(name="payload-selection-errors", args=["--cpu", "qemu64"], config="payloads=add_chian,empty reps=2 iters=10",
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

# bareperf.cfg on the ESP (read by the UEFI loader), overridden by --config (fw_cfg).
CASES.append(dict(name="config-file-on-esp", uefi=True, args=["--cpu", "qemu64", "--image", "build/test-cfg.img"],
                  config="reps=9", exit=1,
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

# ---------------------------------------------------------------- configuration errors
import os, re, subprocess  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def errors_counted(out):
    """Every configuration error is an @error record; @done counts them, and so does
    scripts/bareperf-report --summary."""
    problems = []
    errors = tagged(out, "error")
    done = tagged(out, "done")
    if not done or done[0]["errors"] != len(errors) or not errors:
        problems.append("@done %s, %d @error records" % (done, len(errors)))
    p = subprocess.run([os.path.join(ROOT, "scripts", "bareperf-report"), "-", "--summary"],
                       input=out.encode(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    summary = p.stdout.decode()
    if not re.search(r"^\d+ results, 0 faults \(0 unexpected\), 0 timeouts, %d errors$" % len(errors),
                     summary, re.M) or "@done counts" in summary:
        problems.append("bareperf-report --summary: %r" % summary[-300:])
    return problems


# Configuration errors reach the machine-readable output, and count in @done.
CASES.append(dict(name="config-errors-machine-readable", args=["--cpu", "qemu64"],
                  config="payloads=add_chain rep=5 reps=2 iters=10", exit=1, check=errors_counted,
                  lines=["config error: --config line 1: unknown key 'rep' (did you mean 'reps'?)",
                         '@error {"context":"config","message":"--config line 1: unknown key \'rep\' '
                         '(did you mean \'reps\'?)"}'],
                  match=[r'^@done \{"results":4,"faults":0,"timeouts":0,"errors":1\}$'],
                  absent=[r"^FATAL"]))
# A serial.port where no UART answers (0x8b: DMA page registers that keep what is written,
# and 0x92, which fools a scratch-register test) is refused: the console stays where it
# works, and the run fails as for any configuration error.
CASES.append(dict(name="serial-port-no-uart", args=["--cpu", "qemu64"], config="mode=detect serial.port=0x8b",
                  exit=1,
                  lines=["config error: serial.port=0x8b: no UART answers at that port; staying on port 0x3f8",
                         '@error {"context":"config","message":"serial.port=0x8b: no UART answers at that port; '
                         'staying on port 0x3f8"}',
                         "cfg.serial.port=0x3f8", "cfg.mode=detect"],
                  absent=[r"^FATAL"]))
# A NUL byte in the --config bytes: one error, the whole source ignored (docs/config.md),
# as for bareperf.cfg; not a source cut at the NUL, nor one dropped without a word.
for _name, _bytes, _offset in [("config-nul-inside", b"reps=9\0warmup=1\n", 6),
                               ("config-nul-first", b"\0reps=9\n", 0)]:
    CASES.append(dict(name=_name, args=["--cpu", "qemu64", "--image", "build/test-cfg-detect.img"],
                      config_bytes=_bytes, exit=1,
                      lines=["config error: --config line 1: not a text file (control byte 0x00 at offset %d); "
                             "source ignored" % _offset, "cfg.mode=detect", "cfg.reps=11", "cfg.warmup=2"],
                      match=[r'^@error \{"context":"config","message":"--config line 1: not a text file'],
                      absent=[r"^FATAL"]))
# Trailing NULs (a C string's terminator) are accepted.
CASES.append(dict(name="config-nul-at-end", args=["--cpu", "qemu64", "--image", "build/test-cfg-detect.img"],
                  config_bytes=b"reps=9\n\0\0", lines=["cfg.mode=detect", "cfg.reps=9"],
                  absent=[r"^FATAL", r"^config error"]))

# ---------------------------------------------------------------- sources over the size limit
# One policy (docs/config.md): a source of at most 8191 bytes applies whole; a longer one is
# refused whole, with one error and a failing exit; never a value cut in two.
CASES.append(dict(name="config-file-too-big", uefi=True, args=["--cpu", "qemu64", "--image", "build/test-cfg-big.img"],
                  config="mode=detect", exit=1,
                  match=[r"^config error: bareperf\.cfg: \d{7} bytes, more than the 8191 a source may have; "
                         r"source ignored$",
                         r'^@error \{"context":"config","message":"bareperf\.cfg: \d+ bytes, more than'],
                  lines=["cfg.mode=detect", "cfg.reps=11", "cfg.warmup=2", "cfg.payloads=*"],
                  absent=[r"^FATAL", r"^loader: .*truncated"]))


def config_of(size, tail=b"reps=37\n", head=b"mode=detect\n"):
    """head, comment lines, tail: exactly size bytes."""
    fill = size - len(head) - len(tail)
    body = b""
    while fill > 0:
        n = min(fill, 64)
        body += b"#" * (n - 1) + b"\n"
        fill -= n
    return head + body + tail


# 4,101 bytes, whose 'reps=37' straddles the old 4,095-byte cut: applied whole now.
CASES.append(dict(name="config-fwcfg-over-4k-whole", args=["--cpu", "qemu64"],
                  config_bytes=config_of(4101), lines=["cfg.mode=detect", "cfg.reps=37"],
                  absent=[r"^FATAL", r"^config error"]))
# 8,191 bytes is the most a source may have; 8,192 is refused whole.
CASES.append(dict(name="config-fwcfg-at-limit", args=["--cpu", "qemu64"],
                  config_bytes=config_of(8191), lines=["cfg.mode=detect", "cfg.reps=37"],
                  absent=[r"^FATAL", r"^config error"]))
CASES.append(dict(name="config-fwcfg-too-big", args=["--cpu", "qemu64", "--image", "build/test-cfg-detect.img"],
                  config_bytes=config_of(8192, head=b"warmup=9\n"), exit=1,
                  lines=["config error: --config: 8192 bytes, more than the 8191 a source may have; source ignored",
                         '@error {"context":"config","message":"--config: 8192 bytes, more than the 8191 a source '
                         'may have; source ignored"}',
                         "cfg.mode=detect", "cfg.reps=11", "cfg.warmup=2"],
                  absent=[r"^FATAL"]))
# The same image through a legacy BIOS: SeaBIOS, GRUB's MBR and core.img, the kernel ELF
# from the FAT partition by Multiboot2, the 32-bit entry into long mode (arch/x86/64/mb2-entry.asm).
BIOS = ["boot.firmware=bios", "cpu.mode=long"]
CASES += [
    dict(name="bios-selftest-qemu64", args=["--bios", "--cpu", "qemu64,+smep,+smap,+umip"], config="mode=selftest",
         lines=ident("AuthenticAMD", 15, 107, kind="amd-legacy") + BIOS + ["sys.smep=on", "sys.nx=on"],
         match=SELFTEST_OK + [r"^boot\.memory_mib=(4[6-9]\d|50\d)$"], absent=NO_FAIL + [r"^loader:"]),
    dict(name="bios-selftest-opteron-g2", args=["--bios", "--cpu", "Opteron_G2"], config="mode=selftest",
         lines=ident("AuthenticAMD", 15, 6, kind="amd-legacy") + BIOS, match=SELFTEST_OK, absent=NO_FAIL),
    # bareperf.cfg reaches the kernel as a Multiboot2 module; --config still overrides it.
    dict(name="bios-config-file-on-esp", args=["--bios", "--cpu", "qemu64", "--image", "build/test-cfg.img"],
         config="reps=9", exit=1,
         lines=["boot.firmware=bios", "cfg.mode=detect", "cfg.reps=9", "cfg.warmup=3",
                "config error: bareperf.cfg line 5: unknown key 'rep' (did you mean 'reps'?)"],
         absent=[r"^FATAL"]),
]

# The same image through a legacy BIOS on CPUs without long mode: GRUB's cpuid -l picks
# bareperf32.elf, the i686 kernel (arch/x86/32/). Under TCG the hypervisor bit hides P6
# (no leaf 0xA), so family 6 Intel models detect as 'none' unless the bit is turned off.
BIOS32 = ["boot.firmware=bios", "cpu.mode=protected"]
for _cpu, _vendor, _family, _model, _kind in [
        ("pentium3", "GenuineIntel", 6, 7, "none"), ("pentium2", "GenuineIntel", 6, 5, "none"),
        ("athlon", "AuthenticAMD", 6, 2, "amd-legacy"), ("kvm32", "GenuineIntel", 15, 6, "intel-netburst"),
        ("coreduo", "GenuineIntel", 6, 14, "none"), ("n270", "GenuineIntel", 6, 28, "none")]:
    CASES.append(dict(name="i686-selftest-" + _cpu, args=["--bios", "--cpu", _cpu], config="mode=selftest",
                      timeout=90, lines=ident(_vendor, _family, _model, kind=_kind) + BIOS32 +
                      ["PASS: cpl3.int_iret_round_trip", "PASS: single_step.count_cpl3",
                       "PASS: watchdog.stops_endless_loop_cpl3", "PASS: paging.null_page_unmapped",
                       "PASS: cpl3.rdpmc_pce_clear_gp"],
                      match=SELFTEST_OK, absent=NO_FAIL))
# An AMD CPU reports SYSCALL in protected mode too, but the i686 kernel sets none up: the
# round trip is skipped, and a payload's SYSCALL is its #UD, not a jump to nowhere.
CASES.append(dict(name="i686-selftest-athlon-syscall", args=["--bios", "--cpu", "athlon,+syscall"],
                  config="mode=selftest", timeout=90,
                  lines=BIOS32 + ["SKIP: cpl3.syscall_sysret_round_trip (SYSCALL is for long mode here)",
                                  "PASS: cpl3.syscall_ud_unless_asked"],
                  match=SELFTEST_OK, absent=NO_FAIL))
CASES += [
    # PAE with NX (Core Duo, Atom): data pages are not executable.
    dict(name="i686-selftest-coreduo-nx", args=["--bios", "--cpu", "coreduo"], config="mode=selftest",
         timeout=90, lines=["sys.nx=on", "PASS: nx.kernel_data_not_executable"], match=SELFTEST_OK,
         absent=NO_FAIL),
    # Without the hypervisor bit a Pentium III is what it is: P6, two 40-bit counters.
    dict(name="i686-detect-pentium3-p6", args=["--bios", "--cpu", "pentium3,hypervisor=off"],
         config="mode=detect", timeout=60,
         lines=ident("GenuineIntel", 6, 7, 3, "intel-p6") + BIOS32 +
         ["pmu.gp_counters=2", "pmu.gp_width=40", "bareperf: stopped (exit code 0)"],
         absent=[r"^FATAL", r"^config error"]),
    dict(name="i686-list-athlon", args=["--bios", "--cpu", "athlon"], config="mode=list", timeout=60,
         check=listing_complete, lines=BIOS32 + ["bareperf: stopped (exit code 0)",
               '@payload {"name":"add_chain","insns_per_iter":10,"cpls":"0,3","sizes":false,"kernel_code":false,'
               '"fault":false,"needs":[],"desc":"8 dependent 32-bit ADDs: ADD latency"}'],
         absent=[r"^@result", r"^FATAL"]),
    dict(name="i686-crashtest-fatal-report", args=["--bios", "--cpu", "kvm32"], config="mode=crashtest",
         exit=2, timeout=60,
         match=[r"^FATAL: unexpected exception in the kernel$", r"^exception #PF \(vector 14\) error=0x2 cpl=0$",
                r"^  EIP=002\w{5} CS=0008 EFLAGS=", r"CR2=00000000 ", r"^bareperf: stopped \(exit code 2\)$"]),
    # A kernel stack overflow: the #PF on the guard page cannot be delivered on that stack,
    # so it becomes a #DF, which the task gate takes to a stack of its own and a report.
    dict(name="i686-crashstack-df-task", args=["--bios", "--cpu", "pentium3"], config="mode=crashstack",
         exit=2, timeout=60,
         lines=["FATAL: double fault (through the #DF task gate)",
                "  CR2 is in the guard page of the kernel stack: stack overflow",
                "bareperf: stopped (exit code 2)"],
         match=[r"^exception #DF \(vector 8\) error=0x0 cpl=0$", r"^  EIP=002\w{5} CS=0008 EFLAGS=",
                r"^  ESP=\w{8} SS=0010 CR2=\w{8} "]),
    dict(name="bios-crashstack-df-ist", args=["--bios", "--cpu", "qemu64"], config="mode=crashstack",
         exit=2, timeout=60,
         lines=["exception #DF (vector 8) error=0x0 cpl=0",
                "  CR2 is in the guard page of the kernel stack: stack overflow",
                "bareperf: stopped (exit code 2)"]),
    # A CPU that lacks what bareperf needs: one line, a clean stop (isa-debug-exit 2).
    dict(name="i686-refuses-486", args=["--bios", "--cpu", "486"], timeout=60, exit=2,
         lines=["bareperf: this CPU has no time-stamp counter or no MSRs (CPUID.1:EDX bits 4 and 5); "
                "bareperf needs RDTSC and RDMSR. Stopped."],
         absent=[r"^bareperf [0-9a-f]{7}", r"^FATAL"]),
    dict(name="i686-refuses-pentium-p5", args=["--bios", "--cpu", "pentium"], timeout=60, exit=2,
         lines=["bareperf: this CPU has no CMOV (CPUID.1:EDX bit 15): it is older than the P6 (a Pentium/P5 has "
                "neither RDPMC at CPL 3 nor the P6 counter MSRs); the i686 kernel is built for the Pentium Pro and "
                "later. Stopped."],
         absent=[r"^bareperf [0-9a-f]{7}", r"^FATAL"]),
    dict(name="i686-refuses-no-pae-no-pse", args=["--bios", "--cpu", "pentium3,-pae,-pse"], timeout=60, exit=2,
         lines=["bareperf: this CPU has neither PAE nor 4 MiB pages (CPUID.1:EDX bits 6 and 3); the i686 kernel "
                "needs one of them to map memory. Stopped."],
         absent=[r"^bareperf [0-9a-f]{7}", r"^FATAL"]),
]

# Without PAE (the Pentium M "Banias" hides it) the i686 kernel pages with classic two-level
# tables and 4 MiB pages: the same layout and rights, but no NX, which needs PAE's entries.
NO_PAE_PAYLOADS = ["empty", "add_chain", "mem_seq_read", "mem_chase", "sys_int3"]


def icount_exact_subset(out, listing):
    """icount_exact for a run of NO_PAE_PAYLOADS only: the rest of the catalogue is not run."""
    return [p for p in icount_exact(out, listing, min_results=30, skips=[])
            if not (p.startswith("no result for payload ") and p.split()[-1] not in NO_PAE_PAYLOADS)]


CASES += [
    dict(name="i686-selftest-no-pae", args=["--bios", "--cpu", "pentium3,-pae"], config="mode=selftest",
         timeout=90, lines=BIOS32 + ["sys.nx=off (no PAE)", "PASS: wp.kernel_text_read_only",
                                     "PASS: paging.stack_guard_page", "PASS: paging.user_region_tables_reused",
                                     "SKIP: nx.kernel_data_not_executable (no PAE: two-level page tables have "
                                     "no NX bit)"],
         match=SELFTEST_OK, absent=NO_FAIL),
    dict(name="i686-icount-exact-no-pae", args=["--bios", "--cpu", "pentium3,-pae", "--icount"], timeout=120,
         prelude=dict(args=["--bios", "--cpu", "pentium3,-pae"], config="mode=list"),
         config="payloads=" + ",".join(NO_PAE_PAYLOADS) +
         " reps=4 warmup=1 iters=64 sizes=4K,1M,8M cpl=both events=cycles,instructions",
         check=icount_exact_subset, lines=BIOS32 + ["sys.nx=off (no PAE)", "bareperf: stopped (exit code 0)"],
         absent=NO_FAIL),
]

# The catalogue on the i686 kernel under --icount: exact at both CPLs, as on x86-64 (the
# payloads are one source, assembled for each word size). What the CPU lacks is skipped
# with a reason: the Pentium III has SSE but not SSE2 (so no ADDSD, LFENCE, MFENCE; the
# harness serialises with CPUID), QEMU's Athlon reports SSE2. kvm32 given POPCNT and
# RDTSCP runs every payload protected mode has, the 32-bit POPCNT bodies among them.
I686_SKIPS = ["popcnt_chain", "popcnt_indep", "sys_syscall", "cost_rdtscp", "cost_rdpmc"]
for _name, _cpu, _skips, _ser, _min in [
        ("pentium3", "pentium3", I686_SKIPS + ["fp_chain", "fp_indep", "cost_lfence", "cost_mfence"], "cpuid", 84),
        ("athlon", "athlon", I686_SKIPS, "cpuid", 100),
        ("kvm32", "kvm32,+popcnt,+rdtscp", ["sys_syscall", "cost_rdpmc"], "lfence", 112)]:
    CASES.append(dict(name="i686-icount-exact-catalogue-" + _name, args=["--bios", "--cpu", _cpu, "--icount"],
                      timeout=120, prelude=dict(args=["--bios", "--cpu", _cpu], config="mode=list"),
                      config="reps=4 warmup=1 iters=64 sizes=4K,64K,1M cpl=both events=cycles,instructions",
                      check=lambda out, pre, _s=_skips, _m=_min: icount_exact(out, pre, _m, _s),
                      lines=BIOS32 + ["pmu.serialize=" + _ser, "bareperf: stopped (exit code 0)"],
                      absent=NO_FAIL))

# trace=msr in the i686 kernel: the whole programming sequence, in order (the PMU self-check
# first, then the measurement).
def msr_trace_is(want):
    def check(out):
        got = [l for l in out.split("\n") if l.startswith("wrmsr ")]
        if got == want:
            return []
        return ["wrmsr trace differs; got:"] + got + ["expected:"] + want
    return check


# P6 (SDM Vol. 3B 21.6.x): EN exists only in PERFEVTSEL0 and gates both counters, so it
# is set there last and cleared there first; PERFEVTSEL1 never carries it.
P6_SEQ = ["wrmsr PERFEVTSEL0 0x186 <- 0x00030079 event=0x79 umask=0x00 usr os",
          "wrmsr PERFEVTSEL1 0x187 <- 0x000300c0 event=0xc0 umask=0x00 usr os",
          "wrmsr PMC0 0xc1 <- 0x00000000",
          "wrmsr PMC1 0xc2 <- 0x00000000",
          "wrmsr PERFEVTSEL0 0x186 <- 0x00430079 event=0x79 umask=0x00 usr os en",
          "wrmsr PERFEVTSEL0 0x186 <- 0x00030079 event=0x79 umask=0x00 usr os",
          "wrmsr PERFEVTSEL0 0x186 <- 0x00000000 event=0x00 umask=0x00",
          "wrmsr PERFEVTSEL1 0x187 <- 0x00000000 event=0x00 umask=0x00"]
# K7 (AMD 22007, Athlon x86 Code Optimization Guide, "Performance Counter Usage"): four PerfEvtSel/PerfCtr
# pairs at 0xC0010000/4, EN per counter.
def k7_sel(n, value, event, umask, mode, en):
    return "wrmsr K7_EVNTSEL%d 0xc001000%d <- 0x%08x event=0x%03x umask=0x%02x%s%s" % (
        n, n, value, event, umask, mode, " en" if en else "")
K7_OFF = [k7_sel(n, 0, 0, 0, "", False) for n in range(4)]
K7_SELFCHECK = [k7_sel(0, 0x30076, 0x76, 0, " usr os", False), k7_sel(1, 0x300c0, 0xc0, 0, " usr os", False),
                "wrmsr K7_PERFCTR0 0xc0010004 <- 0x00000000", "wrmsr K7_PERFCTR1 0xc0010005 <- 0x00000000",
                k7_sel(0, 0x430076, 0x76, 0, " usr os", True), k7_sel(1, 0x4300c0, 0xc0, 0, " usr os", True),
                k7_sel(0, 0x30076, 0x76, 0, " usr os", False), k7_sel(1, 0x300c0, 0xc0, 0, " usr os", False)] + K7_OFF
K7_MEASURE = [k7_sel(0, 0x30076, 0x76, 0, " usr os", False), k7_sel(1, 0x300c0, 0xc0, 0, " usr os", False),
              k7_sel(2, 0x200c2, 0xc2, 0, " os", False), k7_sel(3, 0x10242, 0x42, 2, " usr", False)] + \
             ["wrmsr K7_PERFCTR%d 0xc001000%d <- 0x00000000" % (n, n + 4) for n in range(4)] + \
             [k7_sel(0, 0x430076, 0x76, 0, " usr os", True), k7_sel(1, 0x4300c0, 0xc0, 0, " usr os", True),
              k7_sel(2, 0x4200c2, 0xc2, 0, " os", True), k7_sel(3, 0x410242, 0x42, 2, " usr", True),
              k7_sel(0, 0x30076, 0x76, 0, " usr os", False), k7_sel(1, 0x300c0, 0xc0, 0, " usr os", False),
              k7_sel(2, 0x200c2, 0xc2, 0, " os", False), k7_sel(3, 0x10242, 0x42, 2, " usr", False)] + K7_OFF
TRACE32 = "trace=msr payloads=empty reps=1 iters=10 cpl=3 events=cycles,instructions"
CASES += [
    # QEMU's pentium3 shows no PMU under the hypervisor bit: pmu=p6 forces the P6 model...
    dict(name="i686-trace-msr-p6-forced", args=["--bios", "--cpu", "pentium3"], config="pmu=p6 " + TRACE32,
         timeout=60, check=msr_trace_is(P6_SEQ * 2), lines=BIOS32 + ["pmu.model=p6 (forced by pmu=)"],
         absent=NO_FAIL),
    # ...and without the bit it is detected as what it is.
    dict(name="i686-trace-msr-p6-detected", args=["--bios", "--cpu", "pentium3,hypervisor=off"], config=TRACE32,
         timeout=60, check=msr_trace_is(P6_SEQ * 2), lines=BIOS32 + ["pmu.kind=intel-p6", "pmu.model=p6"],
         absent=NO_FAIL),
    dict(name="i686-trace-msr-k7", args=["--bios", "--cpu", "athlon"],
         config=TRACE32 + ",amd64_k7::RETIRED_BRANCH_INSTRUCTIONS:k,amd64_k7::DATA_CACHE_REFILLS:L2_SHARED:u",
         timeout=60, check=msr_trace_is(K7_SELFCHECK + K7_MEASURE),
         lines=BIOS32 + ["pmu.kind=amd-legacy", "pmu.model=amd64_k7"], absent=NO_FAIL),
]

# libpfm4 names on the P6 family (tables from libpfm4:i386): the i686 kernel picks the table
# from CPUID's family 6 model and programs what the names encode. Event codes from the SDM
# Vol. 3B P6-family event table: INST_RETIRED C0H, L2_LD 29H with MESI unit mask M 08H +
# E 04H, MMX_INSTR_EXEC B0H (Pentium II and later, not the Pentium Pro), and Pentium M's
# EMON_EST_TRANS 58H (unit mask ALL 00H).
def p6_measure(sel0, sel1=None):
    def sel(n, v):
        mode = "".join(m for b, m in [(16, " usr"), (17, " os"), (22, " en")] if v >> b & 1)
        return "wrmsr PERFEVTSEL%d 0x%x <- 0x%08x event=0x%02x umask=0x%02x%s" % (
            n, 0x186 + n, v, v & 0xff, v >> 8 & 0xff, mode)
    # a counter with no event is parked on PERFEVTSEL1 as 0x2e (and not cleared)
    return [sel(0, sel0), sel(1, sel1 if sel1 is not None else 0x2e), "wrmsr PMC0 0xc1 <- 0x00000000"] + \
        (["wrmsr PMC1 0xc2 <- 0x00000000"] if sel1 is not None else []) + \
        [sel(0, sel0 | 1 << 22), sel(0, sel0), sel(0, 0), sel(1, 0)]
P6_NAMES = "trace=msr payloads=empty reps=1 iters=10 cpl=3 events="
CASES += [
    dict(name="i686-p6-names-pentium3", args=["--bios", "--cpu", "pentium3,hypervisor=off"],
         config=P6_NAMES + "INST_RETIRED,p6::L2_LD:M:E:u", timeout=60,
         check=msr_trace_is(P6_SEQ + p6_measure(0x300c0, 0x10c29)),
         lines=BIOS32 + ident("GenuineIntel", 6, 7) + ["pmu.model=p6", "bareperf: stopped (exit code 0)"],
         absent=NO_FAIL + [r"^error"]),
    dict(name="i686-p6-names-pentium2", args=["--bios", "--cpu", "pentium2,hypervisor=off"],
         config=P6_NAMES + "MMX_INSTR_EXEC:k", timeout=60,
         check=msr_trace_is(P6_SEQ + p6_measure(0x200b0)),
         lines=BIOS32 + ident("GenuineIntel", 6, 5) + ["pmu.model=pii", "bareperf: stopped (exit code 0)"],
         absent=NO_FAIL + [r"^error"]),
    # QEMU has no Pentium Pro: a Pentium II told it is model 1. Its table has no MMX events.
    dict(name="i686-p6-names-pentium-pro", args=["--bios", "--cpu", "pentium2,hypervisor=off,model=1"],
         config=P6_NAMES + "INST_RETIRED,MMX_INSTR_EXEC", timeout=60, exit=1,
         check=msr_trace_is(P6_SEQ + p6_measure(0x300c0)),
         lines=BIOS32 + ident("GenuineIntel", 6, 1) +
         ["pmu.model=ppro", "error: unknown event 'MMX_INSTR_EXEC' for PMU ppro",
          "bareperf: stopped (exit code 1)"], absent=NO_FAIL),
    # Nor a Pentium M: a Pentium III told it is model 13 (Dothan).
    dict(name="i686-p6-names-pentium-m", args=["--bios", "--cpu", "pentium3,hypervisor=off,model=13"],
         config=P6_NAMES + "EMON_EST_TRANS:ALL", timeout=60,
         check=msr_trace_is(P6_SEQ + p6_measure(0x30058)),
         lines=BIOS32 + ident("GenuineIntel", 6, 13) + ["pmu.model=pm", "bareperf: stopped (exit code 0)"],
         absent=NO_FAIL + [r"^error"]),
    # Core Duo (6/14): its own table, although under TCG leaf 0xA is empty and nothing is
    # programmed; the names are still checked against it.
    dict(name="i686-p6-names-coreduo", args=["--bios", "--cpu", "coreduo"],
         config=P6_NAMES + "INSTRUCTIONS_RETIRED:u,L2_RQSTS:SELF:MESI", timeout=60,
         lines=BIOS32 + ident("GenuineIntel", 6, 14) + ["pmu.model=coreduo", "bareperf: stopped (exit code 0)"],
         match=[r"^@note .*event 'INSTRUCTIONS_RETIRED:u' not measured: no working PMU",
                r"^@note .*event 'L2_RQSTS:SELF:MESI' not measured: no working PMU"],
         absent=NO_FAIL + [r"^error", r"^wrmsr PERFEVTSEL"]),
]

# Second registers (offcore response, frontend) under a forced Skylake: each is written
# before its select and before PERF_GLOBAL_CTRL enables the counter, and cleared after the
# selects when the group ends. Two OFFCORE_RESPONSE_0 events with different values cannot
# share MSR_OFFCORE_RSP_0, so the second goes to a group of its own; load latency needs
# PEBS and is refused. Only the writes after the PMU self-check are compared.
def after_selfcheck(want):
    def check(out):
        lines = out.split("\n")
        first = next((i for i, l in enumerate(lines) if l.startswith("@note")), len(lines))
        got = [l for l in lines[first:] if l.startswith("wrmsr ")]
        if got == want:
            return []
        return ["wrmsr trace after the self-check differs; got:"] + got + ["expected:"] + want
    return check
SKL_SELECTS_OFF = ["wrmsr PERF_GLOBAL_CTRL 0x38f <- 0x00000000 none"] + [
    "wrmsr PERFEVTSEL%d 0x%x <- 0x00000000 event=0x00 umask=0x00" % (i, 0x186 + i) for i in range(8)] + [
    "wrmsr FIXED_CTR_CTRL 0x38d <- 0x00000000 all off"]
SKL_EXTRA_REG_SEQ = [
    "wrmsr PERF_GLOBAL_CTRL 0x38f <- 0x00000000 none",
    "wrmsr OFFCORE_RSP_0 0x1a6 <- 0x3f84000001",
    "wrmsr PEBS_FRONTEND 0x3f7 <- 0x00400906",
    "wrmsr PERFEVTSEL0 0x186 <- 0x004301b7 event=0xb7 umask=0x01 usr os en",
    "wrmsr PERFEVTSEL1 0x187 <- 0x004301c6 event=0xc6 umask=0x01 usr os en",
    "wrmsr FIXED_CTR_CTRL 0x38d <- 0x00000000 all off",
    "wrmsr PMC0 0xc1 <- 0x00000000",
    "wrmsr PMC1 0xc2 <- 0x00000000",
    "wrmsr PERF_GLOBAL_OVF_CTRL 0x390 <- 0x7000000ff pmc0 pmc1 pmc2 pmc3 pmc4 pmc5 pmc6 pmc7 fixed0 fixed1 fixed2",
    "wrmsr PERF_GLOBAL_CTRL 0x38f <- 0x00000003 pmc0 pmc1",
    "wrmsr PERF_GLOBAL_CTRL 0x38f <- 0x00000000 none"] + SKL_SELECTS_OFF + [
    "wrmsr OFFCORE_RSP_0 0x1a6 <- 0x00000000",
    "wrmsr PEBS_FRONTEND 0x3f7 <- 0x00000000",
    # group 2: the other OFFCORE_RSP_0 value
    "wrmsr PERF_GLOBAL_CTRL 0x38f <- 0x00000000 none",
    "wrmsr OFFCORE_RSP_0 0x1a6 <- 0x00010002",
    "wrmsr PERFEVTSEL0 0x186 <- 0x004301b7 event=0xb7 umask=0x01 usr os en",
    "wrmsr FIXED_CTR_CTRL 0x38d <- 0x00000000 all off",
    "wrmsr PMC0 0xc1 <- 0x00000000",
    "wrmsr PERF_GLOBAL_OVF_CTRL 0x390 <- 0x7000000ff pmc0 pmc1 pmc2 pmc3 pmc4 pmc5 pmc6 pmc7 fixed0 fixed1 fixed2",
    "wrmsr PERF_GLOBAL_CTRL 0x38f <- 0x00000001 pmc0",
    "wrmsr PERF_GLOBAL_CTRL 0x38f <- 0x00000000 none"] + SKL_SELECTS_OFF + [
    "wrmsr OFFCORE_RSP_0 0x1a6 <- 0x00000000"]
CASES += [
    dict(name="trace-msr-offcore-frontend-skl", args=["--cpu", "Skylake-Client"],
         config="pmu=skl trace=msr payloads=empty reps=1 iters=10 cpl=3 "
                "events=skl::OFFCORE_RESPONSE_0:DMND_DATA_RD:L3_MISS_LOCAL,skl::OFFCORE_RESPONSE_0:DMND_RFO,"
                "skl::FRONTEND_RETIRED:IDQ_4_BUBBLES:fe_thres=9,skl::MEM_TRANS_RETIRED:LOAD_LATENCY",
         exit=1, check=after_selfcheck(SKL_EXTRA_REG_SEQ),
         lines=["pmu.model=skl (forced by pmu=)",
                "error: unit mask LOAD_LATENCY of MEM_TRANS_RETIRED is a PEBS load-latency event "
                "(MSR_PEBS_LD_LAT): it counts only with PEBS, which bareperf does not use"],
         absent=NO_FAIL),
]

# The default run (the whole catalogue, default sizes) on a 32-bit NetBurst and a Core Duo:
# it finishes, measures at both CPLs, and only what the CPU lacks is skipped.
I686_SYSCALL_SKIP = ('@skip {"bench":"sys_syscall","reason":"SYSCALL is for long mode here: the i686 kernel '
                     'runs in protected mode (where Intel CPUs have no SYSCALL) and does not set it up"}')
for _cpu, _kind in [("kvm32", "intel-netburst"), ("coreduo", "none")]:
    CASES.append(dict(name="i686-run-default-" + _cpu, args=["--bios", "--cpu", _cpu], timeout=120,
                      lines=BIOS32 + ["pmu.kind=" + _kind, "pmu.serialize=lfence", I686_SYSCALL_SKIP,
                                      "bareperf: stopped (exit code 0)"],
                      match=[r'^@done \{"results":\d{3},"faults":0,"timeouts":0,"errors":0\}$',
                             r'^@result \{"bench":"fp_indep","size":0,"cpl":3,"event":"tsc"',
                             r'^@result \{"bench":"mem_seq_read","size":\d+,"cpl":0,"event":"tsc"',
                             r'^@result \{"bench":"sys_int3","size":0,"cpl":3,"event":"tsc"'],
                      absent=NO_FAIL + [r'^@skip \{"bench":"(fp_|cost_lfence|cost_mfence|mem_|br_)']))
CASES += [
    # Benchmarks with only 64-bit code: the i686 kernel skips them with nasm's reason (carried
    # as bench.NAME.skip32), or, where the configuration has none, with the key it lacks.
    # Nothing asked for was measured: the run says so and fails.
    dict(name="i686-user-bench-skipped", args=["--bios", "--cpu", "pentium3", "--asm", "add rax, 1",
                                               "--config", "bench.nokey.code=4883c001"],
         timeout=60, exit=1,
         lines=BIOS32 + ['@skip {"bench":"nokey","reason":"no 32-bit code in the configuration (bench.NAME.code32: '
                         'scripts/bareperf-asm writes it where nasm assembles the code as 32-bit code, unless '
                         '--bits 64)"}',
                         '@skip {"bench":"asm","reason":"as 32-bit code: code, statement 1: \'add rax, 1\': error: '
                         'instruction not supported in 32-bit mode"}',
                         "error: nothing was measured: 2 payloads selected, and each was skipped (the skip lines "
                         "say why)",
                         '@done {"results":0,"faults":0,"timeouts":0,"errors":1}'],
         absent=[r"^@result", r"^FATAL"]),
    # --bits 32: the x86-64 kernel skips the benchmark and says why.
    dict(name="user-bench-bits32-skipped", args=["--bios", "--cpu", "qemu64", "--asm", "add eax, 1", "--bits", "32"],
         timeout=60, exit=1,
         lines=['@skip {"bench":"asm","reason":"written for 32-bit mode only (bits=32): not assembled as 64-bit '
                'code"}', '@done {"results":0,"faults":0,"timeouts":0,"errors":1}'],
         absent=[r"^@result", r"^FATAL"]),
    dict(name="all-selected-skipped-fails", args=["--bios", "--cpu", "qemu64"],
         config="payloads=cost_rdmsr,cost_rdpmc cpl=3 reps=2", exit=1, timeout=60,
         lines=["error: nothing was measured: 2 payloads selected, and each was skipped (the skip lines say why)",
                '@done {"results":0,"faults":0,"timeouts":0,"errors":1}'],
         absent=[r"^@result", r"^FATAL"]),
    # A 1 GiB buffer has the RAM (3.5 GiB, 2 GiB of it below 4 GiB) but not the address space:
    # the i686 user region holds 736 MiB, and the error names that limit, not free memory.
    dict(name="i686-buffer-past-user-region", args=["--bios", "--cpu", "pentium3", "--mem", "3584"],
         config="payloads=mem_chase sizes=1G,4K reps=2", exit=1, timeout=60,
         lines=["error: mem_chase: a 1024 MiB buffer does not fit the i686 kernel's user region (736 MiB of "
                "address space for buffers, docs/config.md): lower sizes"],
         match=[r'^@result \{"bench":"mem_chase","size":4096,'],
         absent=[r"^FATAL", r"not enough memory"]),
    # The 32-bit loops count in ESI, and the harness runs 2 x iters.
    dict(name="i686-iters-limit", args=["--bios", "--cpu", "pentium3"], config="payloads=empty iters=2147483648",
         exit=1, timeout=60,
         lines=["error: iters=2147483648 is more than the i686 kernel's 32-bit payload loops count (at most "
                "2147483647, so that 2 x iters fits): lower iters"], absent=[r"^@result", r"^FATAL"]),
]

# ---------------------------------------------------------------- user benchmarks
# scripts/qemu-run --asm assembles on the host (scripts/bareperf-asm); the kernel unrolls,
# loops and runs the code like a payload. Under --icount every copy of a one-instruction
# snippet is 1 instruction and 32 ticks, exactly, at both CPLs (docs/bench.md).
EXAMPLES = sorted(os.path.join("docs", "bench-examples", f) for f in os.listdir(os.path.join(ROOT, "docs", "bench-examples"))
                  if f.endswith(".bench"))


_IMUL = os.path.join("docs", "bench-examples", "imul.bench")
_CHASE = os.path.join("docs", "bench-examples", "chase.bench")


def user_bench_exact(out, examples=EXAMPLES):
    """asm (add rax, 1) and, when the boot had them, the example bench files: exact under
    --icount, 32 ticks per single-stepped instruction, the same at CPL 0 and 3."""
    problems = []
    results = [r for r in tagged(out, "result") if "unroll" in r]
    by_key = {}
    for r in results:
        if r["stddev"] != 0 or r["min"] != r["max"]:
            problems.append("%s cpl%d %s: spread %s..%s" % (r["bench"], r["cpl"], r["event"], r["min"], r["max"]))
        copies = r["unroll"] * max(r["loop"], 1)
        if r["iters"] != copies:
            problems.append("%s: iters %d, unroll x loop %d" % (r["bench"], r["iters"], copies))
        by_key.setdefault((r["bench"], r["cpl"]), {})[r["source"]] = r["per_iter"]
    for (bench, cpl), v in by_key.items():
        if v.get("tsc") != 32 * v.get("single-step", -1):
            problems.append("%s cpl%d: %s ticks per copy, %s instructions" % (bench, cpl, v.get("tsc"), v.get("single-step")))
        if by_key.get((bench, 3 - cpl)) != v and cpl == 0:
            problems.append("%s: CPL 0 %s != CPL 3 %s" % (bench, v, by_key.get((bench, 3))))
    want = {("asm", c): {"tsc": 32.0, "single-step": 1.0} for c in (0, 3)}
    if examples:
        want.update({("imul_tput", c): {"tsc": 128.0, "single-step": 4.0} for c in (0, 3)})
    for k, v in want.items():
        if by_key.get(k) != v:
            problems.append("%s cpl%d: %s, expected %s" % (k[0], k[1], by_key.get(k), v))
    # the examples ran, at both CPLs (a bench file's [name] lines)
    for path in examples:
        for name in re.findall(r"^\[(\w+)\]", open(os.path.join(ROOT, path)).read(), re.M):
            if (name, 0) not in by_key or (name, 3) not in by_key:
                problems.append("example %s (%s) has no result at both CPLs" % (name, path))
    done = tagged(out, "done")
    if not done or done[0]["errors"] or done[0]["faults"] or done[0]["timeouts"]:
        problems.append("@done: %s" % done)
    return problems


def user_faults_placed(out):
    """A user benchmark that faults or hangs is reported with the vector and its place in
    the user's code, at both CPLs, and the next one still runs."""
    problems = []
    faults = {(f["bench"], f["cpl"]): f for f in tagged(out, "fault")}
    for cpl in (0, 3):
        f = faults.get(("ud", cpl))
        if not f or f["vector"] != 6 or f["where"] != "ud+0x4" or f.get("copy") != 1 or f["expected"]:
            problems.append("ud at CPL %d: %s" % (cpl, f))
        f = faults.get(("ld", cpl))
        if not f or f["vector"] != 14 or f["where"] != "ld init+0x0":
            problems.append("ld at CPL %d: %s" % (cpl, f))
        t = [t for t in tagged(out, "timeout") if t["bench"] == "spin" and t["cpl"] == cpl]
        if not t or t[0].get("where") != "spin+0x0":
            problems.append("spin at CPL %d: %s" % (cpl, t))
    if {r["cpl"] for r in tagged(out, "result") if r["bench"] == "after"} != {0, 3}:
        problems.append("the benchmark after the faults did not run at both CPLs")
    return problems


CASES += [
    # Exact through the UEFI path: the loader, the same kernel.
    dict(name="user-asm-icount-exact", uefi=True, args=["--cpu", "max", "--icount", "--asm", "add rax, 1",
                                                         "--unroll", "100", "--loop", "10"],
         config="reps=3 warmup=1", timeout=300, check=lambda out: user_bench_exact(out, examples=[]),
         match=[r"^   instructions per copy, measured by single-step: 1\.000$",
                r'^@result \{"bench":"asm","size":0,"cpl":3,"event":"tsc",.*"iters":1000,"unroll":100,"loop":10,'
                r'.*"per_iter":32\.000,'],
         absent=NO_FAIL),
    # The same through the BIOS path (GRUB, the Multiboot2 entry), with the example bench files.
    dict(name="bios-user-asm-icount-exact", args=["--bios", "--cpu", "qemu64", "--icount", "--asm",
                                                   "add rax, 1", "--unroll", "100", "--loop", "10"]
         + sum((["--bench", p] for p in EXAMPLES), []),
         config="reps=3 warmup=1", timeout=300, check=user_bench_exact,
         lines=["boot.firmware=bios"],
         match=[r'^@result \{"bench":"asm","size":0,"cpl":3,"event":"tsc",.*"iters":1000,"unroll":100,"loop":10,'
                r'.*"stddev":0\.000,.*"per_iter":32\.000,',
                r'^@result \{"bench":"asm","size":0,"cpl":0,"event":"tsc",.*"iters":1000,"unroll":100,"loop":10,'
                r'.*"stddev":0\.000,.*"per_iter":32\.000,'],
         absent=NO_FAIL),
    # The i686 kernel runs the 32-bit encoding (bench.NAME.code32) as exactly, at both CPLs: on
    # a 32-bit NetBurst with every example bench file (MFENCE needs SSE2), on a Pentium III and
    # an Athlon with the IMUL chains and the pointer chase (4-byte pointers, in ESI).
    dict(name="i686-user-asm-icount-exact-kvm32", args=["--bios", "--cpu", "kvm32", "--icount", "--asm",
                                                         "add eax, 1", "--unroll", "100", "--loop", "10"]
         + sum((["--bench", p] for p in EXAMPLES), []),
         config="reps=3 warmup=1", timeout=300, check=user_bench_exact,
         lines=BIOS32 + ["cfg.bench.asm.code32=83c001"],
         match=[r'^@result \{"bench":"asm","size":0,"cpl":3,"event":"tsc",.*"iters":1000,"unroll":100,"loop":10,'
                r'.*"stddev":0\.000,.*"per_iter":32\.000,',
                r'^@result \{"bench":"chase_1m","size":0,"cpl":0,"event":"instructions",.*"per_iter":1\.000,'],
         absent=NO_FAIL + [r"^@skip"]),
] + [
    dict(name="i686-user-asm-icount-exact-" + _cpu,
         args=["--bios", "--cpu", _cpu, "--icount", "--asm", "add eax, 1", "--unroll", "100", "--loop", "10",
               "--bench", _IMUL, "--bench", _CHASE],
         config="reps=2 warmup=1", timeout=300, check=lambda out: user_bench_exact(out, examples=[_IMUL, _CHASE]),
         lines=BIOS32, absent=NO_FAIL + [r"^@skip"])
    for _cpu in ("pentium3", "athlon")
] + [
    # ud2 after an add, a load from address 0 in the init code, a jump to itself, then a good one.
    dict(name="user-asm-faults", args=["--cpu", "max", "--asm", "nop", "--name", "after", "--unroll", "5"],
         config="bench.ud.code=4883c0010f0b bench.ud.unroll=3 bench.ld.code=90 "
                "bench.ld.init=488b042500000000 bench.spin.code=ebfe watchdog=200 reps=2 warmup=1",
         exit=1, check=user_faults_placed,
         match=[r"^ud at CPL 3: #UD \(vector 6, error 0x0\) at ud\+0x4 \(copy 1 of the unrolled code\)",
                r"^spin at CPL 0: stopped by the watchdog after 200 ms, at spin\+0x0"],
         absent=[r"^FATAL"]),
    # What the kernel refuses, each named: no code, a built-in's name, too big unrolled, a
    # buffer larger than memory; and the assembly step stops a bad snippet before booting.
    dict(name="user-bench-errors", args=["--cpu", "qemu64", "--mem", "256"],
         config="bench.nocode.unroll=3 bench.empty.code=90 bench.big.code=" + "90" * 1000 +
                " bench.big.unroll=300 bench.mem.code=90 bench.mem.buffer=1G bench.off.code=90 bench.off.align=4 "
                "bench.off.offset=4 bench.x.unroll=0 reps=2", exit=1,
         lines=["error: bench.nocode: no code (bench.nocode.code=HEX or .code32=HEX, as scripts/bareperf-asm writes them)",
                "error: bench.empty: 'empty' is a built-in payload's name; choose another",
                "error: bench.big: 1000 bytes of code x unroll 300 = 300000 bytes, more than the 262144 the "
                "unrolled code may have",
                "error: bench.off.offset=4 is not below bench.off.align=4",
                "config error: --config line 1: bench.x.unroll=0 out of range (1..262144)"],
         match=[r"^error: mem: not enough memory below 4 GiB for its 1048576 KiB buffer aligned to 4096 \(\d+ KiB free\)"],
         absent=[r"^FATAL", r'"bench":"(nocode|big|off|x)"']),
]

# A benchmark with a refused part is not measured: never with the part's default in its
# place (no init, no buffer, unroll 100), whichever order the keys come in; the good one is.
CASES += [
    dict(name="user-bench-refused-part-not-measured", args=["--bios", "--cpu", "qemu64"],
         config="bench.init.code=90 bench.init.init=" + "90" * 1025 + " bench.buf.code=90 bench.buf.buffer=2G "
                "bench.unr.code=90 bench.unr.unroll=0 bench.first.unroll=0 bench.first.code=90 "
                "bench.typo.code=90 bench.typo.unrol=5 bench.good.code=90 bench.good.unroll=4 reps=2 warmup=1",
         exit=1, timeout=60,
         lines=["config error: --config line 1: bench.init.init: 1025 bytes, more than the 1024 a benchmark's init may have",
                "error: bench.init: not measured: its init was refused (see the configuration errors)",
                "error: bench.buf: not measured: its buffer was refused (see the configuration errors)",
                "error: bench.unr: not measured: its unroll was refused (see the configuration errors)",
                "error: bench.first: not measured: its unroll was refused (see the configuration errors)",
                "error: bench.typo: not measured: an unknown key was refused (see the configuration errors)"],
         match=[r'^@result \{"bench":"good","size":0,"cpl":3,', r'^@error \{"context":"config","message":"bench\.buf: not measured'],
         absent=[r"^FATAL", r'"bench":"(init|buf|unr|first|typo)"']),
    dict(name="user-bench-all-refused", args=["--bios", "--cpu", "qemu64"], config="bench.x.unroll=0 bench.x.code=90",
         exit=1, timeout=60,
         lines=["error: bench.x: not measured: its unroll was refused (see the configuration errors)",
                "error: no benchmark to run: each one the configuration defines was refused (see the errors above)"],
         absent=[r"^FATAL", r"^@result", r"selects nothing"]),
]

# Counter-overflow interrupts (kernel/sample.c). TCG never raises a PMI: the selftests
# reach the handler by a self-IPI on its vector (x86-64 and i686), and sample.event= says
# once why it cannot sample while the run goes on; a bad sample.event= is a config error.
PMI_SELFTEST = ["PASS: pmi.self_ipi_handler", "PASS: pmi.nmi_hook_passes_foreign_nmi"]
CASES += [
    # kvm64: the 64-bit NetBurst identity, its self-test through the BIOS path.
    dict(name="selftest-kvm64", args=["--bios", "--cpu", "kvm64"], config="mode=selftest",
         lines=ident("GenuineIntel", 15, 6, kind="intel-netburst") + BIOS + PMI_SELFTEST,
         match=SELFTEST_OK, absent=NO_FAIL),
    dict(name="i686-pmi-selftest-athlon", args=["--bios", "--cpu", "athlon"], config="mode=selftest",
         timeout=90, lines=BIOS32 + ["pmu.kind=amd-legacy"] + PMI_SELFTEST, match=SELFTEST_OK,
         absent=NO_FAIL),
    dict(name="sample-tcg-note", args=["--cpu", "qemu64"],
         config="payloads=add_chain reps=3 sample.event=instructions sample.period=5000 sample.delivery=nmi",
         lines=["cfg.sample.event=instructions", "cfg.sample.period=5000", "cfg.sample.delivery=nmi",
                "note: sample.event=instructions not sampled: no PMU interrupt without a counting PMU "
                "(pmu.functional=no, see its reason)"],
         match=[r'^@note \{"context":"sample","message":"sample\.event=instructions not sampled: ',
                r'^@result \{"bench":"add_chain",', r'^@done \{"results":4,'],
         absent=NO_FAIL + [r"^@sample ", r"^error: "]),
    dict(name="sample-bad-event", args=["--cpu", "qemu64"],
         config="payloads=add_chain reps=3 sample.event=no_such_event", exit=1,
         lines=["error: sample.event=no_such_event: unknown event 'no_such_event' for PMU amd64_k8_revg"],
         match=[r'^@result \{"bench":"add_chain",'], absent=NO_FAIL),
]

# mode=pmucheck under TCG (docs/pmucheck.md): no counter counts, so every check SKIPs with
# the self-check's reason, each as a line and an @check record, and the tally says so; a
# run with nothing failed exits 0. x86-64 and the i686 kernel, both by SeaBIOS.
PMUCHECK_NAMES = ["instructions", "privilege", "enable", "global-enable", "cmask-inv", "edge",
                  "width-overflow", "rdpmc-rdmsr", "netburst-thread", "netburst-cascade", "amd-legacy-alias"]


def pmucheck_all_skip(reason):
    return lambda out: pmucheck_skips(out, reason)


def pmucheck_skips(out, reason):
    problems = []
    checks = tagged(out, "check")
    if [c.get("check") for c in checks] != PMUCHECK_NAMES:
        problems.append("@check names %s" % [c.get("check") for c in checks])
    for c in checks:
        if c.get("verdict") != "skip" or not c.get("reason", "").startswith("no working PMU: " + reason) \
                or c.get("measured") != "" or "why" in c:
            problems.append("not a SKIP with the reason: %s" % c)
        line = "SKIP: pmucheck.%s (%s)" % (c.get("check"), c.get("reason"))
        if line not in out.split("\n"):
            problems.append("no line %r" % line)
    done = tagged(out, "checkdone")
    if done != [{"scope": "full", "passed": 0, "failed": 0, "skipped": len(PMUCHECK_NAMES)}]:
        problems.append("@checkdone %s" % done)
    return problems


# ---------------------------------------------------------------- cross-core tests (mode=c2c)
# Small enough for TCG: a few samples of a few round trips, increments and a 64 KiB buffer.
# Without -icount the watchdog counts host time, and each half (the boot CPU's too) runs
# under it: 20 s, so that a host busy with other work does not end a pair.
C2C_SMALL = "mode=c2c reps=3 warmup=1 c2c.rounds=20 c2c.increments=2000 c2c.size=64K watchdog=20000"


def c2c_pair_1_0_measured(out):
    """Two CPUs, c2c=all: the one pair 1-0, one @c2c record per test with its figures."""
    problems = []
    recs = {r["test"]: r for r in tagged(out, "c2c")}
    if sorted(recs) != ["c2c_latency", "false_sharing", "shared_bw"]:
        problems.append("@c2c tests %s, expected one of each" % sorted(recs))
    lat, fs, bw = recs.get("c2c_latency"), recs.get("false_sharing"), recs.get("shared_bw")
    if lat and not ((lat["ping_cpu"], lat["pong_cpu"], lat["rounds"], lat["reps"]) == (1, 0, 20, 3)
                    and 0 < lat["one_way_median"] and
                    abs(lat["round_trip_median"] - 2 * lat["one_way_median"]) <= 0.002):
        problems.append("c2c_latency record %s" % lat)
    if fs and not (fs["cpus"] == [1, 0] and fs["increments"] == 2000 and
                   min(fs["shared"] + fs["padded"]) > 0 and fs["ratio"] > 0):
        problems.append("false_sharing record %s" % fs)
    if bw and not ((bw["writer_cpu"], bw["reader_cpu"], bw["bytes"]) == (1, 0, 65536)
                   and bw["write"] > 0 and bw["read"] > 0):
        problems.append("shared_bw record %s" % bw)
    done = tagged(out, "done")
    if not done or (done[0]["results"], done[0]["errors"]) != (3, 0):
        problems.append("@done %s, expected 3 results and no error" % done)
    return problems


CASES += [
    dict(name="pmucheck-tcg-all-skip", args=["--bios", "--cpu", "max"], config="mode=pmucheck", timeout=90,
         check=pmucheck_all_skip("counters read 0 after a known loop and RDPMC raises #UD"),
         lines=["pmucheck: 0 passed, 0 failed, %d skipped" % len(PMUCHECK_NAMES),
                "bareperf: stopped (exit code 0)"],
         match=[r"RDPMC raises #UD"], absent=NO_FAIL + [r"^PASS: pmucheck"]),
    dict(name="i686-pmucheck-tcg-all-skip", args=["--bios", "--cpu", "pentium3"], config="mode=pmucheck",
         timeout=90, check=pmucheck_all_skip("CPUID reports no usable PMU"),
         lines=BIOS32 + ["pmucheck: 0 passed, 0 failed, %d skipped" % len(PMUCHECK_NAMES),
                         "bareperf: stopped (exit code 0)"],
         absent=NO_FAIL + [r"^PASS: pmucheck"]),
]


# ---------------------------------------------------------------- every logical processor
# kernel/smp.c starts every MADT processor (INIT-SIPI-SIPI) and reports each with its
# package/core/thread; cpu=, partner= and partner.load= (kernel/placement.c) move the plan.
# QEMU gives APIC IDs 0..n-1 in order, so CPU N has APIC ID N.
def cpu_lines(positions):
    return ["sys.cpus=%d" % len(positions)] + [
        "sys.cpu.%d=apic_id=%d package=%d core=%d thread=%d state=%s" % (i, i, p, c, t, "online" if i else "boot")
        for i, (p, c, t) in enumerate(positions)]


def placed(cpu, partner, loads, cpls=(0, 3), min_each=2):
    """Every @result ran on cpu next to partner; each load of partner.load gave results at
    every CPL; single-stepped instructions are exact wherever the plan ran."""
    def check(out):
        problems = []
        seen = {}
        for r in tagged(out, "result"):
            if r.get("cpu") != cpu or r.get("partner") != partner:
                problems.append("result on cpu %s partner %s: %s" % (r.get("cpu"), r.get("partner"), r))
            seen.setdefault(r.get("partner_load"), set()).add(r["cpl"])
            if r["source"] == "single-step" and r["per_iter"] != r["insns_per_iter"]:
                problems.append("%s cpl%d: %s stepped, declared %d" % (r["bench"], r["cpl"], r["per_iter"], r["insns_per_iter"]))
        for load in loads:
            if seen.get(load) != set(cpls):
                problems.append("partner.load=%s: results at CPLs %s" % (load, sorted(seen.get(load, []))))
        done = tagged(out, "done")
        if not done or done[0]["errors"] or done[0]["faults"] or done[0]["timeouts"]:
            problems.append("@done: %s" % done)
        return problems
    return check


def placements(loads):
    """The plan ran once per load, in this order, and nothing else."""
    def check(out):
        got = re.findall(r"^placement: .*, partner CPU \d+: (\S+)$", out, re.M)
        return [] if got == loads else ["placements %s, expected %s" % (got, loads)]
    return check


def all_on_cpu(cpu, inner):
    def check(out, pre):
        bad = [r for r in tagged(out, "result") if r.get("cpu") != cpu]
        return inner(out, pre) + (["%d results not on CPU %d" % (len(bad), cpu)] if bad else [])
    return check


def trace_after_placement(out):
    """The wrmsr lines of the measurement: after the placement line (the self-check before it)."""
    lines = out.split("\n")
    at = next((i for i, l in enumerate(lines) if l.startswith("placement: ")), len(lines))
    return [l for l in lines[at:] if l.startswith("wrmsr ")]


def same_trace_as_prelude(out, pre):
    got, want = trace_after_placement(out), trace_after_placement(pre)
    if got and got == want:
        return []
    return ["measurement wrmsr trace differs from the prelude's; got:"] + got + ["expected:"] + want


NETBURST_HT = ["--bios", "--smp", "2,sockets=1,cores=1,threads=2", "--cpu", "qemu64,vendor=GenuineIntel,family=15,model=4"]
NB_TRACE = "trace=msr payloads=empty reps=1 iters=10 cpl=3 events=cycles "
SMP_BIOS_LIST = dict(args=["--bios", "--cpu", "max"], config="mode=list")

CASES += [
    # The self-test calls every AP: own stacks, APIC ID, CR0/CR4, a CPL 3 round trip; an NMI
    # to the boot CPU's own APIC ID reaches only it.
    dict(name="smp-4-cores-skylake-selftest", args=["--bios", "--cpu", "Skylake-Client", "--smp", "4"],
         config="mode=selftest", timeout=90,
         lines=cpu_lines([(0, 0, 0), (0, 1, 0), (0, 2, 0), (0, 3, 0)]) +
               ["sys.topology=leaf 0xb smt_bits=0 core_bits=2", "PASS: smp.call_each_cpu", "PASS: nmi.noted_and_survived",
                "PASS: pmi.routed_on_ap", "PASS: pmi.ignored_on_other_cpu"],
         match=SELFTEST_OK, absent=NO_FAIL + [r"no-answer", r"^sys\.smp="]),
    dict(name="i686-smp-selftest-kvm32", args=["--bios", "--cpu", "kvm32", "--smp", "2"], config="mode=selftest",
         timeout=90, lines=BIOS32 + ["sys.cpus=2", "PASS: smp.call_each_cpu", "PASS: nmi.noted_and_survived",
                                        "PASS: pmi.routed_on_ap", "PASS: pmi.ignored_on_other_cpu"],
         match=SELFTEST_OK, absent=NO_FAIL + [r"no-answer"]),
    dict(name="smp-2x2-threads-skylake", args=["--bios", "--cpu", "Skylake-Client", "--smp", "4,sockets=2,cores=1,threads=2"],
         config="mode=detect", timeout=60, lines=cpu_lines([(0, 0, 0), (0, 0, 1), (1, 0, 0), (1, 0, 1)]),
         absent=NO_FAIL + [r"no-answer"]),
    dict(name="smp-2x2-threads-epyc", args=["--bios", "--cpu", "EPYC", "--smp", "4,sockets=2,cores=1,threads=2"],
         config="mode=detect", timeout=60, lines=cpu_lines([(0, 0, 0), (0, 0, 1), (1, 0, 0), (1, 0, 1)]),
         absent=NO_FAIL + [r"no-answer"]),
    # A payload alone and next to a busy neighbour in one boot: idle (HLT), a spin loop, and a
    # catalogue payload on the boot CPU while CPU 1 measures. qemu64 is a K8 (AMD family 15):
    # no SMT in its CPUID, so two cores, and the partner is named.
    dict(name="smp-partner-loads-qemu64", args=["--bios", "--cpu", "qemu64", "--smp", "2"],
         config="payloads=empty,add_chain cpu=1 partner=0 partner.load=idle,spin,add_chain reps=3 iters=100",
         timeout=60, check=placed(1, 0, ["idle", "spin", "add_chain"]),
         lines=cpu_lines([(0, 0, 0), (0, 1, 0)]) +
               ["placement: payloads on CPU 1 (APIC ID 1, package 0 core 1 thread 0), partner CPU 0: spin",
                "   on CPU 1, partner CPU 0: add_chain"],
         absent=NO_FAIL),
    # The boot CPU measures while an AP spins; then the reverse pairing by partner=.
    dict(name="smp-boot-cpu-measures-skylake", args=["--bios", "--cpu", "Skylake-Client", "--smp", "2"],
         config="payloads=add_chain cpu=0 partner=1 partner.load=spin,idle reps=3 iters=100", timeout=60,
         check=placed(0, 1, ["spin", "idle"]), absent=NO_FAIL),
    # The UEFI path: OVMF starts no AP itself; bareperf does, after ExitBootServices.
    dict(name="smp-uefi-cpu1-skylake", uefi=True, args=["--cpu", "Skylake-Client", "--smp", "2,sockets=1,cores=1,threads=2"],
         config="payloads=add_chain cpu=1 partner.load=idle,spin reps=3 iters=100",
         check=placed(1, 0, ["idle", "spin"]), lines=["boot.firmware=uefi"] + cpu_lines([(0, 0, 0), (0, 0, 1)]),
         absent=NO_FAIL),
    # Bad placement: each mistake named, the run goes on on CPU 0 alone, and fails.
    dict(name="smp-placement-errors", args=["--bios", "--cpu", "qemu64", "--smp", "2"],
         config="payloads=empty reps=2 iters=10 cpu=5 partner=7 partner.load=spin,nosuch,fault_ud,mem_chase", exit=1,
         lines=["error: cpu=5: only 2 CPUs are up (0..1; see the sys.cpu.N lines); running on CPU 0",
                "error: partner=7: no such CPU is up (CPUs 0..1 are up; see the sys.cpu.N lines)",
                "error: partner.load=nosuch: not idle, spin or a payload of the catalogue (mode=list)",
                "error: partner.load=fault_ud: that payload cannot be a partner's load: it faults or enters the kernel on purpose",
                "error: partner.load=mem_chase: that payload cannot be a partner's load: it cannot run at CPL 0 "
                "without a buffer or counters",
                "error: partner.load=spin,nosuch,fault_ud,mem_chase needs a partner CPU, and CPU 0 has none (no SMT "
                "sibling, or partner=none): name one with partner=N"],
         match=[r'^@result \{"bench":"empty",.*"cpu":0,"partner":null,"partner_load":null\}'], absent=[r"^FATAL"]),
    # A partner.load list is taken or refused whole: 9 loads (one more than a run takes), or
    # one bad item among good ones, leave the partner idle for the one run of the plan.
    dict(name="smp-partner-load-list-refused-whole", args=["--bios", "--cpu", "qemu64", "--smp", "2"],
         config="payloads=empty reps=2 iters=10 cpu=1 partner=0 partner.load=spin,spin,spin,spin,spin,spin,spin,spin,spin",
         exit=1, timeout=60, check=placements(["idle"]),
         lines=["config error: --config line 1: partner.load=spin,spin,spin,spin,spin,spin,spin,spin,spin: 9 items, "
                "more than the 8 one run takes (one run of the plan each)", "cfg.partner.load=idle"],
         absent=[r"^FATAL", r"the rest are ignored"]),
    dict(name="smp-partner-load-bad-item-refuses-list", args=["--bios", "--cpu", "qemu64", "--smp", "2"],
         config="payloads=empty reps=2 iters=10 cpu=1 partner=0 partner.load=spin,nosuch,idle", exit=1, timeout=60,
         check=placements(["idle"]),
         lines=["error: partner.load=nosuch: not idle, spin or a payload of the catalogue (mode=list)",
                "error: partner.load=spin,nosuch,idle: not used, since an item is refused (a list is taken "
                "whole); the partner stays idle"],
         absent=[r"^FATAL"]),
    # One CPU: no placement line, no cpu fields; a partner load has no partner to run on.
    dict(name="smp-one-cpu-no-partner", args=["--bios", "--cpu", "qemu64"],
         config="payloads=empty reps=2 iters=10 partner.load=spin", exit=1,
         lines=cpu_lines([(0, 0, 0)]),
         match=[r"^error: partner\.load=spin needs a partner CPU, and CPU 0 has none"],
         absent=[r"^placement:", r'"cpu":\d', r"^FATAL"]),
    # -icount with -smp runs the vCPUs round-robin on one thread: the boot CPU halts without
    # a timer while CPU 1 measures, so the catalogue stays exact there.
    dict(name="smp-icount-exact-cpu1", args=["--bios", "--cpu", "max", "--icount", "--smp", "2"], timeout=200,
         prelude=SMP_BIOS_LIST, config="cpu=1 reps=4 warmup=1 iters=64 sizes=4K,64K,1M cpl=both events=cycles,instructions",
         check=all_on_cpu(1, icount_exact), absent=NO_FAIL),
    dict(name="i686-smp-icount-cpu1", args=["--bios", "--cpu", "kvm32", "--icount", "--smp", "2"], timeout=120,
         prelude=dict(args=["--bios", "--cpu", "kvm32"], config="mode=list"),
         config="payloads=" + ",".join(NO_PAE_PAYLOADS) + " cpu=1 reps=4 warmup=1 iters=64 sizes=4K,1M,8M cpl=both",
         check=all_on_cpu(1, icount_exact_subset), lines=BIOS32 + cpu_lines([(0, 0, 0), (0, 1, 0)]), absent=NO_FAIL),
    # Under -icount the vCPUs take turns on one host thread: a spinning partner must hand the
    # turn on (PAUSE), or the measuring CPU crawls (a run took 40 times as long, or never ended).
    dict(name="smp-icount-spin-partner-boot-cpu", args=["--bios", "--cpu", "max", "--icount", "--smp", "2"],
         config="cpu=1 partner=0 partner.load=spin payloads=empty,add_chain reps=3 warmup=1", timeout=30,
         check=placed(1, 0, ["spin"]), absent=NO_FAIL),
    dict(name="smp-icount-spin-partner-ap", args=["--bios", "--cpu", "max", "--icount", "--smp", "2"],
         config="cpu=0 partner=1 partner.load=spin,add_chain payloads=empty reps=3 warmup=1", timeout=30,
         check=placed(0, 1, ["spin", "add_chain"]), absent=NO_FAIL),
    # NetBurst HT: the ESCR's T0/T1 bits follow the CPU that measures (auto), and the
    # measurement on CPU 1 programs exactly what netburst.thread=1 programs on CPU 0.
    dict(name="smp-netburst-ht-cpu1-auto", args=NETBURST_HT, config=NB_TRACE + "cpu=1",
         prelude=dict(args=NETBURST_HT, config=NB_TRACE + "cpu=0 netburst.thread=1"),
         check=same_trace_as_prelude, timeout=60,
         lines=cpu_lines([(0, 0, 0), (0, 0, 1)]) +
               ["pmu.netburst_thread=T1 (the logical processor running the payloads) on CPU 1",
                "wrmsr FSB_ESCR0 0x3a2 <- 0x26000203 evsel=0x13 emask=0x1 t1_os t1_usr (global_power_events)"],
         absent=NO_FAIL),
    # Both threads busy: CPU 1 measures with T0+T1 qualified while CPU 0 (its sibling) spins.
    dict(name="smp-netburst-ht-both-spin", args=NETBURST_HT, config=NB_TRACE + "cpu=1 netburst.thread=both partner.load=spin",
         prelude=dict(args=NETBURST_HT, config=NB_TRACE + "cpu=0 netburst.thread=both partner=none"),
         check=same_trace_as_prelude, timeout=60,
         lines=["placement: payloads on CPU 1 (APIC ID 1, package 0 core 0 thread 1), partner CPU 0: spin",
                "pmu.netburst_thread=T0+T1 (netburst.thread) on CPU 1",
                "wrmsr FSB_ESCR0 0x3a2 <- 0x2600020f evsel=0x13 emask=0x1 t0_os t0_usr t1_os t1_usr (global_power_events)"],
         absent=NO_FAIL),
    # Dual-core NetBurst without HT (Pentium D): CPUID.1 says 2 logical per package, but
    # each core has one thread, so CPU 1 (APIC ID 1, core 1) is T0, never T1.
    dict(name="smp-netburst-dual-core-cpu1-t0",
         args=["--bios", "--smp", "2,sockets=1,cores=2,threads=1", "--cpu", "qemu64,vendor=GenuineIntel,family=15,model=4"],
         config=NB_TRACE + "cpu=1", timeout=60,
         lines=["pmu.netburst_ht=no", "cpu.logical_per_package=2",
                "pmu.netburst_thread=T0 (the logical processor running the payloads) on CPU 1",
                "wrmsr FSB_ESCR0 0x3a2 <- 0x2600020c evsel=0x13 emask=0x1 t0_os t0_usr (global_power_events)"],
         absent=NO_FAIL),
    dict(name="c2c-one-cpu-skips", args=["--cpu", "qemu64"], config="mode=c2c", timeout=60,
         lines=["c2c_latency: skipped: needs 2 CPUs; 1 is online",
                "false_sharing: skipped: needs 2 CPUs; 1 is online",
                '@skip {"bench":"shared_bw","reason":"needs 2 CPUs; 1 is online"}',
                '@done {"results":0,"faults":0,"timeouts":0,"errors":0}'],
         absent=NO_FAIL),
    dict(name="c2c-two-cpus", args=["--cpu", "qemu64", "--smp", "2"], config=C2C_SMALL,
         timeout=180, check=c2c_pair_1_0_measured,
         match=[r"^c2c_latency CPU 1 -> 0: one way \d+\.\d{3} ticks \(round trip \d+\.\d{3}\)",
                r"^            0       1$", r"^    1 +\d+\.\d$",
                r"^false_sharing CPUs 1 and 0: ticks per locked increment",
                r"^shared_bw CPU 1 writes, CPU 0 reads: 65536 bytes"],
         absent=NO_FAIL + [r"^error:"]),
    # The i686 kernel (SeaBIOS, a CPU without long mode) runs the same tests.
    dict(name="i686-c2c-two-cpus", args=["--bios", "--cpu", "kvm32", "--smp", "2"], config=C2C_SMALL,
         timeout=120, check=c2c_pair_1_0_measured, lines=["cpu.mode=protected"],
         match=[r"^c2c_latency CPU 1 -> 0: one way \d+\.\d{3} ticks"], absent=NO_FAIL + [r"^error:"]),
    # A pair of two APs that outlasts watchdog= (1 ms here) leaves both still running their
    # halves in the memory every pair shares: no later pair may run beside them (before,
    # pair 3-0 ran and failed or measured next to them).
    dict(name="c2c-lost-cpu-stops-pairs", args=["--bios", "--cpu", "max", "--smp", "4"],
         config="mode=c2c c2c=2-1,3-0 c2c.tests=c2c_latency,shared_bw reps=3 warmup=1 c2c.rounds=100000 "
                "c2c.size=64K watchdog=1", timeout=120, exit=1,
         lines=["error: CPUs 2 and 1: CPU 2 did not finish within 1 ms (watchdog=); it is not used again",
                "error: CPUs 3 and 0: not run: CPU 2 may still be running its half of an earlier pair (it "
                "outlasted watchdog=1 ms) in the memory every pair shares",
                '@done {"results":0,"faults":0,"timeouts":0,"errors":4}'],
         absent=NO_FAIL + [r"^@c2c "]),
    # The boot CPU's own half runs under watchdog= too, as a payload does; the other CPU is
    # told to stop, so it stays usable and the next pair runs.
    dict(name="c2c-watchdog-boot-cpu-half", args=["--bios", "--cpu", "max", "--smp", "2"],
         config="mode=c2c c2c=1-0,0-1 c2c.tests=c2c_latency reps=3 warmup=1 c2c.rounds=100000 watchdog=1",
         timeout=120, exit=1,
         lines=["error: CPUs 1 and 0: CPU 0 did not finish within 1 ms (watchdog=)",
                "error: CPUs 0 and 1: CPU 0 did not finish within 1 ms (watchdog=)",
                '@done {"results":0,"faults":0,"timeouts":0,"errors":2}'],
         absent=NO_FAIL + [r"^@c2c ", r"not run", r"not used again"]),
    # Four threads per core: each of CPU 0's three siblings is marked, the other core's CPU not.
    dict(name="c2c-smt4-siblings", args=["--bios", "--cpu", "Skylake-Client", "--smp", "8,sockets=1,cores=2,threads=4"],
         config=C2C_SMALL + " c2c=0-1,0-2,0-3,0-4 c2c.tests=c2c_latency", timeout=120,
         lines=cpu_lines([(0, 0, 0), (0, 0, 1), (0, 0, 2), (0, 0, 3), (0, 1, 0), (0, 1, 1), (0, 1, 2), (0, 1, 3)]),
         match=[r"^c2c_latency CPU 0 -> 1 \(SMT siblings\): ", r"^c2c_latency CPU 0 -> 2 \(SMT siblings\): ",
                r"^c2c_latency CPU 0 -> 3 \(SMT siblings\): ", r"^c2c_latency CPU 0 -> 4: "],
         absent=NO_FAIL + [r"^error:"]),
    # A named pair with a CPU that is not there is skipped; the good one still runs.
    dict(name="c2c-pair-not-online", args=["--cpu", "qemu64", "--smp", "2"],
         config=C2C_SMALL + " c2c=0-1,0-5 c2c.tests=c2c_latency", timeout=180,
         lines=["c2c_latency: skipped: pair 0-5: CPU 5 is not online (CPUs 0..1 are)"],
         match=[r'^@c2c \{"test":"c2c_latency","ping_cpu":0,"pong_cpu":1,"rounds":20,"reps":3,',
                r'^@done \{"results":1,"faults":0,"timeouts":0,"errors":0\}$',
                r"^    0 +\d+\.\d$"],
         absent=NO_FAIL + [r"^error:"]),
]

# ---------------------------------------------------------------- user code, hostile (issue 19)
# Each case runs what a benchmark must not get away with, then checks that it is reported
# as that benchmark's fault, placed in its code, and that the run goes on and fails.


def user_outcome(faults=None, timeouts=None, results=None):
    """faults: {(bench, cpl): (vector, where, copy)} that must be the @fault records (name
    checked too when the value has a fourth item; where None: anywhere outside the copies
    of that benchmark's code, e.g. its wrapper, which then has no copy); timeouts: {(bench, cpl): where}; results:
    {bench: cpls} that must have results. @done must count them, and no other fault."""
    faults, timeouts, results = faults or {}, timeouts or {}, results or {}

    def check(out):
        problems = []
        got = {(f["bench"], f["cpl"]): f for f in tagged(out, "fault")}
        if set(got) != set(faults):
            problems.append("faults for %s, expected %s" % (sorted(got), sorted(faults)))
        for key, want in faults.items():
            f = got.get(key)
            have = f and (f["vector"], f["where"], f.get("copy")) + ((f["name"],) if len(want) > 3 else ())
            if want[1] is None and f and f["where"].startswith(key[0] + " "):
                have = (have[0], None) + have[2:]   # somewhere in the wrapper: only the vector counts
            if have != want:
                problems.append("%s cpl%d: %s, expected %s" % (key[0], key[1], f, want))
        touts = {(t["bench"], t["cpl"]): t for t in tagged(out, "timeout")}
        for key, where in timeouts.items():
            t = touts.get(key)
            if not t or t.get("where") != where:
                problems.append("%s cpl%d timeout: %s, expected at %s" % (key[0], key[1], t, where))
        for bench, cpls in results.items():
            seen = {r["cpl"] for r in tagged(out, "result") if r["bench"] == bench}
            if seen != set(cpls):
                problems.append("%s: results at CPLs %s, expected %s" % (bench, sorted(seen), sorted(cpls)))
        done = tagged(out, "done")
        if not done or (done[0]["faults"], done[0]["timeouts"]) != (len(faults), len(timeouts)):
            problems.append("@done %s" % done)
        return problems
    return check


CASES += [
    # Trap-class exceptions leave RIP after the instruction: int3 is placed where it is, in
    # its copy, not at the start of the next copy or in the wrapper; so is a HLT at CPL 0
    # that only the watchdog ends (RIP after it when the timer interrupt wakes it).
    dict(name="user-trap-placed", args=["--bios", "--cpu", "qemu64", "--asm", "nop; int3", "--unroll", "3"],
         config="bench.one.code=cc bench.one.unroll=1 bench.halt.code=f4 bench.halt.unroll=1 "
                "bench.int3b.code=90cd03 bench.int3b.unroll=2 watchdog=100 reps=2 warmup=1 payloads=asm,one,halt,int3b",
         exit=1, timeout=60,
         check=user_outcome(faults={("asm", 0): (3, "asm+0x1", 1), ("asm", 3): (3, "asm+0x1", 1),
                                    ("one", 0): (3, "one+0x0", 1), ("one", 3): (3, "one+0x0", 1),
                                    ("int3b", 0): (3, "int3b+0x1", 1), ("int3b", 3): (3, "int3b+0x1", 1),
                                    ("halt", 3): (13, "halt+0x0", 1)},
                            timeouts={("halt", 0): "halt+0x0"}),
         match=[r"^asm at CPL 3: #BP \(vector 3, error 0x0\) at asm\+0x1 \(copy 1 of the unrolled code\), "
                r"RIP 0000008020000081 \(UNEXPECTED\)$"],
         absent=[r"^FATAL"]),
]

# A CPL 0 benchmark that misuses the stack, or raises a vector nothing handles, ends as its
# own fault; @done comes and the next benchmark runs. Balanced pushes of 64 KiB are within
# the contract (docs/bench.md: the stack of its own at either CPL). On the boot CPU and on
# an AP, whose stacks are its own.
PUSH_64K = "mov ecx, 8192; .a: push rax; dec ecx; jnz .a; mov ecx, 8192; .b: pop rax; dec ecx; jnz .b"
STACK_ABUSE = dict(
    args=["--bios", "--cpu", "qemu64", "--asm", "nop", "--name", "after", "--unroll", "5"],
    config="bench.xsp.code=31e4 bench.xsp.unroll=1 bench.i242.code=cdf2 bench.i242.unroll=1 "
           "reps=2 warmup=1 payloads=xsp,i242,after",
    exit=1, timeout=60,
    check=user_outcome(faults={("xsp", 0): (8, None, None), ("xsp", 3): (14, None, None),
                               ("i242", 0): (242, "i242+0x0", 1, "INT n"), ("i242", 3): (13, "i242+0x0", 1)},
                       results={"after": (0, 3)}),
    match=[r"^xsp at CPL 0: #DF \(vector 8, error 0x0\) at xsp wrapper\+0x\w+, RIP ffffffff400000\w\w \(UNEXPECTED\)$",
           r"^i242 at CPL 0: INT n \(vector 242, error 0x0\) at i242\+0x0 \(copy 1 of the unrolled code\)"],
    absent=[r"^FATAL"])
CASES += [
    dict(name="user-push-64k", args=["--bios", "--cpu", "qemu64", "--asm", PUSH_64K, "--unroll", "1"],
         config="reps=2 warmup=1", timeout=120, check=user_outcome(results={"asm": (0, 3)}),
         match=[r"^   instructions per copy, measured by single-step: 49154\.000$"], absent=NO_FAIL),
    dict(STACK_ABUSE, name="user-stack-abuse-boot-cpu"),
    dict(STACK_ABUSE, name="user-stack-abuse-ap", args=STACK_ABUSE["args"] + ["--smp", "2"],
         config=STACK_ABUSE["config"] + " cpu=1"),
]

# INT n at CPL 0 aimed at an exception that pushes an error code (#DF through its IST
# stack, #GP, #PF): the CPU pushes none, so the frame was read one word off (before: "#PF
# ... error 0xffffffff40000082 at outside asm, RIP 0x8"). Each is that benchmark's INT n,
# placed at its instruction, and the benchmark after them still measures.
CASES += [
    dict(name="user-int-error-code-vectors", args=["--bios", "--cpu", "qemu64", "--asm", "nop", "--name", "after",
                                                   "--unroll", "5"],
         config="bench.i8.code=90cd08 bench.i8.unroll=1 bench.i13.code=90cd0d bench.i13.unroll=1 "
                "bench.i14.code=90cd0e bench.i14.unroll=1 reps=2 warmup=1 cpl=0 payloads=i8,i13,i14,after",
         exit=1, timeout=60,
         check=user_outcome(faults={("i%d" % v, 0): (v, "i%d+0x1" % v, 1, "INT n") for v in (8, 13, 14)},
                            results={"after": (0,)}),
         match=[r"^i14 at CPL 0: INT n \(vector 14, error 0x0\) at i14\+0x1 \(copy 1 of the unrolled code\)"],
         absent=[r"^FATAL", r"outside i\d+"]),
]

# SYSCALL (any number) and INT 0x81 in a benchmark are its faults, not the harness's way
# out of CPL 3: before, each ended the measured run as if it had finished (all figures 0).
CASES += [
    dict(name="user-syscall-int81-faults", args=["--bios", "--cpu", "qemu64", "--asm", "nop", "--name", "after",
                                                 "--unroll", "5"],
         config="bench.sc.code=0f05 bench.sc.unroll=1 bench.sc1.code=b8010000000f05 bench.sc1.unroll=2 "
                "bench.i129.code=cd81 bench.i129.unroll=1 reps=2 warmup=1 payloads=sc,sc1,i129,after",
         exit=1, timeout=60,
         check=user_outcome(faults={("sc", 0): (6, "sc+0x0", 1), ("sc", 3): (6, "sc+0x0", 1),
                                    ("sc1", 0): (6, "sc1+0x5", 1), ("sc1", 3): (6, "sc1+0x5", 1),
                                    ("i129", 0): (129, "i129+0x0", 1, "INT n"),
                                    ("i129", 3): (129, "i129+0x0", 1, "INT n")},
                            results={"after": (0, 3)}),
         match=[r"^i129 at CPL 3: INT n \(vector 129, error 0x0\) at i129\+0x0 \(copy 1 of the unrolled code\), "
                r"RIP 0000008020000080 \(UNEXPECTED\)$"],
         absent=[r"^FATAL", r'^@result \{"bench":"(sc|sc1|i129)"']),
]

# Writes past the user's buffer land on an unmapped guard page, a #PF in the user's code,
# not in the harness's data: before, rep stosq 8 KiB past a 4 KiB buffer forged the
# results ("min":-999997396, exit 0), and a store 4 KiB past it broke the harness.
CASES += [
    dict(name="user-buffer-guards", args=["--bios", "--cpu", "qemu64", "--asm", "nop", "--name", "after",
                                          "--unroll", "5"],
         config="bench.forge.code=498dbe00200000b900020000b800ca9a3bf348ab bench.forge.buffer=4K "
                "bench.forge.unroll=1 bench.past.code=49898600100000 bench.past.buffer=4K bench.past.unroll=1 "
                "bench.before.code=498946f8 bench.before.buffer=4K bench.before.unroll=1 "
                "reps=3 warmup=1 payloads=forge,past,before,after",
         exit=1, timeout=60,
         check=user_outcome(faults={("forge", 0): (14, "forge+0x11", 1), ("forge", 3): (14, "forge+0x11", 1),
                                    ("past", 0): (14, "past+0x0", 1), ("past", 3): (14, "past+0x0", 1),
                                    ("before", 0): (14, "before+0x0", 1), ("before", 3): (14, "before+0x0", 1)},
                            results={"after": (0, 3)}),
         absent=[r"^FATAL", r'^@result \{"bench":"(forge|past|before)"']),
]


# The same defences hold for 32-bit code on the i686 kernel (bench.NAME.code32): traps placed
# at their instruction, a stack of its own at CPL 0 (ESP = 0 ends as a #DF on its own task),
# INT n and SYSCALL as the benchmark's faults, guard pages around the buffer, and single-step
# hazards refused. The 32-bit encodings of the x86-64 cases' code.
PUSH_64K_32 = "mov ecx, 8192; .a: push eax; dec ecx; jnz .a; mov ecx, 8192; .b: pop eax; dec ecx; jnz .b"
CASES += [
    dict(name="i686-user-trap-placed", args=["--bios", "--cpu", "pentium3", "--asm", "nop; int3", "--unroll", "3"],
         config="bench.one.code32=cc bench.one.unroll=1 bench.halt.code32=f4 bench.halt.unroll=1 "
                "bench.int3b.code32=90cd03 bench.int3b.unroll=2 watchdog=100 reps=2 warmup=1 payloads=asm,one,halt,int3b",
         exit=1, timeout=60,
         check=user_outcome(faults={("asm", 0): (3, "asm+0x1", 1), ("asm", 3): (3, "asm+0x1", 1),
                                    ("one", 0): (3, "one+0x0", 1), ("one", 3): (3, "one+0x0", 1),
                                    ("int3b", 0): (3, "int3b+0x1", 1), ("int3b", 3): (3, "int3b+0x1", 1),
                                    ("halt", 3): (13, "halt+0x0", 1)},
                            timeouts={("halt", 0): "halt+0x0"}),
         lines=BIOS32, absent=[r"^FATAL"]),
    dict(name="i686-user-push-64k", args=["--bios", "--cpu", "pentium3", "--asm", PUSH_64K_32, "--bits", "32",
                                          "--unroll", "1"],
         config="reps=2 warmup=1", timeout=120, check=user_outcome(results={"asm": (0, 3)}),
         match=[r"^   instructions per copy, measured by single-step: 49154\.000$"], lines=BIOS32, absent=NO_FAIL),
    dict(name="i686-user-stack-abuse", args=["--bios", "--cpu", "pentium3", "--asm", "nop", "--name", "after",
                                             "--unroll", "5"],
         config="bench.xsp.code32=31e4 bench.xsp.unroll=1 bench.i242.code32=cdf2 bench.i242.unroll=1 "
                "reps=2 warmup=1 payloads=xsp,i242,after",
         exit=1, timeout=60,
         check=user_outcome(faults={("xsp", 0): (8, None, None), ("xsp", 3): (14, None, None),
                                    ("i242", 0): (242, "i242+0x0", 1, "INT n"), ("i242", 3): (13, "i242+0x0", 1)},
                            results={"after": (0, 3)}),
         lines=BIOS32, absent=[r"^FATAL"]),
    dict(name="i686-user-syscall-int81-faults", args=["--bios", "--cpu", "athlon", "--asm", "nop", "--name", "after",
                                                      "--unroll", "5"],
         config="bench.sc.code32=0f05 bench.sc.unroll=1 bench.sc1.code32=b8010000000f05 bench.sc1.unroll=2 "
                "bench.i129.code32=cd81 bench.i129.unroll=1 reps=2 warmup=1 payloads=sc,sc1,i129,after",
         exit=1, timeout=60,
         check=user_outcome(faults={("sc", 0): (6, "sc+0x0", 1), ("sc", 3): (6, "sc+0x0", 1),
                                    ("sc1", 0): (6, "sc1+0x5", 1), ("sc1", 3): (6, "sc1+0x5", 1),
                                    ("i129", 0): (129, "i129+0x0", 1, "INT n"),
                                    ("i129", 3): (129, "i129+0x0", 1, "INT n")},
                            results={"after": (0, 3)}),
         lines=BIOS32, absent=[r"^FATAL", r'^@result \{"bench":"(sc|sc1|i129)"']),
    dict(name="i686-user-buffer-guards", args=["--bios", "--cpu", "pentium3", "--asm", "nop", "--name", "after",
                                               "--unroll", "5"],
         config="bench.forge.code32=8dbe00200000b900040000b800ca9a3bf3ab bench.forge.buffer=4K "
                "bench.forge.unroll=1 bench.past.code32=898600100000 bench.past.buffer=4K bench.past.unroll=1 "
                "bench.before.code32=8946fc bench.before.buffer=4K bench.before.unroll=1 "
                "reps=3 warmup=1 payloads=forge,past,before,after",
         exit=1, timeout=60,
         check=user_outcome(faults={("forge", 0): (14, "forge+0x10", 1), ("forge", 3): (14, "forge+0x10", 1),
                                    ("past", 0): (14, "past+0x0", 1), ("past", 3): (14, "past+0x0", 1),
                                    ("before", 0): (14, "before+0x0", 1), ("before", 3): (14, "before+0x0", 1)},
                            results={"after": (0, 3)}),
         lines=BIOS32, absent=[r"^FATAL", r'^@result \{"bench":"(forge|past|before)"']),
]

def step_refused(benches):
    """benches: {bench: {cpl: (instruction, where)}}: each stepped count that cannot be right
    is an @error naming the instruction and its place, with no single-step @result; the
    TSC is still measured, and @done counts the errors."""
    def check(out):
        problems = []
        errors = [e["message"] for e in tagged(out, "error") if e["context"] == "payload"]
        for bench, cpls in benches.items():
            for cpl, (insn, where) in cpls.items():
                want = ("%s at CPL %d: instructions not measured by single-step: the code executes %s (at %s), "
                        "after which the CPU gives no single-step trap, so the count would be short"
                        % (bench, cpl, insn, where))
                if want not in errors:
                    problems.append("no @error %r" % want)
            got = {(r["cpl"], r["source"]) for r in tagged(out, "result") if r["bench"] == bench}
            if any(src == "single-step" for _, src in got) or {c for c, _ in got} != set(cpls):
                problems.append("%s: results %s, expected tsc only at CPLs %s" % (bench, sorted(got), sorted(cpls)))
        done = tagged(out, "done")
        if not done or done[0]["errors"] != len(errors) or not errors:
            problems.append("@done %s with %d @error records" % (done, len(errors)))
        return problems
    return check


# Single-stepping counts one #DB per instruction, except after INT n (TF is cleared on the
# way in), STI and MOV SS (the trap is held back for an instruction): a count with one of
# them in it cannot be right and must not be reported (before: 0 per copy, exit 0).
CASES += [
    dict(name="user-step-hazards", args=["--bios", "--cpu", "qemu64", "--asm", "int 0x80", "--name", "int80",
                                         "--unroll", "2"],
         config="bench.sti.code=fb bench.sti.unroll=2 bench.movss.code=8cd08ed0 bench.movss.unroll=2 "
                "reps=2 warmup=1 payloads=int80,sti,movss cpl=0",
         exit=1, timeout=60,
         check=step_refused({"int80": {0: ("INT n", "int80+0x0")}, "sti": {0: ("STI", "sti+0x0")},
                             "movss": {0: ("MOV SS", "movss+0x2")}}),
         absent=[r"^FATAL", r"^   instructions per copy, measured by single-step"]),
    dict(name="user-step-hazards-cpl3", args=["--bios", "--cpu", "qemu64", "--asm", "int 0x80", "--name", "int80",
                                              "--unroll", "2"],
         config="bench.movss.code=8cd08ed0 bench.movss.unroll=2 reps=2 warmup=1 payloads=int80,movss cpl=3",
         exit=1, timeout=60,
         check=step_refused({"int80": {3: ("INT n", "int80+0x0")}, "movss": {3: ("MOV SS", "movss+0x2")}}),
         absent=[r"^FATAL"]),
    # The same for 32-bit code on the i686 kernel.
    dict(name="i686-user-step-hazards", args=["--bios", "--cpu", "pentium3", "--asm", "int 0x80", "--name", "int80",
                                              "--unroll", "2"],
         config="bench.sti.code32=fb bench.sti.unroll=2 bench.movss.code32=8cd08ed0 "
                "bench.movss.unroll=2 reps=2 warmup=1 payloads=int80,sti,movss cpl=0",
         exit=1, timeout=60,
         check=step_refused({"int80": {0: ("INT n", "int80+0x0")}, "sti": {0: ("STI", "sti+0x0")},
                             "movss": {0: ("MOV SS", "movss+0x2")}}),
         lines=BIOS32, absent=[r"^FATAL", r"^   instructions per copy, measured by single-step"]),
]

# The boot menu (GRUB's grub.cfg from scripts/mkimage, the UEFI loader's on the firmware
# console): qemu-run --menu KEYS shows it and types KEYS once its marker line is on serial;
# every other case skips it through the SMBIOS OEM string. Each entry leads to its mode
# (a menu source), the countdown to the default, which adds nothing to bareperf.cfg.
MENU_RUN_SMALL = "payloads=add_chain reps=1 warmup=0 cpl=0"
MENU_SHOWN = [r"bareperf boot menu"]
GRUB_COUNTDOWN = [r"The highlighted entry will be executed automatically in 1s\."]
UEFI_COUNTDOWN = [r"Entry 1 boots in 1 s; any key stops the countdown\."]


def menu_choice(mode):
    return ["cfg.mode=" + mode, "boot.config_sources=bareperf.cfg, menu (mode=%s)" % mode]


CASES += [
    dict(name="menu-bios-timeout", args=["--menu", ""], config=MENU_RUN_SMALL, timeout=60,
         lines=BIOS + ["cfg.mode=run", "cfg.boot.menu=on", "boot.config_sources=bareperf.cfg, --config",
                       "bareperf: 2 results, 0 faults, 0 timeouts, 0 errors"],
         match=MENU_SHOWN + GRUB_COUNTDOWN, absent=NO_FAIL),
    dict(name="menu-bios-run", args=["--menu", "down ret"], timeout=60, config=MENU_RUN_SMALL,
         lines=BIOS + ["cfg.mode=run", "boot.config_sources=bareperf.cfg, menu (mode=run), --config"],
         match=MENU_SHOWN, absent=NO_FAIL + [r"automatically in 1s"]),
    dict(name="menu-bios-selftest", args=["--menu", "down down ret"], timeout=60,
         lines=BIOS + menu_choice("selftest"), match=MENU_SHOWN + SELFTEST_OK, absent=NO_FAIL),
    dict(name="menu-bios-pmucheck", args=["--menu", "down down down ret"], timeout=60,
         lines=BIOS + menu_choice("pmucheck"), match=MENU_SHOWN + [r"^SKIP: pmucheck\."], absent=NO_FAIL),
    dict(name="menu-bios-c2c", args=["--menu", "down down down down ret", "--smp", "2"], timeout=90,
         config=C2C_SMALL.replace("mode=c2c ", "") + " c2c.tests=c2c_latency",
         lines=BIOS + ["cfg.mode=c2c", "boot.config_sources=bareperf.cfg, menu (mode=c2c), --config"],
         match=MENU_SHOWN + [r'^@c2c \{"test":"c2c_latency",'], absent=NO_FAIL),
    dict(name="menu-bios-detect", args=["--menu", "down down down down down ret"], timeout=60,
         lines=BIOS + menu_choice("detect"), match=MENU_SHOWN, absent=NO_FAIL),
    # GRUB's cpuid -l still picks the i686 kernel for every entry.
    dict(name="menu-i686-selftest", args=["--menu", "down down ret", "--cpu", "pentium3"], timeout=90,
         lines=BIOS32 + menu_choice("selftest"), match=MENU_SHOWN + SELFTEST_OK, absent=NO_FAIL),
    # Precedence: the menu's mode overrides bareperf.cfg's (mode=detect on this image) ...
    dict(name="menu-bios-overrides-cfg", args=["--menu", "down down ret", "--image", "build/test-cfg-detect.img"],
         timeout=60, lines=BIOS + menu_choice("selftest"), match=MENU_SHOWN + SELFTEST_OK, absent=NO_FAIL),
    # ... and --config (fw_cfg) overrides the menu's.
    dict(name="menu-bios-config-wins", args=["--menu", "down down ret"], config="mode=detect", timeout=60,
         lines=BIOS + ["cfg.mode=detect", "boot.config_sources=bareperf.cfg, menu (mode=selftest), --config"],
         match=MENU_SHOWN, absent=NO_FAIL + [r"^PASS:"]),
    # boot.menu=off in the bareperf.cfg given to make image: GRUB boots the default at once.
    dict(name="menu-bios-cfg-off", args=["--menu", "", "--image", "build/test-cfg-nomenu.img"], timeout=60,
         lines=BIOS + ["cfg.mode=detect", "cfg.boot.menu=off", "boot.config_sources=bareperf.cfg"],
         absent=NO_FAIL + MENU_SHOWN + [r"executed automatically"]),
    dict(name="menu-uefi-timeout", uefi=True, args=["--menu", ""], config=MENU_RUN_SMALL, timeout=90,
         lines=["boot.firmware=uefi", "cfg.mode=run", "boot.config_sources=bareperf.cfg, --config",
                "bareperf: run       (or the mode bareperf.cfg sets)",
                "bareperf: 2 results, 0 faults, 0 timeouts, 0 errors"],
         match=MENU_SHOWN + UEFI_COUNTDOWN, absent=NO_FAIL),
    # digits select on the UEFI menu, arrows move; Enter boots
    dict(name="menu-uefi-detect", uefi=True, args=["--menu", "6 ret"], timeout=90,
         lines=["boot.firmware=uefi"] + menu_choice("detect"), match=MENU_SHOWN,
         absent=NO_FAIL + UEFI_COUNTDOWN),
    dict(name="menu-uefi-selftest", uefi=True, args=["--menu", "down down ret"], timeout=90,
         lines=["boot.firmware=uefi"] + menu_choice("selftest"), match=MENU_SHOWN + SELFTEST_OK,
         absent=NO_FAIL + UEFI_COUNTDOWN),
    # boot.menu=off in bareperf.cfg on the ESP: the loader reads it and shows no menu.
    dict(name="menu-uefi-cfg-off", uefi=True, args=["--menu", "", "--image", "build/test-cfg-nomenu.img"],
         timeout=90, lines=["boot.firmware=uefi", "cfg.mode=detect", "cfg.boot.menu=off",
                            "boot.config_sources=bareperf.cfg"],
         absent=NO_FAIL + MENU_SHOWN + [r"Entry 1 boots in"]),
]


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
    return p.stdout.decode().split("\n"), problems


def result_rows(out):
    """The results screen's rows of each payload, as kernel/screen.c formats them."""
    rows, blocks = [], {}
    for r in tagged(out, "result"):
        key = (r["bench"], r["size"])
        ev = blocks.setdefault(key, {})
        ev.setdefault((r["event"], r["source"]), {})[r["cpl"]] = "%.3f" % r["per_iter"]
    for (bench, size), events in blocks.items():
        name = bench if not size else "%s %dM" % (bench, size >> 20) if size % (1 << 20) == 0 \
            else "%s %dK" % (bench, size >> 10)
        for i, ((event, source), cpls) in enumerate(events.items()):
            rows.append(("%-20.20s %-24.24s %-11.11s %13s %13s" % (
                name if i == 0 else "", event, source, cpls.get(0, "-"), cpls.get(3, "-"))).rstrip())
    return rows


def serial_first(out, prefix, rx=None):
    return next((l for l in out.split("\n") if l.startswith(prefix) and (not rx or re.match(rx, l))),
                None)


def results_screen(name):
    def check(out, plain=None):
        text, problems = screen_text(name)
        if problems:
            return problems
        version = serial_first(out, "bareperf ", r"^bareperf (?!loader$)\S+$")
        want_title = " %s  results: per iteration" % version
        if text[0] != want_title:
            problems.append("title %r, expected %r" % (text[0], want_title))
        for row in result_rows(out):
            if row not in text:
                problems.append("results screen lacks %r" % row)
        totals = serial_first(out, "bareperf: ", r"^bareperf: \d+ results") or "(none on serial)"
        if totals not in text:
            problems.append("results screen lacks the totals line %r" % totals)
        if " bareperf: stopped (exit code 0)" not in text:
            problems.append("no stop line on the screen")
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
        if not any(l.startswith(" PMU       ") and "not checked (mode=detect)" in l for l in text):
            problems.append("no PMU line on the start screen")
        return problems
    return check


def screen_case(name, args, config, check, uefi=False, prelude=None):
    ppm = os.path.join(SCREEN_DIR, name + ".ppm")
    case = dict(name=name, uefi=uefi, args=args + ["--screen", ppm], config=config, timeout=120,
                check=check, absent=NO_FAIL)
    if prelude:
        case["prelude"] = dict(args=args, config=config)
    return case


CASES += [
    # The loader's last words no longer send the user away from a screen that shows the run.
    dict(screen_case("screen-uefi-results", ["--cpu", "max"], SCREEN_RUN,
                     results_screen("screen-uefi-results"), uefi=True),
         lines=["          or as bareperf.cfg says) and to this screen"]),
    screen_case("screen-bios-results", ["--cpu", "max", "--icount"], SCREEN_RUN,
                results_screen("screen-bios-results"), prelude=True),
    screen_case("screen-i686-results", ["--cpu", "pentium3", "--icount"], SCREEN_RUN,
                results_screen("screen-i686-results")),
    screen_case("screen-cirrus-detect", ["--cpu", "qemu64", "--vga", "cirrus"], "mode=detect",
                start_screen("screen-cirrus-detect")),
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


CASES.append(screen_case(
    "screen-results-summary", ["--cpu", "max", "--icount"],
    "mode=run payloads=mem_seq_read,mem_chase reps=2 iters=100 sizes=" +
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
# and serial says so (a machine with no display at all stays silent, checked above).
CASES.append(dict(name="screen-uefi-blt-only-gop", uefi=True,
                  args=["--cpu", "qemu64", "--vga", "none", "--config", "mode=detect", "--",
                        "-device", "virtio-gpu-pci"],
                  lines=["screen: none (the GOP is blt-only (no framebuffer))"], absent=NO_FAIL))

# ---------------------------------------------------------------- storage (issue 17)
# PCI by ECAM where the MCFG gives it (q35: segment 0, buses 0-255 at 0xB0000000), by
# configuration mechanism #1 where there is none (-machine pc); the disk's controller in
# each: q35's ICH9 AHCI at 00:1f.2, pc's PIIX3 IDE at 00:01.1. On q35 the AHCI driver reads
# the boot disk and finds the results area mkimage made, with the image's identity.

Q35_AHCI = ["pci.config=ecam (MCFG: segment 0, buses 0-255 at 0xb0000000)",
            "storage.controller=ahci 00:1f.2 8086:2922",
            "storage.disk=SATA disk (AHCI 00:1f.2, port 0): 131072 sectors of 512 bytes"]


def image_identity(image):
    """The identity in IMAGE's /bareperf/results/IDENTITY, read with mtools."""
    p = subprocess.run(["mtype", "-i", image + "@@1M", "::/bareperf/results/IDENTITY"],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                       env=dict(os.environ, MTOOLS_SKIP_CHECK="1"))
    m = re.search(rb"^image: ([0-9a-f]{32})$", p.stdout, re.M)
    return m.group(1).decode() if m else None


def results_area_found(image, where=r"AHCI 00:1f\.2, port 0"):
    def check(out):
        ident = image_identity(image)
        if not ident:
            return ["%s has no identity to compare with" % image]
        rx = r"^storage\.results=%s on %s: 8 slots from sector \d+ \(this image\)$" % (ident, where)
        problems = [] if re.search(rx, out, re.M) else ["no storage.results line with the image's identity " + ident]
        if "boot.image=" + ident not in out.split("\n"):
            problems.append("no boot.image=%s line: the loader did not pass IDENTITY" % ident)
        return problems
    return check


CASES += [
    dict(name="storage-pci-q35-ahci", args=["--cpu", "qemu64"], config="mode=detect",
         lines=BIOS + Q35_AHCI, match=[r"^pci\.functions=[1-9]"], absent=NO_FAIL,
         check=results_area_found("build/bareperf.img")),
    dict(name="storage-pci-q35-ahci-uefi", uefi=True, args=["--cpu", "qemu64"], config="mode=detect",
         lines=["boot.firmware=uefi"] + Q35_AHCI, absent=NO_FAIL, check=results_area_found("build/bareperf.img")),
    dict(name="storage-pci-q35-ahci-i686", args=["--bios", "--cpu", "pentium3"], config="mode=detect",
         lines=BIOS32 + Q35_AHCI, absent=NO_FAIL, check=results_area_found("build/bareperf.img")),
    dict(name="storage-pci-pc-ide", args=["--bios", "--cpu", "qemu64", "--config", "mode=detect",
                                          "--", "-machine", "pc"],
         lines=["boot.firmware=bios", "storage.controller=ide 00:01.1 8086:7010",
                "storage.disk=IDE disk (IDE 00:01.1, primary master): 131072 sectors of 512 bytes"],
         match=[r"^pci\.config=legacy \(no MCFG \(\"MCFG\"\) among the \d+ entries of the RSDT at 0x[0-9a-f]+\)$"],
         absent=NO_FAIL + [r"^storage\.controller=ahci"], check=results_area_found("build/bareperf.img", "IDE 00:01\\.1, primary master")),
    # The results area deleted with mtools: found missing, with the check that failed.
    dict(name="storage-results-removed", args=["--cpu", "qemu64", "--image", "build/test-noresults.img"],
         config="mode=detect",
         lines=Q35_AHCI + ["storage.results=none on AHCI 00:1f.2, port 0 (no folder /bareperf)",
                           "boot.image=unknown (the loader found no /bareperf/results/IDENTITY: runs are not saved)"],
         absent=NO_FAIL),
]
