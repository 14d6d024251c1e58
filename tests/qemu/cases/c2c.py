"""Cross-core tests (mode=c2c)."""
from cases.pmi_pmucheck import *  # noqa: F401,F403 (the helpers of the areas before)

CASES = []

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
