"""Tests of scripts/bareperf-report against a real serial capture (tests/data/serial-sample.log,
taken under scripts/qemu-run --icount, so its numbers are exact) and broken variants of it."""
import csv
import io
import json
import os
import shutil
import subprocess
import tempfile
import unittest
from importlib.machinery import SourceFileLoader

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(ROOT, "scripts", "bareperf-report")
SAMPLE = os.path.join(ROOT, "tests", "data", "serial-sample.log")
report = SourceFileLoader("bareperf_report", TOOL).load_module()
HAVE_GNUPLOT = shutil.which("gnuplot") is not None


def sample_text():
    with open(SAMPLE, encoding="utf-8", errors="replace") as f:
        return f.read()


def run_tool(*args, stdin=None):
    p = subprocess.run(["/usr/bin/python3", TOOL] + list(args), input=stdin,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return p.returncode, p.stdout, p.stderr


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

    def test_cut_short_log_warns(self):
        text = "\n".join(l for l in sample_text().split("\n") if not l.startswith("@done"))
        log = report.parse_log(text, "cut")
        self.assertIn("no @done line", "\n".join(log.warnings))

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
        out_dir = os.path.join(self.dir, "rep")
        rc, out, err = run_tool(SAMPLE, "-o", out_dir)
        self.assertEqual(rc, 0, err)
        for name in ("results.csv", "results.json", "latency.png", "cpl.png"):
            self.assertTrue(os.path.exists(os.path.join(out_dir, name)), name)
        for name in ("latency.png", "cpl.png"):
            with open(os.path.join(out_dir, name), "rb") as f:
                data = f.read()
            self.assertEqual(data[:8], b"\x89PNG\r\n\x1a\n")
            self.assertGreater(len(data), 2000)

    def test_outputs_follow_umask(self):
        # Outputs go through temporary files, which mkstemp creates 0600; the tool must
        # give them the usual umask-derived mode so others can read a shared report.
        out_dir = os.path.join(self.dir, "perm")
        old = os.umask(0o022)
        try:
            rc, _, err = run_tool(SAMPLE, "-o", out_dir)
        finally:
            os.umask(old)
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


if __name__ == "__main__":
    unittest.main()
