"""The ISO (docs/iso.md): build/test-detect.iso, which scripts/mkiso makes with
tests/qemu/detect.cfg, booted from a CD drive (qemu-run --cdrom) under SeaBIOS (GRUB's El
Torito image) and OVMF (BOOTX64.EFI in the El Torito EFI image), and as a disk under
SeaBIOS (GRUB's boot_hybrid.img), as when the ISO is written to a stick. A CD cannot be
written and ISO 9660 holds no results area: the run says so and saves nowhere."""
from cases.netboot import *  # noqa: F401,F403 (the helpers of the areas before)

CASES = []

TEST_ISO = "build/test-detect.iso"
# The ISO's bareperf.cfg (mode=detect) read from the CD: GRUB's from ISO 9660, the UEFI
# loader's from the EFI image's FAT.
ISO_CD = ["boot.medium=cd", "boot.config_sources=bareperf.cfg", "cfg.mode=detect",
          "boot.image=none (booted from a CD, which cannot be written: runs are not saved)",
          "not saved: booted from a CD, which cannot be written"]

CASES += [
    # BIOS, CD: GRUB's El Torito image, then the i686 kernel by cpuid, as on a Pentium III
    # board; a stick that carries an image's identity is in the machine too: no disk is
    # searched, let alone written.
    dict(name="iso-bios-cd", grub=True, timeout=60,
         args=["--cdrom", TEST_ISO, "--cpu", "pentium3", "--image", "build/bareperf.img"],
         lines=ISO_CD + ["boot.firmware=bios", "boot.protocol=multiboot2", "cpu.mode=protected"],
         absent=NO_DISK),
    # UEFI, CD: the firmware starts BOOTX64.EFI from the El Torito EFI image; the loader
    # sees a CD in its device path.
    dict(name="iso-uefi-cd", uefi=True, timeout=120,
         args=["--cdrom", TEST_ISO, "--cpu", UEFI_QEMU64],
         lines=ISO_CD + ["boot.firmware=uefi", "boot.protocol=uefi"],
         absent=NO_DISK),
    # BIOS, the ISO as a disk (written to a stick): boot_hybrid.img in its MBR starts the
    # same GRUB, which finds no CD and tells the kernel why nothing is saved; without an
    # IDENTITY nothing is written anywhere.
    dict(name="iso-bios-disk", grub=True, timeout=60,
         args=["--image", TEST_ISO, "--cpu", "qemu64"],
         lines=["boot.firmware=bios", "boot.medium=disk", "boot.config_sources=bareperf.cfg",
                "cfg.mode=detect", "cpu.mode=long",
                "loader: booted from the ISO image on a disk: its file system (ISO 9660) "
                "holds no results area",
                "boot.image=unknown (the loader found no /bareperf/results/IDENTITY: "
                "runs are not saved)",
                "not saved: this image's identity is unknown (see boot.image)"],
         absent=NO_FAIL + [r"^saved:"]),
]
