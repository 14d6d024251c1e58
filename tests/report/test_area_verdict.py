"""Issue 32, one FAT reader per language: scripts/bareperf-report judges a results area as
the kernel does. For every image tests/unit/results-images makes (build/host/results-img)
and for more damaged copies of base.img made here, the kernel's verdict
(scripts/host/results-check: lib/results-area.c over lib/fat32.c) and the tool's
(area_verdict, and what --list says) must agree: both accept, or both refuse with the same
reason. Before, the tool listed moved.img, shared.img, dirshare.img and others without a
word."""
import mmap
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest
from importlib.machinery import SourceFileLoader

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(ROOT, "scripts", "bareperf-report")
REPORT = SourceFileLoader("bareperf_report", TOOL).load_module()
IMAGES = os.path.join(ROOT, "build", "host", "results-img")
CHECK = os.path.join(ROOT, "build", "host", "results-check")
# What tests/unit/results-images makes; the kernel accepts otherid.img (the identity is
# compared with the running image's by its caller, kernel/storage.c).
MADE = ("4k base dirshare deleted fatcount fatsize fragmented moved nofolder otherid resized "
        "rsvd shared spc tiny totsec truncated").split()
ACCEPTED = {"4k.img", "base.img", "otherid.img"}
PART = 1048576                  # mkimage's partition starts at 1 MiB

sys.path.insert(0, os.path.join(ROOT, "tests", "pylib"))
import forkrun  # noqa: E402  (after the path above)
TOOL_RUN = forkrun.Tool(TOOL)


def sector_size(path):
    return 4096 if os.path.basename(path) == "4k.img" else 512


def kernel_verdicts(paths):
    """The kernel's verdict on each of PATHS, in order: one results-check for them all (a
    start of the sanitized binary costs more than its verdict)."""
    args = [a for path in paths for a in (path, str(sector_size(path)))]
    p = subprocess.run([CHECK] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, encoding="latin-1",
                       timeout=60)
    verdicts = p.stdout.splitlines()
    if p.returncode not in (0, 1) or len(verdicts) != len(paths):
        raise AssertionError("results-check %s: exit %d, %r %r" % (" ".join(args), p.returncode, p.stdout, p.stderr))
    if p.returncode != (0 if all(v == "ok" for v in verdicts) else 1):
        raise AssertionError("results-check %s: exit %d for %r" % (" ".join(args), p.returncode, verdicts))
    return dict(zip(paths, verdicts))


def tool_verdict(path):
    """(sector size, verdict) as the tool reads PATH: 'ok' or the reason."""
    with open(path, "rb") as f:
        ss, total = REPORT.medium_geometry(f)
        return ss, REPORT.area_verdict(f, ss, total) or "ok"


# Damaged copies of base.img: each edits the image (an mmap) where mkimage's layout puts
# things, found as tests/unit/results-images finds them (the BPB at 1 MiB, IDENTITY and the
# directory entries by their bytes), not with the reader under test.
def bpb(data):
    bps, spc = struct.unpack_from("<HB", data, PART + 11)
    rsvd, nfats = struct.unpack_from("<HB", data, PART + 14)
    fatsz = struct.unpack_from("<I", data, PART + 36)[0]
    return bps, spc, rsvd, nfats, fatsz


def set_fat(data, cluster, value):
    bps, _, rsvd, nfats, fatsz = bpb(data)
    for k in range(nfats):
        struct.pack_into("<I", data, PART + (rsvd + k * fatsz) * bps + 4 * cluster, value)


def entry(data, name83):
    return data.find(name83, PART)


def entry_cluster(data, name83):
    e = entry(data, name83)
    return struct.unpack_from("<H", data, e + 20)[0] << 16 | struct.unpack_from("<H", data, e + 26)[0]


def set_identity_line(data, key, value):
    """IDENTITY's KEY line given VALUE, the rest of the text after it as it was."""
    i = data.find(b"bareperf results area 1\n")
    text = data[i:i + 512]
    start = text.find(b"\n" + key + b": ") + 1
    end = text.find(b"\n", start)
    text = (text[:start] + key + b": " + value + text[end:]).rstrip(b"\0")
    data[i:i + 512] = text.ljust(512, b"\0")[:512]


def identity_clusters(data):
    i = data.find(b"clusters: ", data.find(b"bareperf results area 1\n"))
    return data[i + 10:data.find(b"\n", i)].split()


