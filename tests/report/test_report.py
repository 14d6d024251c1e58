"""Tests of scripts/bareperf-report against a real serial capture (tests/data/serial-sample.log,
taken under scripts/qemu-run --icount, so its numbers are exact) and broken variants of it."""
import csv
import io
import json
import os
import re
import select
import shutil
import stat
import subprocess
import sys
import tempfile
import time
import unittest
from importlib.machinery import SourceFileLoader

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(ROOT, "scripts", "bareperf-report")
SAMPLE = os.path.join(ROOT, "tests", "data", "serial-sample.log")
# Real captures (scripts/qemu-run --bios): a partner.load=idle,spin run under --icount on two
# CPUs, a mode=list run, and a mode=c2c run on two CPUs.
PARTNER = os.path.join(ROOT, "tests", "data", "serial-partner.log")
LISTING = os.path.join(ROOT, "tests", "data", "serial-list.log")
C2C = os.path.join(ROOT, "tests", "data", "serial-c2c.log")
report = SourceFileLoader("bareperf_report", TOOL).load_module()
sys.path.insert(0, os.path.join(ROOT, "tests", "pylib"))
import forkrun  # noqa: E402  (after the path above)
TOOL_RUN = forkrun.Tool(TOOL)       # each run a fork of this process: no new interpreter
HAVE_GNUPLOT = shutil.which("gnuplot") is not None


def sample_text():
    with open(SAMPLE, encoding="utf-8", errors="replace") as f:
        return f.read()


def run_tool(*args, stdin=None, timeout=120):
    return TOOL_RUN.run(args, stdin=stdin, text=True, timeout=timeout)


def run_tool_umask(mask, *args):
    old = os.umask(mask)
    try:
        return run_tool(*args)
    finally:
        os.umask(old)


class ParseSample(unittest.TestCase):
    def setUp(self):
        self.log = report.parse_log(sample_text(), "sample")

    def test_records_match_done_line(self):
        self.assertEqual(self.log.warnings, [])
        self.assertEqual(len(self.log.results), self.log.done["results"])
        self.assertEqual(len(self.log.faults), 2)
        self.assertEqual(len(self.log.timeouts), 2)
        self.assertEqual([s["bench"] for s in self.log.skipped], ["cost_rdpmc"])
        self.assertTrue(any("not measured" in n["message"] for n in self.log.notes))

    def test_sample_records(self):
        # The kernel's @sample (kernel/sample-hist.c; the exact bytes are tested on the host).
        line = ('@sample {"bench":"add_chain","size":0,"cpl":3,"event":"instructions",'
                '"period":5000,"events":41234,"samples":8,"outside":2,"unbinned":0,'
                '"offsets":[[4,3],[16,2],[8,1]]}')
        log = report.parse_log(sample_text() + "\n" + line + "\n", "sample")
        self.assertEqual(log.warnings, [])
        self.assertEqual(log.samples[0]["offsets"], [[4, 3], [16, 2], [8, 1]])
        bad = report.parse_log(sample_text() + "\n" + line.replace('"cpl":3', '"cpl":2') + "\n",
                               "sample")
        self.assertEqual(bad.samples, [])
        self.assertTrue(any("cpl" in w for w in bad.warnings))
    def test_pmucheck_records(self):
        """mode=pmucheck's @check and @checkdone lines are known records (docs/pmucheck.md)."""
        text = (sample_text().split("@done")[0] +
                '@check {"check":"edge","verdict":"fail","measured":"edges=3","rule":"N","why":"3"}\n'
                '@check {"check":"netburst-thread","verdict":"skip","measured":"","reason":"NetBurst only"}\n'
                '@checkdone {"scope":"full","passed":0,"failed":1,"skipped":1}\n'
                '@done {"results":0,"faults":0,"timeouts":0,"errors":0}\n')
        log = report.parse_log(text, "pmucheck")
        self.assertFalse(any("unknown record" in w for w in log.warnings), log.warnings)
        self.assertEqual([c["verdict"] for c in log.checks], ["fail", "skip"])
        self.assertEqual(log.check_summaries[0]["failed"], 1)
        self.assertIn("checks", log.as_json())

    def test_meta(self):
        self.assertEqual(self.log.meta["schema"], 1)
        self.assertEqual(self.log.meta["cpu"]["hypervisor"], "TCGTCGTCGTCG")
        self.assertFalse(self.log.meta["pmu"]["functional"])

    def test_icount_figures(self):
        # 32 ticks per instruction: add_chain declares 10, mem_chase 3, at both CPLs.
        got = {(r["bench"], r["size"], r["cpl"]): r["per_iter"]
               for r in self.log.results if r["event"] == "tsc"}
        self.assertEqual(got[("add_chain", 0, 0)], 320.0)
        self.assertEqual(got[("add_chain", 0, 3)], 320.0)
        for size in (4096, 65536, 1 << 20):
            self.assertEqual(got[("mem_chase", size, 3)], 96.0)

    def test_faults_and_timeouts(self):
        self.assertEqual({(f["bench"], f["cpl"], f["name"]) for f in self.log.faults},
                         {("fault_div0", 0, "#DE"), ("fault_div0", 3, "#DE")})
        self.assertTrue(all(t["expected"] for t in self.log.timeouts))


