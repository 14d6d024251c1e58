"""Storage: PCI, the AHCI and IDE disks, the results area."""
from cases.screen import *  # noqa: F401,F403 (the helpers of the areas before)

CASES = []

# ---------------------------------------------------------------- storage (issue 17)
# PCI by ECAM where the MCFG gives it (q35: segment 0, buses 0-255 at 0xB0000000), by
# configuration mechanism #1 where there is none (-machine pc); the disk's controller in
# each: q35's ICH9 AHCI at 00:1f.2, pc's PIIX3 IDE at 00:01.1. On q35 the AHCI driver reads
# the boot disk and finds the results area mkimage made, with the image's identity.

Q35_AHCI = ["pci.config=ecam (MCFG: segment 0, buses 0-255 at 0xb0000000)",
            "storage.controller=ahci 00:1f.2 8086:2922",
            "storage.disk=SATA disk (AHCI 00:1f.2, port 0): 131072 sectors of 512 bytes"]
# The last line of a run written on an image qemu-run opened snapshot=on (% the run and
# where it went).
SNAPSHOT_SAVE = r"^not saved: the disk is a QEMU snapshot \(scripts/qemu-run --writable-image keeps runs\); %s$"


def image_identity(image):
    """The identity in IMAGE's /bareperf/results/IDENTITY, read with mtools."""
    p = subprocess.run(["mtype", "-i", image + "@@1M", "::/bareperf/results/IDENTITY"],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                       env=dict(os.environ, MTOOLS_SKIP_CHECK="1"))
    m = re.search(rb"^image: ([0-9a-f]{32})$", p.stdout, re.M)
    return m.group(1).decode() if m else None


def results_area_found(image, where=r"AHCI 00:1f\.2, port 0"):
    def check(out):
        ident = image_identity(image)
        if not ident:
            return ["%s has no identity to compare with" % image]
        rx = r"^storage\.results=%s on %s: 8 slots from sector \d+ \(this image\)$" % (ident, where)
        problems = [] if re.search(rx, out, re.M) else ["no storage.results line with the image's identity " + ident]
        # as the loader passes it, or qemu-run --direct (a writable=True case's boot)
        if not re.search(r"^boot\.image=%s( \(from fw_cfg opt/bareperf/identity\))?$" % ident, out, re.M):
            problems.append("no boot.image=%s line: the loader did not pass IDENTITY" % ident)
        return problems
    return check


# Most cases here share their boot with a self-test or a boot menu case of the same kernel
# and firmware (bios-selftest-qemu64, i686-selftest-pentium3, selftest-qemu64; the BIOS_ and
# UEFI_ argument lists of menu.py): run-boots boots alike commands once, and every mode's
# output has the storage lines.
CASES += [
    dict(name="storage-pci-q35-ahci", args=SELFTEST_MENU,
         lines=BIOS + Q35_AHCI, match=[r"^pci\.functions=[1-9]"], absent=NO_FAIL,
         check=results_area_found("build/bareperf.img")),
    dict(name="storage-pci-q35-ahci-uefi", uefi=True, args=SELFTEST_MENU,
         lines=["boot.firmware=uefi"] + Q35_AHCI, absent=NO_FAIL, check=results_area_found("build/bareperf.img")),
    # With RAM above 4 GiB (q35: 2 GiB below, 2.5 GiB above), which paging.mmio_above_4g
    # maps under PAE as a 64-bit BAR's registers would be.
    dict(name="storage-pci-q35-ahci-i686", args=["--bios", "--cpu", "pentium3", "--mem", "4608"], config="mode=selftest",
         lines=BIOS32 + Q35_AHCI + ["PASS: paging.mmio_above_4g"], absent=NO_FAIL, check=results_area_found("build/bareperf.img")),
    dict(name="storage-pci-pc-ide", args=BIOS_OVERRIDES_PC_IDE,
         lines=["boot.firmware=bios", "storage.controller=ide 00:01.1 8086:7010",
                "storage.disk=IDE disk (IDE 00:01.1, primary master): 131072 sectors of 512 bytes"],
         match=[r"^pci\.config=legacy \(no MCFG \(\"MCFG\"\) among the \d+ entries of the RSDT at 0x[0-9a-f]+\)$"],
         absent=NO_FAIL + [r"^storage\.controller=ahci"],
         check=results_area_found("build/test-cfg-detect.img", "IDE 00:01\\.1, primary master")),
    # The same IDE disk under OVMF (i440fx, no MCFG either), in screen-uefi-results' boot.
    dict(name="storage-pci-pc-ide-uefi", uefi=True, args=UEFI_SCREEN_RESULTS["args"],
         config=UEFI_SCREEN_RESULTS["config"],
         lines=["boot.firmware=uefi", "storage.controller=ide 00:01.1 8086:7010",
                "storage.disk=IDE disk (IDE 00:01.1, primary master): 131072 sectors of 512 bytes"],
         match=[SNAPSHOT_SAVE % r"run 1 went to /bareperf/results/run01\.log on the IDE disk \(IDE 00:01\.1, primary master\)"],
         absent=NO_FAIL + [r"^storage\.controller=ahci"], check=results_area_found("build/bareperf.img", "IDE 00:01\\.1, primary master")),
    # The results area deleted with mtools: found missing, with the check that failed.
    dict(name="storage-results-removed", args=BIOS_CONFIG_WINS_NO_RESULTS, config="mode=detect",
         lines=Q35_AHCI + ["storage.results=none on AHCI 00:1f.2, port 0 (no folder /bareperf)",
                           "boot.image=unknown (the loader found no /bareperf/results/IDENTITY: runs are not saved)"],
         absent=NO_FAIL),
    # IDENTITY as fw_cfg file (what qemu-run --direct --writable-image passes; save-runs
    # saves through it) by PVH, where no loader passes one: one that is not an IDENTITY,
    # and one too long, are refused.
    dict(name="storage-fwcfg-identity-bad", grub=False, args=["--cpu", "qemu64", "--config", "mode=detect", "--",
                                                  "-fw_cfg", "name=opt/bareperf/identity,string=bareperf"],
         lines=["boot.image=unknown (IDENTITY does not start with 'bareperf results area 1' (from fw_cfg "
                "opt/bareperf/identity): runs are not saved)",
                "not saved: this image's identity is unknown (see boot.image)"], absent=NO_FAIL),
    dict(name="storage-fwcfg-identity-too-long", grub=False, args=["--cpu", "qemu64", "--config", "mode=detect", "--",
                                                       "-fw_cfg", "name=opt/bareperf/identity,string=" + "x" * 513],
         lines=["boot.image=unknown (fw_cfg opt/bareperf/identity is 513 bytes, more than 512: runs are not saved)",
                "not saved: this image's identity is unknown (see boot.image)"], absent=NO_FAIL),
]

