"""QEMU boot cases, one module per area (tests/qemu/cases/*.py; each imports the helpers
of the areas before it). Run them with tests/qemu/run-boots or tests/run-all.
Identities and what TCG shows for them: ../shared/QEMU-FACTS.md.
Under TCG leaf 0xA is zero and AMD perfctr-core is filtered, so Intel family 6 models
detect as 'none' and AMD ones as 'amd-legacy'; family 15 Intel is NetBurst by family."""

from cases import basics as _basics
from cases import engine as _engine
from cases import config as _config
from cases import bios_i686 as _bios_i686
from cases import user as _user
from cases import pmi_pmucheck as _pmi_pmucheck
from cases import c2c as _c2c
from cases import smp as _smp
from cases import hostile_user as _hostile_user
from cases import menu as _menu
from cases import screen as _screen
from cases import storage as _storage
from cases import netboot as _netboot
from cases import iso as _iso

# The boot menu, the screen and the stick are GRUB's part of a BIOS boot as much as the
# kernel's: their SeaBIOS cases boot through GRUB (tests/qemu/run-boots, firmware()).
for _case in _menu.CASES + _screen.CASES + _storage.CASES:
    _case.setdefault("grub", True)

# Every case, area by area, in this order.
CASES = (_basics.CASES + _engine.CASES + _config.CASES + _bios_i686.CASES + _user.CASES +
         _pmi_pmucheck.CASES + _c2c.CASES + _smp.CASES + _hostile_user.CASES + _menu.CASES +
         _screen.CASES + _storage.CASES + _netboot.CASES + _iso.CASES)