class BrokenLogs(unittest.TestCase):
    def test_garbage_and_bad_json_are_warnings_with_line_numbers(self):
        lines = sample_text().split("\n")
        lines.insert(5, "@result {not json")
        lines.insert(6, "@frobnicate {}")
        lines.insert(7, '@result {"bench":"x"}')
        lines.insert(8, "random text \x1b[2J with escapes")
        log = report.parse_log("\n".join(lines), "broken")
        w = "\n".join(log.warnings)
        self.assertIn("broken line 6: @result is not valid JSON", w)
        self.assertIn("broken line 7: unknown record type '@frobnicate'", w)
        self.assertIn("broken line 8: @result", w)
        self.assertEqual(len(log.results), log.done["results"])

    def test_deep_nesting_is_a_warning_not_a_traceback(self):
        # json.loads raises RecursionError on deep nesting; the line must be skipped with
        # a warning like any other malformed record, and the rest of the log kept.
        lines = sample_text().split("\n")
        deep = 100000
        lines.insert(5, '@note {"context":"x","message":"y","extra":%s%s}' % ("[" * deep, "]" * deep))
        lines.insert(6, '@note {"context":"x","message":"y","extra":%s%s}' % ("{\"a\":" * 500 + "0", "}" * 500))
        log = report.parse_log("\n".join(lines), "deep")
        w = "\n".join(log.warnings)
        self.assertIn("deep line 6: @note is nested too deeply", w)
        self.assertIn("deep line 7: @note is nested too deeply", w)
        self.assertEqual(len(log.results), log.done["results"])
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "deep.log")
            with open(path, "w") as f:
                f.write("\n".join(lines))
            rc, out, err = run_tool(path, "--summary", "--json", os.path.join(d, "r.json"))
        self.assertEqual(rc, 0, err)
        self.assertNotIn("Traceback", err)
        self.assertIn("warning: %s line 6: @note is nested too deeply" % path, err)
        self.assertIn("add_chain", out)

    def test_numbers_past_64_bits_or_not_finite_are_skipped(self):
        # Found by tests/fuzz/report_mutate.py: such numbers raised ValueError (over 4300
        # digits) or OverflowError (in the consistency check and the latency plot).
        lines = sample_text().split("\n")
        first = next(i for i, l in enumerate(lines) if l.startswith("@result"))
        good = lines[first]
        bad = [re.sub(r'"median":[0-9.]+', '"median":' + "9" * 5000, good),
               re.sub(r'"median":[0-9.]+', '"median":1' + "0" * 400, good),
               re.sub(r'"size":[0-9]+', '"size":1' + "0" * 400, good),
               re.sub(r'"per_iter":[0-9.]+', '"per_iter":NaN', good)]
        self.assertTrue(all(b != good for b in bad))
        lines[first + 1:first + 1] = bad
        log = report.parse_log("\n".join(lines), "big")
        w = "\n".join(log.warnings)
        self.assertIn("big line %d: @result has a number too long to read" % (first + 2), w)
        self.assertIn("big line %d: @result field 'median' is out of the 64-bit range"
                      % (first + 3), w)
        self.assertIn("big line %d: @result field 'size' is out of the 64-bit range"
                      % (first + 4), w)
        self.assertIn("big line %d: @result field 'per_iter' must be a finite number"
                      % (first + 5), w)
        self.assertEqual(len(log.results), log.done["results"])
        report.print_summary(log, io.StringIO())
        report.latency_script(log)

    def test_c2c_records_count_as_results(self):
        text = "\n".join([
            '@c2c {"test":"c2c_latency","ping_cpu":1,"pong_cpu":0,"rounds":1000,"reps":11,'
            '"trimmed":0,"unit":"ticks","one_way_median":52.500,"one_way_min":50.000,'
            '"round_trip_median":105.000,"round_trip_min":100.000}',
            '@c2c {"test":"shared_bw","writer_cpu":0}',
            '@done {"results":2,"faults":0,"timeouts":0,"errors":0}'])
        log = report.parse_log(text, "c2c")
        self.assertEqual([c["test"] for c in log.c2c], ["c2c_latency"])
        self.assertEqual(log.as_json()["c2c"], log.c2c)
        self.assertEqual(log.warnings, [
            "c2c line 2: @c2c missing field 'reps'; skipped",
            "c2c: no valid @meta line; CPU and PMU are unknown",
            "c2c: @done counts 2 results but the log has 1 valid ones"])
        log = report.parse_log(text.replace('"results":2', '"results":1'), "c2c")
        self.assertEqual(len(log.warnings), 2)

    def test_cut_short_log_warns(self):
        text = "\n".join(l for l in sample_text().split("\n") if not l.startswith("@done"))
        log = report.parse_log(text, "cut")
        self.assertIn("no @done line", "\n".join(log.warnings))

    def test_warnings_are_capped(self):
        # 1005 bad lines, and no @done: the warning for that, made last, is counted too.
        log = report.parse_log(sample_text().split("@done")[0] + "@x\n" * (report.MAX_WARNINGS + 5), "many")
        self.assertEqual(len(log.warnings), report.MAX_WARNINGS + 1)
        self.assertEqual(log.warnings[-1], "many: 6 more warnings not shown (the first %d are)"
                         % report.MAX_WARNINGS)

    def test_no_machine_lines_is_an_error(self):
        with self.assertRaises(report.ReportError) as cm:
            report.parse_log("bareperf\nhello\n", "human")
        self.assertIn("has no @ lines", str(cm.exception))

    def test_newer_schema_is_refused(self):
        text = sample_text().replace('"schema":1,', '"schema":7,', 1)
        with self.assertRaises(report.ReportError) as cm:
            report.parse_log(text, "new")
        self.assertIn("log schema 7 is newer", str(cm.exception))


class Outputs(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        """One run with the default outputs (two gnuplot runs): the tests of what it
        writes, of their modes and of the folder it names all look at it."""
        cls.class_dir = tempfile.mkdtemp()
        cls.rep = os.path.join(cls.class_dir, "rep")
        cls.rep_run = run_tool_umask(0o022, SAMPLE, "-o", cls.rep)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.class_dir)

    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.dir)

    def test_csv_and_json(self):
        csv_path = os.path.join(self.dir, "r.csv")
        json_path = os.path.join(self.dir, "r.json")
        rc, _, err = run_tool(SAMPLE, "--csv", csv_path, "--json", json_path)
        self.assertEqual(rc, 0, err)
        with open(csv_path) as f:
            rows = list(csv.reader(f))
        self.assertEqual(tuple(rows[0]), report.CSV_COLUMNS)
        log = report.parse_log(sample_text(), "sample")
        self.assertEqual(len(rows) - 1, len(log.results))
        first = dict(zip(rows[0], rows[1]))
        r0 = log.results[0]
        self.assertEqual(first["bench"], r0["bench"])
        self.assertEqual(float(first["per_iter"]), r0["per_iter"])
        with open(json_path) as f:
            doc = json.load(f)
        for key in ("meta", "results", "faults", "timeouts", "errors", "notes", "skipped", "done"):
            self.assertIn(key, doc)
        self.assertEqual(len(doc["results"]), doc["done"]["results"])

    def test_stdin(self):
        rc, out, err = run_tool("-", "--summary", stdin=sample_text())
        self.assertEqual(rc, 0, err)
        self.assertIn("add_chain", out)
        self.assertIn("2 faults (0 unexpected), 2 timeouts", out)

    @unittest.skipUnless(HAVE_GNUPLOT, "gnuplot not installed")
    def test_default_outputs_and_pngs(self):
        out_dir = self.rep
        rc, out, err = self.rep_run
        self.assertEqual(rc, 0, err)
        for name in ("results.csv", "results.json", "latency.png", "cpl.png"):
            self.assertTrue(os.path.exists(os.path.join(out_dir, name)), name)
        for name in ("latency.png", "cpl.png"):
            with open(os.path.join(out_dir, name), "rb") as f:
                data = f.read()
            self.assertEqual(data[:8], b"\x89PNG\r\n\x1a\n")
            self.assertGreater(len(data), 2000)

    def test_wrote_names_the_directory_with_one_slash(self):
        # "rep/" a second time into the folder the first made, at the same umask: the same
        # files again, as the other tests of the class expect them.
        for rc, _, err in (self.rep_run, run_tool_umask(0o022, SAMPLE, "-o", self.rep + "/")):
            self.assertEqual(rc, 0, err)
            self.assertIn("wrote %s\n" % os.path.join(self.class_dir, "rep/"), err)

    def test_outputs_follow_umask(self):
        # Outputs go through temporary files, which mkstemp creates 0600; the tool must
        # give them the usual umask-derived mode so others can read a shared report.
        out_dir = self.rep
        rc, _, err = self.rep_run
        self.assertEqual(rc, 0, err)
        for name in ("results.csv", "results.json", "latency.png", "cpl.png"):
            mode = os.stat(os.path.join(out_dir, name)).st_mode & 0o777
            self.assertEqual(mode, 0o644, "%s has mode %o" % (name, mode))

    def test_latency_plot_shows_timing_only(self):
        log = report.parse_log(sample_text(), "sample")
        script, why = report.latency_script(log)
        self.assertIsNone(why)
        self.assertIn("tsc, CPL 0", script)
        self.assertNotIn("instructions", script)
        self.assertIn("'64 KiB' 65536", script)

    def test_missing_plot_data_is_explained(self):
        text = "\n".join(l for l in sample_text().split("\n") if '"bench":"mem_chase"' not in l)
        log_path = os.path.join(self.dir, "nochase.log")
        with open(log_path, "w") as f:
            f.write(text)
        rc, _, err = run_tool(log_path, "--plot-latency", os.path.join(self.dir, "l.png"))
        self.assertEqual(rc, 1)
        self.assertIn("no mem_chase results", err)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "l.png")))

    def test_missing_log_file(self):
        rc, _, err = run_tool(os.path.join(self.dir, "nope.log"))
        self.assertEqual(rc, 1)
        self.assertIn("nope.log", err)