# The image on a USB stick behind xHCI (qemu-run --usb): QEMU's qemu-xhci (1b36:000d) and
# NEC's uPD720200 model (1033:0194), each put at 00:01.0; QEMU attaches usb-storage to root
# port 1 (a SuperSpeed port). Under OVMF the xHCI BAR lies above 4 GiB (0xe000000000 here),
# which the x86-64 kernel maps for itself. The stick's results area is found with the
# image's identity; a tablet on the same controller is named and passed over.
XHCI_STICK = "storage.disk=USB stick (xHCI 00:01.0, port 1): 131072 sectors of 512 bytes"
SAVED_ON = r"^saved: run \d+ in /bareperf/results/run0\d\.log on the USB stick \(%s\)$"   # % where
# The same run on a snapshot image (a case that is not writable=True): written, dropped at
# QEMU's exit, and the line says so (qemu-run tells the kernel; issue 34).
SNAPSHOT_ON = SNAPSHOT_SAVE % r"run \d+ went to /bareperf/results/run0\d\.log on the USB stick \(%s\)"   # % where
QEMU_XHCI = "storage.controller=xhci 00:01.0 1b36:000d"
NEC_XHCI = "storage.controller=xhci 00:01.0 1033:0194"
ON_STICK = r"xHCI 00:01\.0, port 1"

CASES += [
    dict(name="storage-xhci-stick", args=BIOS_TIMEOUT_XHCI,
         lines=BIOS + [QEMU_XHCI, XHCI_STICK],
         match=[r"^storage\.note=xHCI 00:01\.0, port \d \(0627:0001\): no bulk-only mass-storage interface "],
         absent=NO_FAIL, check=results_area_found(MENU1_IMAGE, ON_STICK)),
    dict(name="storage-xhci-stick-uefi", uefi=True, args=UEFI_CFG_MENU_XHCI, exit=1,
         lines=["boot.firmware=uefi", QEMU_XHCI, XHCI_STICK], absent=NO_FAIL,
         match=[SNAPSHOT_ON % ON_STICK, r"^storage\.registers=xHCI 00:01\.0: BAR0 at 0x[1-9a-f][0-9a-f]{8,}, 0x4000 bytes "
                r"mapped uncached at 0xffffff"],
         check=results_area_found("build/test-cfg.img", ON_STICK)),
    # By PVH, on a copy of the image (writable): GRUB's part on a NEC stick is
    # storage-nec-xhci-stick's.
    dict(name="storage-nec-xhci-stick-i686", grub=False, writable=True, args=["--cpu", "pentium3", "--usb", "nec-xhci"],
         config="mode=detect", lines=BIOS32 + [NEC_XHCI, XHCI_STICK], absent=NO_FAIL,
         check=results_area_found("build/bareperf.img", ON_STICK)),
    dict(name="storage-nec-xhci-stick", args=BIOS_DETECT_NEC,
         lines=BIOS + [NEC_XHCI, XHCI_STICK], absent=NO_FAIL,
         check=results_area_found("build/bareperf.img", ON_STICK)),
    dict(name="storage-nec-xhci-stick-uefi", uefi=True, args=UEFI_TIMEOUT_NEC,
         config=UEFI_RUN_SMP, lines=["boot.firmware=uefi", NEC_XHCI, XHCI_STICK], absent=NO_FAIL,
         match=[SNAPSHOT_ON % ON_STICK], check=results_area_found(MENU1_IMAGE, ON_STICK)),
]

