"""User benchmarks (scripts/bareperf-asm, docs/bench.md): exactness, faults, refused parts."""
from cases.bios_i686 import *  # noqa: F401,F403 (the helpers of the areas before)

CASES = []

# ---------------------------------------------------------------- user benchmarks
# scripts/qemu-run --asm assembles on the host (scripts/bareperf-asm); the kernel unrolls,
# loops and runs the code like a payload. Under --icount every copy of a one-instruction
# snippet is 1 instruction and 32 ticks, exactly, at both CPLs (docs/bench.md).
EXAMPLES = sorted(os.path.join("docs", "bench-examples", f) for f in os.listdir(os.path.join(ROOT, "docs", "bench-examples"))
                  if f.endswith(".bench"))


_IMUL = os.path.join("docs", "bench-examples", "imul.bench")


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
    # Exact through the UEFI path: the loader, the same kernel. The boot runs the catalogue
    # too, for icount-exact-catalogue (cases/engine.py).
    dict(name="user-asm-icount-exact", uefi=True, args=UEFI_ICOUNT_ARGS, config=UEFI_ICOUNT_CONFIG, timeout=400,
         check=lambda out: user_bench_exact(out, examples=[]),
         match=[r"^   instructions per copy, measured by single-step: 1\.000$",
                r'^@result \{"bench":"asm","size":0,"cpl":3,"event":"tsc",.*"iters":1000,"unroll":100,"loop":10,'
                r'.*"per_iter":32\.000,'],
         absent=NO_FAIL),
    # The same through SeaBIOS (the PVH entry), with the example bench files. Two repetitions
    # show exactness (no spread) as well as three: the single-stepped pointer chase is
    # most of the boot.
    dict(name="bios-user-asm-icount-exact", args=["--bios", "--cpu", "qemu64", "--icount", "--asm",
                                                   "add rax, 1", "--unroll", "100", "--loop", "10"]
         + sum((["--bench", p] for p in EXAMPLES), []),
         config="reps=2 warmup=1", timeout=300, check=user_bench_exact,
         lines=["boot.firmware=bios"],
         match=[r'^@result \{"bench":"asm","size":0,"cpl":3,"event":"tsc",.*"iters":1000,"unroll":100,"loop":10,'
                r'.*"stddev":0\.000,.*"per_iter":32\.000,',
                r'^@result \{"bench":"asm","size":0,"cpl":0,"event":"tsc",.*"iters":1000,"unroll":100,"loop":10,'
                r'.*"stddev":0\.000,.*"per_iter":32\.000,'],
         absent=NO_FAIL),
    # The i686 kernel runs the 32-bit encoding (bench.NAME.code32) as exactly, at both CPLs: on
    # a 32-bit NetBurst with every example bench file (MFENCE needs SSE2; the pointer chase
    # walks 4-byte pointers in ESI), on a Pentium III and an Athlon with the IMUL chains. The
    # chase is not run there again: single-stepping its 100,000 copies takes about 1.2 s a
    # boot, and it is the same i686 code on every CPU model.
    dict(name="i686-user-asm-icount-exact-kvm32", args=["--bios", "--cpu", "kvm32", "--icount", "--asm",
                                                         "add eax, 1", "--unroll", "100", "--loop", "10"]
         + sum((["--bench", p] for p in EXAMPLES), []),
         config="reps=2 warmup=1", timeout=300, check=user_bench_exact,
         lines=BIOS32 + ["cfg.bench.asm.code32=83c001"],
         match=[r'^@result \{"bench":"asm","size":0,"cpl":3,"event":"tsc",.*"iters":1000,"unroll":100,"loop":10,'
                r'.*"stddev":0\.000,.*"per_iter":32\.000,',
                r'^@result \{"bench":"chase_1m","size":0,"cpl":0,"event":"instructions",.*"per_iter":1\.000,'],
         absent=NO_FAIL + [r"^@skip"]),
] + [
    dict(name="i686-user-asm-icount-exact-" + _cpu,
         args=["--bios", "--cpu", _cpu, "--icount", "--asm", "add eax, 1", "--unroll", "100", "--loop", "10",
               "--bench", _IMUL],
         config="reps=2 warmup=1", timeout=300, check=lambda out: user_bench_exact(out, examples=[_IMUL]),
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
