"""Counter interrupts and sampling under TCG, and mode=pmucheck."""
from cases.user import *  # noqa: F401,F403 (the helpers of the areas before)

CASES = []

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