# Registers wherever the firmware puts them (issue 33): a qxl with 512 MiB of 32-bit RAM BAR
# makes SeaBIOS start its PCI window at 3 GiB (its largest BAR first), and the xHCI,
# EHCI and AHCI registers land at 0xe4000000 and up, below the i686 kernel's identity
# window at 0xf0000000: each is mapped in its MMIO window, uncached, and the run saved on
# the xHCI stick. (SeaBIOS never moves a USB controller's 64-bit BAR above 4 GiB;
# paging.mmio_above_4g checks that under PAE, with RAM standing in for registers.)
LOW_BAR = r"^storage\.registers=%s: BAR%d at 0xe[0-9a-f]{7}, 0x%s bytes mapped uncached at 0xe[c-f][0-9a-f]{6}$"
CASES += [
    dict(name="storage-bar-low-i686", grub=False, writable=True,
         args=["--cpu", "pentium3", "--usb", "xhci", "--config", "mode=detect", "--",
               "-device", "ich9-usb-ehci1,addr=0x3", "-device", "qxl,ram_size_mb=512"],
         lines=BIOS32 + [QEMU_XHCI, XHCI_STICK],
         match=[LOW_BAR % ("xHCI 00:01\\.0", 0, "4000"), LOW_BAR % ("AHCI 00:1f\\.2", 5, "1100"),
                LOW_BAR % ("EHCI 00:03\\.0", 0, "100"), SAVED_ON % ON_STICK],
         absent=NO_FAIL + [r"not reachable"], check=results_area_found("build/bareperf.img", ON_STICK)),
]

# A stick with 4096-byte sectors (usb-bot with a scsi-hd of logical_block_size=4096; QEMU's
# usb-storage reports 512 whatever it is told) beside the SATA boot disk: READ CAPACITY's
# sector size is taken, and the results area of test_results_area's 4k.img (identity
# 0011...eeff) is read through it. A 1-sector stick beside it is a disk of 1 sector (READ
# CAPACITY's last sector 0), too small for a results area.
STICK_4K = ["-device", "qemu-xhci,id=usb", "-drive", "if=none,id=s4k,format=raw,snapshot=on,"
            "file=build/host/results-img/4k.img", "-device", "usb-bot,id=bot,bus=usb.0",
            "-device", "scsi-hd,bus=bot.0,scsi-id=0,lun=0,drive=s4k,logical_block_size=4096,physical_block_size=4096",
            "-drive", "if=none,id=tiny,format=raw,snapshot=on,file=build/host/results-img/tiny.img",
            "-device", "usb-storage,bus=usb.0,drive=tiny"]
CASES += [
    # By PVH, on a copy of the image (writable), which the run is saved on.
    dict(name="storage-xhci-4k-stick", grub=False, writable=True,
         args=["--cpu", "qemu64", "--config", "mode=detect", "--"] + STICK_4K,
         lines=BIOS + [QEMU_XHCI, "storage.disk=USB stick (xHCI 00:01.0, port 1): 81920 sectors of 4096 bytes",
                       "storage.disk=SATA disk (AHCI 00:1f.2, port 0): 131072 sectors of 512 bytes",
                       "storage.disk=USB stick (xHCI 00:01.0, port 2): 1 sector of 512 bytes",
                       "storage.results=none on xHCI 00:01.0, port 2 (the medium's 1 sector of 512 bytes cannot "
                       "hold a results area (4198912 bytes at least))"],
         match=[r"^storage\.results=00112233445566778899aabbccddeeff on xHCI 00:01\.0, port 1: 8 slots from "
                r"sector \d+ \(another image\)$",
                r"^saved: run \d+ in /bareperf/results/run0\d\.log on the SATA disk \(AHCI 00:1f\.2, port 0\)$"],
         absent=NO_FAIL),
]

