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
    dict(name="selftest-qemu64", args=["--cpu", "qemu64,+smep,+smap,+umip"], config="mode=selftest",
         lines=ident("AuthenticAMD", 15, 107, kind="amd-legacy") + ["cpu.hypervisor=TCGTCGTCGTCG",
               "sys.smep=on", "sys.smap=on", "sys.umip=on"],
         match=SELFTEST_OK, absent=NO_FAIL),
    dict(name="selftest-skylake", args=["--cpu", "Skylake-Client"], config="mode=selftest",
         lines=ident("GenuineIntel", 6, 94, 3, "none") + ["pmu.version=0", "pmu.gp_counters=0"],
         match=SELFTEST_OK + [r"^cpu\.brand=Intel Core Processor \(Skylake\)$"], absent=NO_FAIL),
    dict(name="selftest-epyc", args=["--cpu", "EPYC"], config="mode=selftest",
         lines=ident("AuthenticAMD", 23, 1, kind="amd-legacy") + ["pmu.gp_counters=4", "pmu.gp_width=48"],
         match=SELFTEST_OK, absent=NO_FAIL),
    dict(name="selftest-opteron-g2", args=["--cpu", "Opteron_G2"], config="mode=selftest",
         lines=ident("AuthenticAMD", 15, 6, kind="amd-legacy"), match=SELFTEST_OK, absent=NO_FAIL),
    dict(name="selftest-phenom", args=["--cpu", "phenom"], config="mode=selftest",
         lines=ident("AuthenticAMD", 16, 2, kind="amd-legacy"), match=SELFTEST_OK, absent=NO_FAIL),
    dict(name="selftest-core2duo", args=["--cpu", "core2duo"], config="mode=selftest",
         lines=ident("GenuineIntel", 6, 15, kind="none"), match=SELFTEST_OK, absent=NO_FAIL),
    dict(name="selftest-netburst-f15m4", args=["--cpu", "qemu64,vendor=GenuineIntel,family=15,model=4"],
         config="mode=selftest",
         lines=ident("GenuineIntel", 15, 4, kind="intel-netburst") + ["pmu.gp_counters=18", "pmu.gp_width=40"],
         match=SELFTEST_OK, absent=NO_FAIL),
    dict(name="selftest-kvm64", args=["--cpu", "kvm64"], config="mode=selftest",
         lines=ident("GenuineIntel", 15, 6, kind="intel-netburst"), match=SELFTEST_OK, absent=NO_FAIL),
    # Bad configuration: each bad entry named, the rest applied, the run goes on.
    dict(name="config-errors", args=["--cpu", "qemu64"],
         config="mode=detect rep=5 reps=0 bogus reps=7",
         lines=["cfg.reps=7", "cfg.mode=detect"],
         match=[r"^config error: --config line 1: unknown key 'rep' \(did you mean 'reps'\?\)",
                r"^config error: --config line 1: reps=0 out of range",
                r"^config error: .*'bogus'"],
         absent=[r"^FATAL"]),
]
