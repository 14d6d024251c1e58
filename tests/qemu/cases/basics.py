"""Self-tests across CPU identities and the first configuration errors."""

SELFTEST_OK = [r"^\d+ passed, 0 failed", r"^PASS: cpl3\.round_trip$"]
NO_FAIL = [r"^FAIL:", r"^FATAL", r"unexpected exception"]

# OVMF takes about 2 s of CPU a boot and GRUB with its menu about 1.5 s, so cases that can
# share a boot do: tests/qemu/run-boots boots alike commands once and judges each case on
# that output. The self-test on qemu64 with SMEP, SMAP and UMIP, chosen from the boot menu,
# the image on q35's AHCI: one OVMF boot for this case, menu-uefi-selftest and
# storage-pci-q35-ahci-uefi; one GRUB boot for bios-selftest-qemu64, menu-bios-selftest
# and storage-pci-q35-ahci.
SELFTEST_MENU = ["--menu", "down down ret", "--cpu", "qemu64,+smep,+smap,+umip"]


def ident(vendor, family, model, stepping=None, kind=None):
    lines = ["cpu.vendor=" + vendor, "cpu.family=%d" % family, "cpu.model=%d" % model]
    if stepping is not None:
        lines.append("cpu.stepping=%d" % stepping)
    if kind:
        lines.append("pmu.kind=" + kind)
    return lines


CASES = [
    dict(name="selftest-qemu64", uefi=True, args=SELFTEST_MENU,
         lines=ident("AuthenticAMD", 15, 107, kind="amd-legacy") + ["cpu.hypervisor=TCGTCGTCGTCG",
               "sys.smep=on", "sys.smap=on", "sys.umip=on", "boot.firmware=uefi", "cpu.mode=long"],
         match=SELFTEST_OK, absent=NO_FAIL),
    dict(name="selftest-skylake", args=["--cpu", "Skylake-Client"], config="mode=selftest",
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