# The stick behind a hub (qemu-run --usb-hub: QEMU's usb-hub, a full-speed hub, on the
# controller's port 1, which is xHCI's USB 2 port 5; the stick on the hub's port 1): the
# hub's ports are powered and reset, the stick addressed with a route string and saved on.
# A tablet beside it is named; a second hub behind the first is named, not followed, and
# since a disk behind it could carry the identity too, the run is saved nowhere then.
HUB_STICK = r"xHCI 00:01\.0, port 5\.1"
HUB_BEHIND_HUB = "xHCI 00:01.0, port 5.3: a hub behind a hub; devices behind it are not searched"
CASES += [
    dict(name="storage-xhci-hub-stick", args=BIOS_NOMENU_HUB,
         lines=BIOS + [QEMU_XHCI, "storage.disk=USB stick (xHCI 00:01.0, port 5.1): 131072 sectors of 512 bytes",
                       "storage.note=" + HUB_BEHIND_HUB,
                       "not saved: 1 place that may hold a disk was not searched, and a disk there could carry "
                       "this image's identity as well (%s)" % HUB_BEHIND_HUB],
         match=[r"^storage\.note=xHCI 00:01\.0, port 5\.2 \(0627:0001\): no bulk-only mass-storage interface "],
         absent=NO_FAIL, check=results_area_found(NOMENU_IMAGE, HUB_STICK)),
    dict(name="storage-xhci-hub-stick-uefi", uefi=True, args=UEFI_NOMENU_HUB,
         lines=["boot.firmware=uefi", QEMU_XHCI, "storage.disk=USB stick (xHCI 00:01.0, port 5.1): 131072 sectors of 512 bytes"],
         match=[SNAPSHOT_ON % HUB_STICK], absent=NO_FAIL, check=results_area_found(NOMENU_IMAGE, HUB_STICK)),
]

# ---------------------------------------------------------------- EHCI stick (issue 17)
# The image as a USB stick on QEMU's ICH9 EHCI (qemu-run --usb ehci: 00:01.0, the stick on
# port 1): the controller taken from the firmware and reset, the stick addressed over EP0
# and opened by bulk-only transport, its results area found and the run written there
# (snapshot=on: the writes are discarded, and the last line says so). A full-speed device (a USB 1.1 keyboard; SeaBIOS
# spends 5 s on a tablet) on an EHCI with a UHCI companion is handed to the companion.
EHCI = ["storage.controller=ehci 00:01.0 8086:293a",
        "storage.disk=USB stick (EHCI 00:01.0, port 1): 131072 sectors of 512 bytes"]
EHCI_WHERE = r"EHCI 00:01\.0, port 1"
EHCI_SAVED = SAVED_ON % EHCI_WHERE
EHCI_SNAPSHOT = SNAPSHOT_ON % EHCI_WHERE

CASES += [
    dict(name="storage-usb-ehci", args=BIOS_RUN_EHCI, config=MENU_RUN_SMALL,
         lines=BIOS + EHCI, match=[EHCI_SNAPSHOT], absent=NO_FAIL + [r"^storage\.note="],
         check=results_area_found("build/bareperf.img", EHCI_WHERE)),
    dict(name="storage-usb-ehci-uefi", uefi=True, args=UEFI_BIG_CFG_BLT_EHCI, exit=1,
         lines=["boot.firmware=uefi"] + EHCI, match=[EHCI_SNAPSHOT], absent=NO_FAIL + [r"^storage\.note="],
         check=results_area_found("build/test-cfg-big.img", EHCI_WHERE)),
    dict(name="storage-usb-ehci-i686", args=BIOS32_SELFTEST_EHCI,
         lines=BIOS32 + EHCI, match=[EHCI_SNAPSHOT], absent=NO_FAIL + [r"^storage\.note="],
         check=results_area_found("build/bareperf.img", EHCI_WHERE)),
    # By PVH, on a copy of the image (writable: qemu-run then passes its IDENTITY, and the run
    # is saved): GRUB on EHCI takes 0.7 s more, and its part is storage-usb-ehci's.
    dict(name="storage-usb-ehci-companion", grub=False, writable=True,
         args=["--cpu", "qemu64", "--usb", "ehci", "--config", "mode=detect", "--",
               "-device", "ich9-usb-uhci1,masterbus=usb.0,firstport=0", "-device", "usb-kbd,usb_version=1,bus=usb.0,port=2"],
         lines=EHCI + ["storage.note=EHCI 00:01.0, port 2: a full-speed device, left to the companion controller "
                       "(bareperf serves only high-speed devices on EHCI)"],
         match=[EHCI_SAVED], absent=NO_FAIL),
]

# Between storage operations the EHCI's asynchronous schedule is stopped, so that the
# controller reads no memory while a payload is measured: QEMU's trace of the schedule's
# state (usb_ehci_state, on the same stream as serial) says INACTIVE before every @result
# line. The trace lines land anywhere in the serial text; without them the text is intact.
EHCI_TRACE_LINE = re.compile(r"usb_ehci_state (async|periodic) schedule [A-Z ]+\n")


