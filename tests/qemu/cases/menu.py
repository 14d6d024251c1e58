"""The boot menu: each choice by keys, the countdown, boot.menu=off."""
from cases.hostile_user import *  # noqa: F401,F403 (the helpers of the areas before)

CASES = []

# The boot menu (GRUB's grub.cfg from scripts/mkimage, the UEFI loader's on the firmware
# console): qemu-run --menu KEYS shows it and types KEYS once its marker line is on serial;
# every other case skips it through the SMBIOS OEM string. Each entry leads to its mode
# (a menu source), the countdown to the default, which adds nothing to bareperf.cfg. An
# entry's digit boots it at once: most cases type that, one key (GRUB idles at full speed
# under TCG, about 0.15 s a key); SELFTEST_MENU and menu-bios-run choose with the arrows.
MENU_RUN_SMALL = "payloads=add_chain reps=1 warmup=0 cpl=0"
MENU_SHOWN = [r"bareperf boot menu"]
GRUB_COUNTDOWN = [r"The highlighted entry will be executed automatically in 1s\."]
UEFI_COUNTDOWN = [r"Entry 1 boots in 1 s; any key stops the countdown\."]
MENU1_IMAGE = "build/test-cfg-menu1.img"      # tests/qemu/menu1.cfg: boot.menu_timeout=1
NOMENU_IMAGE = "build/test-cfg-nomenu.img"    # tests/qemu/nomenu.cfg: boot.menu=off
# One OVMF boot each (see SELFTEST_MENU) for a menu case and a USB stick case of storage.py:
# the loader on a stick behind qemu-xhci, detect chosen by its digit (UEFI_CFG_MENU_XHCI,
# with config-file-on-esp: storage-xhci-stick-uefi); the countdown on a stick behind NEC's xHCI (storage-nec-xhci-stick-uefi), whose run is
# smp.py's UEFI case too (smp-uefi-cpu1-skylake: two threads of a Skylake core, the run on
# the AP, the boot CPU idle then spinning beside it); no menu, the stick behind a hub
# (storage-xhci-hub-stick-uefi).
UEFI_TIMEOUT_NEC = ["--menu", "", "--image", MENU1_IMAGE, "--cpu", "Skylake-Client,+pdpe1gb",
                    "--smp", "2,sockets=1,cores=1,threads=2", "--usb", "nec-xhci"]
UEFI_RUN_SMP = MENU_RUN_SMALL + " cpu=1 partner.load=idle,spin iters=100"
UEFI_NOMENU_HUB = ["--menu", "", "--image", NOMENU_IMAGE, "--cpu", UEFI_QEMU64, "--usb", "xhci", "--usb-hub"]
# The same through GRUB, a boot each for a menu case and a storage case: detect on a stick
# behind NEC's xHCI (storage-nec-xhci-stick); the i686 self-test on an EHCI stick
# (storage-usb-ehci-i686); the menu over bareperf.cfg on -machine pc's IDE disk
# (storage-pci-pc-ide); no menu, the stick behind a hub with a tablet and a second hub
# (storage-xhci-hub-stick); the countdown on a stick behind qemu-xhci with a tablet
# (storage-xhci-stick); run chosen, on an EHCI stick (storage-usb-ehci); --config over the
# menu, on an image without its results area (storage-results-removed). A list with QEMU
# arguments after "--" carries its --config itself: run-boots adds a case's config last.
BIOS_DETECT_NEC = ["--menu", "6", "--cpu", "qemu64", "--usb", "nec-xhci"]
BIOS32_SELFTEST_EHCI = ["--menu", "3", "--cpu", "pentium3", "--usb", "ehci"]
BIOS_OVERRIDES_PC_IDE = ["--menu", "3", "--image", "build/test-cfg-detect.img", "--cpu", "qemu64",
                         "--", "-machine", "pc"]
BIOS_TIMEOUT_XHCI = ["--menu", "", "--image", MENU1_IMAGE, "--cpu", "qemu64", "--usb", "xhci",
                     "--config", MENU_RUN_SMALL, "--", "-device", "usb-tablet,bus=usb.0"]
BIOS_RUN_EHCI = ["--menu", "down ret", "--cpu", "qemu64", "--usb", "ehci"]
BIOS_CONFIG_WINS_NO_RESULTS = ["--menu", "3", "--cpu", "qemu64", "--image", "build/test-noresults.img"]
BIOS_NOMENU_HUB = ["--menu", "", "--image", NOMENU_IMAGE, "--cpu", "qemu64", "--usb", "xhci", "--usb-hub",
                   "--", "-device", "usb-tablet,bus=usb.0,port=1.2", "-device", "usb-hub,bus=usb.0,port=1.3"]


def menu_choice(mode):
    return ["cfg.mode=" + mode, "boot.config_sources=bareperf.cfg, menu (mode=%s)" % mode]


