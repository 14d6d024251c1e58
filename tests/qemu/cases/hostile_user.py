"""User code that must not get away with anything (issue 19)."""
from cases.smp import *  # noqa: F401,F403 (the helpers of the areas before)

CASES = []

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


# What user-trap-placed and its i686 twin expect: each trap at its instruction (#BP vector
# 3, #GP 13 for HLT at CPL 3), and the CPL 0 HLT ended by the watchdog.
TRAP_PLACED = dict(faults={("asm", 0): (3, "asm+0x1", 1), ("asm", 3): (3, "asm+0x1", 1),
                           ("one", 0): (3, "one+0x0", 1), ("one", 3): (3, "one+0x0", 1),
                           ("int3b", 0): (3, "int3b+0x1", 1), ("int3b", 3): (3, "int3b+0x1", 1),
                           ("halt", 3): (13, "halt+0x0", 1)},
                   timeouts={("halt", 0): "halt+0x0"})

CASES += [
    # Trap-class exceptions leave RIP after the instruction: int3 is placed where it is, in
    # its copy, not at the start of the next copy or in the wrapper; so is a HLT at CPL 0
    # that only the watchdog ends (RIP after it when the timer interrupt wakes it).
    dict(name="user-trap-placed", args=["--bios", "--cpu", "qemu64", "--asm", "nop; int3", "--unroll", "3"],
         config="bench.one.code=cc bench.one.unroll=1 bench.halt.code=f4 bench.halt.unroll=1 "
                "bench.int3b.code=90cd03 bench.int3b.unroll=2 watchdog=100 reps=2 warmup=1 payloads=asm,one,halt,int3b",
         exit=1, timeout=60,
         check=user_outcome(**TRAP_PLACED),
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

# A benchmark that sets the direction flag and faults with it set (its wrapper's CLD, which
# ends a benchmark that returns, never comes): the fault's way back to the kernel
# (run_frame_resume) clears DF before the kernel's C code and its string instructions run
# again (memset zeroes the next benchmark's buffer with REP STOS, which DF would run
# backwards, over whatever lies below the buffer; a DF kept there failed this case). The
# fault is placed, and the next benchmark measures.
STD_LEFT = dict(config="payloads=stdf,mem_seq_read sizes=64K reps=2 warmup=1 iters=10", timeout=60, exit=1,
                check=user_outcome(faults={("stdf", 0): (6, "stdf+0x1", 1), ("stdf", 3): (6, "stdf+0x1", 1)},
                                   results={"mem_seq_read": (0, 3)}),
                absent=[r"^FATAL", r"unexpected exception"])
CASES += [
    dict(STD_LEFT, name="user-std-then-fault", args=["--bios", "--cpu", "qemu64", "--asm", "std; ud2", "--name", "stdf"]),
    dict(STD_LEFT, name="i686-user-std-then-fault", args=["--bios", "--cpu", "pentium3", "--asm", "std; ud2",
                                                         "--name", "stdf"]),
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
         check=user_outcome(**TRAP_PLACED),
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
