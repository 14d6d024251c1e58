"""The BIOS path (GRUB and Multiboot2, or PVH) and the i686 kernel: detection, icount, trace=msr,
default runs."""
from cases.config import *  # noqa: F401,F403 (the helpers of the areas before)

CASES = []

# The same image through a legacy BIOS: SeaBIOS, GRUB's MBR and core.img, the kernel ELF
# from the FAT partition by Multiboot2, the 32-bit entry into long mode (arch/x86/64/mb2-entry.asm).
# Most SeaBIOS cases start the kernel by PVH instead (tests/qemu/run-boots); these say grub=True.
BIOS = ["boot.firmware=bios", "cpu.mode=long"]
MB2 = ["boot.protocol=multiboot2"]
CASES += [
    dict(name="bios-selftest-qemu64", grub=True, args=["--bios"] + SELFTEST_MENU,
         lines=ident("AuthenticAMD", 15, 107, kind="amd-legacy") + BIOS + MB2 + ["sys.smep=on", "sys.nx=on"],
         match=SELFTEST_OK + [r"^boot\.memory_mib=(4[6-9]\d|50\d)$"], absent=NO_FAIL + [r"^loader:"]),
    # By PVH (QEMU -kernel): the same kernel, the map and the RSDP from the start information.
    dict(name="bios-selftest-opteron-g2", args=["--bios", "--cpu", "Opteron_G2"], config="mode=selftest",
         lines=ident("AuthenticAMD", 15, 6, kind="amd-legacy") + BIOS + ["boot.protocol=pvh",
               "boot.config_sources=bareperf.cfg, --config"],
         match=SELFTEST_OK + [r"^boot\.memory_mib=(4[6-9]\d|50\d)$", r"^sys\.cpus=1$"], absent=NO_FAIL),
    # By PVH the loader's command line (QEMU's -append) is a configuration source, "cmdline",
    # after bareperf.cfg; a bad value in it is named there and the run goes on.
    dict(name="pvh-cmdline-config", args=["--bios", "--cpu", "qemu64", "--", "-append", "reps=x mode=detect"],
         exit=1, lines=["boot.protocol=pvh", "cfg.mode=detect",
                        "config error: cmdline line 1: reps=x is not a number (1..100000)",
                        "boot.config_sources=bareperf.cfg, cmdline (reps=x mode=detect)"],
         absent=[r"^FATAL"]),
    # bareperf.cfg reaches the kernel as a Multiboot2 module; --config still overrides it.
    dict(name="bios-config-file-on-esp", grub=True, args=["--bios", "--cpu", "qemu64", "--image", "build/test-cfg.img"],
         config="reps=9", exit=1,
         lines=MB2 + ["boot.firmware=bios", "cfg.mode=detect", "cfg.reps=9", "cfg.warmup=3",
                "config error: bareperf.cfg line 5: unknown key 'rep' (did you mean 'reps'?)"],
         absent=[r"^FATAL"]),
]

# The same image through a legacy BIOS on CPUs without long mode: GRUB's cpuid -l picks
# bareperf32.elf, the i686 kernel (arch/x86/32/), and so does qemu-run --direct. Under TCG the hypervisor bit hides P6
# (no leaf 0xA), so family 6 Intel models detect as 'none' unless the bit is turned off.
BIOS32 = ["boot.firmware=bios", "cpu.mode=protected"]
for _cpu, _vendor, _family, _model, _kind in [
        ("pentium3", "GenuineIntel", 6, 7, "none"), ("pentium2", "GenuineIntel", 6, 5, "none"),
        ("athlon", "AuthenticAMD", 6, 2, "amd-legacy"), ("kvm32", "GenuineIntel", 15, 6, "intel-netburst"),
        ("coreduo", "GenuineIntel", 6, 14, "none"), ("n270", "GenuineIntel", 6, 28, "none")]:
    # pentium3 through GRUB and Multiboot2, the others by PVH
    CASES.append(dict(name="i686-selftest-" + _cpu, args=["--bios", "--cpu", _cpu], config="mode=selftest",
                      grub=_cpu == "pentium3",
                      timeout=90, lines=ident(_vendor, _family, _model, kind=_kind) + BIOS32 +
                      ["boot.protocol=" + ("multiboot2" if _cpu == "pentium3" else "pvh")] +
                      ["PASS: cpl3.int_iret_round_trip", "PASS: single_step.count_cpl3",
                       "PASS: watchdog.stops_endless_loop_cpl3", "PASS: paging.null_page_unmapped",
                       "PASS: cpl3.rdpmc_pce_clear_gp", "PASS: paging.mmio_uncached_split"],
                      match=SELFTEST_OK, absent=NO_FAIL))