def read_capture(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return report.parse_log(f.read(), os.path.basename(path))


class Variants(unittest.TestCase):
    """cpu, partner, partner_load, unroll and loop are part of what a result is: they are
    CSV columns, and results that differ only there are not repeats of each other. Before,
    a partner.load=idle,spin run gave pairs of identical-looking CSV rows and false
    'repeats line N' warnings."""

    def test_partner_run_has_no_false_repeats(self):
        log = read_capture(PARTNER)
        self.assertEqual(log.warnings, [])
        self.assertEqual(len(log.results), log.done["results"])
        self.assertEqual(sorted({r["partner_load"] for r in log.results}), ["idle", "spin"])
        # Under --icount every add_chain figure is exact: 10 instructions, 320 ticks per iteration.
        self.assertEqual({(r["event"], r["per_iter"]) for r in log.results},
                         {("tsc", 320.0), ("instructions", 10.0)})

    def test_csv_has_the_variant_columns(self):
        log = read_capture(PARTNER)
        out = io.StringIO()
        report.write_csv([log], out)
        rows = list(csv.DictReader(io.StringIO(out.getvalue())))
        self.assertEqual(list(rows[0])[17:22], ["cpu", "partner", "partner_load", "unroll", "loop"])
        self.assertEqual(len(rows), 8)
        self.assertEqual({(r["cpu"], r["partner"], r["partner_load"], r["unroll"], r["loop"]) for r in rows},
                         {("1", "0", "idle", "", ""), ("1", "0", "spin", "", "")})
        # Two rows per (cpl, event), told apart by partner_load.
        keys = [(r["cpl"], r["event"], r["partner_load"]) for r in rows]
        self.assertEqual(len(set(keys)), 8)

    def test_summary_and_plots_keep_the_variants_apart(self):
        log = read_capture(PARTNER)
        out = io.StringIO()
        report.print_summary(log, out)
        self.assertIn("add_chain [partner_load=idle]", out.getvalue())
        self.assertIn("add_chain [partner_load=spin]", out.getvalue())
        script, why = report.cpl_script(log, "tsc")
        self.assertIsNone(why)
        self.assertIn('"add_chain [partner_load=spin]" 320.000 320.000', script)

    def test_user_benchmark_unroll_and_loop(self):
        base = ('@result {"bench":"asm","size":0,"cpl":3,"event":"tsc","group":0,"source":"tsc",'
                '"unit":"ticks","reps":3,"iters":1000,"unroll":100,"loop":10,"insns_per_iter":0,'
                '"min":32000,"median":32000.000,"mean":32000.000,"stddev":0.000,"max":32000,'
                '"per_iter":32.000,"trimmed":0}')
        other = base.replace('"loop":10', '"loop":20').replace('"iters":1000', '"iters":2000') \
            .replace('"per_iter":32.000', '"per_iter":16.000')
        log = report.parse_log("\n".join([base, other, base]), "user")
        repeats = [w for w in log.warnings if "repeats" in w]
        self.assertEqual(repeats, ["user line 3: result asm cpl=3 event=tsc unroll=100 loop=10 repeats line 1; "
                                   "plots use the first"])
        out = io.StringIO()
        report.write_csv([log], out)
        self.assertEqual([r["loop"] for r in csv.DictReader(io.StringIO(out.getvalue()))], ["10", "20", "10"])

    def test_variant_field_of_the_wrong_type_is_skipped(self):
        line = [l for l in sample_text().split("\n") if l.startswith("@result")][0].rstrip("\r")
        bad = line[:-1] + ',"cpu":"one"}'
        log = report.parse_log(bad, "bad")
        self.assertEqual(log.results, [])
        self.assertIn("bad line 1: @result field 'cpu' must be an integer, not a string; skipped", log.warnings)
        ok = line[:-1] + ',"cpu":2,"partner":null,"partner_load":null}'
        log = report.parse_log(ok, "ok")
        self.assertEqual(len(log.results), 1)


class Listing(unittest.TestCase):
    """mode=list prints the catalogue as @payload records (docs/results.md), and no @meta
    or @done. Before, each @payload drew an 'unknown record type' warning (33 here)."""

    def test_payload_records_are_read(self):
        log = read_capture(LISTING)
        self.assertEqual(log.warnings, [])
        self.assertEqual(len(log.payloads), 33)
        add = [p for p in log.payloads if p["name"] == "add_chain"][0]
        self.assertEqual((add["insns_per_iter"], add["cpls"], add["needs"]), (10, "0,3", []))
        self.assertEqual(log.as_json()["payloads"], log.payloads)

    def test_summary_lists_the_catalogue(self):
        rc, out, err = run_tool(LISTING, "--summary")
        self.assertEqual((rc, err), (0, ""))
        self.assertIn("catalogue (mode=list): 33 payloads\n", out)
        self.assertRegex(out, r"\nadd_chain +10  0,3  -  +8 dependent 64-bit ADDs: ADD latency\n")
        self.assertRegex(out, r"\nfault_hang .*\(expects a timeout\)\n")
        self.assertTrue(out.endswith("33 payloads, 0 errors\n"), out[-200:])

    def test_malformed_payload_is_a_warning(self):
        log = report.parse_log('@payload {"name":"x","insns_per_iter":"ten"}\n', "bad")
        self.assertEqual(log.payloads, [])
        self.assertIn("bad line 1: @payload field 'insns_per_iter' must be an integer, not a string; skipped",
                      log.warnings)


class CrossCore(unittest.TestCase):
    """A mode=c2c log is summarised with its @c2c records, which @done counts as results.
    Before, the summary said 'no results' and '0 results' while @done counted them."""

    def test_summary_shows_the_c2c_records(self):
        log = read_capture(C2C)
        self.assertEqual(log.warnings, [])
        self.assertEqual(len(log.c2c), log.done["results"])
        rc, out, err = run_tool(C2C, "--summary")
        self.assertEqual((rc, err), (0, ""))
        self.assertNotIn("no results", out)
        self.assertIn("\ncross-core (mode=c2c, docs/c2c.md; 3 reps):\n", out)
        self.assertIn("\nc2c_latency    CPUs 1 -> 0: one way 551.250 ticks (min 516.600), round trip "
                      "1102.500 (min 1033.200)\n", out)
        self.assertIn("\nfalse_sharing  CPUs 1, 0: ticks per increment shared 74.056 / 81.028, padded "
                      "20.895 / 27.048, ratio 3.234\n", out)
        self.assertIn("\nshared_bw      CPUs 1 -> 0: bytes per tick write 0.399, read 1.561\n", out)
        self.assertTrue(out.endswith("\n3 results, 0 faults (0 unexpected), 0 timeouts, 0 errors\n"), out)

    def test_record_with_only_the_required_fields(self):
        log = report.parse_log('@c2c {"test":"c2c_latency","reps":3}\n@c2c {"test":"new_test","reps":3,"x":1.5}\n'
                               '@done {"results":2,"faults":0,"timeouts":0,"errors":0}', "min")
        out = io.StringIO()
        report.print_summary(log, out)
        self.assertIn("c2c_latency  CPUs ? -> ?: one way ? ? (min ?), round trip ? (min ?)\n", out.getvalue())
        self.assertIn("new_test     reps=3, x=1.500\n", out.getvalue())
        self.assertIn("2 results,", out.getvalue())


class LoneSurrogates(unittest.TestCase):
    """A JSON escape \\ud800-\\udfff that is not half of a pair cannot be written as UTF-8:
    any string holding one (a value or a key, in any record) gave a traceback in the CSV,
    the summary or the default outputs. It becomes U+FFFD, with a warning."""

    LOG = os.path.join(ROOT, "tests", "fuzz", "corpus", "report", "regress-lone-surrogates")

    def test_every_output_is_utf8(self):
        with tempfile.TemporaryDirectory() as d:
            rc, out, err = run_tool(self.LOG, "--summary", "--csv", os.path.join(d, "r.csv"),
                                    "--json", os.path.join(d, "r.json"))
            self.assertEqual(rc, 0, err)
            self.assertNotIn("Traceback", err)
            with open(os.path.join(d, "r.csv"), encoding="utf-8") as f:
                self.assertIn("\ufffdempty,", f.read())
            with open(os.path.join(d, "r.json"), encoding="utf-8") as f:
                doc = json.load(f)
            self.assertEqual(doc["errors"][0]["message"], "\ufffd")
            self.assertEqual(doc["notes"][0], {"context": "\ufffd", "message": "pair \U0001f600 then lone \ufffd"})
            self.assertIn("\ufffdkey", doc["skipped"][0])
            self.assertIn("\ufffd", doc["meta"]["cpu"]["brand"])
            self.assertIn("error (config): \ufffd", out)
            self.assertIn("regress-lone-surrogates line 2: @result has 1 lone surrogate escape", err)
            rc, out, err = run_tool(self.LOG, "-o", os.path.join(d, "all"))
            self.assertNotIn("Traceback", err)
            self.assertIn("\ufffdempty", out)


class ReaderGone(unittest.TestCase):
    """Standard output whose reader has gone (`| head` that stopped reading): before, the
    summary ended in a BrokenPipeError traceback. Now nothing more is said and the status
    is a shell's for SIGPIPE, 141."""

    def test_closed_pipe(self):
        r, w = os.pipe()
        os.close(r)
        try:
            p = subprocess.run(["/usr/bin/python3", TOOL, SAMPLE, "--summary"], stdout=w,
                               stderr=subprocess.PIPE, text=True, timeout=60)
        finally:
            os.close(w)
        self.assertEqual(p.returncode, 141, p.stderr)
        self.assertEqual(p.stderr, "")


class OutputTargets(unittest.TestCase):
    """Outputs go where the user pointed: a regular file is replaced atomically (keeping its
    mode), a symlink is followed to its target, and anything else (FIFO, device, terminal,
    /dev/stdout) is written through like any program would; a write error is exit 1."""

    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.old_umask = os.umask(0o022)

    def tearDown(self):
        os.umask(self.old_umask)
        shutil.rmtree(self.dir)

    def path(self, name):
        return os.path.join(self.dir, name)

    def assert_is_csv(self, text):
        self.assertTrue(text.startswith(",".join(report.CSV_COLUMNS) + "\n"), text[:200])
        self.assertGreater(text.count("\n"), 10)

    def test_symlink_is_followed_and_target_keeps_its_mode(self):
        real, link = self.path("real.csv"), self.path("link.csv")
        with open(real, "w") as f:
            f.write("old\n")
        os.chmod(real, 0o640)
        os.symlink("real.csv", link)
        rc, _, err = run_tool(SAMPLE, "--csv", link)
        self.assertEqual(rc, 0, err)
        self.assertTrue(os.path.islink(link), "the symlink was replaced by a file")
        self.assertEqual(os.readlink(link), "real.csv")
        with open(real) as f:
            self.assert_is_csv(f.read())
        self.assertEqual(stat.S_IMODE(os.stat(real).st_mode), 0o640)
        self.assertEqual(sorted(os.listdir(self.dir)), ["link.csv", "real.csv"])

    def test_dangling_symlink_creates_its_target(self):
        link = self.path("link.json")
        os.symlink("made.json", link)
        rc, _, err = run_tool(SAMPLE, "--json", link)
        self.assertEqual(rc, 0, err)
        self.assertTrue(os.path.islink(link))
        with open(self.path("made.json")) as f:
            self.assertIn("results", json.load(f))

    def test_regular_file_keeps_its_mode(self):
        target = self.path("r.csv")
        with open(target, "w") as f:
            f.write("old\n")
        os.chmod(target, 0o600)
        rc, _, err = run_tool(SAMPLE, "--csv", target)
        self.assertEqual(rc, 0, err)
        self.assertEqual(stat.S_IMODE(os.stat(target).st_mode), 0o600)
        with open(target) as f:
            self.assert_is_csv(f.read())

    @unittest.skipUnless(HAVE_GNUPLOT, "gnuplot not installed")
    def test_plot_through_symlink(self):
        real, link = self.path("real.png"), self.path("link.png")
        with open(real, "w") as f:
            f.write("old")
        os.symlink("real.png", link)
        rc, _, err = run_tool(SAMPLE, "--plot-latency", link)
        self.assertEqual(rc, 0, err)
        self.assertTrue(os.path.islink(link), "the symlink was replaced by a file")
        with open(real, "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")

    def test_fifo_is_written_through(self):
        fifo = self.path("out.csv")
        os.mkfifo(fifo)
        # Opened for reading before the tool runs, non-blocking, so the tool's open for
        # writing does not wait and this test cannot hang if the tool never opens it.
        fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
        data = b""
        try:
            proc = subprocess.Popen(["/usr/bin/python3", TOOL, SAMPLE, "--csv", fifo],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                ready, _, _ = select.select([fd], [], [], 0.1)
                chunk = os.read(fd, 65536) if ready else b""
                data += chunk
                if not chunk and proc.poll() is not None:
                    break
            _, err = proc.communicate(timeout=10)
        finally:
            os.close(fd)
        self.assertEqual(proc.returncode, 0, err)
        self.assertTrue(stat.S_ISFIFO(os.lstat(fifo).st_mode), "the FIFO was replaced by a file")
        self.assert_is_csv(data.decode())

    def test_link_to_standard_output_is_written_through(self):
        # What /dev/stdout is (a link to /proc/self/fd/1), made in the temp dir.
        link = self.path("stdout.csv")
        os.symlink("/proc/self/fd/1", link)
        rc, out, err = run_tool(SAMPLE, "--csv", link)
        self.assertEqual(rc, 0, err)
        self.assertTrue(os.path.islink(link), "the symlink was replaced by a file")
        self.assert_is_csv(out)

    def require_write_through(self, path):
        # Guard for the tests below that name real device files: the tool under test
        # must write through them. An older tool replaced them with regular files (as
        # root, /dev/full itself), so it is not run at all.
        final, replace = report.output_target(path)
        self.assertFalse(replace, "%s would be replaced; not running the tool" % path)

    def test_dev_stdout(self):
        self.require_write_through("/dev/stdout")
        rc, out, err = run_tool(SAMPLE, "--csv", "/dev/stdout")
        self.assertEqual(rc, 0, err)
        self.assert_is_csv(out)
        self.assertTrue(os.path.islink("/dev/stdout"))

    @unittest.skipUnless(os.path.exists("/dev/full"), "no /dev/full")
    def test_dev_full_is_an_error_and_stays_a_device(self):
        self.require_write_through("/dev/full")
        before = os.stat("/dev/full")
        rc, _, err = run_tool(SAMPLE, "--csv", "/dev/full")
        self.assertEqual(rc, 1, err)
        self.assertIn("cannot write '/dev/full'", err)
        after = os.stat("/dev/full")
        self.assertTrue(stat.S_ISCHR(after.st_mode), "/dev/full is no longer a device")
        self.assertEqual(after.st_rdev, before.st_rdev)

    def test_output_that_is_the_log_is_refused(self):
        # run.log --csv run.log replaced the raw log with the CSV. Refused (exit 2) for every
        # output, also through a symlink, a hard link, and the default outputs' directory.
        log = self.path("run.log")
        shutil.copy(SAMPLE, log)
        os.symlink("run.log", self.path("link.log"))
        os.link(log, self.path("hard.log"))
        os.mkdir(self.path("out"))
        os.symlink(log, self.path("out/results.json"))
        for args in (["--csv", log], ["--json", log], ["--plot-latency", log], ["--plot-cpl", log],
                     ["--csv", self.path("link.log")], ["--csv", self.path("hard.log")],
                     ["--summary", "--csv", self.path("ok.csv"), "--json", log],
                     ["-o", self.path("out")]):
            rc, out, err = run_tool(log, *args)
            self.assertEqual(rc, 2, (args, err))
            self.assertIn("is the log being read: refusing to overwrite it", err)
            with open(log, "rb") as f, open(SAMPLE, "rb") as g:
                self.assertEqual(f.read(), g.read(), args)
            self.assertFalse(os.path.exists(self.path("ok.csv")), "an output was written before the refusal")
        # The same log read from standard input may go to any file.
        rc, _, err = run_tool("-", "--csv", self.path("ok.csv"), stdin=sample_text())
        self.assertEqual(rc, 0, err)

    def test_failed_write_leaves_no_temporary_file(self):
        # A directory cannot be written as a file; the error is exit 1 and nothing the
        # tool made along the way is left beside it.
        os.mkdir(self.path("adir"))
        rc, _, err = run_tool(SAMPLE, "--csv", self.path("adir"))
        self.assertEqual(rc, 1)
        self.assertIn("cannot write '%s'" % self.path("adir"), err)
        self.assertEqual(os.listdir(self.dir), ["adir"])
        self.assertEqual(os.listdir(self.path("adir")), [])

def bounded_run(args, stdin=subprocess.DEVNULL, timeout=20):
    """(status, stderr, seconds) of the tool in an interpreter of its own whose address
    space is capped at 1 GiB: a run that would read without bound fails or is killed
    instead of filling the machine's memory."""
    import resource

    def cap():
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
    t0 = time.monotonic()
    p = subprocess.run(["/usr/bin/python3", TOOL] + list(args), stdin=stdin, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True, timeout=timeout, preexec_fn=cap)
    return p.returncode, p.stderr, time.monotonic() - t0


class Inputs(unittest.TestCase):
    """Issue 32: a log is read with a bound on its size, and nothing is opened that would
    block (a FIFO with no writer, a terminal). Before, /dev/zero grew without bound (3.2 GB
    in 6 s), a FIFO or a terminal waited forever."""

    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.dir)

    def assert_too_large(self, rc, err, secs):
        self.assertEqual(rc, 1, err)
        self.assertIn("larger than 16 MiB", err)
        self.assertNotIn("Traceback", err)
        self.assertLess(secs, 10)

    def test_endless_device_and_stdin(self):
        self.assert_too_large(*bounded_run(["/dev/zero", "--summary"]))
        with open("/dev/zero", "rb") as zero:
            self.assert_too_large(*bounded_run(["-", "--summary"], stdin=zero))
        cat = subprocess.Popen(["cat", "/dev/zero"], stdout=subprocess.PIPE)
        try:
            self.assert_too_large(*bounded_run(["-", "--summary"], stdin=cat.stdout))
        finally:
            cat.kill()
            cat.wait()
            cat.stdout.close()

    def test_size_bound_is_exact(self):
        r, w = os.pipe()
        os.write(w, b"@done x\n" * 8)
        os.close(w)
        try:
            self.assertEqual(len(report.read_bounded(r, "p", 64)), 64)
        finally:
            os.close(r)
        r, w = os.pipe()
        os.write(w, b"@done x\n" * 8 + b"!")
        os.close(w)
        try:
            with self.assertRaises(report.ReportError) as cm:
                report.read_bounded(r, "p", 64)
        finally:
            os.close(r)
        self.assertIn("larger than 64 bytes", str(cm.exception))

    def test_fifo_without_writer_terminal_device_socket_directory(self):
        import socket
        fifo = os.path.join(self.dir, "fifo")
        os.mkfifo(fifo)
        rc, _, err = run_tool(fifo, "--summary", timeout=10)
        self.assertEqual(rc, 1, err)
        self.assertIn("FIFO '%s' has no writer" % fifo, err)
        main, sub = os.openpty()
        try:
            rc, _, err = run_tool(os.ttyname(sub), "--summary", timeout=10)
        finally:
            os.close(main)
            os.close(sub)
        self.assertEqual(rc, 1, err)
        self.assertIn("is a terminal", err)
        sock_path = os.path.join(self.dir, "sock")
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(sock_path)
        try:
            rc, _, err = run_tool(sock_path, "--summary", timeout=10)
        finally:
            sock.close()
        self.assertEqual(rc, 1, err)
        self.assertIn("'%s' is a socket" % sock_path, err)
        if os.access("/dev/kmsg", os.R_OK):     # a device that waits for more: before, forever
            rc, _, err = run_tool("/dev/kmsg", "--summary", timeout=10)
            self.assertEqual(rc, 1, err)
            self.assertIn("'/dev/kmsg' is a character device that has nothing to read yet", err)
        rc, _, err = run_tool(self.dir, "--summary", timeout=10)
        self.assertEqual(rc, 1, err)
        # A folder is read as a mounted partition's saved runs (issue 34).
        self.assertIn("'%s' holds no bareperf/results/runNN.log" % self.dir, err)

    def test_fifo_with_writer_is_read(self):
        fifo = os.path.join(self.dir, "fifo")
        os.mkfifo(fifo)
        # The writer's open waits for a reader: it is not yet open when the tool looks.
        writer = subprocess.Popen(["sh", "-c", 'exec cat "$1" > "$2"', "sh", SAMPLE, fifo])
        try:
            rc, out, err = run_tool(fifo, "--summary", timeout=10)
        finally:
            writer.kill()
            writer.wait()
        self.assertEqual(rc, 0, err)
        self.assertIn("21 results", out)


class Consistency(unittest.TestCase):
    """Issue 32, item 16: the small inconsistencies."""

    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.dir)

    def test_only_unknown_records_is_an_error(self):
        # Before: "no results" and exit 0, where /dev/null is exit 1.
        rc, out, err = run_tool("-", "--summary", stdin="boot\n@bogus {}\n@nothing\n")
        self.assertEqual(rc, 1, out)
        self.assertIn("<stdin> line 2: unknown record type '@bogus'", err)
        self.assertIn("<stdin> has 2 @ lines but no valid record", err)
        self.assertEqual(out, "")
        rc, _, err = run_tool("/dev/null", "--summary")
        self.assertEqual(rc, 1, err)

    def test_options_that_do_not_apply_are_refused(self):
        csv_path = os.path.join(self.dir, "r.csv")
        for args, why in ((["--list", "--run", "1"], "--list takes no other option"),
                          (["--list", "--csv", csv_path], "--list takes no other option"),
                          (["--list", "--summary"], "--list takes no other option"),
                          (["--list", "-o", self.dir], "--list takes no other option"),
                          (["--csv", csv_path, "-o", self.dir], "-o applies only"),
                          (["--csv", csv_path, "--event", "cycles"], "--event applies only"),
                          (["--run", "0", "--summary"], "--run needs a run number from 1"),
                          (["--csv", csv_path, "--json", csv_path], "named twice")):
            rc, out, err = run_tool(SAMPLE, *args)
            self.assertEqual(rc, 2, (args, err))
            self.assertIn(why, err, args)
            self.assertEqual(out, "")
            self.assertFalse(os.path.exists(csv_path), args)
        rc, _, err = run_tool("-", "--list", stdin=sample_text())
        self.assertEqual(rc, 2, err)
        self.assertIn("not standard input", err)
        # What does apply still works.
        rc, _, err = run_tool(SAMPLE, "--plot-cpl", "/dev/null", "--event", "cycles", "--csv", "/dev/null")
        self.assertNotIn("applies only", err)

    def test_control_characters_are_escaped(self):
        line = [l for l in sample_text().splitlines() if l.startswith('@result {"bench":"add_chain"')][0]
        line = line.replace('"add_chain"', '"add\\u0007ch\\u009bain"') + "\n"
        text = sample_text() + line + line      # the repeat makes a warning that names it
        text += "@bo\agus\x1b]0;title\x07 {}\n@note {\"context\":\"x\\u001b[2J\",\"message\":\"\u202ebad\"}\n"
        rc, out, err = run_tool("-", "--summary", stdin=text)
        self.assertEqual(rc, 0, err)
        for stream in (out, err):
            self.assertIsNone(re.search("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202e]", stream), repr(stream))
        self.assertIn("unknown record type '@bo\\x07gus", err)
        self.assertIn("add\\x07ch\\x9bain", out)
        self.assertIn("note (x\\x1b[2J): \\u202ebad", out)
        self.assertIn("result add\\x07ch\\x9bain", err)



