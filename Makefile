# Builds the kernel (a release and a debug image), their GRUB images and the host tests; runs
# QEMU, gdb and the test suite.
# `make qemu-smp8` and `make test` are the two commands a user needs (see README.md).

BUILD   := build
CC      := gcc
SMP     ?= 8
MEM     ?= 1G
CMDLINE ?=
ACCEL   ?=
TIMEOUT ?= 900
# INITRD=file.cpio[.gz]: an initramfs archive of one's own, unpacked after the built-in one
# (build/initramfs.cpio.gz) by the qemu targets.
INITRD  ?=
# PKGS="python3 dbench": Debian packages as the host has them, with what they depend on, in
# build/rootfs.cpio.gz (make rootfs, tools/rootfs.py), unpacked after INITRD's by the qemu
# targets.
PKGS    ?=
CPU     ?= qemu64

# Kernel code: freestanding, higher half (-mcmodel=kernel needs -fno-pie), no red zone
# (interrupts push onto the stack), no SSE/x87 (no FPU state saved on entry), frame
# pointers for backtraces, and no loop-to-memcpy rewriting inside memcpy itself.
KCFLAGS := -std=gnu11 -ffreestanding -fno-pie -mcmodel=kernel -mno-red-zone \
  -mno-sse -mno-sse2 -mno-mmx -mno-80387 -fno-omit-frame-pointer \
  -mno-omit-leaf-frame-pointer -fno-stack-protector -fno-asynchronous-unwind-tables \
  -fno-tree-loop-distribute-patterns -fno-strict-aliasing -O2 -g \
  -Wall -Wextra -Werror -Wmissing-prototypes -Wno-unused-parameter -Iinclude -Iarch/x86_64/include -MMD -MP
LDFLAGS := -nostdlib -no-pie -Wl,--build-id=none -Wl,--no-warn-rwx-segments -z max-page-size=0x1000 -z noexecstack -T linker.ld

# Locks (include/spinlock.h): SPINLOCK=ticket|queued is what spinlock_t is built on, in both
# images (queued falls back to test-and-set under a hypervisor, like Linux's virt_spin_lock).
SPINLOCK ?= queued
$(if $(filter-out ticket queued,$(SPINLOCK)),$(error SPINLOCK must be ticket or queued))
KCFLAGS += $(if $(filter queued,$(SPINLOCK)),-DCONFIG_SPINLOCK_QUEUED)
# Lock statistics (include/lock_stat.h, lockstat=yes on the command line) are built into both
# images; LOCKSTAT=0 builds without them (no class pointer in any lock, no test in any lock
# path), to measure what they cost while off.
LOCKSTAT ?= 1
$(if $(filter-out 0 1,$(LOCKSTAT)),$(error LOCKSTAT must be 0 or 1))
KCFLAGS += $(if $(filter 1,$(LOCKSTAT)),-DCONFIG_LOCK_STAT)

KSRC := $(wildcard boot/*.S kernel/*.c kernel/locking/*.c kernel/lib/*.c kernel/bench/*.c \
          arch/x86_64/*.c arch/x86_64/*.S mm/*.c fs/*.c ipc/*.c net/*.c drivers/*/*.c)