def ehci_quiet_while_measuring(out):
    serial = EHCI_TRACE_LINE.sub("", out)
    problems = []
    if not re.search(EHCI_SAVED, serial, re.M):
        problems.append("the run was not saved on the EHCI stick")
    state, active_seen, results = None, False, 0
    for m in re.finditer(r"usb_ehci_state async schedule ([A-Z ]+)\n|^@result ", out, re.M):
        if m.group(1):
            state = m.group(1)
            active_seen |= state == "ACTIVE"
            continue
        results += 1
        if state != "INACTIVE":
            problems.append("@result %d printed while the async schedule was %s" % (results, state))
    if not active_seen or results < 2:
        problems.append("no async schedule trace (%s) or fewer than 2 @result lines (%d)" % (active_seen, results))
    return problems


CASES += [
    # By PVH on a copy of the image, as storage-usb-ehci-companion.
    dict(name="storage-usb-ehci-quiet", grub=False, writable=True, args=["--cpu", "qemu64", "--usb", "ehci", "--config",
                                              "payloads=empty,add_chain reps=2 warmup=0", "--",
                                              "-trace", "usb_ehci_state"],
         absent=NO_FAIL, check=ehci_quiet_while_measuring),
]

# ---------------------------------------------------------------- more disks than kept (issue 32)
# bareperf keeps open only the disks that carry this image's identity (STORAGE_DISKS_MAX
# of them); every other disk it finds is opened, reported (storage.disk, storage.results)
# and closed, however many there are. Each boot has more disks than that limit, by PVH on
# copies the case makes (run-boots copies=): the image (writable: qemu-run passes its
# IDENTITY), a second copy of it with the same identity, and blank 1 MiB disks. The check
# reads back which of them the run wrote.
BOOTS_DIR = os.path.join("build", "test-logs", "boots")


def case_disk(case, tag):
    """A disk of the case's own, made afresh before its boot (run-boots disk_copies)."""
    return os.path.join(BOOTS_DIR, "%s.%s.img" % (case, tag))


def stick(bus, port, drive, path):
    return ["-drive", "if=none,id=%s,format=raw,file=%s" % (drive, path),
            "-device", "usb-storage,bus=%s.0,port=%d,drive=%s" % (bus, port, drive)]


def sata(bus, drive, path):
    return ["-drive", "if=none,id=%s,format=raw,file=%s" % (drive, path),
            "-device", "ide-hd,bus=%s,drive=%s" % (bus, drive)]


def run_written(image):
    """Whether IMAGE holds a saved run: slot 1, the one a fresh image's first run takes, has
    a header."""
    p = subprocess.run(["mtype", "-i", image + "@@1M", "::/bareperf/results/run01.log"],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                       env=dict(os.environ, MTOOLS_SKIP_CHECK="1"))
    return p.stdout.startswith(b"bareperf run 1\n")


def written_only(written, unwritten, blank):
    """The run is in WRITTEN (None: in no image), not in any of UNWRITTEN, and every BLANK
    disk is still all zero bytes."""
    def check(out):
        problems = []
        if written and not run_written(written):
            problems.append("no run saved in %s" % written)
        problems += ["a run saved in %s" % u for u in unwritten if run_written(u)]
        for b in blank:
            with open(b, "rb") as f:
                if f.read().strip(b"\0"):
                    problems.append("%s was written" % b)
        return problems
    return check


def disk_lines(where_sectors):
    return ["storage.disk=%s: %d sectors of 512 bytes" % ws for ws in where_sectors]


TWO_CARRY = "not saved: 2 disks carry this image's identity; bareperf writes on none of them"
THIS_IMAGE = r"^storage\.results=[0-9a-f]{32} on %s: 8 slots from sector \d+ \(this image\)$"

# The issue's first setup: the image on q35's AHCI, a copy of it as a stick on xHCI port 1
# and three blank sticks beside it. The xHCI (00:01.0) is searched before the AHCI
# (00:1f.2), so the SATA disk is the fifth disk: it is examined, both carry the identity,
# and neither is written.
N = "storage-limit-sata-and-stick-copy"
CASES += [
    dict(name=N, grub=False, writable=True, timeout=60,
         copies=[(case_disk(N, "copy"), "build/bareperf.img")] + [(case_disk(N, "blank%d" % i), None) for i in (2, 3, 4)],
         args=["--cpu", "qemu64", "--config", "mode=detect", "--", "-device", "qemu-xhci,id=x"]
         + stick("x", 1, "copy", case_disk(N, "copy"))
         + sum((stick("x", i, "blank%d" % i, case_disk(N, "blank%d" % i)) for i in (2, 3, 4)), []),
         lines=disk_lines([("USB stick (xHCI 00:01.0, port 1)", 131072)]
                          + [("USB stick (xHCI 00:01.0, port %d)" % i, 2048) for i in (2, 3, 4)]
                          + [("SATA disk (AHCI 00:1f.2, port 0)", 131072)]) + [TWO_CARRY],
         match=[THIS_IMAGE % r"xHCI 00:01\.0, port 1", THIS_IMAGE % r"AHCI 00:1f\.2, port 0"],
         absent=NO_FAIL + [r"^saved:"],
         check=written_only(None, [os.path.join(BOOTS_DIR, N + ".img"), case_disk(N, "copy")],
                            [case_disk(N, "blank%d" % i) for i in (2, 3, 4)])),
]