# YAML double-quoted escapes as PyYAML's emitter writes them (LAVA dumps its job log with
# PyYAML: lava_common/log.py, default_style='"'): the short forms, then \xXX, \uXXXX and
# \UXXXXXXXX for what is not printable ASCII.
YAML_SHORT = {"\0": "0", "\a": "a", "\b": "b", "\t": "t", "\n": "n", "\v": "v", "\f": "f",
              "\r": "r", "\x1b": "e", '"': '"', "\\": "\\", "\x85": "N", "\xa0": "_",
              "\u2028": "L", "\u2029": "P"}


def yaml_quoted(text):
    out = []
    for c in text:
        if c in YAML_SHORT:
            out.append("\\" + YAML_SHORT[c])
        elif " " <= c <= "~":
            out.append(c)
        else:
            n = ord(c)
            out.append("\\x%02X" % n if n <= 0xFF else "\\u%04X" % n if n <= 0xFFFF else "\\U%08X" % n)
    return '"' + "".join(out) + '"'


def lava_job_log(serial_text):
    """A LAVA job log of a run whose serial output was SERIAL_TEXT: LAVA's own entries
    around the target's lines, one entry a line."""
    entry = '- {"dt": "2026-11-29T04:00:%02d.123456", "lvl": "%s", "msg": %s}'
    lines = [entry % (0, "info", yaml_quoted("start: 1.1 boot-qemu (timeout 00:05:00)")),
             entry % (0, "debug", yaml_quoted("qemu-system-x86_64 -kernel ..."))]
    for i, line in enumerate(serial_text.split("\n")):
        lines.append(entry % (1 + i % 50, "target", yaml_quoted(line.rstrip("\r"))))
        if i == 40:
            lines.append((entry % (2, "feedback", yaml_quoted("@result {not the target's}")))[:-1]
                         + ', "ns": "other"}')
    lines.append('- {"dt": "2026-11-29T04:01:00.000000", "lvl": "results", "msg": {"case": '
                 '"job", "definition": "lava", "result": "pass"}}')
    return "\n".join(lines) + "\n"


