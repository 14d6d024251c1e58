"""scripts/bareperf-report --list / --run: runs saved in the results area of an image made
by scripts/mkimage (docs/results-area.md), read from the image file and from a copy of the
folder as a mounted partition shows it. The slots are written here with mtools, in the
kernel's header format (lib/results-area.c results_header_format)."""
import csv
import hashlib
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
import zlib
from importlib.machinery import SourceFileLoader

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(ROOT, "scripts", "bareperf-report")
REPORT = SourceFileLoader("bareperf_report", TOOL).load_module()
SAMPLE = os.path.join(ROOT, "tests", "data", "serial-sample.log")
ENV = dict(os.environ, MTOOLS_SKIP_CHECK="1", PATH=os.environ.get("PATH", "") + ":/usr/sbin")
ID = "00112233445566778899aabbccddeeff"


def without_origin(text):
    """A results.csv without the columns that say where the run came from."""
    rows = list(csv.DictReader(io.StringIO(text)))
    return [{k: v for k, v in r.items() if k not in REPORT.ORIGIN_FIELDS} for r in rows]


def header(run, state, log, crc=None):
    text = ("bareperf run 1\nimage: %s\nrun: %d\nstate: %s\nrtc: 2026-11-26 06:50:16\n"
            "cpu: QEMU Virtual CPU version 2.5+\nlength: %d\ncrc32: %08x\nend\n"
            % (ID, run, state, len(log), zlib.crc32(log) if crc is None else crc))
    return text.encode().ljust(4096, b"\0")


sys.path.insert(0, os.path.join(ROOT, "tests", "pylib"))
import forkrun  # noqa: E402  (after the path above)
TOOL_RUN = forkrun.Tool(TOOL)       # each run a fork of this process: no new interpreter


def run_tool(*args):
    return TOOL_RUN.run(args, text=True)