# The second: the image as the stick on xHCI port 1, three blank sticks, and a copy with
# the same identity on the AHCI, the fifth disk.
N = "storage-limit-stick-and-sata-copy"
CASES += [
    dict(name=N, grub=False, writable=True, timeout=60,
         copies=[(case_disk(N, "copy"), "build/bareperf.img")] + [(case_disk(N, "blank%d" % i), None) for i in (2, 3, 4)],
         args=["--cpu", "qemu64", "--usb", "xhci", "--config", "mode=detect", "--"]
         + sum((stick("usb", i, "blank%d" % i, case_disk(N, "blank%d" % i)) for i in (2, 3, 4)), [])
         + sata("ide.0", "copy", case_disk(N, "copy")),
         lines=disk_lines([("USB stick (xHCI 00:01.0, port 1)", 131072)]
                          + [("USB stick (xHCI 00:01.0, port %d)" % i, 2048) for i in (2, 3, 4)]
                          + [("SATA disk (AHCI 00:1f.2, port 0)", 131072)]) + [TWO_CARRY],
         match=[THIS_IMAGE % r"xHCI 00:01\.0, port 1", THIS_IMAGE % r"AHCI 00:1f\.2, port 0"],
         absent=NO_FAIL + [r"^saved:"],
         check=written_only(None, [os.path.join(BOOTS_DIR, N + ".img"), case_disk(N, "copy")],
                            [case_disk(N, "blank%d" % i) for i in (2, 3, 4)])),
]

# Every kind of controller past the limit: four blank disks on an AHCI at 00:02.0 come
# first, then a blank IDE disk (a PIIX3 IDE at 00:03.0), a blank stick on an xHCI at
# 00:04.0, a blank disk on q35's own AHCI, and last the EHCI (00:01.0, searched after the
# others) with the image: the eighth disk, the one that carries the identity, where the run
# is saved.
N = "storage-limit-every-controller"
BLANKS = ["ahci%d" % p for p in range(4)] + ["ide", "xhci", "sata"]
CASES += [
    dict(name=N, grub=False, writable=True, timeout=60,
         copies=[(case_disk(N, b), None) for b in BLANKS],
         args=["--cpu", "qemu64", "--usb", "ehci", "--config", "mode=detect", "--",
               "-device", "ahci,id=ahci2,addr=0x2", "-device", "piix3-ide,id=pide,addr=0x3",
               "-device", "qemu-xhci,id=x,addr=0x4"]
         + sum((sata("ahci2.%d" % p, "ahci%d" % p, case_disk(N, "ahci%d" % p)) for p in range(4)), [])
         + sata("pide.0", "ide", case_disk(N, "ide")) + stick("x", 1, "xhci", case_disk(N, "xhci"))
         + sata("ide.0", "sata", case_disk(N, "sata")),
         lines=disk_lines([("SATA disk (AHCI 00:02.0, port %d)" % p, 2048) for p in range(4)]
                          + [("IDE disk (IDE 00:03.0, primary master)", 2048),
                             ("USB stick (xHCI 00:04.0, port 1)", 2048),
                             ("SATA disk (AHCI 00:1f.2, port 0)", 2048),
                             ("USB stick (EHCI 00:01.0, port 1)", 131072)]),
         match=[THIS_IMAGE % EHCI_WHERE, EHCI_SAVED], absent=NO_FAIL,
         check=written_only(os.path.join(BOOTS_DIR, N + ".img"), [], [case_disk(N, b) for b in BLANKS])),
]

