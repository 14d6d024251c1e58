#!/usr/bin/python3
"""Mutation test of scripts/bareperf-report's log reader (not a coverage-guided fuzzer).

Debian packages no Python coverage-guided fuzzer (no python3-atheris), so this takes the
logs in the corpus folder, mutates them with a fixed seed (line and byte edits, and JSON
values swapped for awkward ones: huge and overlong integers, NaN, nesting, wrong types)
and runs each through what the tool does with a log: parse_log, then the CSV, JSON,
summary and gnuplot-script writers, in memory (their text must encode as UTF-8, as the
files and the terminal need). The reader promises never to raise for bad content except
ReportError; any other exception is a finding, saved with its
traceback in --crash-dir. Same seed, same inputs: a failure reproduces with
  tests/fuzz/report_mutate.py --replay FILE
"""
import copy
import io
import os
import re
import sys
from importlib.machinery import SourceFileLoader

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mutate_driver  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
report = SourceFileLoader("bareperf_report",
                          os.path.join(ROOT, "scripts", "bareperf-report")).load_module()

AWKWARD_VALUES = [
    b"0", b"-1", b"3", b"1e308", b"-1e308", b"1e999", b"NaN", b"Infinity", b"-Infinity",
    b"18446744073709551616", b"1" + b"0" * 400, b"9" * 5000, b"0.0", b"true", b"false",
    b"null", b'""', b'"x"', b"[]", b"{}", b"[" * 50 + b"]" * 50, b'{"a":{"b":{}}}',
    b'"\\u0000"', b'"\\ud800"', b'"a\\udfffb"', b'"\\ud83d\\ude00"', b'"%s%d"',
]
NOISE = [b"\x00", b"\r", b"\n", b"\x1b[2J", b"\xff\xfe", b"@", b"@result ", b"@meta {}",
         b"@done ", b"{", b"}", b'"', b",", b":", b" ", b"\xc3\x28"]
NUMBER_OR_LITERAL = re.compile(rb'-?\d+(\.\d+)?([eE][-+]?\d+)?|true|false|null|"[^"\n]*"')


def value_span(rng, line):
    tokens = list(NUMBER_OR_LITERAL.finditer(line))
    return rng.choice(tokens).span() if tokens else None


def mutate(rng, data):
    out = mutate_driver.mutate_lines(rng, data, value_span, AWKWARD_VALUES, NOISE)
    if rng.randrange(20) == 0:
        out = out[:rng.randrange(len(out) + 1)]     # a log cut anywhere
    return out


def run_reader(data):
    """Everything the tool does with a log short of writing files and running gnuplot:
    one run, and the run compared with a copy of itself (issue 34; the comparison's CSV and
    JSON are the runs' rows and records, left out for time). parse_text also reads the input as a
    LAVA job log when it looks like one."""
    try:
        log = report.parse_text(data.decode("utf-8", errors="replace"), "fuzz")
    except report.ReportError:
        return
    again = copy.copy(log)
    again.origin = dict(log.origin, input="fuzz2")
    runs = [log, again]
    report.run_labels(runs)
    log.baseline = True
    for writer, logs in ((report.write_csv, [log]), (report.write_json, [log]),
                         (report.write_perf_csv, runs), (report.write_perf_json, runs),
                         (lambda logs, out: report.print_summary(logs[0], out), [log]),
                         (report.print_comparison, runs)):
        out = io.StringIO()
        writer(logs, out)
        out.getvalue().encode("utf-8")      # the files and the terminal take UTF-8
    report.latency_script(log)
    report.cpl_script(log, "tsc")
    report.compare_script(runs, "tsc")


def main():
    return mutate_driver.main("report_mutate", __doc__, ROOT, "tests/fuzz/corpus/report", run_reader, mutate)


if __name__ == "__main__":
    sys.exit(main())