CASES += [
    # The countdown runs out and the default boots (1 s on this image: boot.menu_timeout;
    # tests/tools/mkimage-boot-menu and test_bootmenu check the 5 s default).
    dict(name="menu-bios-timeout", args=BIOS_TIMEOUT_XHCI,
         timeout=60, lines=BIOS + ["cfg.mode=run", "cfg.boot.menu=on", "cfg.boot.menu_timeout=1",
                                   "boot.config_sources=bareperf.cfg, --config",
                                   "bareperf: 2 results, 0 faults, 0 timeouts, 0 errors"],
         match=MENU_SHOWN + GRUB_COUNTDOWN, absent=NO_FAIL + [r"executed automatically in [2-9]s"]),
    dict(name="menu-bios-run", args=BIOS_RUN_EHCI, timeout=60, config=MENU_RUN_SMALL,
         lines=BIOS + ["cfg.mode=run", "boot.config_sources=bareperf.cfg, menu (mode=run), --config"],
         match=MENU_SHOWN, absent=NO_FAIL + [r"automatically in 1s"]),
    dict(name="menu-bios-selftest", args=SELFTEST_MENU, timeout=60,
         lines=BIOS + menu_choice("selftest"), match=MENU_SHOWN + SELFTEST_OK, absent=NO_FAIL),
    dict(name="menu-bios-pmucheck", args=["--menu", "4"], timeout=60,
         lines=BIOS + menu_choice("pmucheck"), match=MENU_SHOWN + [r"^SKIP: pmucheck\."], absent=NO_FAIL),
    dict(name="menu-bios-c2c", args=["--menu", "5", "--smp", "2"], timeout=90,
         config=C2C_SMALL.replace("mode=c2c ", "") + " c2c.tests=c2c_latency",
         lines=BIOS + ["cfg.mode=c2c", "boot.config_sources=bareperf.cfg, menu (mode=c2c), --config"],
         match=MENU_SHOWN + [r'^@c2c \{"test":"c2c_latency",'], absent=NO_FAIL),
    dict(name="menu-bios-detect", args=BIOS_DETECT_NEC, timeout=60,
         lines=BIOS + menu_choice("detect"), match=MENU_SHOWN, absent=NO_FAIL),
    # GRUB's cpuid -l still picks the i686 kernel for every entry.
    dict(name="menu-i686-selftest", args=BIOS32_SELFTEST_EHCI, timeout=90,
         lines=BIOS32 + menu_choice("selftest"), match=MENU_SHOWN + SELFTEST_OK, absent=NO_FAIL),
    # Precedence: the menu's mode overrides bareperf.cfg's (mode=detect on this image) ...
    dict(name="menu-bios-overrides-cfg", args=BIOS_OVERRIDES_PC_IDE, timeout=60,
         lines=BIOS + menu_choice("selftest"), match=MENU_SHOWN + SELFTEST_OK, absent=NO_FAIL),
    # ... and --config (fw_cfg) overrides the menu's.
    dict(name="menu-bios-config-wins", args=BIOS_CONFIG_WINS_NO_RESULTS, config="mode=detect", timeout=60,
         lines=BIOS + ["cfg.mode=detect", "boot.config_sources=bareperf.cfg, menu (mode=selftest), --config"],
         match=MENU_SHOWN, absent=NO_FAIL + [r"^PASS:"]),
    # boot.menu=off in the bareperf.cfg given to make image: GRUB boots the default at once.
    dict(name="menu-bios-cfg-off", args=BIOS_NOMENU_HUB, timeout=60,
         lines=BIOS + ["cfg.mode=detect", "cfg.boot.menu=off", "boot.config_sources=bareperf.cfg"],
         absent=NO_FAIL + MENU_SHOWN + [r"executed automatically"]),
    dict(name="menu-uefi-timeout", uefi=True, args=UEFI_TIMEOUT_NEC, config=UEFI_RUN_SMP,
         timeout=90,
         lines=["boot.firmware=uefi", "cfg.mode=run", "cfg.boot.menu_timeout=1",
                "boot.config_sources=bareperf.cfg, --config",
                "bareperf: run       (or the mode bareperf.cfg sets)",
                "bareperf: 4 results, 0 faults, 0 timeouts, 0 errors"],
         match=MENU_SHOWN + UEFI_COUNTDOWN, absent=NO_FAIL + [r"Entry 1 boots in [2-9] s"]),
    dict(name="smp-uefi-cpu1-skylake", uefi=True, args=UEFI_TIMEOUT_NEC, config=UEFI_RUN_SMP, timeout=90,
         check=placed(1, 0, ["idle", "spin"], cpls=(0,)),
         lines=["boot.firmware=uefi"] + cpu_lines([(0, 0, 0), (0, 0, 1)]), absent=NO_FAIL),
    # digits select on the UEFI menu, arrows move; Enter boots
    dict(name="menu-uefi-detect", uefi=True, args=UEFI_CFG_MENU_XHCI, timeout=90, exit=1,
         lines=["boot.firmware=uefi", "cfg.mode=detect",
                "boot.config_sources=bareperf.cfg, menu (mode=detect), --config"], match=MENU_SHOWN,
         absent=NO_FAIL + UEFI_COUNTDOWN),
    dict(name="menu-uefi-selftest", uefi=True, args=SELFTEST_MENU, timeout=90,
         lines=["boot.firmware=uefi"] + menu_choice("selftest"), match=MENU_SHOWN + SELFTEST_OK,
         absent=NO_FAIL + UEFI_COUNTDOWN),
    # boot.menu=off in bareperf.cfg on the ESP: the loader reads it and shows no menu.
    dict(name="menu-uefi-cfg-off", uefi=True, args=UEFI_NOMENU_HUB,
         timeout=90, lines=["boot.firmware=uefi", "cfg.mode=detect", "cfg.boot.menu=off",
                            "boot.config_sources=bareperf.cfg"],
         absent=NO_FAIL + MENU_SHOWN + [r"Entry 1 boots in"]),
]