COPIES = {
    "nosig": lambda d: d.__setitem__(slice(510, 512), b"\0\0"),
    "nopart": lambda d: d.__setitem__(446 + 4, 0x83),
    "bootsig": lambda d: d.__setitem__(slice(PART + 510, PART + 512), b"\0\0"),
    "fat16": lambda d: struct.pack_into("<H", d, PART + 22, 1),
    "bps": lambda d: struct.pack_into("<H", d, PART + 11, 1024),
    "totpart": lambda d: struct.pack_into("<I", d, PART + 32, struct.unpack_from("<I", d, 446 + 12)[0] + 1),
    "dirloop": lambda d: set_fat(d, entry_cluster(d, b"RESULTS    "), entry_cluster(d, b"RESULTS    ")),
    "dirout": lambda d: set_fat(d, entry_cluster(d, b"RESULTS    "), 0x0FFFFFF0),
    "slotdir": lambda d: d.__setitem__(entry(d, b"RUN03   LOG") + 11, 0x10),
    "slotout": lambda d: struct.pack_into("<H", d, entry(d, b"RUN04   LOG") + 20, 0x0FFF),
    "idsize": lambda d: struct.pack_into("<I", d, entry(d, b"IDENTITY   ") + 28, 1024),
    "idmagic": lambda d: d.__setitem__(slice(d.find(b"bareperf results area 1\n") + 22,
                                             d.find(b"bareperf results area 1\n") + 23), b"2"),
    "idimage": lambda d: set_identity_line(d, b"image", b"g" * 32),
    "idslots": lambda d: set_identity_line(d, b"slots", b"9"),
    "idkey": lambda d: set_identity_line(d, b"slot-bytes", b"524288\nslot-bytes"),
    "idfewer": lambda d: set_identity_line(d, b"clusters", b" ".join(identity_clusters(d)[:7])),
    "idmore": lambda d: set_identity_line(d, b"clusters", b" ".join(identity_clusters(d) + [b"99"])),
    # 0x hex is a number to the kernel's parser (str_to_u64): accepted by both.
    "idhex": lambda d: set_identity_line(d, b"clusters", b" ".join([b"0x%x" % int(identity_clusters(d)[0])]
                                                                    + identity_clusters(d)[1:])),
}
# The reason each copy must get: the copies must be what their names say.
COPY_REASON = {
    "nosig": "no MBR partition table", "nopart": "no FAT partition", "bootsig": "has no FAT boot sector",
    "fat16": "FAT12/16", "bps": "FAT bytes per sector 1024", "totpart": "does not fit its partition",
    "dirloop": "/bareperf/results: directory chain longer than the volume (a loop)",
    "dirout": "/bareperf/results: directory chain has cluster 268435440, outside the volume",
    "slotdir": "/bareperf/results/run03.log is not a file", "slotout": "run04.log starts at cluster",
    "idsize": "IDENTITY is 1024 bytes, not 512", "idmagic": "IDENTITY does not start with",
    "idimage": "IDENTITY: image is not 32 hex digits", "idslots": "IDENTITY: slots '9', this kernel knows 8",
    "idkey": "'slot-bytes' where 'clusters:' belongs", "idfewer": "has no number for slot 8",
    "idmore": "has more than 8 numbers", "idhex": "ok",
}


class AreaVerdict(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        missing = [p for p in (CHECK, os.path.join(IMAGES, "done")) if not os.path.exists(p)]
        if missing:
            raise AssertionError("missing %s: build them with make -j2 all unit-tests "
                                 "(make build/host/results-img/done)" % ", ".join(missing))
        cls.tmp = tempfile.mkdtemp()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def agree(self, path, kernel, want=None):
        """The kernel's verdict on PATH (KERNEL), what --list says and the tool's own
        verdict, all one; WANT (a part of the reason, or 'ok') when given. Returns the
        verdict."""
        ss = sector_size(path)
        if want is not None:
            self.assertIn(want, kernel)
        rc, out, err = TOOL_RUN.run(["--list", path], text=True, timeout=60)
        self.assertNotIn("Traceback", err)
        if kernel == "ok":
            self.assertEqual((rc, err), (0, ""), "%s: the kernel accepts it" % path)
        elif rc == 0:
            self.assertEqual(err, "bareperf-report: the results area on '%s' is damaged: %s; bareperf saves "
                                  "no runs there\n" % (path, kernel))
            self.assertTrue(out.startswith("file "), out)
        else:
            self.assertEqual((rc, out, err), (1, "", "bareperf-report: no results area on '%s': %s\n"
                                              % (path, kernel)))
        self.assertEqual(tool_verdict(path), (ss, kernel), "%s: the tool's verdict differs from the kernel's" % path)
        return kernel

    def test_made_images(self):
        names = sorted(n for n in os.listdir(IMAGES) if n.endswith(".img"))
        self.assertEqual(names, sorted(n + ".img" for n in MADE))
        kernel = kernel_verdicts([os.path.join(IMAGES, name) for name in names])
        for name in names:
            with self.subTest(image=name):
                path = os.path.join(IMAGES, name)
                verdict = self.agree(path, kernel[path])
                self.assertEqual(verdict == "ok", name in ACCEPTED, verdict)

    def test_damaged_copies(self):
        paths = {}
        for name, damage in sorted(COPIES.items()):
            paths[name] = path = os.path.join(self.tmp, name + ".img")
            subprocess.run(["cp", "--sparse=always", os.path.join(IMAGES, "base.img"), path], check=True)
            with open(path, "r+b") as f, mmap.mmap(f.fileno(), 0) as data:
                damage(data)
                data.flush()
        kernel = kernel_verdicts(list(paths.values()))
        for name, path in paths.items():
            with self.subTest(copy=name):
                self.agree(path, kernel[path], COPY_REASON[name])
            os.remove(path)

    def test_long_folder_loop(self):
        """A folder chain that loops back past the clusters the reader remembers is found
        a loop all the same (lib/fat32.c's verdict), with no more memory."""
        class Chain(REPORT.FatVolume):
            def __init__(self, back, end):
                self.back, self.end, self.clusters = back, end, end + 10

            def fat_next(self, c):
                return self.back if c == self.end else c + 1
        end = REPORT.DIR_MAX_ENTRIES + 5000
        with self.assertRaisesRegex(REPORT.AreaError, "^/x: directory chain longer than the volume \\(a loop\\)$"):
            list(Chain(30000, end).folder_clusters(2, "/x"))
        self.assertEqual(len(list(Chain(REPORT.FAT32_EOC_MIN, end).folder_clusters(2, "/x"))), end - 1)

    def test_reason_cut_as_the_kernel_cuts(self):
        """A reason longer than RESULTS_ERR_MAX ends at a word and '...', as fmt_error's."""
        long = "IDENTITY: " + " ".join(["word"] * 60)
        # 199 characters fit; the last space at or before the 197th is at 194.
        self.assertEqual(REPORT.cut_reason(long), long[:194] + "...")
        self.assertEqual(REPORT.cut_reason("short"), "short")


if __name__ == "__main__":
    unittest.main()
