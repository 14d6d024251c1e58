#!/usr/bin/python3
"""Mutation test of scripts/bareperf-asm's bench-file reader (not a coverage-guided fuzzer).

As tests/fuzz/report_mutate.py does for the report tool: the bench files in the corpus
folder, mutated with a fixed seed (line and byte edits; values swapped for awkward ones:
huge and overlong numbers, sizes, NULs, bytes that are not UTF-8, directives the tool
refuses), go through everything bareperf-asm does with a bench file short of running nasm,
in this process: parse_bench_source, then per benchmark bench_settings,
check_statements (in each mode, with the skip reason it would give) and shown_text. Only
BenchError may come out, and what comes out must keep the reader's promises: statements
stripped, non-empty and on one line; a skip reason without double quotes; no control
character the kernel would refuse; settings within the kernel's limits; the shown text at
most 159 bytes of UTF-8. Anything else is a finding, saved with its traceback in
--crash-dir. Same seed, same inputs: a failure reproduces with
  tests/fuzz/bench_mutate.py --replay FILE
"""
import os
import re
import sys
from importlib.machinery import SourceFileLoader

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mutate_driver  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.dont_write_bytecode = True
asm = SourceFileLoader("bareperf_asm", os.path.join(ROOT, "scripts", "bareperf-asm")).load_module()

AWKWARD_VALUES = [
    b"0", b"-1", b"1", b"0x", b"0x1000", b"4096", b"4097", b"262144", b"262145", b"2147483648",
    b"1" + b"0" * 40, b"9" * 5000, b"1G", b"2G", b"4K", b"3k", b"64m", b"0x7fffffff", b"lots",
    b"", b" ", b"zero", b"chase", b"random", b"\xe9", b"\xc3", b"\x00", b"1e3", b"+5", b"_1",
]
NOISE = [b"\x00", b"\r", b"\n", b"\t", b"\x1b", b"\x7f", b"\xff\xfe", b"\xef\xbb\xbf", b"\xc3\xa9",
         b"\xed\xa0\x80", b"[", b"]", b"[x]", b"=", b":", b";", b"#", b"  ", b"code =", b"init =",
         b"unroll = ", b"incbin 'x'", b"%include 'x'", b"%!HOME", b"bits 32", b"[bits 16]",
         b"section .data", b"org 0", b"r15", b'"', b"'", b"`", b"\xe2\x82\xac" * 60, b"x" * 300]
VALUE = re.compile(rb"(?<=[=:])[ \t]*([^\n;]*)")
CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
NO_TOOLS = asm.Tools("nasm", "ndisasm", False)      # check_statements runs neither
LIMITS = [("unroll", 1, asm.UNROLLED_MAX), ("loop", 0, asm.LOOP_MAX), ("align", 1, 4096),
          ("offset", 0, 4095), ("buffer", 0, asm.BUFFER_MAX), ("buffer_align", 4096, asm.BUFFER_MAX),
          ("stride", 8, asm.BUFFER_MAX)]


def value_span(rng, line):
    m = VALUE.search(line)
    return m.span(1) if m else None


def mutate(rng, data):
    return mutate_driver.mutate_lines(rng, data, value_span, AWKWARD_VALUES, NOISE)


class Broken(Exception):
    """The reader returned something it promises never to return."""


def check_benchmark(b):
    for part in ("code", "init"):
        for stmt, where in getattr(b, part):
            if not stmt or stmt != stmt.strip() or "\n" in stmt or ";" in stmt:
                raise Broken("bench %r %s: statement %r (%s) is not one stripped statement" % (b.name, part, stmt, where))
            if CONTROL.search(stmt):
                raise Broken("bench %r %s: statement %r holds a control character" % (b.name, part, stmt))
    try:
        st = asm.bench_settings(b, set())
    except asm.BenchError:
        return
    for field, lo, hi in LIMITS:
        if not lo <= getattr(st, field) <= hi:
            raise Broken("bench %r: %s=%r outside %d..%d" % (b.name, field, getattr(st, field), lo, hi))
    if st.fill not in ("zero", "random", "chase"):
        raise Broken("bench %r: fill=%r" % (b.name, st.fill))
    text = asm.shown_text("; ".join(s for s, _ in b.code))
    if len(text.encode("utf-8")) > asm.TEXT_MAX:
        raise Broken("bench %r: text of %d bytes" % (b.name, len(text.encode("utf-8"))))
    for part in ("code", "init"):
        for mode in asm.MODES.values():             # as 64-bit and as 32-bit code
            try:
                asm.check_statements(b, part, getattr(b, part), NO_TOOLS, mode)
            except asm.BenchError as e:
                reason = asm.skip_reason(e, mode)   # what bench.NAME.skip32 would carry
                if '"' in reason or len(reason.encode("utf-8")) > asm.TEXT_MAX:
                    raise Broken("bench %r: skip reason %r" % (b.name, reason))


def run_reader(data):
    """What bareperf-asm does with a bench file, short of nasm."""
    try:
        benches = asm.parse_bench_source(data, "fuzz.bench")
    except asm.BenchError as e:
        str(e).encode("utf-8")          # messages reach a terminal
        return
    if not benches:
        raise Broken("no benchmark and no error")
    for b in benches:
        check_benchmark(b)


def main():
    return mutate_driver.main("bench_mutate", __doc__, ROOT, "tests/fuzz/corpus/bench", run_reader, mutate)


if __name__ == "__main__":
    sys.exit(main())