# The kernel self-tests (tests/kernel/): linked into the debug image only. The release image
# keeps the framework (kernel/selftest.c), which there says that it has no test to run.
KSRC_TESTS := $(wildcard tests/kernel/*.c tests/kernel/*.S)

# Two images from the same sources, side by side: release (build/kernel.elf, build/kernel.iso;
# objects in build/obj/) has no debug checks, so benchmarks time the code itself; debug
# (build/debug/kernel.elf, build/debug/kernel.iso; objects in build/debug/obj/) is CONFIG_DEBUG:
# CONFIG_DEBUG_SPINLOCK (recursive locking and unlocking an unheld lock panic; every spin_lock
# an out-of-line call), slab debugging from boot (debug_slab= defaults to yes) and
# CONFIG_LOCKDEP, the lock-order checker (kernel/locking/lockdep.c); it alone links the
# self-tests (KSRC_TESTS), and its GRUB images load the test archive (TEST_ARCHIVE) too.
IMAGES := release debug
IMGDIR_release := $(BUILD)
IMGDIR_debug := $(BUILD)/debug
IMGFLAGS_release :=
IMGFLAGS_debug := -DCONFIG_DEBUG -DCONFIG_DEBUG_SPINLOCK -DCONFIG_LOCKDEP
KOBJ_release := $(patsubst %,$(IMGDIR_release)/obj/%.o,$(basename $(KSRC)))
KOBJ_debug := $(patsubst %,$(IMGDIR_debug)/obj/%.o,$(basename $(KSRC) $(KSRC_TESTS)))
# compile_commands.json: every kernel source once, the self-tests with the debug image's flags.
KOBJ := $(KOBJ_release) $(patsubst %,$(IMGDIR_debug)/obj/%.o,$(basename $(KSRC_TESTS)))
# The initramfs archives each image's GRUB image loads, in this order.
ARCHIVES_release := $(BUILD)/initramfs.cpio.gz
ARCHIVES_debug := $(BUILD)/initramfs.cpio.gz $(BUILD)/tests.cpio.gz

# The image a boot uses (tools/qemu.sh applies the same rule when called directly):
# DEBUG=1 the debug image, DEBUG=0 the release image; unset, debug when the command line runs
# self-tests (its last selftest= word has a value other than none), else release.
# image_for CMDLINE names it; only the qemu and gdb targets check DEBUG.
DEBUG ?=
image_for = $(strip $(if $(filter-out 0 1,$(DEBUG)),$(error DEBUG must be 0 or 1)) \
  $(if $(filter 1,$(DEBUG)),debug,$(if $(filter 0,$(DEBUG)),release, \
  $(if $(filter-out selftest= selftest=none,$(lastword $(filter selftest=%,$(1)))),debug,release))))

# V=1 prints every command in full; by default a rule prints one short line (Linux's kbuild).
ifeq ($(V),1)
  Q   :=
  say := @:
else
  Q   := @
  say := @echo
endif

.PHONY: all deps clean test host-tests bench-host qemu-gdb gdb report torture FORCE
# compile_commands.json, once made, is kept up to date by every build.
all: $(BUILD)/.deps-ok $(BUILD)/initramfs.cpio.gz $(TEST_ARCHIVE) \
  $(foreach i,$(IMAGES),$(IMGDIR_$(i))/kernel.elf $(IMGDIR_$(i))/kernel.iso) \
  $(if $(wildcard compile_commands.json),compile_commands.json)

# tools/deps.sh checks (and as root installs) the tools with apt. A build runs it only when
# the stamp is missing or the script changed; `make deps` always checks.
$(BUILD)/.deps-ok: tools/deps.sh
	$(Q)tools/deps.sh
	@mkdir -p $(BUILD) && touch $@
deps:
	$(Q)tools/deps.sh
	@mkdir -p $(BUILD) && touch $(BUILD)/.deps-ok

# update-stamp FILE,WORDS: rewrites FILE only when its words differ, so its date is when they
# last changed. Make compares and writes it itself: no shell runs while nothing changes.
update-stamp = $(if $(filter-out $(file <$1),$2)$(filter-out $2,$(file <$1)), \
  $(shell mkdir -p $(dir $1))$(file >$1,$2))

# kernel_image NAME: the rules of one image, in IMGDIR_NAME. Every object depends on the
# image's config stamp, rewritten only when the lock choice or the image's flags change.
# Two links: the first gives the addresses, tools/ksyms.sh turns them into the embedded
# symbol table, the second links it in. The table sits after everything else (linker.ld),
# so no other symbol moves; the cmp proves it. The GRUB image `make` leaves behind boots
# with an empty command line (bench=all).
define kernel_image
$(IMGDIR_$(1))/obj/%.o: %.c
	@mkdir -p $$(dir $$@)
	$(say) "  CC      $$<$(if $(IMGFLAGS_$(1)), ($(1)))"
	$(Q)$(CC) $(KCFLAGS) $(IMGFLAGS_$(1)) -c $$< -o $$@

$(IMGDIR_$(1))/obj/%.o: %.S
	@mkdir -p $$(dir $$@)
	$(say) "  AS      $$<$(if $(IMGFLAGS_$(1)), ($(1)))"
	$(Q)$(CC) $(KCFLAGS) $(IMGFLAGS_$(1)) -c $$< -o $$@

# Installed before anything is compiled (order-only: a new stamp rebuilds nothing).
$(KOBJ_$(1)) $(IMGDIR_$(1))/kernel.iso: | $(BUILD)/.deps-ok

$(KOBJ_$(1)): $(IMGDIR_$(1))/config
$(IMGDIR_$(1))/config: FORCE
	$$(call update-stamp,$$@,$(strip SPINLOCK=$(SPINLOCK) LOCKSTAT=$(LOCKSTAT) $(IMGFLAGS_$(1))))

$(IMGDIR_$(1))/kernel.elf: $(KOBJ_$(1)) linker.ld tools/ksyms.sh
	$(say) "  LD      $$@"
	$(Q)tools/ksyms.sh > $(IMGDIR_$(1))/ksyms0.S
	$(Q)$(CC) $(KCFLAGS) -c $(IMGDIR_$(1))/ksyms0.S -o $(IMGDIR_$(1))/ksyms0.o
	$(Q)$(CC) $(LDFLAGS) -o $(IMGDIR_$(1))/kernel.pass1.elf $(KOBJ_$(1)) $(IMGDIR_$(1))/ksyms0.o -lgcc
	$(Q)tools/ksyms.sh $(IMGDIR_$(1))/kernel.pass1.elf > $(IMGDIR_$(1))/ksyms.S
	$(Q)$(CC) $(KCFLAGS) -c $(IMGDIR_$(1))/ksyms.S -o $(IMGDIR_$(1))/ksyms.o
	$(Q)$(CC) $(LDFLAGS) -o $$@ $(KOBJ_$(1)) $(IMGDIR_$(1))/ksyms.o -lgcc
	$(Q)nm $(IMGDIR_$(1))/kernel.pass1.elf | grep -v -e ksyms_ -e ' _end$$$$' > $(IMGDIR_$(1))/syms1
	$(Q)nm $$@ | grep -v -e ksyms_ -e ' _end$$$$' > $(IMGDIR_$(1))/syms2
	$(Q)cmp -s $(IMGDIR_$(1))/syms1 $(IMGDIR_$(1))/syms2 || \
	  { echo "ksyms: symbols moved between links of $$@"; exit 1; }

$(IMGDIR_$(1))/kernel.iso: $(IMGDIR_$(1))/kernel.elf boot/grub.cfg.in tools/mkiso.sh \
  $(ARCHIVES_$(1))
	$(say) "  ISO     $$@"
	$(Q)tools/mkiso.sh $(IMGDIR_$(1))/kernel.elf "" $$@ $(ARCHIVES_$(1))
endef
$(foreach i,$(IMAGES),$(eval $(call kernel_image,$(i))))

# User programs: static glibc binaries built with the host's gcc. Those of user/ go into the
# built-in initramfs as /bin/<name> (tools/mkinitramfs.sh), which every boot loads.
USERCFLAGS := -O2 -static -pthread -s -Wall -Werror
INITRAMFS_PROGS := $(patsubst user/%.c,$(BUILD)/user/%,$(wildcard user/*.c)) $(BUILD)/user/ubench
# The test programs, the one list of them: those of tests/user/, hello built as a static-PIE
# (ET_DYN, relocated by glibc itself, hello-pie) and dynamically linked (hello-dyn, as gcc
# builds by default: PT_INTERP names the host's loader) beside hello itself, and exit0. Each goes into
# the test archive as /test/bin/<name>, where the user-* self-tests (tests/kernel/user_test.c)
# read it; a new tests/user/NAME.c joins by itself, a program built elsewhere by its name here
# (sysfuzz: the files of tests/user/sysfuzz/, its rule below).
TEST_PROGS := $(basename $(notdir $(wildcard tests/user/*.c))) sysfuzz hello hello-pie \
  hello-dyn exit0
TEST_BINS := $(addprefix $(BUILD)/user/,$(TEST_PROGS))
# The test archive: a gzip cpio archive of /test/bin/<name>, and the loader and C library
# hello-dyn loads (the host's, where ldd finds them: tools/solibs.sh), written by tools/newc.py (every
# entry root's, mtime 0: it depends on the programs alone). tools/qemu.sh loads it as one more
# Multiboot2 module, after the built-in initramfs, whenever it boots the debug image; the
# release image never gets it (README "The test archive").
TEST_ARCHIVE := $(BUILD)/tests.cpio.gz
# Linux's initramfs for make compare-linux (user/linux/init.c as /init; the rule is there).
LINUX_INITRD := $(BUILD)/linux/initrd.cpio
$(BUILD)/user/%: user/%.c | $(BUILD)/.deps-ok
	@mkdir -p $(dir $@)
	$(say) "  USER    $@"
	$(Q)$(CC) $(USERCFLAGS) -o $@ $< -lm
# exit0 (ubench's uexec runs it): no C library, so that only the kernel's execve is timed.
$(BUILD)/user/exit0: user/exit0.c | $(BUILD)/.deps-ok
	@mkdir -p $(dir $@)
	$(say) "  USER    $@"
	$(Q)$(CC) -O2 -static -nostdlib -fno-pie -no-pie -fno-stack-protector -s -Wall -Werror \
	  -o $@ $<
$(BUILD)/user/%: tests/user/%.c tests/user/check.h tests/user/raw.h | $(BUILD)/.deps-ok
	@mkdir -p $(dir $@)
	$(say) "  USER    $@"
	$(Q)$(CC) $(USERCFLAGS) -o $@ $< -lm
$(BUILD)/user/unix: tests/user/unix_gc.h   # its part on the collector
# sysfuzz (make fuzz-syscalls): one program from the files of tests/user/sysfuzz/ (its table
# of calls, their arguments, its workers and parent), built as the other test programs are.
SYSFUZZ_SRC := $(wildcard tests/user/sysfuzz/*.c)
$(BUILD)/user/sysfuzz: $(SYSFUZZ_SRC) $(wildcard tests/user/sysfuzz/*.h) tests/user/raw.h | \
  $(BUILD)/.deps-ok
	@mkdir -p $(dir $@)
	$(say) "  USER    $@"
	$(Q)$(CC) $(USERCFLAGS) -o $@ $(SYSFUZZ_SRC) -lm
# ubench (make compare-linux's benchmark): the files of user/ubench/ and the kernel's own
# statistics (kernel/lib/stats.c, with its headers), so that its mean, stddev and ci95 are
# computed exactly as the boot benchmarks' are, and the madvise suite's heap
# (kernel/lib/txnheap.c), so that umadvise draws the boot suite's transactions.
UBENCH_SRC := $(wildcard user/ubench/*.c) kernel/lib/stats.c kernel/lib/txnheap.c
$(BUILD)/user/ubench: $(UBENCH_SRC) $(wildcard user/ubench/*.h) include/stats.h include/txnheap.h include/types.h \
  include/compiler.h | $(BUILD)/.deps-ok
	@mkdir -p $(dir $@)
	$(say) "  USER    $@"
	$(Q)$(CC) $(USERCFLAGS) -std=gnu11 -Wextra -Wno-unused-parameter -iquote include -o $@ \
	  $(UBENCH_SRC) -lm
$(BUILD)/user/%-dyn: user/%.c | $(BUILD)/.deps-ok
	@mkdir -p $(dir $@)
	$(say) "  USER    $@"
	$(Q)$(CC) $(subst -static,,$(USERCFLAGS)) -o $@ $< -lm
$(BUILD)/user/%-pie: user/%.c | $(BUILD)/.deps-ok
	@mkdir -p $(dir $@)
	$(say) "  USER    $@"
	$(Q)$(CC) $(subst -static,-fPIE -static-pie,$(USERCFLAGS)) -o $@ $< -lm
$(TEST_ARCHIVE): $(TEST_BINS) tools/newc.py tools/solibs.sh
	$(say) "  CPIO    $@"
	$(Q){ printf '%s\n' 'dir /test 0755 0 0' 'dir /test/bin 0755 0 0'; \
	  for p in $(TEST_PROGS); do echo "file /test/bin/$$p $(BUILD)/user/$$p 0755 0 0"; done; \
	} > $(BUILD)/tests.cpio.list
	$(Q)tools/solibs.sh $(BUILD)/user/hello-dyn >> $(BUILD)/tests.cpio.list
	$(Q)tools/newc.py $(BUILD)/tests.cpio $(BUILD)/tests.cpio.list
	$(Q)gzip -n -9 -c $(BUILD)/tests.cpio > $@.tmp && mv $@.tmp $@

# compile_commands.json for clangd and other tools: the compiler commands make would run for
# every kernel source, host test and fuzzer, read from a dry run (make -n -B), so they are
# exactly the build's: the release image's (the debug image's differ by IMGFLAGS_debug alone).
# Remade when the Makefile, the lock choices or the list of kernel sources change.
# The dry run reads no .d file (NODEPS): a parallel build may be writing them.
$(BUILD)/sources: FORCE
	$(call update-stamp,$@,$(KSRC) $(KSRC_TESTS))
compile_commands.json: Makefile $(BUILD)/config $(BUILD)/sources tools/compile_commands.py
	$(say) "  GEN     $@"
	$(Q)$(MAKE) --no-print-directory -n -B NODEPS=1 $(KOBJ) host-tests $(FUZZ_BINS) > $(BUILD)/dry-run
	$(Q)tools/compile_commands.py $(BUILD)/dry-run $@

# Debian's busybox-static (tools/deps.sh installs it) gives the initramfs /bin/sh and the
# common tools, as /bin/busybox and its applets; BUSYBOX= (empty) builds without a shell. The
# archive is remade when tools/deps.sh ran (it may have just installed busybox). The shell
# test's script goes in as /etc/test/script.sh (tests/run.sh runs it with init=/bin/sh).
# $(BUILD)/busybox is rewritten only when BUSYBOX= changes (update-stamp).
BUSYBOX ?= /bin/busybox
SHELL_TEST := tests/shell/script.sh
$(BUILD)/busybox: FORCE
	$(call update-stamp,$@,BUSYBOX=$(BUSYBOX))
$(BUILD)/initramfs.cpio.gz: $(INITRAMFS_PROGS) tools/mkinitramfs.sh $(BUILD)/.deps-ok \
  $(BUILD)/busybox $(wildcard $(BUSYBOX)) $(SHELL_TEST)
	$(say) "  CPIO    $@"
	$(Q)tools/mkinitramfs.sh --busybox "$(BUSYBOX)" --test $(SHELL_TEST) $@ $(INITRAMFS_PROGS)

# make rootfs PKGS="...": build/rootfs.cpio.gz (missing packages installed with apt-get as root).
ROOTFS := $(BUILD)/rootfs.cpio.gz
.PHONY: rootfs
rootfs:
	@$(if $(PKGS),tools/rootfs.py $(ROOTFS) $(PKGS),echo 'make rootfs: name the packages: PKGS="python3 dbench"'; exit 2)
archives = $(if $(INITRD),--initrd "$(INITRD)") $(if $(PKGS),--initrd $(ROOTFS))

# make qemu-smpN: boot through GRUB on N vCPUs; exits 0 only on END result=pass.
qemu-smp%: all $(if $(PKGS),rootfs) FORCE
	@tools/qemu.sh --smp $* --mem $(MEM) --cmdline "$(CMDLINE)" --accel "$(ACCEL)" \
	  --timeout $(TIMEOUT) --cpu $(CPU) --image $(call image_for,$(CMDLINE)) $(archives)

# make torture SMP=n SECS=s: every torture and stress self-test for s seconds each in one boot
# of the debug image, QEMU's time-out following SECS; ends "selftest: N passed, N failed".
# SECS= is the user's word for the one target given (torture, fuzz, compare-linux); each has
# its own default, so none leaks into another.
TORTURE_SECS ?= 10
# make realprogs SMP=n: Debian's own dynamically linked programs under this kernel, each case's
# output against the host's (tools/realprogs.sh, tests/realprogs/cases.sh); needs root (the
# host's side runs in a ramfs it mounts).
.PHONY: realprogs
realprogs: all
	@tools/realprogs.sh --smp $(SMP) $(if $(CMDLINE),--cmdline "$(CMDLINE)")

torture: all FORCE
	@tools/torture.sh --smp $(SMP) --secs $(or $(SECS),$(TORTURE_SECS)) --mem $(MEM) --accel "$(ACCEL)"

# The gdb stub's port comes from the user id, so two users on one machine do not clash (xv6).
GDBPORT ?= $(shell expr $$(id -u) % 5000 + 25000)

# QEMU halted at reset with a gdb stub; a panic stops every CPU for gdb. The image booted is
# left in build/gdb-image for `make gdb`.
qemu-gdb: all $(if $(PKGS),rootfs)
	@echo $(call image_for,$(CMDLINE)) > $(BUILD)/gdb-image
	@tools/qemu.sh --smp $(SMP) --mem $(MEM) --cmdline "panic=halt $(CMDLINE)" \
	  --accel "$(ACCEL)" --timeout $(TIMEOUT) --cpu $(CPU) --gdb $(GDBPORT) --image $(call image_for,$(CMDLINE)) \
	  $(archives)

# Attach to `make qemu-gdb` and stop at the 64-bit C entry (a hardware breakpoint: the
# kernel is not in memory yet when QEMU is at reset). The symbols are the elf of the image
# `make qemu-gdb` booted, so `make gdb` needs no CMDLINE=; given DEBUG= or CMDLINE=, of the
# image the rule picks for them.
gdb_image = $(if $(DEBUG)$(CMDLINE),$(call image_for,$(CMDLINE)), \
  $(or $(file <$(BUILD)/gdb-image),release))
gdb: all
	gdb -q $(IMGDIR_$(strip $(gdb_image)))/kernel.elf -x tools/gdbinit \
	  -ex "target remote 127.0.0.1:$(GDBPORT)" \
	  -ex "set scheduler-locking step" -ex "thbreak kmain" -ex "continue"

# Host tests: the kernel's own source files, compiled for the host with ASan and UBSan. The host
# stands in for the arch layer only (tests/host/include/asm/, searched before arch/x86_64/include)
# and the kernel's headers are used as they are; tests/host/lib/ implements what the tested
# files call of the rest of the kernel (per-CPU areas, kmalloc over malloc, RCU over liburcu,
# a page pool), and lib/percpu.ld bounds the per-CPU section as linker.ld does.
HOSTLIB := tests/host/lib
HOSTINC := -iquote include -I tests/host/include -I arch/x86_64/include -D__KERNEL_HOST_TEST
HOSTSAN := -fsanitize=address,undefined -fno-sanitize-recover=all
HOSTCFLAGS := -std=gnu11 $(HOSTINC) $(HOSTSAN) -g -O1 -Wall -Wextra -Werror \
  -Wmissing-prototypes -Wno-unused-parameter -MMD -MP
HOSTLDFLAGS := -Wl,-T,$(HOSTLIB)/percpu.ld
HOST_TESTS := test_cmdline test_vsprintf test_ksyms test_stats test_acpi test_radix test_bench \
  test_spinlock test_pagecache test_path test_vma test_prof test_lockdep test_inflate test_cpio \
  test_unwind test_n_tty test_mktime test_fdtable test_rwsem
HOST_BINS := $(addprefix $(BUILD)/host/,$(HOST_TESTS))

# Each test's sources, its own file first.
HOSTSRC_test_cmdline := tests/host/test_cmdline.c kernel/lib/cmdline.c
HOSTSRC_test_vsprintf := tests/host/test_vsprintf.c kernel/lib/vsprintf.c
HOSTSRC_test_ksyms := tests/host/test_ksyms.c kernel/lib/ksyms.c
HOSTSRC_test_stats := tests/host/test_stats.c kernel/lib/stats.c
HOSTSRC_test_acpi := tests/host/test_acpi.c arch/x86_64/acpi.c
HOSTSRC_test_radix := tests/host/radix/test_radix.c mm/radix-tree.c \
  $(addprefix $(HOSTLIB)/,cpu.c rcu.c slab.c mempool.c)
HOSTSRC_test_bench := tests/host/test_bench.c kernel/bench/table.c kernel/lib/vsprintf.c \
  kernel/lib/stats.c
HOSTSRC_test_spinlock := tests/host/test_spinlock.c kernel/locking/ticket.c \
  kernel/locking/paravirt.c kernel/locking/qspinlock.c kernel/locking/tas.c \
  kernel/locking/rwlock.c $(HOSTLIB)/cpu.c
# The page cache's four variants, on the radix tree, the real reference counts and liburcu;
# spinlock_t is the ticket lock (no CONFIG_SPINLOCK_QUEUED on the host).
HOSTSRC_test_pagecache := tests/host/test_pagecache.c mm/filemap.c mm/pagecache_hash.c \
  mm/pagecache_radix.c mm/radix-tree.c mm/page_ref.c kernel/locking/ticket.c \
  kernel/locking/paravirt.c kernel/locking/mutex.c \
  $(addprefix $(HOSTLIB)/,cpu.c rcu.c slab.c mempool.c page_alloc.c vmscan.c sched.c time.c panic.c)
HOSTSRC_test_path := tests/host/test_path.c fs/path.c
HOSTSRC_test_inflate := tests/host/test_inflate.c kernel/lib/inflate.c kernel/lib/gunzip.c
HOSTSRC_test_cpio := tests/host/test_cpio.c kernel/lib/cpio.c
HOSTSRC_test_n_tty := tests/host/test_n_tty.c drivers/tty/n_tty.c
HOSTSRC_test_lockdep := tests/host/test_lockdep.c kernel/locking/lockdep_graph.c
HOSTSRC_test_vma := tests/host/test_vma.c mm/vma.c mm/munmap.c mm/vma_lock.c kernel/wait.c kernel/lib/cpumask.c kernel/locking/ticket.c \
  kernel/locking/paravirt.c kernel/locking/rwsem.c \
  $(addprefix $(HOSTLIB)/,cpu.c rcu.c slab.c sched.c time.c panic.c)
HOSTSRC_test_rwsem := tests/host/test_rwsem.c kernel/locking/rwsem.c kernel/locking/ticket.c \
  kernel/locking/paravirt.c $(addprefix $(HOSTLIB)/,cpu.c sched.c time.c panic.c)
HOSTSRC_test_prof := tests/host/test_prof.c kernel/lib/stacktable.c kernel/lib/vsprintf.c \
  kernel/lib/string.c
HOSTSRC_test_unwind := tests/host/test_unwind.c arch/x86_64/unwind.c
HOSTSRC_test_mktime := tests/host/test_mktime.c kernel/lib/mktime.c
HOSTSRC_test_fdtable := tests/host/test_fdtable.c fs/file.c kernel/lib/string.c kernel/locking/ticket.c \
  kernel/locking/paravirt.c $(addprefix $(HOSTLIB)/,cpu.c rcu.c slab.c sched.c panic.c)
HOSTCFLAGS_test_cmdline := -DCONFIG_LOCK_STAT
HOSTCFLAGS_test_vsprintf := -fno-builtin
HOSTCFLAGS_test_bench := -fno-builtin
HOSTLIBS_test_stats := -lm
HOSTLIBS_test_spinlock := -lpthread
HOSTLIBS_test_radix := -lurcu -lpthread
HOSTLIBS_test_pagecache := -lurcu -lpthread
HOSTLIBS_test_vma := -lurcu -lpthread
HOSTCFLAGS_test_vma := -DVMA_TEST
HOSTLIBS_test_fdtable := -lurcu -lpthread
# fs/file.c includes fs.h, which needs the kernel's ssize_t (types.h leaves it to the host's
# headers, which fs.h's dev_t clashes with).
HOSTCFLAGS_test_fdtable := -include $(HOSTLIB)/ssize_t.h

# A test's objects go in a directory of its own (flags differ between tests); each object is
# rebuilt when a source or header it uses changes (-MMD).
define host_test
HOSTOBJ_$(1) := $(patsubst %.c,$(BUILD)/host/obj/$(1)/%.o,$(HOSTSRC_$(1)))
$(BUILD)/host/obj/$(1)/%.o: %.c | $(BUILD)/.deps-ok
	@mkdir -p $$(dir $$@)
	$(say) "  HOSTCC  $$< ($(1))"
	$(Q)$(CC) $(HOSTCFLAGS) $$(HOSTCFLAGS_$(1)) -c $$< -o $$@
$(BUILD)/host/$(1): $$(HOSTOBJ_$(1)) $(HOSTLIB)/percpu.ld
	$(say) "  HOSTLD  $$@"
	$(Q)$(CC) $(HOSTSAN) $(HOSTLDFLAGS) $$(HOSTOBJ_$(1)) -o $$@ $$(HOSTLIBS_$(1))
-include $$(HOSTOBJ_$(1):.o=.d)
endef
$(foreach t,$(HOST_TESTS),$(eval $(call host_test,$(t))))

# Builds and runs every host test, binaries and tests/host/*.sh, a PASS or FAIL line each
# (test_layout.sh reads both kernel images: no test code in the release one).
host-tests: $(HOST_BINS) $(foreach i,$(IMAGES),$(IMGDIR_$(i))/kernel.elf)
	@failed=0; \
	for t in $(HOST_BINS) $(wildcard tests/host/*.sh); do \
	  name=$$(basename $$t .sh); \
	  if $$t > $(BUILD)/host/$$name.out 2>&1; then \
	    echo "PASS  host/$$name"; \
	  else \
	    echo "FAIL  host/$$name ($$(tail -n 1 $(BUILD)/host/$$name.out))"; failed=1; \
	  fi; \
	done; \
	exit $$failed

# The host test binaries, one a line: what tests/run.sh runs.
.PHONY: host-test-list
host-test-list:
	@printf '%s\n' $(HOST_BINS)

# Fuzzers: the parsers of the command line, the ACPI tables, the Multiboot2 information and
# the initramfs (gzip, DEFLATE, cpio),
# built from the kernel's files with clang's libFuzzer, ASan and UBSan (tests/fuzz/). make
# test runs each for a fixed, seeded number of inputs, make check replays each one's corpus;
# make fuzz SECS=s runs each for s seconds, 60 by default (tests/fuzz/run.sh says where inputs
# go).
FUZZ_CC := clang-14
FUZZSAN := -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
FUZZCFLAGS := $(filter-out $(HOSTSAN),$(HOSTCFLAGS)) $(FUZZSAN)
FUZZERS := cmdline acpi multiboot inflate cpio
FUZZ_BINS := $(addprefix $(BUILD)/fuzz/fuzz_,$(FUZZERS))
FUZZSRC_cmdline := tests/fuzz/fuzz_cmdline.c kernel/lib/cmdline.c
FUZZSRC_acpi := tests/fuzz/fuzz_acpi.c arch/x86_64/acpi.c
FUZZSRC_multiboot := tests/fuzz/fuzz_multiboot.c arch/x86_64/multiboot.c
FUZZSRC_inflate := tests/fuzz/fuzz_inflate.c kernel/lib/inflate.c kernel/lib/gunzip.c
FUZZSRC_cpio := tests/fuzz/fuzz_cpio.c kernel/lib/cpio.c

define fuzzer
FUZZOBJ_$(1) := $(patsubst %.c,$(BUILD)/fuzz/obj/$(1)/%.o,$(FUZZSRC_$(1)))
$(BUILD)/fuzz/obj/$(1)/%.o: %.c | $(BUILD)/.deps-ok
	@mkdir -p $$(dir $$@)
	$(say) "  FUZZCC  $$< ($(1))"
	$(Q)$(FUZZ_CC) $(FUZZCFLAGS) -c $$< -o $$@
$(BUILD)/fuzz/fuzz_$(1): $$(FUZZOBJ_$(1))
	$(say) "  FUZZLD  $$@"
	$(Q)$(FUZZ_CC) $(FUZZSAN) $$^ -o $$@
-include $$(FUZZOBJ_$(1):.o=.d)
endef
$(foreach f,$(FUZZERS),$(eval $(call fuzzer,$(f))))

FUZZ_SECS ?= 60
.PHONY: fuzz fuzz-list
fuzz: $(FUZZ_BINS)
	@tests/fuzz/run.sh --secs $(or $(SECS),$(FUZZ_SECS)) $(FUZZ_BINS)

# make fuzz-syscalls SMP=n SECS=s [SEED=x] [CALLS=a,b] [COVER=1]: /test/bin/sysfuzz
# (tests/user/sysfuzz/) racing the system calls (or only CALLS) for s seconds in one
# debug-image boot (lockdep on); COVER=1 loads the TCG plugin that records the kernel code run.
FUZZ_SYSCALLS_SECS ?= 600
.PHONY: fuzz-syscalls
fuzz-syscalls: all $(if $(COVER),$(BUILD)/tools/tbcover.so) FORCE
	@tools/fuzz_syscalls.sh --smp $(SMP) --secs $(or $(SECS),$(FUZZ_SYSCALLS_SECS)) \
	  --mem $(MEM) --accel "$(ACCEL)" $(if $(SEED),--seed $(SEED)) $(if $(CALLS),--calls $(CALLS)) \
	  $(if $(COVER),--cover)

# The QEMU plugin of COVER=1: a host shared object (QEMU's -plugin loads it).
$(BUILD)/tools/tbcover.so: tools/cover/tbcover.c
	@mkdir -p $(dir $@)
	$(say) "  HOSTCC  $@"
	$(Q)$(CC) -O2 -Wall -Wextra -shared -fPIC -fvisibility=hidden -o $@ $<

# The fuzzer binaries, one a line: what tests/run.sh runs.
fuzz-list:
	@printf '%s\n' $(FUZZ_BINS)

# The radix tree against liburcu's RCU hash table (cds_lfht) on the same keys, on the host:
# optimized, no sanitizers; prints lookups/s of both and their ratio.
bench-host: deps
	@mkdir -p $(BUILD)/host
	@$(CC) -std=gnu11 $(HOSTINC) -D_LGPL_SOURCE -O2 -Wall -Wextra -Werror -Wno-unused-parameter \
	  tests/host/radix/bench_radix.c mm/radix-tree.c \
	  $(addprefix $(HOSTLIB)/,cpu.c rcu.c slab.c mempool.c) $(HOSTLDFLAGS) \
	  -lurcu -lurcu-cds -lpthread -o $(BUILD)/host/bench_radix
	@$(BUILD)/host/bench_radix

# make test and make check build what they need a job per host core first (27 s for 51 on a
# clean clone of the 2-core build machine); the tests themselves pace their own jobs.
ifneq ($(filter test check,$(MAKECMDGOALS)),)
MAKEFLAGS += -j$(shell nproc 2> /dev/null || echo 1)
endif

# make test [GROUPS=a,b]: every test, or only the named groups of tests/run.sh (host, fuzz,
# selftest, tty, compare, boots, inject, planted, bench, gdb); each group prints its own time.
# make check: the developer's loop, the short form of host, fuzz, selftest, bench and planted
# (tests/run.sh --check says what each runs); GROUPS= picks among those too.
.PHONY: check
test: all $(HOST_BINS) $(FUZZ_BINS) $(LINUX_INITRD)
	@tests/run.sh $(if $(GROUPS),--groups $(GROUPS))
check: all $(HOST_BINS) $(FUZZ_BINS)
	@tests/run.sh --check $(if $(GROUPS),--groups $(GROUPS))

# make bench-repeat N=5: N boots with one SMP and CMDLINE, one after the other, every log kept
# under build/logs/repeat-<date>-<time>/; then a BENCH-REPEAT line per comparison, the spread
# of its ratio between the boots. Non-zero only if a boot failed.
.PHONY: bench-repeat
bench-repeat: all
	@tools/bench_repeat.py --boots $(or $(N),5) --smp $(SMP) --mem $(MEM) \
	  --cmdline "$(CMDLINE)" --accel "$(ACCEL)" --timeout $(TIMEOUT)

# make compare-linux [SMP=8] [ROUNDS=3] [SECS=] [SUITES=] [THREADS=] [LINUX_PKG=] [CPU=max]
# [MARGIN=5] [EXPLAIN=no] [CMDLINE=]: /bin/ubench on this kernel (ipi.wait=spin and =halt,
# with CMDLINE='s words, e.g. vm.pt=percore) and on Debian's
# Linux (tools/fetch_linux.sh, cached in build/linux/) on equal terms and with Debian's
# defaults, alternating, through tools/qemu.sh with the same QEMU options; tables and COMPARE
# lines, build/report/compare-linux.md and .png (tools/compare_linux.py, doc/compare-linux.md;
# MARGIN= the percentage within which a ratio is `same`, EXPLAIN=no boots only the verdict's
# pair). Linux boots
# build/linux/initrd.cpio: user/linux/init.c as /init (never in this kernel's initramfs),
# /bin/ubench, /bin/exit0 (ubench's uexec runs it), /dev/console, written by tools/newc.py
# (no root needed for the device node).
# CPU and SECS have other defaults elsewhere: only a value given to make is passed on.
given = $(filter command line environment,$(origin $(1)))
$(LINUX_INITRD): $(BUILD)/user/linux/init $(BUILD)/user/ubench $(BUILD)/user/exit0 tools/newc.py
	@mkdir -p $(dir $@)
	$(say) "  CPIO    $@"
	$(Q)printf '%s\n' 'dir /dev 0755 0 0' 'nod /dev/console 0600 0 0 c 5 1' \
	  'dir /proc 0755 0 0' 'dir /sys 0755 0 0' 'dir /tmp 1777 0 0' 'dir /bin 0755 0 0' \
	  'file /init $(BUILD)/user/linux/init 0755 0 0' \
	  'file /bin/ubench $(BUILD)/user/ubench 0755 0 0' \
	  'file /bin/exit0 $(BUILD)/user/exit0 0755 0 0' > $@.list
	$(Q)tools/newc.py $@ $@.list
# make seeds-real [SMP=8] [ROUNDS=3] [SEEDS=000,001,003] [SECS=] [REPS=] [COUNTS=] [LINUX_PKG=]: the
# seeds' own programs, unmodified (dbench, fs_mark, sysbench with jemalloc), on every variant of
# this kernel (pagecache=, ramfs.free=, madvise.lock=) and on Debian's Linux on compare-linux's
# equal terms, a boot per variant per round; REAL-SEED lines, tables beside the seeds' own and
# build/report/seeds-real.md (tools/seeds_real.py, doc/seeds-real.md). IMITATION= a benchmark
# boot's log whose BENCH-SEED lines go beside (default build/logs/last.log). COUNTS=1,2: only
# those client or thread counts of each seed's sweep.
.PHONY: seeds-real
seeds-real: all $(LINUX_INITRD)
	@tools/seeds_real.py --smp $(SMP) --rounds $(or $(ROUNDS),3) --mem $(if $(call given,MEM),$(MEM),2G) \
	  $(if $(SEEDS),--seeds $(SEEDS)) $(if $(call given,SECS),--secs $(SECS)) $(if $(REPS),--reps $(REPS)) \
	  $(if $(COUNTS),--counts $(COUNTS)) \
	  --cpu $(if $(call given,CPU),$(CPU),max) --accel "$(ACCEL)" --pkg "$(LINUX_PKG)" \
	  --linux-list $(LINUX_INITRD).list --busybox "$(BUSYBOX)" \
	  --imitation $(or $(IMITATION),$(BUILD)/logs/last.log)

.PHONY: compare-linux
compare-linux: all $(LINUX_INITRD)
	@tools/compare_linux.py --smp $(SMP) --rounds $(or $(ROUNDS),3) --mem $(MEM) \
	  --cpu $(if $(call given,CPU),$(CPU),max) $(if $(call given,SECS),--secs $(SECS)) \
	  $(if $(call given,TIMEOUT),--timeout $(TIMEOUT)) --pkg "$(LINUX_PKG)" --accel "$(ACCEL)" \
	  $(if $(SUITES),--suites $(SUITES)) $(if $(THREADS),--threads $(THREADS)) \
	  $(if $(MARGIN),--margin $(MARGIN)) $(if $(EXPLAIN),--explain $(EXPLAIN)) \
	  $(if $(CMDLINE),--this-cmdline "$(CMDLINE)") --initrd $(LINUX_INITRD)

report:
	@tools/report.py $(if $(LOG),$(LOG),$(BUILD)/logs/last.log) $(BUILD)/report

clean:
	rm -rf $(BUILD)

FORCE:
-include $(if $(NODEPS),,$(foreach i,$(IMAGES),$(KOBJ_$(i):.o=.d)))
