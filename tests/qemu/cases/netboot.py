"""Network boot (docs/netboot.md): the tree scripts/mknetboot writes, served by QEMU's
user network TFTP server to the NIC's iPXE (qemu-run --netboot). Under UEFI iPXE boots
BOOTX64.EFI, putting its name first in the load options, and the loader fetches
bareperf.cfg beside it through the PXE Base Code protocol; under a BIOS it boots GRUB's
core.0, whose grub.cfg loads the kernel and bareperf.cfg over TFTP. Either way the run
keeps no results: it says so, and no disk is searched or written."""
from cases.storage import *  # noqa: F401,F403 (the helpers of the areas before)

CASES = []
# iPXE polls through its waits (no HLT under TCG): its banner's 2 s and 2 s more for a
# ProxyDHCP offer that QEMU's DHCP server never makes, in real time, 4 s of CPU (BIOS) to
# 10 s (UEFI) a boot. Under -icount those waits are counted in guest time, which runs
# ahead of real time (shift=7: 128 ns an instruction): 2 s of CPU a boot under SeaBIOS
# and 5 s under OVMF, which then goes without a TPM (tpm=False: its timeouts are as short).
# Nothing these cases check depends on time.
GUEST_TIME = ["--", "-icount", "shift=7,sleep=off"]

NETBOOT_TREE = "build/netboot-test"       # tests/qemu/netboot.cfg: a short plan
NETBOOT_NOCFG = "build/netboot-nocfg"     # the same tree without bareperf.cfg
NET_RUN = ["boot.medium=network", "cfg.mode=run", "cfg.payloads=add_chain", "cfg.reps=1",
           "boot.image=none (booted from the network: runs are not saved)",
           "not saved: booted from the network",
           "bareperf: 2 results, 0 faults, 0 timeouts, 0 errors"]
# No disk is searched, so none can be written: the image given beside is untouched.
NO_DISK = NO_FAIL + [r"^storage\.", r"^saved:"]

CASES += [
    # UEFI: an iPXE script chains BOOTX64.EFI with load options after the image's name,
    # which the loader and the kernel skip and name; the boot menu is shown (--menu '')
    # unless the load options' boot.menu=off skips it, and bareperf.cfg is fetched.
    dict(name="netboot-uefi", uefi=True, tpm=False, timeout=120,
         args=["--netboot", NETBOOT_TREE, "--bootfile", "netboot-chain.ipxe", "--cpu", UEFI_QEMU64,
               "--menu", ""] + GUEST_TIME,
         lines=NET_RUN + [
             "boot.firmware=uefi", "cfg.warmup=1", "cfg.boot.menu=off",
             "boot.config_sources=bareperf.cfg, load options (after the image name BOOTX64.EFI)",
             "loader: bareperf.cfg from tftp://10.0.2.2/bareperf.cfg"],
         absent=NO_DISK + [r"bareperf boot menu", r"^config error"]),
    # BIOS: GRUB's core.0, then the x86-64 kernel by cpuid, with a stick in the machine
    # that carries an image's identity: it is not searched, let alone written.
    dict(name="netboot-bios", grub=True, timeout=60,
         args=["--bios", "--netboot", NETBOOT_TREE, "--cpu", "qemu64", "--image",
               "build/bareperf.img"] + GUEST_TIME,
         lines=NET_RUN + ["boot.firmware=bios", "boot.protocol=multiboot2",
                          "boot.config_sources=bareperf.cfg"],
         absent=NO_DISK),
    # A server without bareperf.cfg: the kernel is told, and the defaults apply (here under
    # --config's mode=detect); the i686 kernel, which GRUB gives a CPU without long mode.
    dict(name="netboot-bios-no-config", grub=True, timeout=60,
         args=["--bios", "--netboot", NETBOOT_NOCFG, "--cpu", "pentium3"] + GUEST_TIME,
         config="mode=detect",
         lines=["boot.medium=network", "cpu.mode=protected", "boot.config_sources=--config",
                "loader: no bareperf.cfg beside the kernels on the TFTP server: the defaults apply",
                "not saved: booted from the network"],
         absent=NO_DISK),
]