# Where bareperf has a fixed number of entries still (xHCI controllers it opens, devices a
# controller serves), what it cannot open is not searched: a disk there could carry the
# identity too, so nothing is written, and the not saved: line says why. The image on EHCI
# port 1 with four blank sticks beside it (the fifth device past EHCI_DEVS_MAX) and three
# xHCI controllers (the third past STORAGE_XHCI_MAX).
N = "storage-limit-unsearched"
CASES += [
    dict(name=N, grub=False, writable=True, timeout=60,
         copies=[(case_disk(N, "blank%d" % i), None) for i in (2, 3, 4, 5)],
         args=["--cpu", "qemu64", "--usb", "ehci", "--config", "mode=detect", "--"]
         + sum((stick("usb", i, "blank%d" % i, case_disk(N, "blank%d" % i)) for i in (2, 3, 4, 5)), [])
         + sum((["-device", "qemu-xhci,addr=0x%x" % a] for a in (2, 3, 4)), []),
         lines=disk_lines([("USB stick (EHCI 00:01.0, port %d)" % i, 131072 if i == 1 else 2048) for i in (1, 2, 3, 4)])
         + ["storage.note=xHCI 00:04.0: past the 2 xHCI controllers bareperf opens",
            "storage.note=EHCI 00:01.0, port 5: bareperf serves 4 devices per controller",
            "not saved: 2 places that may hold a disk were not searched, and a disk there could carry this "
            "image's identity as well (xHCI 00:04.0: past the 2 xHCI controllers bareperf opens)"],
         match=[THIS_IMAGE % EHCI_WHERE], absent=NO_FAIL + [r"^saved:"],
         check=written_only(None, [os.path.join(BOOTS_DIR, N + ".img")],
                            [case_disk(N, "blank%d" % i) for i in (2, 3, 4, 5)])),
]

# ---------------------------------------------------------------- USB 1.1 sticks (issue 33)
# UHCI (Intel's PIIX3, PIIX4 and ICH9 models), EHCI's UHCI companions and OHCI (QEMU's
# pci-ohci, Apple's 106b:003f), by PVH on a copy of the image (writable): each controller
# taken from the firmware, reset, its stick addressed at full speed and read through control
# and bulk transfers. Each boot holds them all: the image's stick on one, and on each other a stick with another image's identity
# (test_results_area's base.img, read-only), whose results area is read through it. QEMU's
# usb-storage is a high-speed device, so an EHCI keeps it: the companion's stick is behind
# QEMU's full-speed hub, which the EHCI lets go (Port Owner) to its companion. The run is
# saved on the image's stick and read back with bareperf-report.
OTHER_IMAGE = "build/host/results-img/base.img"    # its identity follows the commit it was made at


def other_stick(hc, addr, drive, masterbus=None, hub=False):
    """A controller (QEMU device hc at 00:addr.0, a companion of masterbus) with a read-only
    stick of OTHER_IMAGE on its port 1 (behind a hub there with hub=True)."""
    bus = masterbus or drive + "hc"
    dev = ["-device", "%s,addr=0x%x" % (hc, addr) + (",masterbus=%s.0,firstport=0" % masterbus if masterbus
                                                      else ",id=%s" % bus)]
    port = "1"
    if hub:
        dev += ["-device", "usb-hub,bus=%s.0,port=1" % bus]
        port = "1.1"
    return dev + ["-drive", "if=none,id=%s,format=raw,snapshot=on,file=%s" % (drive, OTHER_IMAGE),
                  "-device", "usb-storage,bus=%s.0,port=%s,drive=%s" % (bus, port, drive)]