# An AMD CPU reports SYSCALL in protected mode too, but the i686 kernel sets none up: the
# round trip is skipped, and a payload's SYSCALL is its #UD, not a jump to nowhere.
CASES.append(dict(name="i686-selftest-athlon-syscall", args=["--bios", "--cpu", "athlon,+syscall"],
                  config="mode=selftest", timeout=90,
                  lines=BIOS32 + ["SKIP: cpl3.syscall_sysret_round_trip (SYSCALL is for long mode here)",
                                  "PASS: cpl3.syscall_ud_unless_asked"],
                  match=SELFTEST_OK, absent=NO_FAIL))
# The i686 kernel's catalogue listing, the same on every CPU model (what a CPU lacks is a
# run's @skip): i686-list-athlon's boot, which the i686 icount cases take as their prelude.
I686_LISTING = dict(args=["--bios", "--cpu", "athlon"], config="mode=list")
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
    dict(name="i686-list-athlon", args=I686_LISTING["args"], config=I686_LISTING["config"], timeout=60,
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
    # With RAM above 4 GiB, which the kernel cannot map without PAE: paging.mmio_above_4g
    # checks that it says so.
    dict(name="i686-selftest-no-pae", args=["--bios", "--cpu", "pentium3,-pae", "--mem", "4608"], config="mode=selftest",
         timeout=90, lines=BIOS32 + ["sys.nx=off (no PAE)", "PASS: wp.kernel_text_read_only",
                                     "PASS: paging.stack_guard_page", "PASS: paging.user_region_tables_reused",
                                     "PASS: paging.mmio_window", "PASS: paging.mmio_above_4g",
                                     "SKIP: nx.kernel_data_not_executable (no PAE: two-level page tables have "
                                     "no NX bit)"],
         match=SELFTEST_OK, absent=NO_FAIL),
    dict(name="i686-icount-exact-no-pae", args=["--bios", "--cpu", "pentium3,-pae", "--icount"], timeout=120,
         prelude=I686_LISTING,
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
                      timeout=120, prelude=I686_LISTING,
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

# The default run (the whole catalogue at its default sizes; 3 samples of 100 iterations,
# not 11 of 1000, to spare the test time: single-stepping counts every instruction) on a
# 32-bit NetBurst and a Core Duo: it finishes, measures at both CPLs, and only what the
# CPU lacks is skipped.
I686_SYSCALL_SKIP = ('@skip {"bench":"sys_syscall","reason":"SYSCALL is for long mode here: the i686 kernel '
                     'runs in protected mode (where Intel CPUs have no SYSCALL) and does not set it up"}')
for _cpu, _kind in [("kvm32", "intel-netburst"), ("coreduo", "none")]:
    CASES.append(dict(name="i686-run-default-" + _cpu, args=["--bios", "--cpu", _cpu], config="reps=3 iters=100", timeout=120,
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
    # the i686 user region holds 672 MiB, and the error names that limit, not free memory.
    dict(name="i686-buffer-past-user-region", args=["--bios", "--cpu", "pentium3", "--mem", "3584"],
         config="payloads=mem_chase sizes=1G,4K reps=2", exit=1, timeout=60,
         lines=["error: mem_chase: a 1024 MiB buffer does not fit the i686 kernel's user region (672 MiB of "
                "address space for buffers, docs/config.md): lower sizes"],
         match=[r'^@result \{"bench":"mem_chase","size":4096,'],
         absent=[r"^FATAL", r"not enough memory"]),
    # The 32-bit loops count in ESI, and the harness runs 2 x iters.
    dict(name="i686-iters-limit", args=["--bios", "--cpu", "pentium3"], config="payloads=empty iters=2147483648",
         exit=1, timeout=60,
         lines=["error: iters=2147483648 is more than the i686 kernel's 32-bit payload loops count (at most "
                "2147483647, so that 2 x iters fits): lower iters"], absent=[r"^@result", r"^FATAL"]),
]