def without_origin(text):
    """A results.csv without the columns that say where the run came from."""
    rows = list(csv.DictReader(io.StringIO(text)))
    return [{k: v for k, v in r.items() if k not in report.ORIGIN_FIELDS} for r in rows]


class LavaLogs(unittest.TestCase):
    """A LAVA job log (issue 31) gives the report of the serial log it holds."""

    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.dir)

    def outputs(self, log):
        csv_path, json_path = os.path.join(self.dir, "r.csv"), os.path.join(self.dir, "r.json")
        rc, out, err = run_tool(log, "--summary", "--csv", csv_path, "--json", json_path)
        self.assertEqual(rc, 0, err)
        with open(csv_path) as f, open(json_path) as g:
            return out, f.read(), g.read()

    def test_escapes_are_pyyaml_s(self):
        try:
            import yaml
        except ImportError:
            self.skipTest("python3-yaml not installed: the emitter above is checked against it")
        for text in ('a"b\\c\x1b[2J\r \xe9 \U0001F600 \x85 \t\x00 \u2028 \x7f', sample_text()[:3000]):
            want = yaml.safe_dump({"msg": text}, default_flow_style=True, default_style='"', width=10**6)
            self.assertEqual('{"msg": %s}\n' % yaml_quoted(text), want)

    def test_lava_log_gives_the_serial_log_s_report(self):
        # The LAVA signal lines a format=lava run prints are text to the report, and ignored.
        serial = sample_text().replace("\n@done", "\n<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=add_chain "
                                                   "RESULT=pass MEASUREMENT=1.5 UNITS=ticks>\r\n@done")
        serial_path, lava_path = os.path.join(self.dir, "serial.log"), os.path.join(self.dir, "job.yaml")
        with open(serial_path, "w") as f:
            f.write(serial)
        with open(lava_path, "w") as f:
            f.write(lava_job_log(serial))
        want = self.outputs(SAMPLE)
        for path in (serial_path, lava_path):
            got = self.outputs(path)
            self.assertEqual((got[0], got[2]), (want[0], want[2]), path)     # summary, JSON
            # The CSV: equal but for the input it names.
            self.assertEqual(without_origin(got[1]), without_origin(want[1]))
        self.assertGreater(len(want[1].splitlines()), 10)

    def test_escaped_bytes_come_back(self):
        line = [l for l in sample_text().splitlines() if l.startswith('@result {"bench":"add_chain"')][0]
        odd = line.replace('"add_chain"', '"add_\xe9\U0001F600"')
        log = report.parse_text(lava_job_log(odd), "job")
        self.assertEqual(log.results[0]["bench"], "add_\xe9\U0001F600")

    def test_lines_of_another_shape_are_warnings_with_line_numbers(self):
        text = lava_job_log(sample_text())
        lines = text.splitlines()
        lines[5] = "- {dt: 2026, lvl: target, msg: plain}"
        lines[6] = lines[6][:-1].replace('"msg": "', '"msg": "\\q')  + "}"
        log = report.parse_text("\n".join(lines), "job")
        self.assertEqual(log.warnings[:2], ["job line 6: not a LAVA log entry (- {\"dt\": ..., "
                                            "\"lvl\": ..., \"msg\": ...} on one line); skipped",
                                            "job line 7: the target line's msg is not one "
                                            "double-quoted YAML string; skipped"])
        self.assertEqual(len(log.results), log.done["results"])
        # Errors name the job log's own lines.
        lines[100] = lines[100].replace('"msg": "', '"msg": "@result {\\"bench\\":1} ')
        log = report.parse_text("\n".join(lines), "job")
        self.assertTrue(any(w.startswith("job line 101: @result") for w in log.warnings), log.warnings)