def saved_and_reported(case, where, others):
    """The run saved on the case's copy of the image, on the stick at where, and read back
    from the image with bareperf-report --run 1 --summary; OTHER_IMAGE's results area read
    on the sticks at others (regexes)."""
    def check(out):
        image = os.path.join(BOOTS_DIR, case + ".img")
        problems = results_area_found(image, where)(out)
        other = image_identity(OTHER_IMAGE)
        for o in others:
            rx = r"^storage\.results=%s on %s: 8 slots from sector \d+ \(another image\)$" % (other, o)
            if not other or not re.search(rx, out, re.M):
                problems.append("no storage.results line with %s's identity %s on %s" % (OTHER_IMAGE, other, o))
        p = subprocess.run([os.path.join("scripts", "bareperf-report"), "--run", "1", image, "--summary"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        text = p.stdout.decode("utf-8", "replace")
        if p.returncode != 0 or not re.search(r"^empty +- +3 ", text, re.M):
            problems.append("bareperf-report --run 1 %s --summary (status %d): %r" % (image, p.returncode,
                                                                                     text[-300:]))
        return problems
    return check


USB11_RUN = "payloads=empty reps=2 warmup=0"
N = "storage-usb11-uhci"
UHCI_WHERE = r"UHCI 00:01\.0, port 1"
CASES += [
    # x86-64: the image on a PIIX3 UHCI; PIIX4 and ICH9 UHCIs, an ICH9 EHCI with a UHCI
    # companion (its stick behind a hub) and an OHCI beside it.
    dict(name=N, grub=False, writable=True,
         args=["--cpu", "qemu64", "--usb", "uhci", "--config", USB11_RUN, "--"]
         + other_stick("piix4-usb-uhci", 5, "p4") + other_stick("ich9-usb-uhci1", 6, "i9")
         + ["-device", "ich9-usb-ehci1,id=e2,addr=0x7"] + other_stick("ich9-usb-uhci2", 8, "co", "e2", hub=True)
         + other_stick("pci-ohci", 9, "oh"),
         lines=["cpu.mode=long", "storage.controller=uhci 00:01.0 8086:7020",
                "storage.controller=uhci 00:05.0 8086:7112", "storage.controller=uhci 00:06.0 8086:2934",
                "storage.controller=ehci 00:07.0 8086:293a", "storage.controller=uhci 00:08.0 8086:2935",
                "storage.note=EHCI 00:07.0, port 1: a full-speed device, left to the companion controller "
                "(bareperf serves only high-speed devices on EHCI)",
                "storage.disk=USB stick (UHCI 00:01.0, port 1): 131072 sectors of 512 bytes",
                "storage.disk=USB stick (UHCI 00:08.0, port 1.1): 131072 sectors of 512 bytes"],
         match=[SAVED_ON % UHCI_WHERE], absent=NO_FAIL,
         check=saved_and_reported(N, UHCI_WHERE, [r"UHCI 00:05\.0, port 1", r"UHCI 00:06\.0, port 1",
                                                  r"UHCI 00:08\.0, port 1\.1", r"OHCI 00:09\.0, port 1"])),
]
N = "storage-usb11-companion-i686"
COMPANION_WHERE = r"UHCI 00:02\.0, port 1\.1"
CASES += [
    # i686: the image behind a hub on an ICH9 EHCI's port 1, handed to its first UHCI
    # companion (qemu-run --usb ehci-uhci --usb-hub: the EHCI at 00:01.0, the companions at
    # 00:02.0-00:04.0); PIIX3 and PIIX4 UHCIs and an OHCI beside it.
    dict(name=N, grub=False, writable=True,
         args=["--cpu", "pentium3", "--usb", "ehci-uhci", "--usb-hub", "--config", USB11_RUN, "--"]
         + other_stick("piix3-usb-uhci", 5, "p3") + other_stick("piix4-usb-uhci", 6, "p4")
         + other_stick("pci-ohci", 7, "oh"),
         lines=["cpu.mode=protected", "storage.controller=ehci 00:01.0 8086:293a",
                "storage.controller=uhci 00:02.0 8086:2934",
                "storage.note=EHCI 00:01.0, port 1: a full-speed device, left to the companion controller "
                "(bareperf serves only high-speed devices on EHCI)",
                "storage.disk=USB stick (UHCI 00:02.0, port 1.1): 131072 sectors of 512 bytes"],
         match=[SAVED_ON % COMPANION_WHERE], absent=NO_FAIL,
         check=saved_and_reported(N, COMPANION_WHERE, [r"UHCI 00:05\.0, port 1", r"UHCI 00:06\.0, port 1",
                                                       r"OHCI 00:07\.0, port 1"])),
]
N = "storage-usb11-ohci-i686"
OHCI_WHERE = r"OHCI 00:01\.0, port 1\.1"
CASES += [
    # i686: the image behind a hub on an OHCI (qemu-run --usb ohci --usb-hub, at 00:01.0; its
    # registers are MMIO), an ICH9 UHCI beside it.
    dict(name=N, grub=False, writable=True,
         args=["--cpu", "pentium3", "--usb", "ohci", "--usb-hub", "--config", USB11_RUN, "--"]
         + other_stick("ich9-usb-uhci1", 5, "i9"),
         lines=["cpu.mode=protected", "storage.controller=ohci 00:01.0 106b:003f",
                "storage.controller=uhci 00:05.0 8086:2934",
                "storage.disk=USB stick (OHCI 00:01.0, port 1.1): 131072 sectors of 512 bytes"],
         match=[SAVED_ON % OHCI_WHERE], absent=NO_FAIL,
         check=saved_and_reported(N, OHCI_WHERE, [r"UHCI 00:05\.0, port 1"])),
]

# The UHCI-only machine, where nothing is saved: the not saved: line names the
# USB 1.1 controllers searched. The image's stick on a UHCI (a copy, which gives the kernel
# its IDENTITY by fw_cfg) answers every read with an error (QEMU's blkdebug), and an OHCI
# sits beside it.
N = "storage-usb11-not-saved"
CASES += [
    dict(name=N, grub=False, copies=[(case_disk(N, "copy"), "build/bareperf.img")],
         args=["--cpu", "qemu64", "--usb", "uhci", "--image", "blkdebug:tests/qemu/read-errors.blkdebug:"
               + case_disk(N, "copy"), "--writable-image", "--config", "mode=detect", "--",
               "-device", "pci-ohci,addr=0x5"],
         match=[r"^not saved: no disk carries this image's identity \(1 disk searched; AHCI: 1 controller, 6 ports; "
                r"IDE: 0 controllers; xHCI: 0 controllers; EHCI: 0 controllers; UHCI: 1 controller, 2 ports; "
                r"OHCI: 1 controller, 3 ports; UHCI 00:01\.0, port 1: cannot read sector 0 "],
         absent=NO_FAIL + [r"^saved:"]),
]
