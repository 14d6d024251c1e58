# bareperf build. Everything lands under build/; sources are found by wildcard so a
# new file in a source folder needs no Makefile change.
#   make          loader + kernel + host tools
#                 (the kernels: x86-64 build/kernel.elf and i686 build/kernel32.elf);
#                 one short line a step (`CC kernel/engine.c`), V=1 the full commands
#   make image    build/bareperf.img (MBR, GRUB for BIOS, one FAT ESP, with bareperf.cfg if
#                 present), ready for dd; CONFIG=FILE puts another config on it, IMAGE=FILE
#                 writes elsewhere, BENCH=FILE adds the benchmarks of a bench file
#   make iso      build/bareperf.iso, a hybrid ISO that boots as a CD (BIOS and UEFI) or,
#                 written to a stick, as a disk; saves no runs (docs/iso.md); CONFIG and
#                 BENCH as for image, ISO=FILE writes elsewhere
#   make netboot  build/netboot/, the tree to copy to a TFTP server's root for network
#                 boot under UEFI and BIOS (docs/netboot.md); CONFIG and BENCH as for image
#   make run      build and boot build/run.img, a copy of the image whose runs are kept
#                 until the image is rebuilt, in QEMU (ARGS='key=value ...' passes a config string;
#                 QEMU_ARGS='--bios' boots through SeaBIOS instead of OVMF; with a CPU
#                 without long mode, QEMU_ARGS='--bios --cpu pentium3', GRUB starts the
#                 i686 kernel; ASM='imul rax, rax' UNROLL=N LOOP=N ASM_INIT=... ASM_NAME=...
#                 or BENCH=FILE measure user code; those values reach qemu-run as written)
#   make screenshot  build/screen-results.png, the results screen as docs/screen.md shows it
#   make test     host unit tests + QEMU boots, in parallel; ends with the total time and
#                 "N passed, N failed"
#   make fuzz     each fuzz target for FUZZ_SECONDS (default 60); docs/fuzzing.md
#   make mok-key  a key pair for Secure Boot in MOK_DIR (default ~/.bareperf-mok), outside the
#                 tree; make image SECUREBOOT=MOK_DIR then builds an image with shim and the
#                 loader signed with it (docs/secure-boot.md)
#   make test-secureboot  the Secure Boot boots (shim, MokManager), apart from make test

B       := build
CC      := gcc
LD      := ld
NASM    := nasm
OBJCOPY := objcopy
# scripts/mkimage, what it runs and the headers they read: a change rebuilds the images.
MKIMAGE_DEPS := scripts/mkimage scripts/image-common.sh scripts/gen/grub-cfg $(B)/host/bareperf-menu-settings \
	lib/results-area.h
# An object's folder is made once (an order-only prerequisite, $$(@D)/), not by a mkdir
# before each compile: starting a process costs several milliseconds here.
# Precious: a folder made by this pattern rule is otherwise an intermediate file, which
# make tries to delete at the end of the build (`make: unlink: ...: Is a directory`).
.SECONDEXPANSION:
.PRECIOUS: %/
%/:
	@mkdir -p $@
# Each step prints one short line (`CC kernel/engine.c`, `LD build/kernel.elf`); make V=1
# prints the full commands instead, as Linux's Kbuild does. $(call say,WHAT,FILE) begins a
# recipe line: the short line, then the command, silently; with V=1 nothing (make echoes
# the command). $(Q) silences a recipe's further lines unless V=1.
V ?= 0
say = $(if $(filter 1,$(V)),,@printf '  %-7s %s\n' '$(1)' '$(2)';)
Q   = $(if $(filter 1,$(V)),,@)
# $(call write_list,MACRO,NAMES) as the recipe of a FORCE rule: its target holds a line
# MACRO(name) for each of NAMES, rewritten only when the list changes (so that what
# includes it is rebuilt only then).
write_list = @mkdir -p $(@D); for n in $(2); do echo "$(1)($$n)"; done > $@.tmp; \
	if cmp -s $@.tmp $@; then rm $@.tmp; else mv $@.tmp $@; printf '  %-7s %s\n' GEN $@; fi
VERSION := $(shell git describe --always --dirty 2>/dev/null || echo unknown)
# The objects that print VERSION (kernel/main.c's kernel_version, kernel/report.c's @meta)
# depend on a file holding it, rewritten only when it changes: a commit, or a clean tree
# made dirty, rebuilds them, so that a build never shows an older version than its own.
VERSION_STAMP := $(B)/gen/version
$(VERSION_STAMP): FORCE
	@mkdir -p $(@D); printf '%s\n' '$(VERSION)' | cmp -s - $@ || printf '%s\n' '$(VERSION)' > $@
$(foreach k,kernel kernel32,$(B)/$(k)/kernel/main.o $(B)/$(k)/kernel/report.o): $(VERSION_STAMP)

# Plain make builds `all` (loader, kernel, host tools), not the first rule below.
.DEFAULT_GOAL := all

# ---------------------------------------------------------------- kernel
# Functions and line tables (gdb's breakpoints, backtraces, source lines) compile in about
# 15% less time than full debug information, with the same code: `make KDEBUG=-g` for
# gdb's locals and types too.
KDEBUG  ?= -g1
KCFLAGS := -std=gnu11 -O2 $(KDEBUG) -Wall -Wextra -Werror -ffreestanding -fno-builtin \
	-fno-stack-protector -fno-stack-check -fno-pic -fno-pie -mno-red-zone \
	-mgeneral-regs-only -mcmodel=kernel -fno-asynchronous-unwind-tables \
	-fno-omit-frame-pointer -fcf-protection=none -I. -I$(B)/gen \
	-DBAREPERF_VERSION='"$(VERSION)"' -MMD -MP
KNASMFLAGS := -f elf64 -g -F dwarf -I$(B)/gen/ -Iarch/x86/

