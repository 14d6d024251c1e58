"""Every logical processor: bring-up, topology, placement, NetBurst threads."""
from cases.c2c import *  # noqa: F401,F403 (the helpers of the areas before)

CASES = []

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

CASES += [
    # The self-test calls every AP: own stacks, APIC ID, CR0/CR4, a CPL 3 round trip; an NMI
    # to the boot CPU's own APIC ID reaches only it.
    dict(name="smp-4-cores-skylake-selftest", args=["--bios", "--cpu", "Skylake-Client", "--smp", "4"],
         config="mode=selftest", timeout=90,
         lines=cpu_lines([(0, 0, 0), (0, 1, 0), (0, 2, 0), (0, 3, 0)]) +
               ["sys.topology=leaf 0xb smt_bits=0 core_bits=2", "PASS: smp.call_each_cpu",
                "PASS: paging.ap_stack_guard_pages", "PASS: nmi.noted_and_survived",
                "PASS: pmi.routed_on_ap", "PASS: pmi.ignored_on_other_cpu"],
         match=SELFTEST_OK, absent=NO_FAIL + [r"no-answer", r"^sys\.smp="]),
    dict(name="i686-smp-selftest-kvm32", args=["--bios", "--cpu", "kvm32", "--smp", "2"], config="mode=selftest",
         timeout=90, lines=BIOS32 + ["sys.cpus=2", "PASS: smp.call_each_cpu", "PASS: paging.ap_stack_guard_pages", "PASS: nmi.noted_and_survived",
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
    # The UEFI path (OVMF starts no AP itself; bareperf does, after ExitBootServices) is
    # smp-uefi-cpu1-skylake, in menu-uefi-timeout's boot (cases/menu.py).
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
         prelude=LISTING, config="cpu=1 reps=4 warmup=1 iters=64 sizes=4K,64K,1M cpl=both events=cycles,instructions",
         check=all_on_cpu(1, icount_exact), absent=NO_FAIL),
    dict(name="i686-smp-icount-cpu1", args=["--bios", "--cpu", "kvm32", "--icount", "--smp", "2"], timeout=120,
         prelude=I686_LISTING,
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
    # lava=on too: a LAVA signal line per @c2c record (docs/lava.md)
    dict(name="c2c-two-cpus", args=["--cpu", "qemu64", "--smp", "2"], config=C2C_SMALL + " lava=on",
         timeout=180, check=lambda out: c2c_pair_1_0_measured(out) + lava_signals(out),
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