@unittest.skipUnless(shutil.which("mcopy") and shutil.which("grub-mkimage"), "mtools, grub: scripts/install-deps")
class SavedRuns(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp()
        stand_in = os.path.join(cls.tmp, "stand-in")
        with open(stand_in, "w") as f:
            f.write("stand-in\n")
        cls.img = os.path.join(cls.tmp, "stick.img")
        subprocess.run([os.path.join(ROOT, "scripts", "mkimage"), cls.img, stand_in, stand_in, stand_in],
                       check=True, env=ENV, stdout=subprocess.DEVNULL)
        with open(SAMPLE, "rb") as f:
            cls.log = f.read()
        half = cls.log[:len(cls.log) // 2]
        cls.put(1, header(1, "complete", cls.log) + cls.log)
        cls.put(2, header(2, "writing", half) + half)                       # stopped mid-save
        cls.put(3, header(3, "complete", cls.log, zlib.crc32(cls.log) ^ 1) + cls.log)  # bytes changed
        cls.put(5, b"not a header\n")
        cls.mnt = os.path.join(cls.tmp, "mnt")
        os.makedirs(os.path.join(cls.mnt, "bareperf"))
        subprocess.run(["mcopy", "-s", "-i", cls.img + "@@1M", "::/bareperf/results",
                        os.path.join(cls.mnt, "bareperf")], check=True, env=ENV)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    @classmethod
    def put(cls, slot, data):
        """DATA into slot SLOT's own clusters, as the kernel writes it: the area stays as
        mkimage made it (mcopy -o would give the file other clusters)."""
        with open(cls.img, "r+b") as f:
            vol = REPORT.FatVolume(f, 512, os.path.getsize(cls.img) // 512)
            first = vol.dir_find(vol.results_folder(), b"RUN%02d   LOG" % slot, "")[2]
            f.seek(vol.cluster_lba(first) * 512)
            f.write(data.ljust(524288, b"\0"))

    def test_list(self):
        for source in (self.img, self.mnt, os.path.join(self.mnt, "bareperf", "results")):
            rc, out, err = run_tool("--list", source)
            self.assertEqual((rc, err), (0, ""))        # the area as mkimage made it: no warning
            rows = {l.split()[0]: l.split() for l in out.splitlines()[1:]}
            self.assertEqual(sorted(rows), ["run%02d.log" % i for i in range(1, 9)])
            self.assertEqual(rows["run01.log"][1:4], ["1", "complete", "2026-11-26"])
            self.assertEqual(rows["run02.log"][1:3], ["2", "torn"])
            self.assertEqual(rows["run03.log"][1:3], ["3", "torn"])
            self.assertEqual(rows["run04.log"][1:3], ["-", "empty"])
            self.assertEqual(rows["run05.log"][1:3], ["-", "damaged"])
            self.assertEqual(rows["run01.log"][5:8], ["run", "21", str(len(self.log))])
            self.assertEqual(" ".join(rows["run01.log"][8:]), "QEMU Virtual CPU version 2.5+")

    def test_report_equals_serial_log(self):
        want = {}
        for what in ("--json", "--csv"):
            path = os.path.join(self.tmp, "serial" + what)
            self.assertEqual(run_tool(SAMPLE, what, path)[0], 0)
            with open(path) as f:
                want[what] = f.read()
        _, want_summary, _ = run_tool(SAMPLE, "--summary")
        for source in (self.img, self.mnt, os.path.join(self.mnt, "bareperf", "results", "run01.log")):
            for what in ("--json", "--csv"):
                path = os.path.join(self.tmp, "saved" + what)
                rc, _, err = run_tool("--run", "1", source, what, path)
                self.assertEqual(rc, 0, err)
                with open(path) as f:
                    got = f.read()
                if what == "--csv":
                    # Equal but for where the run came from: a saved run knows its number
                    # and date (issue 34).
                    rows = list(csv.DictReader(io.StringIO(got)))
                    self.assertEqual({(r["run"], r["date"], r["input"]) for r in rows},
                                     {("1", "2026-11-26 06:50:16", source)})
                    self.assertEqual({r["run_label"] for r in rows}, {"QEMU TCG CPU version 2.5+ run 1"})
                    got, want_csv = without_origin(got), without_origin(want[what])
                    self.assertEqual(got, want_csv, source)
                else:
                    self.assertEqual(got, want[what], "%s %s" % (source, what))
            rc, out, err = run_tool("--run", "1", source, "--summary")
            self.assertEqual((rc, out), (0, want_summary), err)

    def test_torn_runs(self):
        for run, why in ((2, "the save did not finish"), (3, "do not match the header's CRC-32")):
            path = os.path.join(self.tmp, "torn.json")
            rc, _, err = run_tool("--run", str(run), self.img, "--json", path)
            self.assertEqual(rc, 1)
            self.assertIn("run %d is torn: " % run, err)
            self.assertIn(why, err)
            self.assertTrue(os.path.getsize(path) > 0, "the saved part is still reported")

    def test_missing_run_and_no_area(self):
        rc, _, err = run_tool("--run", "7", self.img, "--summary")
        self.assertEqual(rc, 1)
        self.assertIn("no run 7", err)
        self.assertIn("runs there: 1, 2, 3", err)
        rc, _, err = run_tool("--list", SAMPLE)
        self.assertEqual(rc, 1)
        self.assertIn("no results area", err)
        rc, _, err = run_tool("--list", self.tmp + "/nowhere")
        self.assertEqual(rc, 1)
        self.assertIn("cannot read", err)

    def test_run_number_max(self):
        """Run numbers stop at 999999999, as the kernel's (lib/results-area.h RESULTS_RUN_MAX):
        a header with that number is a run, one past it is damaged, --run past it says so, and
        --list says that no more runs are saved."""
        path = os.path.join(self.tmp, "runmax.img")
        subprocess.run(["cp", "--sparse=always", self.img, path], check=True)
        for slot, run in ((6, 999999999), (7, 1000000000)):
            data = header(run, "complete", self.log) + self.log
            with open(os.path.join(self.tmp, "slot"), "wb") as f:
                f.write(data.ljust(524288, b"\0"))
            subprocess.run(["mcopy", "-o", "-i", path + "@@1M", os.path.join(self.tmp, "slot"),
                            "::/bareperf/results/run%02d.log" % slot], check=True, env=ENV)
        rc, out, err = run_tool("--list", path)
        self.assertEqual(rc, 0, err)
        rows = {l.split()[0]: l for l in out.splitlines()[1:]}
        self.assertEqual(rows["run06.log"].split()[1:3], ["999999999", "complete"])
        self.assertIn("damaged    run '1000000000' is not a number from 1 to 999999999", rows["run07.log"])
        self.assertIn("run 999999999 in run06.log is the highest number a header holds", out)
        self.assertEqual(run_tool("--run", "999999999", path, "--json", os.devnull)[0], 0)
        rc, _, err = run_tool("--run", "1000000000", path, "--summary")
        self.assertEqual(rc, 1)
        self.assertIn("no run 1000000000: run numbers go from 1 to 999999999", err)

    def damaged_copy(self, name):
        """A copy of the image, and (offset of run01.log's first cluster, offset of its FAT
        entry, that cluster's number), as the tool's own FAT reader finds them."""
        path = os.path.join(self.tmp, name)
        subprocess.run(["cp", "--sparse=always", self.img, path], check=True)    # 64 MiB, mostly holes
        with open(path, "rb") as f:
            vol = REPORT.FatVolume(f, 512, os.path.getsize(path) // 512)
            first = vol.dir_find(vol.results_folder(), b"RUN01   LOG", "")[2]
            return path, vol.cluster_lba(first) * 512, vol.fat_lba * 512 + 4 * first, first

    def test_damaged_medium(self):
        """A medium cut short inside a slot, and a FAT chain that leaves the volume or
        loops: the area is damaged (the kernel's reason, one line), the slot is a row that
        says why it cannot be read, the others are listed; no traceback."""
        path, data, _, _ = self.damaged_copy("cut.img")
        os.truncate(path, data + 1000)
        rc, out, err = run_tool("--list", path)
        self.assertEqual((rc, err), (0, "bareperf-report: the results area on '%s' is damaged: the medium's %d "
                                        "sectors of 512 bytes cannot hold a results area (4198912 bytes at "
                                        "least); bareperf saves no runs there\n" % (path, (data + 1000) // 512)))
        self.assertRegex(out, r"\nrun01\.log +- +unreadable +the medium ends at byte %d\n" % (data + 1000))
        self.assertRegex(out, r"\nrun08\.log +- +unreadable +the medium ends at byte %d\n" % (data + 1000))  # past it
        path, _, entry, first = self.damaged_copy("astray.img")
        with open(path, "r+b") as f:
            f.seek(entry)
            f.write((0x0FFFFFF0).to_bytes(4, "little"))
        rc, out, err = run_tool("--list", path)
        self.assertEqual(rc, 0, err)
        self.assertIn("is damaged: /bareperf/results/run01.log is not one contiguous run of clusters "
                      "(cluster %d is followed by %d); bareperf saves no runs there" % (first, 0x0FFFFFF0), err)
        self.assertRegex(out, r"\nrun01\.log +- +unreadable +its cluster chain leaves the volume at cluster %d\n"
                         % 0x0FFFFFF0)
        self.assertRegex(out, r"\nrun02\.log +2 +torn ")
        with open(path, "r+b") as f:       # the chain back to its own first cluster: a loop
            f.seek(entry)
            f.write(first.to_bytes(4, "little"))
        rc, out, err = run_tool("--list", path)
        self.assertEqual(rc, 0, err)
        self.assertIn("(cluster %d is followed by %d)" % (first, first), err)
        self.assertRegex(out, r"\nrun01\.log +- +unreadable +its cluster chain comes back to cluster %d \(a loop\)\n"
                         % first)
        rc, _, err = run_tool("--run", "1", path, "--summary")
        self.assertEqual(rc, 1)
        self.assertIn("no run 1 on '%s' (runs there: 2, 3; not read: run01.log, see --list)" % path, err)

    def test_damaged_area_still_read(self):
        """An area the kernel would not write (run08.log's entry says 4096 bytes) is said to
        be damaged, on one line, and its runs are still read: the listing and the report
        are whole, exit status 0."""
        path, _, _, _ = self.damaged_copy("resized.img")
        with open(path, "r+b") as f:
            vol = REPORT.FatVolume(f, 512, os.path.getsize(path) // 512)
            f.seek(self.dir_entry(vol, "RUN08   LOG") + 28)
            f.write((4096).to_bytes(4, "little"))
        line = ("bareperf-report: the results area on '%s' is damaged: /bareperf/results/run08.log is 4096 "
                "bytes, not 524288 as created; bareperf saves no runs there\n" % path)
        rc, out, err = run_tool("--list", path)
        self.assertEqual((rc, err), (0, line))
        self.assertRegex(out, r"\nrun01\.log +1 +complete ")
        _, want, _ = run_tool(SAMPLE, "--summary")
        self.assertEqual(run_tool("--run", "1", path, "--summary"), (0, want, line))

    def folder_copy(self, name):
        """A copy of the mounted folder's bareperf/results, to change."""
        path = os.path.join(self.tmp, name)
        shutil.copytree(os.path.join(self.mnt, "bareperf", "results"), path)
        return path

    def test_odd_entries_in_a_folder(self):
        """Issue 32: a folder, a dangling symlink, a FIFO or a socket named runNN.log is a
        row that says what it is. Before: IsADirectoryError and FileNotFoundError
        tracebacks, and a FIFO waited forever."""
        import socket
        folder = self.folder_copy("odd")
        os.remove(os.path.join(folder, "run05.log"))
        os.mkdir(os.path.join(folder, "run05.log"))
        os.remove(os.path.join(folder, "run06.log"))
        os.symlink("nowhere", os.path.join(folder, "run06.log"))
        os.remove(os.path.join(folder, "run07.log"))
        os.mkfifo(os.path.join(folder, "run07.log"))
        os.remove(os.path.join(folder, "run08.log"))
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(os.path.join(folder, "run08.log"))
        try:
            rc, out, err = TOOL_RUN.run(["--list", folder], text=True, timeout=10)
            self.assertEqual((rc, err), (0, ""))
            self.assertRegex(out, r"\nrun05\.log +- +unreadable +a directory, not a file\n")
            self.assertRegex(out, r"\nrun06\.log +- +unreadable +a symbolic link to 'nowhere', which does not exist\n")
            self.assertRegex(out, r"\nrun07\.log +- +unreadable +a FIFO, not a file\n")
            self.assertRegex(out, r"\nrun08\.log +- +unreadable +a socket, not a file\n")
            self.assertRegex(out, r"\nrun01\.log +1 +complete ")
            rc, _, err = TOOL_RUN.run(["--run", "1", folder, "--summary"], text=True, timeout=10)
            self.assertEqual((rc, err), (0, ""))
            rc, _, err = TOOL_RUN.run(["--run", "1", os.path.join(folder, "run07.log"), "--summary"],
                                      text=True, timeout=10)
            self.assertEqual(rc, 1)
            self.assertIn("is a FIFO, not an image file", err)
        finally:
            sock.close()

    def test_sources_that_are_not_media(self):
        """--list and --run read an image file, a block device or a folder; a FIFO (which
        waited forever) or a character device is refused at once."""
        fifo = os.path.join(self.tmp, "fifo")
        os.mkfifo(fifo)
        try:
            for source, kind in ((fifo, "a FIFO"), ("/dev/zero", "a character device")):
                rc, _, err = TOOL_RUN.run(["--list", source], text=True, timeout=10)
                self.assertEqual(rc, 1, err)
                self.assertIn("'%s' is %s, not an image file, a block device or a folder" % (source, kind), err)
        finally:
            os.remove(fifo)
        # The image without --run: every run saved there, side by side (issue 34); the
        # torn ones say so, and the exit status too.
        rc, out, err = run_tool(self.img, "--summary")
        self.assertEqual(rc, 1)
        self.assertIn("run 2 is torn: the save did not finish", err)
        self.assertIn("3 runs compared; ratios (xN) are to QEMU TCG CPU version 2.5+ run 1", out)
        # A serial log given with --run is no medium: a usage error.
        rc, out, err = run_tool(SAMPLE, "--run", "1", "--summary")
        self.assertEqual((rc, out), (2, ""))
        self.assertIn("--run applies to runs saved on a medium", err)

    def test_one_run_in_several_slots_is_ambiguous(self):
        """Issue 32: six slots that all said run 3 made --run 3 pick one without a word."""
        folder = self.folder_copy("twice")
        for slot in (6, 7):
            with open(os.path.join(folder, "run%02d.log" % slot), "wb") as f:
                f.write((header(3, "complete", self.log) + self.log).ljust(524288, b"\0"))
        rc, out, err = run_tool("--run", "3", folder, "--summary")
        self.assertEqual((rc, out), (1, ""))
        self.assertIn("run 3 is in 3 slots (run03.log, run06.log, run07.log)", err)
        rc, out, err = run_tool("--list", folder)
        self.assertEqual(rc, 0)
        self.assertIn("warning: run 3 is in 3 slots (run03.log, run06.log, run07.log)", err)
        # Compared, every run there: each of the three is a column of its own, said so.
        rc, out, err = run_tool(folder, "--summary")
        self.assertEqual(rc, 1, err)            # runs 2 and 3 (slot 3) are torn
        self.assertIn("run 3 is in 3 slots (run03.log, run06.log, run07.log); each is shown", err)
        for label, slot in (("run 3", "run03.log"), ("run 3 #2", "run06.log"), ("run 3 #3", "run07.log")):
            self.assertIn("QEMU TCG CPU version 2.5+ %s: %s %s;" % (label, folder, slot), out)

    def dir_entry(self, vol, name):
        """The byte offset of NAME's entry in /bareperf/results (in its first cluster)."""
        results = vol.results_folder()
        data = vol.read(vol.cluster_lba(results), vol.spc)
        index = [o for o in range(0, len(data), 32) if data[o:o + 11] == name.encode()][0]
        return vol.cluster_lba(results) * vol.ss + index

    def test_odd_entries_on_the_medium(self):
        """A folder or an empty file where a slot should be is a row that says so (before:
        left out of the list without a word); a slot whose entry claims 4 GiB over a
        looping chain reads at most one slot's bytes (before: 4 GiB read into memory) and
        says it loops."""
        path, _, entry, first = self.damaged_copy("odd.img")
        subprocess.run(["mdel", "-i", path + "@@1M", "::/bareperf/results/run05.log"], check=True, env=ENV)
        subprocess.run(["mmd", "-i", path + "@@1M", "::/bareperf/results/run05.log"], check=True, env=ENV)
        with open(path, "r+b") as f:
            vol = REPORT.FatVolume(f, 512, os.path.getsize(path) // 512)
            size_field = self.dir_entry(vol, "RUN01   LOG") + 28
            f.seek(size_field)
            f.write((0xFFFFFFFF).to_bytes(4, "little"))
            f.seek(entry)                       # the chain back to its own first cluster
            f.write(first.to_bytes(4, "little"))
        import resource

        def cap():
            resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
        p = subprocess.run(["/usr/bin/python3", TOOL, "--list", path], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=20, preexec_fn=cap)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("is damaged: /bareperf/results/run01.log is 4294967295 bytes, not 524288 as created", p.stderr)
        self.assertRegex(p.stdout, r"\nrun01\.log +- +unreadable +its cluster chain comes back to cluster %d "
                         r"\(a loop\)\n" % first)
        self.assertRegex(p.stdout, r"\nrun05\.log +- +unreadable +a folder, not a file\n")

    def test_read_only(self):
        with open(self.img, "rb") as f:
            before = hashlib.file_digest(f, "sha256").hexdigest()     # in pieces: 64 MiB
        os.chmod(self.img, 0o444)
        try:
            self.assertEqual(run_tool("--list", self.img)[0], 0)
            self.assertEqual(run_tool("--run", "1", self.img, "--summary")[0], 0)
        finally:
            os.chmod(self.img, 0o644)
        with open(self.img, "rb") as f:
            self.assertEqual(hashlib.file_digest(f, "sha256").hexdigest(), before)

    def test_sizes_match_lib(self):
        """The tool's copy of the sizes equals lib/results-area.h's."""
        with open(os.path.join(ROOT, "lib", "results-area.h")) as f:
            h = dict(re.findall(r"^#define (RESULTS_\w+) (\d+)$", f.read(), re.M))
        with open(TOOL) as f:
            tool = f.read()
        self.assertIn("SLOT_HEADER_BYTES = %s " % h["RESULTS_HEADER_BYTES"], tool)
        self.assertIn("SLOT_BYTES = %s " % h["RESULTS_SLOT_BYTES"], tool)
        self.assertIn("RESULTS_RUN_MAX = %s " % h["RESULTS_RUN_MAX"], tool)
        with open(os.path.join(ROOT, "lib", "fat32.h")) as f:
            h.update(re.findall(r"^#define (FAT32_\w+) (\d+)", f.read(), re.M))
        for name in ("RESULTS_SLOTS", "RESULTS_IDENTITY_BYTES", "RESULTS_ERR_MAX", "FAT32_FAT_WINDOW_BYTES",
                     "FAT32_DIR_RUNS", "FAT32_FIRST_CLUSTER"):
            self.assertRegex(tool, r"\n%s = %s\b" % (name, h[name]))


if __name__ == "__main__":
    unittest.main()