# lib/ files that only the host tools and tests use (reading a CPUID dump file).
HOST_ONLY_LIB := lib/cpuid-dump.c
# Both kernels build from the same folders; what differs by word size lives in
# arch/x86/64/ or arch/x86/32/ beside the shared arch/x86/. $(call kernel_src,W,EXT):
# the .EXT sources of the W-bit kernel. payloads/*-64.c and payloads/*-32.c are one word
# size's half of a payload file (the user benchmark wrappers), each in its own kernel only.
KERNEL_DIRS := kernel lib drivers payloads arch/x86 arch/x86/pmu
kernel_src   = $(filter-out $(HOST_ONLY_LIB) payloads/%-$(if $(filter 64,$(1)),32,64).c, \
	$(wildcard $(addsuffix /*.$(2),$(KERNEL_DIRS) arch/x86/$(1))))
KERNEL_C   := $(call kernel_src,64,c)
KERNEL_ASM := $(call kernel_src,64,asm)
KERNEL_GEN := $(B)/gen/pfm_tables.c
# The libpfm4-derived event tables are generated when their generator exists.
PFM_GEN    := $(if $(wildcard scripts/gen/gen-pfm-tables.c),pfm_tables)
# Generated sources every build links: the event tables and the screen fonts.
GEN_C      := $(PFM_GEN) fonts
KERNEL_OBJ := $(KERNEL_C:%.c=$(B)/kernel/%.o) $(KERNEL_ASM:%.asm=$(B)/kernel/%.asm.o) \
	$(GEN_C:%=$(B)/kernel/gen/%.o)

$(B)/kernel/%.o: %.c | $$(@D)/
	$(call say,CC,$<)$(CC) $(KCFLAGS) -c $< -o $@

$(B)/kernel/gen/%.o: $(B)/gen/%.c | $$(@D)/
	$(call say,CC,$<)$(CC) $(KCFLAGS) -c $< -o $@

# Constants shared by C and assembly are written once, in arch/x86/abi.h (and MSR
# numbers in arch/x86/msr-index.h, control-register bits in arch/x86/cpu.h, the PC's I/O
# ports in lib/pc-io.h, the PVH hand-over's in lib/pvh.h); nasm reads them as
# build/gen/abi.inc, the linker script through cpp.
ABI_HEADERS := arch/x86/abi.h arch/x86/msr-index.h arch/x86/cpu.h lib/pc-io.h lib/pvh.h
$(B)/gen/abi.inc: $(ABI_HEADERS) scripts/gen/abi-inc
	@mkdir -p $(dir $@)
	$(call say,GEN,$@)scripts/gen/abi-inc $(ABI_HEADERS) > $@.tmp && mv $@.tmp $@

$(B)/gen/linker%.ld: arch/x86/%/linker.ld arch/x86/abi.h
	@mkdir -p $(dir $@)
	$(call say,CPP,$@)$(CC) -E -P -undef -nostdinc -x c -I. $< -o $@

$(B)/kernel/%.asm.o: %.asm $(B)/gen/abi.inc | $$(@D)/
	$(call say,AS,$<)$(NASM) $(KNASMFLAGS) -MD $@.d -MP $< -o $@

$(B)/kernel.elf: $(KERNEL_OBJ) $(B)/gen/linker64.ld
	$(call say,LD,$@)$(LD) -nostdlib -static -z max-page-size=4096 -z noexecstack -T $(B)/gen/linker64.ld -o $@ $(KERNEL_OBJ)

# ---------------------------------------------------------------- i686 kernel
# build/kernel32.elf: the same sources for i686, arch/x86/32/ in place of arch/x86/64/.
# 64-bit division comes from gcc-multilib's 32-bit libgcc.
K32CFLAGS := $(filter-out -mno-red-zone -mcmodel=kernel,$(KCFLAGS)) -m32 -march=i686
K32NASMFLAGS := -f elf32 -g -F dwarf -I$(B)/gen/ -Iarch/x86/
KERNEL32_C   := $(call kernel_src,32,c)
# Assembly outside arch/x86/64/ and arch/x86/32/ is one source for both (arch/x86/word.inc
# names the word-size registers).
KERNEL32_ASM := $(call kernel_src,32,asm)
KERNEL32_OBJ := $(KERNEL32_C:%.c=$(B)/kernel32/%.o) $(KERNEL32_ASM:%.asm=$(B)/kernel32/%.asm.o) \
	$(GEN_C:%=$(B)/kernel32/gen/%.o)
LIBGCC32 = $(shell $(CC) -m32 -print-libgcc-file-name)

# The refusal of a CPU older than the P6 (arch/x86/32/mb2-boot.c, kernel/boot-refusal.c) draws on the screen and
# reads fw_cfg before anything has checked for CMOV: it and what it calls are built for the
# i486, so that they run on one.
K32_I486_OBJ := $(addprefix $(B)/kernel32/,arch/x86/32/mb2-boot.o kernel/boot-refusal.o arch/x86/32/paging.o \
	drivers/screen.o drivers/qemu-fwcfg.o drivers/i8042.o lib/mb2.o lib/pvh.o lib/bootinfo-build.o \
	lib/fbcon.o lib/format.o \
	lib/string.o lib/strutil.o gen/fonts.o)
$(K32_I486_OBJ): K32CFLAGS += -march=i486

# scripts/check-m32 compiles the portable files with exactly these flags.
print-k32cflags:
	@echo $(filter-out -MMD -MP -g,$(K32CFLAGS))

$(B)/kernel32/%.o: %.c | $$(@D)/
	$(call say,CC32,$<)$(CC) $(K32CFLAGS) -c $< -o $@

$(B)/kernel32/gen/%.o: $(B)/gen/%.c | $$(@D)/
	$(call say,CC32,$<)$(CC) $(K32CFLAGS) -c $< -o $@

$(B)/kernel32/%.asm.o: %.asm $(B)/gen/abi.inc | $$(@D)/
	$(call say,AS32,$<)$(NASM) $(K32NASMFLAGS) -MD $@.d -MP $< -o $@

$(B)/kernel32.elf: $(KERNEL32_OBJ) $(B)/gen/linker32.ld
	@[ -f "$(LIBGCC32)" ] && [ "$(LIBGCC32)" != libgcc.a ] || \
		{ echo "no 32-bit libgcc (gcc-multilib): run scripts/install-deps" >&2; exit 1; }
	$(call say,LD,$@)$(LD) -m elf_i386 -nostdlib -static -z max-page-size=4096 -z noexecstack \
		-T $(B)/gen/linker32.ld -o $@ $(KERNEL32_OBJ) $(LIBGCC32)

$(B)/kernel32.stripped.elf: $(B)/kernel32.elf
	$(call say,STRIP,$@)strip --strip-debug -o $@ $<

# ---------------------------------------------------------------- UEFI loader (gnu-efi lives only here)
EFI_INC := /usr/include/efi
EFI_LIB := /usr/lib
ECFLAGS := -std=gnu11 -O2 -Wall -Wextra -Werror -I$(EFI_INC) -I$(EFI_INC)/x86_64 -I. \
	-fpic -ffreestanding -fno-stack-protector -fno-stack-check -fshort-wchar \
	-mno-red-zone -mgeneral-regs-only -maccumulate-outgoing-args -DGNU_EFI_USE_MS_ABI -MMD -MP
BOOT_C   := $(wildcard boot/*.c)
# lib/bootmenu.c and the configuration reader it uses are pure code without libc: the
# loader links them as the host tests do.
BOOT_OBJ := $(BOOT_C:%.c=$(B)/boot/%.o) $(B)/boot/lib/bootmenu.o $(B)/boot/lib/cfg-lex.o \
	$(B)/boot/kernel-blob.o $(B)/boot/sbat.o

$(B)/boot/%.o: %.c | $$(@D)/
	$(call say,EFICC,$<)$(CC) $(ECFLAGS) -c $< -o $@

# The loader embeds a stripped copy; build/kernel.elf keeps the symbols for gdb.
$(B)/kernel.stripped.elf: $(B)/kernel.elf
	$(call say,STRIP,$@)strip --strip-debug -o $@ $<

$(B)/boot/kernel-blob.o: boot/kernel-blob.S $(B)/kernel.stripped.elf
	@mkdir -p $(dir $@)
	$(call say,EFIAS,$<)$(CC) -fpic -DKERNEL_ELF='"$(B)/kernel.stripped.elf"' -c $< -o $@

# The loader's SBAT line (shim's SBAT.md; docs/secure-boot.md): component, its generation
# (raised when a security fix must revoke the older loaders), vendor, package, version, URL.
# The URL field names the document that says how to sign and enrol it. Rewritten only when
# the version changes.
SBAT_GENERATION := 1
# (No temporary file: tests run make image beside one another, and would race on its name.)
SBAT_CSV_TEXT := sbat,1,SBAT Version,sbat,1,https://github.com/rhboot/shim/blob/main/SBAT.md\n$\
	bareperf,$(SBAT_GENERATION),bareperf,bareperf,$(VERSION),docs/secure-boot.md\n
$(B)/gen/sbat.csv: FORCE
	@mkdir -p $(dir $@)
	@printf '$(SBAT_CSV_TEXT)' | cmp -s - $@ || { printf '$(SBAT_CSV_TEXT)' > $@; echo "GEN $@"; }

$(B)/boot/sbat.o: boot/sbat.S $(B)/gen/sbat.csv | $$(@D)/
	$(call say,EFIAS,$<)$(CC) -DSBAT_CSV='"$(B)/gen/sbat.csv"' -c $< -o $@

# scripts/check-efi-relocs fails the link when anything is left that the firmware would
# have to resolve (a PLT slot, a relocation other than RELATIVE): the PE image carries neither.
$(B)/boot/loader.so: $(BOOT_OBJ) scripts/check-efi-relocs
	$(call say,EFILD,$@)$(LD) -shared -Bsymbolic -nostdlib -znocombreloc -T$(EFI_LIB)/elf_x86_64_efi.lds \
		$(EFI_LIB)/crt0-efi-x86_64.o $(BOOT_OBJ) -o $@ -L$(EFI_LIB) -lefi -lgnuefi
	$(Q)scripts/check-efi-relocs $@ || { rm -f $@; exit 1; }

$(B)/BOOTX64.EFI: $(B)/boot/loader.so
	$(call say,OBJCOPY,$@)$(OBJCOPY) -j .text -j .sdata -j .data -j .rodata -j .dynamic -j .dynsym -j .rel \
		-j .rela -j '.rel.*' -j '.rela.*' -j .reloc -j .sbat --target efi-app-x86_64 --subsystem=10 $< $@

# ---------------------------------------------------------------- host side
# lib/ builds for the host too (minus the freestanding libc replacements), as do the
# PMU backends, which the host tests run against an MSR model, and the pure parts of
# kernel/ and drivers/ named here (no hardware, no globals): the USB descriptor parsing
# and the bulk-only transport run against a fake host controller in tests/unit; the
# drivers' wait bounds (drivers/poll.c) against the host's own TSC, which CPL 3 reads.
# clang, with libFuzzer's coverage instrumentation, so that the fuzz targets (below) link
# the same library: one build of lib/ serves the unit tests, the host tools and the fuzzer.
# A suite's own file is compiled without optimisation (it is the test, not the code under
# test, and compiles in about half the time) and without the coverage instrumentation.
HCC     := clang
# Line tables are all the sanitizers' reports need (file:line of each frame), and compile in
# about 15% less time than full debug information: `make HDEBUG=-g` for gdb.
HDEBUG  ?= -gline-tables-only
HCOMMON := -std=gnu11 $(HDEBUG) -Wall -Wextra -Werror -I. -I$(B)/gen -DBAREPERF_VERSION='"$(VERSION)"' -MMD -MP
HSAN    := -fsanitize=address,undefined -fno-sanitize-recover=undefined
# The library unoptimised: it compiles in half the CPU time of -O1 (about 14 s less in make
# test) and its tests and fuzz smoke runs take about 8 s more. For long fuzzing sessions,
# where -O1 runs about 1.4 times as many inputs a second: make clean, then make HOPT=-O1 fuzz.
HOPT    ?= -O0
HCFLAGS := $(HCOMMON) $(HOPT) -fsanitize=fuzzer-no-link $(HSAN)
# Except the few files the suites, the fuzz smoke runs and the host tools spend most of their
# time in (the formatter, string matching and edit distance, event parsing, the model table,
# the statistics): -O1 there costs about 1 s more compile CPU and saves about 4 s of the unit
# suites' CPU (test_encode_pfm encodes some 30,000 events through them), and the fuzz smoke
# runs' executions of the config and event targets take about half the time.
HOST_HOT_C := lib/format.c lib/strutil.c lib/event.c lib/pmu-models.c lib/stats.c
$(HOST_HOT_C:%.c=$(B)/host/obj/%.o): HCFLAGS += $(if $(filter -O0,$(HOPT)),-O1)
HTESTCFLAGS := $(HCOMMON) -O0 $(HSAN)
# The suites' own objects: ASan gives their buffers the red zones that catch the library's
# overruns; UBSan checks the library (built with it), not a suite's own arithmetic, and
# would cost a quarter of their compile time.
HSUITECFLAGS := $(HCOMMON) -O0 -fsanitize=address
# Host links (tools, unit tests, fuzz targets) go through lld (Debian lld): about 0.2 s of
# CPU less per link than GNU ld with these sanitizer runtimes.
HLDFLAGS := -fuse-ld=lld
# clang, lld and gcc allocate through malloc: on transparent huge pages (glibc 2.35 and
# later; older ones ignore the tunable) the host build takes about 10% less CPU here (26 s
# against 29 s, and 23 against 27, alternating), and each kernel's compiles 2 to 4% less
# (5 to 7% fewer page faults). The user's own tunables come after, and win.
$(B)/host/% $(B)/fuzz/% $(B)/kernel/% $(B)/kernel32/%: \
	export GLIBC_TUNABLES := glibc.malloc.hugetlb=1$(if $(GLIBC_TUNABLES),:$(GLIBC_TUNABLES))
HOST_ONLY_KERNEL := lib/string.c
HOST_KERNEL_PURE := kernel/plan.c kernel/result-json.c kernel/harness-out.c kernel/sample-hist.c payloads/userbench-64.c
HOST_KERNEL_PURE += drivers/usb.c drivers/usb-msc.c drivers/usb-hub.c drivers/poll.c
# The xHCI, EHCI, UHCI and OHCI drivers run against fake controllers (tests/unit/fake-hw.c): built with
# BAREPERF_FAKE_HW, their register accesses and poll delays are calls into the fake
# (drivers/mmio.h).
HOST_KERNEL_PURE += drivers/xhci.c drivers/ehci.c drivers/uhci.c drivers/ohci.c
$(B)/host/obj/drivers/xhci.o $(B)/host/obj/drivers/ehci.o $(B)/host/obj/drivers/uhci.o \
$(B)/host/obj/drivers/ohci.o: HCFLAGS += -DBAREPERF_FAKE_HW
HOST_LIB_C   := $(filter-out $(HOST_ONLY_KERNEL),$(wildcard lib/*.c)) $(wildcard arch/x86/pmu/*.c) \
	$(HOST_KERNEL_PURE)
HOST_LIB_OBJ := $(HOST_LIB_C:%.c=$(B)/host/obj/%.o) $(GEN_C:%=$(B)/host/obj/gen/%.o)
HOST_TOOLS   := $(patsubst scripts/host/%.c,$(B)/host/%,$(wildcard scripts/host/*.c))
# The cmocka suites (tests/unit/test_*.c) are linked into one binary, $(UNIT_BIN), one link
# instead of one per suite: each suite's file is compiled on its own with its main renamed
# <suite>_main, and tests/unit/suites.c runs the suite named by argv[1] (`--list` names
# them), so that tests/run-all still runs each suite as a job of its own. A suite that
# relies on what its link takes in (TEST_OBJS_<suite>, before the library) stays a binary
# of its own, named in UNIT_APART. unit_bin names the binary a suite is in.
UNIT_APART   := test_bench32
UNIT_SUITES  := $(filter-out $(UNIT_APART),$(patsubst tests/unit/%.c,%,$(wildcard tests/unit/test_*.c)))
UNIT_BIN     := $(B)/host/tests/unit-suites
UNIT_TESTS   := $(UNIT_BIN) $(UNIT_APART:%=$(B)/host/tests/%)
unit_bin      = $(if $(filter $(1),$(UNIT_APART)),$(B)/host/tests/$(1),$(UNIT_BIN))
TEST_SUPPORT := $(patsubst %.c,$(B)/host/obj/%.o,$(filter-out tests/unit/test_% tests/unit/suites.c,$(wildcard tests/unit/*.c)))
UNIT_MAIN    := $(B)/host/obj/tests/unit/suites.o

$(B)/host/obj/%.o: %.c | $$(@D)/
	$(call say,HOSTCC,$<)$(HCC) $(HCFLAGS) -c $< -o $@

$(B)/host/obj/gen/%.o: $(B)/gen/%.c | $$(@D)/
	$(call say,HOSTCC,$<)$(HCC) $(HCFLAGS) -c $< -o $@

$(B)/host/libbareperf.a: $(HOST_LIB_OBJ)
	$(call say,AR,$@)rm -f $@ && ar rcs $@ $^

$(B)/host/%: scripts/host/%.c $(B)/host/libbareperf.a
	@mkdir -p $(dir $@)
	$(call say,HOSTLD,$@)$(HCC) $(HCFLAGS) $(HLDFLAGS) $< -o $@ $(B)/host/libbareperf.a $(shell pkg-config --libs libpfm 2>/dev/null || echo -lpfm)

# A suite that needs more libraries names them in TEST_LIBS_<suite> (more compiler flags
# in TEST_CFLAGS_<suite>); test_c2c runs the two halves of each cross-core measurement on
# two threads.
TEST_LIBS_test_c2c := -lpthread
# test_strutil compiles lib/string.c, whose gcc-only optimize attribute clang ignores; as
# the code under test, with UBSan (HSUITECFLAGS has ASan alone).
TEST_CFLAGS_test_strutil := -Wno-unknown-attributes -fsanitize=undefined -fno-sanitize-recover=undefined
# test_bench32 tests the i686 wrapper (payloads/userbench-32.c): its object goes before the
# host library, whose userbench-64.o then stays out (TEST_OBJS_<suite>); and it runs
# tests/i386/userbench32-run.c, which calls the generated code as 32-bit code, under
# qemu-i386 (built below, beside the P6 event generator).
TEST_OBJS_test_bench32 := $(B)/host/obj/payloads/userbench-32.o

# Keep the support objects, or make deletes them as intermediates and rebuilds them each time.
.SECONDARY: $(TEST_SUPPORT)
$(B)/host/tests/%: tests/unit/%.c $(TEST_SUPPORT) $(B)/host/libbareperf.a
	@mkdir -p $(dir $@)
	$(call say,HOSTLD,$@)$(HCC) $(HTESTCFLAGS) $(HLDFLAGS) $(TEST_CFLAGS_$*) $< -o $@ $(TEST_OBJS_$*) $(TEST_SUPPORT) $(B)/host/libbareperf.a -lcmocka -lpfm $(TEST_LIBS_$*)

# The suites of the one binary: their objects (this pattern's shorter stem wins over
# $(B)/host/obj/%.o), the dispatcher (tests/unit/suites.c) with its list of suites (rewritten
# only when the list changes), and the link, which also removes a suite's old binary of its
# own, so that tests/run-all does not find the suite twice.
UNIT_OBJS := $(UNIT_SUITES:%=$(B)/host/obj/tests/unit/%.o)
$(B)/host/obj/tests/unit/test_%.o: tests/unit/test_%.c | $$(@D)/
	$(call say,HOSTCC,$<)$(HCC) $(HSUITECFLAGS) $(TEST_CFLAGS_test_$*) -Dmain=test_$*_main -c $< -o $@

$(B)/gen/tests/unit/suite-list.h: FORCE
	$(call write_list,SUITE,$(UNIT_SUITES))
$(UNIT_MAIN): tests/unit/suites.c $(B)/gen/tests/unit/suite-list.h
	@mkdir -p $(dir $@)
	$(call say,HOSTCC,$<)$(HCC) $(HSUITECFLAGS) -c $< -o $@

$(UNIT_BIN): $(UNIT_MAIN) $(UNIT_OBJS) $(TEST_SUPPORT) $(B)/host/libbareperf.a
	@mkdir -p $(dir $@)
	@rm -f $(UNIT_SUITES:%=$(B)/host/tests/%) $(UNIT_SUITES:%=$(B)/host/tests/%.d)
	$(call say,HOSTLD,$@)$(HCC) $(HTESTCFLAGS) $(HLDFLAGS) $(UNIT_MAIN) $(UNIT_OBJS) $(TEST_SUPPORT) $(B)/host/libbareperf.a -o $@ -lcmocka -lpfm $(foreach s,$(UNIT_SUITES),$(TEST_LIBS_$s))

# The screen console's fonts (lib/font.h), from Debian console-setup-linux's PSF files.
FONT_DIR := /usr/share/consolefonts
FONTS    := font_terminus16=$(FONT_DIR)/Lat2-Terminus16.psf.gz \
	font_terminus12x6=$(FONT_DIR)/Lat2-Terminus12x6.psf.gz
$(B)/gen/fonts.c: scripts/gen/psf2c
	@mkdir -p $(dir $@)
	@[ -f $(FONT_DIR)/Lat2-Terminus16.psf.gz ] || \
		{ echo "no $(FONT_DIR) fonts (console-setup-linux): run scripts/install-deps" >&2; exit 1; }
	$(call say,GEN,$@)scripts/gen/psf2c $(FONTS) > $@.tmp && mv $@.tmp $@

# Event-name tables generated from libpfm4 (Debian libpfm4-dev) by a host program. The
# P6 family (ppro, pii, p6, pm, coreduo) is only in libpfm4's i386 build (libpfm4-dev:i386):
# the same generator, linked -m32 -static against it and run as an i386 program (run_i386:
# under qemu-i386 where the build machine's kernel does not run them), dumps those tables,
# and the native run merges them.
GEN_PFM_CFLAGS := -std=gnu11 -O1 -g -Wall -Wextra -Werror -I. -MMD -MP
PFM32_LIB      := /usr/lib/i386-linux-gnu/libpfm.a
QEMU_I386      := qemu-i386
# The command that runs the static i386 program $(1): the program itself where this
# machine's kernel runs i386 programs (asked with an argument both programs refuse with
# their usage; a shell says 126 or 127 for a program it cannot start), else qemu-i386 with
# it. Both write the same bytes; natively the encodings take 0.3 s, under qemu-i386 2.8 s.
run_i386 = $$({ $(1) --exec-check >/dev/null 2>&1; [ $$? -lt 126 ]; } || echo $(QEMU_I386)) $(1)
PFM32_CHECK     = @[ -f $(PFM32_LIB) ] && command -v $(QEMU_I386) >/dev/null || \
	{ echo "no $(PFM32_LIB) or $(QEMU_I386) (libpfm4-dev:i386, qemu-user): run scripts/install-deps" >&2; exit 1; }

$(B)/gen-pfm-tables: scripts/gen/gen-pfm-tables.c scripts/gen/pfm-p6-family.h
	@mkdir -p $(dir $@)
	$(call say,HOSTLD,$@)$(CC) $(GEN_PFM_CFLAGS) $< -o $@ -lpfm

$(B)/gen-pfm-tables32: scripts/gen/gen-pfm-tables.c scripts/gen/pfm-p6-family.h
	$(PFM32_CHECK)
	@mkdir -p $(dir $@)
	$(call say,HOSTLD,$@)$(CC) -m32 -static $(GEN_PFM_CFLAGS) $< -o $@ $(PFM32_LIB)

$(B)/gen/pfm_p6.dump: $(B)/gen-pfm-tables32
	@mkdir -p $(dir $@)
	$(call say,GEN,$@)$(call run_i386,$<) --p6-dump > $@.tmp && mv $@.tmp $@

$(B)/gen/pfm_tables.c: $(B)/gen-pfm-tables $(B)/gen/pfm_p6.dump
	@mkdir -p $(dir $@)
	$(call say,GEN,$@)$(B)/gen-pfm-tables --merge $(B)/gen/pfm_p6.dump > $@.tmp && mv $@.tmp $@

# libpfm4:i386's own answers for the P6 family, which test_encode_pfm compares bareperf's
# with: its encodings of every event with its unit masks and modifiers, and the PMU it
# detects for each family 6 model (qemu-i386 -cpu sets CPUID's model).
PFM_P6_REF    := $(B)/gen/pfm_p6_reference.txt
PFM_P6_DETECT := $(B)/gen/pfm_p6_detect.txt
P6_MODELS     := 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15

$(B)/pfm-p6-reference32: scripts/gen/pfm-p6-reference.c scripts/gen/pfm-p6-family.h
	$(PFM32_CHECK)
	@mkdir -p $(dir $@)
	$(call say,HOSTLD,$@)$(CC) -m32 -static $(GEN_PFM_CFLAGS) $< -o $@ $(PFM32_LIB)

$(PFM_P6_REF): $(B)/pfm-p6-reference32
	@mkdir -p $(dir $@)
	$(call say,GEN,$@)$(call run_i386,$<) encodings > $@.tmp && mv $@.tmp $@

$(PFM_P6_DETECT): $(B)/pfm-p6-reference32
	@mkdir -p $(dir $@)
	$(call say,GEN,$@)for m in $(P6_MODELS); do $(QEMU_I386) -cpu pentium3,family=6,model=$$m $< detect || exit 1; \
		done > $@.tmp && mv $@.tmp $@

$(call unit_bin,test_encode_pfm): $(PFM_P6_REF) $(PFM_P6_DETECT)
TEST_CFLAGS_test_encode_pfm := -DPFM_P6_REFERENCE='"$(PFM_P6_REF)"' -DPFM_P6_DETECT='"$(PFM_P6_DETECT)"'

# The i686 user benchmark wrapper run as 32-bit code, for test_bench32.
BENCH32_RUN := $(B)/host/userbench32-run
$(BENCH32_RUN): tests/i386/userbench32-run.c payloads/userbench-32.c payloads/userbench-emit.h \
		payloads/userbench.h lib/config.h
	@mkdir -p $(dir $@)
	$(call say,HOSTLD,$@)$(CC) -m32 -static $(filter-out -MMD -MP,$(GEN_PFM_CFLAGS)) tests/i386/userbench32-run.c \
		payloads/userbench-32.c -o $@

$(call unit_bin,test_bench32): $(TEST_OBJS_test_bench32) $(BENCH32_RUN)
TEST_CFLAGS_test_bench32 := -DBENCH32_RUN='"$(BENCH32_RUN)"' -DQEMU_I386='"$(QEMU_I386)"'

# test_results_area reads images made by scripts/mkimage and damaged copies of them
# (tests/unit/results-images; `done` marks a complete set).
RESULTS_IMG := $(B)/host/results-img
$(RESULTS_IMG)/done: tests/unit/results-images $(MKIMAGE_DEPS) lib/results-area.h
	$(call say,GEN,$(RESULTS_IMG))rm -rf $(RESULTS_IMG) && tests/unit/results-images $(RESULTS_IMG) && touch $@
$(call unit_bin,test_results_area): $(RESULTS_IMG)/done
TEST_CFLAGS_test_results_area := -DRESULTS_IMG_DIR='"$(RESULTS_IMG)"'

# ---------------------------------------------------------------- fuzzing (clang libFuzzer)
# The libFuzzer targets (tests/fuzz/fuzz_*.c), linked with the host library, which clang
# builds with coverage instrumentation (HCFLAGS; docs/fuzzing.md), into one binary,
# $(FUZZ_BIN) (one link, not one per target): each target's file is compiled with its
# LLVMFuzzerTestOneInput renamed fuzz_<target>_one, and build/fuzz/fuzz_TARGET is a
# symbolic link to the binary, which runs the target its name says (tests/fuzz/fuzzers.c).
#   make fuzz-build   build/fuzz/fuzz_TARGET for each tests/fuzz/fuzz_TARGET.c
#   make fuzz [FUZZ_SECONDS=60] [FUZZ_TARGETS='config event'] [FUZZ_RUNS=N]
#                     run each target in turn (tests/fuzz/run), one process at a time
FUZZ_NAMES   := $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BINS    := $(FUZZ_NAMES:%=$(B)/fuzz/fuzz_%)
FUZZ_BIN     := $(B)/fuzz/fuzzers
FUZZ_OBJS    := $(FUZZ_NAMES:%=$(B)/fuzz/obj/fuzz_%.o)
FUZZ_MAIN    := $(B)/fuzz/obj/fuzzers.o

$(B)/fuzz/obj/fuzz_%.o: tests/fuzz/fuzz_%.c | $$(@D)/
	$(call say,FUZZCC,$<)$(HCC) $(HCFLAGS) -DLLVMFuzzerTestOneInput=fuzz_$*_one -c $< -o $@

$(B)/gen/tests/fuzz/target-list.h: FORCE
	$(call write_list,TARGET,$(FUZZ_NAMES))
$(FUZZ_MAIN): tests/fuzz/fuzzers.c $(B)/gen/tests/fuzz/target-list.h | $$(@D)/
	$(call say,FUZZCC,$<)$(HCC) $(HCFLAGS) -c $< -o $@

$(FUZZ_BIN): $(FUZZ_MAIN) $(FUZZ_OBJS) $(B)/host/libbareperf.a | $$(@D)/
	$(call say,FUZZLD,$@)$(HCC) -fsanitize=fuzzer,address,undefined $(HLDFLAGS) $^ -o $@

$(FUZZ_BINS): $(FUZZ_BIN)
	$(call say,LN,$@)ln -sf $(notdir $(FUZZ_BIN)) $@

# Keep the targets' objects, or make deletes them as intermediates and relinks each time.
.SECONDARY: $(FUZZ_OBJS)

FUZZ_SECONDS ?= 60

fuzz-build: $(FUZZ_BINS)

fuzz: deps fuzz-build
	$(if $(FUZZ_RUNS),FUZZ_RUNS=$(FUZZ_RUNS)) tests/fuzz/run $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# ---------------------------------------------------------------- image, run, test
# CONFIG goes onto the image when the file exists. IMAGE.config names the config that went
# in; it is rewritten (and so the image rebuilt) only when that changes: a config added,
# deleted or another one named. A change inside the file is caught by the file itself.
# The default bareperf.cfg may be absent; a CONFIG named on the command line (or in the
# environment) must exist, or the image would silently go without it.
CONFIG    ?= bareperf.cfg
IMAGE     ?= $(B)/bareperf.img
IMAGE_CFG := $(wildcard $(CONFIG))
ifneq ($(and $(CONFIG),$(filter command line environment environment override override,$(origin CONFIG))),)
IMAGE_CFG := $(CONFIG)
$(CONFIG):
	@echo "make: CONFIG=$(CONFIG): no such file (leave CONFIG out for none)" >&2; exit 1
endif

# BENCH=FILE: the bench file's benchmarks, assembled by scripts/bareperf-asm, after CONFIG's
# text in one bareperf.cfg. A nasm error stops make. The .src stamp names the inputs, so
# naming another file rebuilds it as a change inside one does.
ifneq ($(BENCH),)
BENCH_CFG  := $(B)/bench.cfg
CONFIG_CFG := $(IMAGE_CFG)
$(BENCH_CFG).src: FORCE
	@mkdir -p $(dir $@)
	@printf '%s %s\n' '$(BENCH)' '$(CONFIG_CFG)' | cmp -s - $@ || printf '%s %s\n' '$(BENCH)' '$(CONFIG_CFG)' > $@
$(BENCH_CFG): $(BENCH) $(CONFIG_CFG) $(BENCH_CFG).src scripts/bareperf-asm
	$(call say,ASM,$@)scripts/bareperf-asm $(if $(CONFIG_CFG),--config-file $(CONFIG_CFG)) --bench $(BENCH) -o $@
IMAGE_CFG := $(BENCH_CFG)
endif
$(IMAGE).config: FORCE
	@mkdir -p $(dir $@)
	@printf '%s\n' '$(IMAGE_CFG)' | cmp -s - $@ || printf '%s\n' '$(IMAGE_CFG)' > $@

# SECUREBOOT=KEYDIR: an image for machines with Secure Boot on (docs/secure-boot.md):
# Debian's shim and MokManager (scripts/fetch-shim, into $(SHIM_DIR)) start the loader,
# signed with KEYDIR/mok.key (make mok-key). IMAGE.mok names the key's certificate (its
# fingerprint) or none, rewritten only when that changes; scripts/mok-check fails here, before
# anything is built, on a missing key or one that does not match its certificate.
SECUREBOOT ?=
SHIM_DIR   := $(B)/shim
$(IMAGE).mok: FORCE
	@mkdir -p $(dir $@)
	@{ if [ -n '$(SECUREBOOT)' ]; then scripts/mok-check '$(SECUREBOOT)' && echo '$(SECUREBOOT)'; \
		else echo none; fi; } > $@.tmp || { rm -f $@.tmp; exit 1; }; \
	if cmp -s $@.tmp $@; then rm $@.tmp; else mv $@.tmp $@; fi

$(IMAGE): $(B)/BOOTX64.EFI $(B)/kernel.stripped.elf $(B)/kernel32.stripped.elf $(MKIMAGE_DEPS) $(IMAGE).config $(IMAGE_CFG) \
		$(IMAGE).mok scripts/mok-check $(if $(SECUREBOOT),$(SHIM_DIR)/stamp)
	$(call say,MKIMAGE,$@)scripts/mkimage $(if $(SECUREBOOT),--secure-boot '$(SECUREBOOT)' --shim $(SHIM_DIR)/root) \
		$@ $(B)/BOOTX64.EFI $(B)/kernel.stripped.elf $(B)/kernel32.stripped.elf $(IMAGE_CFG)

# Debian's signed shim and MokManager, downloaded and unpacked (no maintainer scripts run).
$(SHIM_DIR)/stamp: scripts/fetch-shim
	$(call say,FETCH,$(SHIM_DIR))scripts/fetch-shim $(SHIM_DIR)
	@touch $@

# A key pair to sign the loader with, outside the tree (scripts/mok-key refuses one inside).
MOK_DIR ?= $(HOME)/.bareperf-mok
mok-key:
	scripts/mok-key '$(MOK_DIR)'

# An image with a bareperf.cfg on the ESP, for the boot test of the config file path.
$(B)/test-cfg.img: $(B)/BOOTX64.EFI $(B)/kernel.stripped.elf $(B)/kernel32.stripped.elf $(MKIMAGE_DEPS) tests/qemu/bareperf-test.cfg
	$(call say,MKIMAGE,$@)scripts/mkimage $@ $(B)/BOOTX64.EFI $(B)/kernel.stripped.elf $(B)/kernel32.stripped.elf tests/qemu/bareperf-test.cfg

# An image whose bareperf.cfg says only mode=detect, for boot tests of --config sources
# that are refused as a whole (which would otherwise run the full default measurement).
$(B)/test-cfg-detect.img: $(B)/BOOTX64.EFI $(B)/kernel.stripped.elf $(B)/kernel32.stripped.elf $(MKIMAGE_DEPS) tests/qemu/detect.cfg
	$(call say,MKIMAGE,$@)scripts/mkimage $@ $(B)/BOOTX64.EFI $(B)/kernel.stripped.elf $(B)/kernel32.stripped.elf tests/qemu/detect.cfg

# An image whose bareperf.cfg is over the size limit (1 MiB): refused whole.
$(B)/test-cfg-big.cfg: tests/qemu/make-big-cfg
	$(call say,GEN,$@)tests/qemu/make-big-cfg $@
$(B)/test-cfg-big.img: $(B)/BOOTX64.EFI $(B)/kernel.stripped.elf $(B)/kernel32.stripped.elf $(MKIMAGE_DEPS) $(B)/test-cfg-big.cfg
	$(call say,MKIMAGE,$@)scripts/mkimage $@ $(B)/BOOTX64.EFI $(B)/kernel.stripped.elf $(B)/kernel32.stripped.elf $(B)/test-cfg-big.cfg

# An image whose bareperf.cfg switches the boot menu off, for the boot menu tests.
$(B)/test-cfg-nomenu.img: $(B)/BOOTX64.EFI $(B)/kernel.stripped.elf $(B)/kernel32.stripped.elf $(MKIMAGE_DEPS) tests/qemu/nomenu.cfg
	$(call say,MKIMAGE,$@)scripts/mkimage $@ $(B)/BOOTX64.EFI $(B)/kernel.stripped.elf $(B)/kernel32.stripped.elf tests/qemu/nomenu.cfg

# An image whose bareperf.cfg shortens the boot menu's countdown to 1 s, for the tests
# of the countdown (under TCG GRUB waits by spinning; the UEFI loader idles in WaitForEvent).
$(B)/test-cfg-menu1.img: $(B)/BOOTX64.EFI $(B)/kernel.stripped.elf $(B)/kernel32.stripped.elf $(MKIMAGE_DEPS) tests/qemu/menu1.cfg
	$(call say,MKIMAGE,$@)scripts/mkimage $@ $(B)/BOOTX64.EFI $(B)/kernel.stripped.elf $(B)/kernel32.stripped.elf tests/qemu/menu1.cfg

# test-cfg-detect.img without its results area (removed with mtools, as a user could):
# the kernel must say so and write nothing.
$(B)/test-noresults.img: $(B)/test-cfg-detect.img
	$(call say,GEN,$@)cp $< $@.tmp && MTOOLS_SKIP_CHECK=1 mdeltree -i $@.tmp@@1M ::/bareperf && mv $@.tmp $@

# The Bochs boot disk (tests/bochs/run): test-cfg-nomenu.img with its IDENTITY but no slots.
# Bochs' BIOS boots only from its IDE disk, so this boots it; GRUB passes the IDENTITY, and
# a stick holding test-cfg-nomenu.img is then the one medium with a whole results area
# carrying it: the run is saved on the stick.
$(B)/test-bochs-boot.img: $(B)/test-cfg-nomenu.img
	$(call say,GEN,$@)cp $< $@.tmp && MTOOLS_SKIP_CHECK=1 mdel -i $@.tmp@@1M '::/bareperf/results/run*.log' && mv $@.tmp $@

# The network boot tree (scripts/mknetboot, docs/netboot.md), with CONFIG's or BENCH's
# bareperf.cfg as the image gets it; NETBOOT names the folder. Its stamp beside it names
# the config, as IMAGE.config does.
NETBOOT   ?= $(B)/netboot
MKNETBOOT_DEPS := scripts/mknetboot scripts/gen/grub-cfg $(B)/host/bareperf-menu-settings
$(NETBOOT).stamp: $(B)/BOOTX64.EFI $(B)/kernel.stripped.elf $(B)/kernel32.stripped.elf \
		$(MKNETBOOT_DEPS) $(IMAGE).config $(IMAGE_CFG)
	$(call say,MKNET,$(NETBOOT))scripts/mknetboot $(NETBOOT) $(B)/BOOTX64.EFI $(B)/kernel.stripped.elf $(B)/kernel32.stripped.elf $(IMAGE_CFG)
	@touch $@
netboot: $(NETBOOT).stamp
	@echo "netboot: $(NETBOOT)/ is ready for the root of a TFTP server (docs/netboot.md)"

# Trees for the network boot tests: a short plan in bareperf.cfg (and an iPXE script that
# chains BOOTX64.EFI with load options), and one whose server has no bareperf.cfg.
$(B)/netboot-test.stamp: $(B)/BOOTX64.EFI $(B)/kernel.stripped.elf $(B)/kernel32.stripped.elf \
		$(MKNETBOOT_DEPS) tests/qemu/netboot.cfg tests/qemu/netboot-chain.ipxe
	$(call say,MKNET,$(B)/netboot-test)scripts/mknetboot $(B)/netboot-test $(B)/BOOTX64.EFI $(B)/kernel.stripped.elf $(B)/kernel32.stripped.elf tests/qemu/netboot.cfg
	$(Q)cp tests/qemu/netboot-chain.ipxe $(B)/netboot-test/
	@touch $@
$(B)/netboot-nocfg.stamp: $(B)/BOOTX64.EFI $(B)/kernel.stripped.elf $(B)/kernel32.stripped.elf \
		$(MKNETBOOT_DEPS)
	$(call say,MKNET,$(B)/netboot-nocfg)scripts/mknetboot $(B)/netboot-nocfg $(B)/BOOTX64.EFI $(B)/kernel.stripped.elf $(B)/kernel32.stripped.elf
	$(Q)rm $(B)/netboot-nocfg/bareperf.cfg
	@touch $@

# The ISO (scripts/mkiso, docs/iso.md), with CONFIG's or BENCH's bareperf.cfg as the image
# gets it; ISO names the file. Its stamp beside it names the config, as IMAGE.config does.
ISO       ?= $(B)/bareperf.iso
MKISO_DEPS := scripts/mkiso scripts/image-common.sh scripts/gen/grub-cfg $(B)/host/bareperf-menu-settings
$(ISO): $(B)/BOOTX64.EFI $(B)/kernel.stripped.elf $(B)/kernel32.stripped.elf $(MKISO_DEPS) \
		$(IMAGE).config $(IMAGE_CFG)
	$(call say,MKISO,$@)scripts/mkiso $@ $(B)/BOOTX64.EFI $(B)/kernel.stripped.elf $(B)/kernel32.stripped.elf $(IMAGE_CFG)
iso: $(ISO)

# An ISO whose bareperf.cfg says only mode=detect, for the boot tests from a CD and as a disk.
$(B)/test-detect.iso: $(B)/BOOTX64.EFI $(B)/kernel.stripped.elf $(B)/kernel32.stripped.elf $(MKISO_DEPS) tests/qemu/detect.cfg
	$(call say,MKISO,$@)scripts/mkiso $@ $(B)/BOOTX64.EFI $(B)/kernel.stripped.elf $(B)/kernel32.stripped.elf tests/qemu/detect.cfg

TEST_IMAGES := $(B)/test-detect.iso $(B)/netboot-test.stamp $(B)/netboot-nocfg.stamp $(B)/test-cfg.img $(B)/test-cfg-detect.img $(B)/test-cfg-big.img $(B)/test-noresults.img \
	$(B)/test-bochs-boot.img $(B)/test-cfg-nomenu.img $(B)/test-cfg-menu1.img $(RESULTS_IMG)/done

# SOURCE_DATE_EPOCH (command line or environment) and, when it is set, the commit decide an
# image's identity and timestamps (scripts/mkimage; an ISO's dates and identifiers,
# scripts/mkiso). IMG.env records them for each image
# mkimage or mkiso makes here, rewritten only when they change: another value rebuilds the image,
# the same one leaves it as it is.
MKIMAGE_IMAGES := $(IMAGE) $(ISO) $(filter-out $(B)/test-noresults.img $(B)/test-bochs-boot.img,$(filter %.img %.iso,$(TEST_IMAGES)))
$(MKIMAGE_IMAGES:%=%.env): FORCE
	@mkdir -p $(dir $@)
	@{ printf 'SOURCE_DATE_EPOCH=%s\n' "$${SOURCE_DATE_EPOCH-}"; [ -z "$${SOURCE_DATE_EPOCH-}" ] || \
		git rev-parse HEAD 2>/dev/null || echo no-commit; } > $@.tmp; \
	if cmp -s $@.tmp $@; then rm $@.tmp; else mv $@.tmp $@; fi
$(MKIMAGE_IMAGES): %: %.env

.PHONY: all image iso netboot run screenshot test test-secureboot test-lava mok-key unit-tests qemu-tests deps clean fuzz fuzz-build print-k32cflags FORCE
FORCE:
# A recipe of their own (nothing), so that an up-to-date build prints nothing, not make's
# `Nothing to be done`.
all: $(B)/BOOTX64.EFI $(B)/kernel32.elf $(HOST_TOOLS)
	@:
image: $(IMAGE)
	@:

deps:
	$(Q)scripts/install-deps

# make run boots RUN_IMAGE, a copy of IMAGE, with --writable-image, so that its runs are
# kept there (bareperf-report --list RUN_IMAGE) and accumulate from one make run to the
# next; a rebuilt IMAGE (newer than the copy) replaces the copy and its runs. QEMU_ARGS
# naming --image or --netboot boots that instead, as qemu-run would (snapshot=on unless
# QEMU_ARGS says --writable-image).
RUN_IMAGE ?= $(if $(filter $(B)/bareperf.img,$(IMAGE)),$(B)/run.img,$(basename $(IMAGE)).run.img)
RUN_OWN_IMAGE := $(if $(filter --image --netboot,$(QEMU_ARGS)),,$(RUN_IMAGE))
$(RUN_IMAGE): $(IMAGE)
	$(call say,CP,$@)cp --sparse=always $< $@.tmp && mv $@.tmp $@
	@echo "$@: a fresh copy of $<; make run keeps its runs on it until the image is rebuilt"

# ASM=... runs one user benchmark (scripts/qemu-run --asm); BENCH=FILE is already on the
# image's bareperf.cfg. ARGS, ASM, ASM_INIT, UNROLL, LOOP and ASM_NAME reach qemu-run as they
# were written (make's $(value): a '$' stays), through the environment, never through a
# shell command line: quotes, ';' and '$' in them are the benchmark's, not the shell's.
# QEMU_ARGS is options for qemu-run, read as shell words. QEMU_RUN is the script (tests).
# The command is echoed with each word quoted as the shell needs, so that it can be
# pasted back.
QEMU_RUN ?= scripts/qemu-run
# A line break in QEMU_ARGS separates words, as a space does (it would end the recipe's
# shell command).
define newline


endef
RUN_VARS := ARGS ASM ASM_INIT UNROLL LOOP ASM_NAME
$(foreach v,$(RUN_VARS),$(eval run: private export BAREPERF_RUN_$(v) = $$(value $(v))))
run: deps image $(RUN_OWN_IMAGE)
	@set -- $(if $(RUN_OWN_IMAGE),--image '$(RUN_OWN_IMAGE)' --writable-image); \
	[ -z "$$BAREPERF_RUN_ARGS" ] || set -- "$$@" --config "$$BAREPERF_RUN_ARGS"; \
	[ -z "$$BAREPERF_RUN_ASM" ] || set -- "$$@" --asm "$$BAREPERF_RUN_ASM"; \
	[ -z "$$BAREPERF_RUN_ASM_INIT" ] || set -- "$$@" --asm-init "$$BAREPERF_RUN_ASM_INIT"; \
	[ -z "$$BAREPERF_RUN_UNROLL" ] || set -- "$$@" --unroll "$$BAREPERF_RUN_UNROLL"; \
	[ -z "$$BAREPERF_RUN_LOOP" ] || set -- "$$@" --loop "$$BAREPERF_RUN_LOOP"; \
	[ -z "$$BAREPERF_RUN_ASM_NAME" ] || set -- "$$@" --name "$$BAREPERF_RUN_ASM_NAME"; \
	set -- "$$@" $(subst $(newline), ,$(QEMU_ARGS)); \
	line='$(QEMU_RUN)'; \
	for a in "$$@"; do \
		case $$a in ''|*[!A-Za-z0-9_./=:,+%@-]*) a="'$$(printf '%s' "$$a" | sed "s/'/'\\\\''/g")'" ;; esac; \
		line="$$line $$a"; \
	done; \
	printf '%s\n' "$$line"; \
	exec $(QEMU_RUN) "$$@"

# docs/screen.md's picture of the results screen, from this build, into build/ (docs/ holds a
# copy from a clean build): SeaBIOS and GRUB's 800x600, --icount for fixed figures.
SCREENSHOT ?= $(B)/screen-results.png
SCREENSHOT_CONFIG := mode=run payloads=add_chain,imul_chain,div_chain,fault_ud reps=3
screenshot: deps image
	$(call say,SCREEN,$(SCREENSHOT))$(QEMU_RUN) --bios --icount --config '$(SCREENSHOT_CONFIG)' \
		--screen $(SCREENSHOT) > $(SCREENSHOT).log 2>&1 || { tail -3 $(SCREENSHOT).log; exit 1; }

unit-tests: $(UNIT_TESTS) $(HOST_TOOLS)
qemu-tests: image $(TEST_IMAGES)

# The build and the tests both use every core (tests/run-all runs its jobs in parallel).
NPROC := $(shell nproc 2>/dev/null || echo 2)
test: deps
	$(MAKE) --no-print-directory -j$(NPROC) all image $(TEST_IMAGES) $(UNIT_TESTS) fuzz-build
	tests/run-all

# The Secure Boot boots (tests/secureboot/run): under Debian's Secure Boot OVMF, the unsigned
# image is refused, shim stops at an unenrolled key and at a loader without .sbat, the signed
# loader with its key in MokList runs mode=selftest, and one enrolment through MokManager.
# About 3.5 s of CPU a boot: apart from make test, whose budget they would break.
test-secureboot: deps
	$(MAKE) -j$(NPROC) all image $(SHIM_DIR)/stamp
	tests/secureboot/run

# The LAVA jobs of lava/ that need no lab, run by LAVA's own dispatcher without a server
# (scripts/lava-test, docs/lava.md); scripts/install-lava installs it from Debian first.
# The network-boot jobs boot build/netboot/ (make netboot).
TEST_LAVA_BUILD := all image netboot
test-lava: deps
	scripts/install-lava
	$(MAKE) -j$(NPROC) $(TEST_LAVA_BUILD)
	scripts/lava-test

clean:
	rm -rf $(B)

# The compilers' dependency files. Each included file is a makefile make would try to remake
# first, searching its built-in implicit rules for each of the 300-odd: 0.1 s of CPU in every
# make, even make -n clean. They are written by the compiles alone, so an empty rule of
# their own says there is nothing to remake (a make -n is a third of what it was).
DEPFILES := $(shell find $(B) -name '*.d' 2>/dev/null)
$(DEPFILES): ;
-include $(DEPFILES)
