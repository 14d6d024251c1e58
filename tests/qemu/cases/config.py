"""Configuration sources: errors in the machine-readable output, NUL bytes, size limits."""
from cases.engine import *  # noqa: F401,F403 (the helpers of the areas before)

CASES = []

# ---------------------------------------------------------------- configuration errors
import os, re, subprocess  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


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
                  lines=["config error: serial.port=0x8b: no UART answers at io 0x8b; using io 0x3f8 (COM1) instead",
                         '@error {"context":"config","message":"serial.port=0x8b: no UART answers at io 0x8b; '
                         'using io 0x3f8 (COM1) instead"}',
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
CASES.append(dict(name="config-file-too-big", uefi=True, args=UEFI_BIG_CFG_BLT_EHCI, exit=1,
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