class Comparison(unittest.TestCase):
    """Several runs side by side (issue 34); the boots of three CPU models are
    tests/tools/compare-runs'."""

    def setUp(self):
        self.dir = tempfile.mkdtemp()
        # A second machine: another brand, the add_chain figures doubled, no mem_chase.
        text = sample_text().replace("QEMU TCG CPU version 2.5+", "Other\\u001b[2J CPU")
        lines = []
        for line in text.splitlines(True):
            if line.startswith('@result {"bench":"add_chain"'):
                r = json.loads(line[8:])
                for f in ("min", "median", "mean", "max", "per_iter"):
                    r[f] *= 2
                line = "@result " + json.dumps(r) + "\n"
            if line.startswith('@result {"bench":"mem_chase"'):
                continue
            lines.append(line)
        self.other = os.path.join(self.dir, "other.log")
        with open(self.other, "w") as f:
            f.write("".join(lines))

    def tearDown(self):
        shutil.rmtree(self.dir)

    def table(self, out):
        lines = out[out.index("per iteration"):].splitlines()[1:]
        return lines[0], {tuple(l.split()[:4]): l.split()[4:] for l in lines[1:]}

    def test_side_by_side_with_ratios_and_gaps(self):
        rc, out, err = run_tool(SAMPLE, self.other, "--summary")
        self.assertEqual(rc, 0, err)
        self.assertIn("2 runs compared; ratios (xN) are to QEMU TCG CPU version 2.5+ (serial-sample.log)", out)
        self.assertIsNone(re.search("[\x00-\x09\x0b-\x1f]", out), repr(out))
        self.assertIn("Other\\x1b[2J CPU (other.log)", out)
        header, rows = self.table(out)
        self.assertEqual(rows[("add_chain", "-", "0", "tsc")], ["320.000", "640.000", "x2.000"])
        self.assertRegex(out, r"\nmem_chase +4 KiB +0 +tsc +96\.000 +-\n")
        rc, out, err = run_tool(SAMPLE, self.other, "--summary", "--baseline", "2")
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.table(out)[1][("add_chain", "-", "0", "tsc")], ["320.000", "x0.500", "640.000"])

    def test_csv_and_json_rows_carry_the_machine(self):
        csv_path, json_path = os.path.join(self.dir, "c.csv"), os.path.join(self.dir, "c.json")
        rc, _, err = run_tool(SAMPLE, self.other, "--csv", csv_path, "--json", json_path)
        self.assertEqual(rc, 0, err)
        with open(csv_path) as f:
            rows = list(csv.DictReader(f))
        self.assertEqual({r["cpu_brand"] for r in rows}, {"QEMU TCG CPU version 2.5+", "Other\x1b[2J CPU"})
        self.assertEqual({r["input"] for r in rows}, {SAMPLE, self.other})
        with open(json_path) as f:
            doc = json.load(f)
        self.assertEqual([r["input"] for r in doc["runs"]], [SAMPLE, self.other])
        self.assertEqual(len(doc["results"]), 21 + 21 - 12)
        self.assertEqual(doc["results"][-1]["cpu_brand"], "Other\x1b[2J CPU")

    def test_perf_formats_name_the_privilege_level(self):
        path = os.path.join(self.dir, "p.csv")
        rc, _, err = run_tool(SAMPLE, "--perf-csv", path)
        self.assertEqual(rc, 0, err)
        with open(path) as f:
            lines = f.read().splitlines()
        self.assertIn("# bareperf QEMU TCG CPU version 2.5+ (serial-sample.log): mem_chase size 4 KiB", lines)
        self.assertIn("32000.000000,ticks,tsc:k,0.00%,,100.00,320.000,per iteration", lines)
        self.assertIn("1000.000000,,instructions:u,0.00%,,100.00,10.000,per iteration", lines)

    def test_options_that_do_not_apply_to_the_runs(self):
        for args, why in (([SAMPLE, self.other, "--plot-cpl", "x.png"], "--plot-cpl draws one run"),
                          ([SAMPLE, self.other, "--log"], "--log prints one run's text"),
                          ([SAMPLE, self.other, "--baseline", "3", "--summary"], "--baseline needs a run from 1 to 2"),
                          ([SAMPLE, "--plot-compare", "x.png"], "--plot-compare compares several runs"),
                          ([SAMPLE, "--baseline", "1", "--summary"], "--baseline applies to a comparison"),
                          ([SAMPLE, "--log", "--csv", "x.csv"], "--log prints a run's text and takes no output"),
                          (["-", "-", "--summary"], "standard input can be read once")):
            rc, out, err = run_tool(*args, stdin="")
            self.assertEqual((rc, out), (2, ""), (args, err))
            self.assertIn(why, err, args)
            self.assertFalse(os.path.exists("x.png") or os.path.exists("x.csv"))

    def test_inputs_together_are_bounded(self):
        saved = report.MAX_TOTAL_LOG_BYTES
        report.MAX_TOTAL_LOG_BYTES = 20000
        try:
            self.assertEqual(len(report.read_inputs([SAMPLE], None)), 1)
            with self.assertRaises(report.ReportError) as e:
                report.read_inputs([SAMPLE, self.other, SAMPLE], None)
        finally:
            report.MAX_TOTAL_LOG_BYTES = saved
        self.assertIn("the inputs up to '%s' hold " % self.other, str(e.exception))
        self.assertIn("compare fewer runs at a time", str(e.exception))

    def test_log_prints_the_run_s_text(self):
        rc, out, err = TOOL_RUN.run([SAMPLE, "--log"])
        self.assertEqual((rc, err), (0, b""))
        with open(SAMPLE, "rb") as f:
            self.assertEqual(out, f.read())
        path = os.path.join(self.dir, "job.yaml")
        with open(path, "w") as f:
            f.write(lava_job_log(sample_text()))
        rc, out, err = run_tool(path, "--log")
        self.assertEqual((rc, err), (0, ""))
        self.assertEqual(out.splitlines(), [l.rstrip("\r") for l in sample_text().split("\n")])

    def test_log_on_a_terminal_is_escaped(self):
        import pty
        master, slave = pty.openpty()
        try:
            p = subprocess.run(["/usr/bin/python3", TOOL, SAMPLE, "--log"], stdout=slave,
                               stderr=subprocess.PIPE, timeout=60)
            os.close(slave)
            slave = None
            shown = b""
            while select.select([master], [], [], 0.5)[0]:
                try:
                    chunk = os.read(master, 65536)
                except OSError:
                    break
                if not chunk:
                    break
                shown += chunk
        finally:
            if slave is not None:
                os.close(slave)
            os.close(master)
        self.assertEqual((p.returncode, p.stderr), (0, b""))
        self.assertTrue(shown.startswith(b"\\x1b[2J\\x1b[01;01H"), shown[:80])
        self.assertNotIn(b"\x1b", shown)
        self.assertIn(b"\r\ncfg.mode=run\r\n", shown)     # the terminal's own CR LF

    def test_plot_names_a_run_without_the_event(self):
        runs = [report.parse_text(sample_text(), "a"), report.parse_text(sample_text(), "b")]
        runs[1].results = [r for r in runs[1].results if r["event"] != "tsc"]
        report.run_labels(runs)
        script, why = report.compare_script(runs, "tsc")
        self.assertIsNone(why)
        self.assertIn("no tsc results: QEMU TCG CPU version 2.5+ (b)'", script)
        self.assertIn("title 'QEMU TCG CPU version 2.5+ (a)'", script)
        self.assertNotIn("using 3", script)
        self.assertIn("set yrange [0:*]", script)
        script, why = report.compare_script(runs, "nothing")
        self.assertIsNone(script)
        self.assertIn("no run has results for event 'nothing'", why)

    @unittest.skipUnless(HAVE_GNUPLOT, "gnuplot not installed")
    def test_default_outputs_of_a_comparison(self):
        out_dir = os.path.join(self.dir, "rep")
        rc, out, err = run_tool(SAMPLE, self.other, "-o", out_dir, "--event", "instructions")
        self.assertEqual(rc, 0, err)
        self.assertEqual(sorted(os.listdir(out_dir)), ["compare.png", "results.csv", "results.json"])
        self.assertIn("2 runs compared", out)

if __name__ == "__main__":
    unittest.main()
