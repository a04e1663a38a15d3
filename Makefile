# Builds the kernel, its GRUB image and the host tests; runs QEMU, gdb and the test suite.
# `make qemu-smp8` and `make test` are the two commands a user needs (see README.md).

BUILD   := build
CC      := gcc
SMP     ?= 8
MEM     ?= 1G
CMDLINE ?=
ACCEL   ?=
TIMEOUT ?= 900

# Kernel code: freestanding, higher half (-mcmodel=kernel needs -fno-pie), no red zone
# (interrupts push onto the stack), no SSE/x87 (no FPU state saved on entry), frame
# pointers for backtraces, and no loop-to-memcpy rewriting inside memcpy itself.
KCFLAGS := -std=gnu11 -ffreestanding -fno-pie -mcmodel=kernel -mno-red-zone \
  -mno-sse -mno-sse2 -mno-mmx -mno-80387 -fno-omit-frame-pointer \
  -mno-omit-leaf-frame-pointer -fno-stack-protector -fno-asynchronous-unwind-tables \
  -fno-tree-loop-distribute-patterns -fno-strict-aliasing -O2 -g \
  -Wall -Wextra -Werror -Wmissing-prototypes -Wno-unused-parameter -Iinclude -Iarch/x86_64/include -MMD -MP
LDFLAGS := -nostdlib -no-pie -Wl,--build-id=none -Wl,--no-warn-rwx-segments -z max-page-size=0x1000 -z noexecstack -T linker.ld

# Locks (include/spinlock.h): SPINLOCK=ticket|queued is what spinlock_t is built on (queued
# falls back to test-and-set under a hypervisor, like Linux's virt_spin_lock);
# DEBUG_SPINLOCK=1 makes recursive locking and unlocking an unheld lock panic.
SPINLOCK ?= queued
DEBUG_SPINLOCK ?= 1
$(if $(filter-out ticket queued,$(SPINLOCK)),$(error SPINLOCK must be ticket or queued))
KCFLAGS += $(if $(filter queued,$(SPINLOCK)),-DCONFIG_SPINLOCK_QUEUED) \
  $(if $(filter 1,$(DEBUG_SPINLOCK)),-DCONFIG_DEBUG_SPINLOCK)

KSRC := $(wildcard boot/*.S kernel/*.c kernel/locking/*.c kernel/lib/*.c kernel/bench/*.c arch/x86_64/*.c arch/x86_64/*.S \
          mm/*.c fs/*.c tests/kernel/*.c)
KOBJ := $(patsubst %,$(BUILD)/obj/%.o,$(basename $(KSRC)))

# V=1 prints every command in full; by default a rule prints one short line (Linux's kbuild).
ifeq ($(V),1)
  Q   :=
  say := @:
else
  Q   := @
  say := @echo
endif

.PHONY: all deps clean test host-tests bench-host qemu-gdb gdb report FORCE
# compile_commands.json, once made, is kept up to date by every build.
all: $(BUILD)/.deps-ok $(BUILD)/kernel.elf $(BUILD)/kernel.iso \
  $(if $(wildcard compile_commands.json),compile_commands.json)

# tools/deps.sh checks (and as root installs) the tools with apt. A build runs it only when
# the stamp is missing or the script changed; `make deps` always checks.
$(BUILD)/.deps-ok: tools/deps.sh
	$(Q)tools/deps.sh
	@mkdir -p $(BUILD) && touch $@
deps:
	$(Q)tools/deps.sh
	@mkdir -p $(BUILD) && touch $(BUILD)/.deps-ok
# Installed before anything is compiled (order-only: a new stamp rebuilds nothing).
$(KOBJ) $(BUILD)/kernel.iso: | $(BUILD)/.deps-ok

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(say) "  CC      $<"
	$(Q)$(CC) $(KCFLAGS) -c $< -o $@

$(BUILD)/obj/%.o: %.S
	@mkdir -p $(dir $@)
	$(say) "  AS      $<"
	$(Q)$(CC) $(KCFLAGS) -c $< -o $@

# update-stamp FILE,WORDS: rewrites FILE only when its words differ, so its date is when they
# last changed. Make compares and writes it itself: no shell runs while nothing changes.
update-stamp = $(if $(filter-out $(file <$1),$2)$(filter-out $2,$(file <$1)), \
  $(shell mkdir -p $(dir $1))$(file >$1,$2))

# Every object depends on the lock choices: the stamp is rewritten only when they change.
$(KOBJ): $(BUILD)/config
$(BUILD)/config: FORCE
	$(call update-stamp,$@,SPINLOCK=$(SPINLOCK) DEBUG_SPINLOCK=$(DEBUG_SPINLOCK))

# Two links: the first gives the addresses, tools/ksyms.sh turns them into the embedded
# symbol table, the second links it in. The table sits after everything else
# (linker.ld), so no other symbol moves; the cmp proves it.
$(BUILD)/kernel.elf: $(KOBJ) linker.ld tools/ksyms.sh
	$(say) "  LD      $@"
	$(Q)tools/ksyms.sh > $(BUILD)/ksyms0.S
	$(Q)$(CC) $(KCFLAGS) -c $(BUILD)/ksyms0.S -o $(BUILD)/ksyms0.o
	$(Q)$(CC) $(LDFLAGS) -o $(BUILD)/kernel.pass1.elf $(KOBJ) $(BUILD)/ksyms0.o -lgcc
	$(Q)tools/ksyms.sh $(BUILD)/kernel.pass1.elf > $(BUILD)/ksyms.S
	$(Q)$(CC) $(KCFLAGS) -c $(BUILD)/ksyms.S -o $(BUILD)/ksyms.o
	$(Q)$(CC) $(LDFLAGS) -o $@ $(KOBJ) $(BUILD)/ksyms.o -lgcc
	$(Q)nm $(BUILD)/kernel.pass1.elf | grep -v -e ksyms_ -e ' _end$$' > $(BUILD)/syms1
	$(Q)nm $@ | grep -v -e ksyms_ -e ' _end$$' > $(BUILD)/syms2
	$(Q)cmp -s $(BUILD)/syms1 $(BUILD)/syms2 || { echo "ksyms: symbols moved between links"; exit 1; }

# The image `make` leaves behind boots with an empty command line (bench=all).
$(BUILD)/kernel.iso: $(BUILD)/kernel.elf boot/grub.cfg.in tools/mkiso.sh
	$(say) "  ISO     $@"
	$(Q)tools/mkiso.sh $(BUILD)/kernel.elf "" $@

# compile_commands.json for clangd and other tools: the compiler commands make would run for
# every kernel source and host test, read from a dry run (make -n -B), so they are exactly the
# build's. Remade when the Makefile, the lock choices or the list of kernel sources change.
# The dry run reads no .d file (NODEPS): a parallel build may be writing them.
$(BUILD)/sources: FORCE
	$(call update-stamp,$@,$(KSRC))
compile_commands.json: Makefile $(BUILD)/config $(BUILD)/sources tools/compile_commands.py
	$(say) "  GEN     $@"
	$(Q)$(MAKE) --no-print-directory -n -B NODEPS=1 $(KOBJ) host-tests > $(BUILD)/dry-run
	$(Q)tools/compile_commands.py $(BUILD)/dry-run $@

# make qemu-smpN: boot through GRUB on N vCPUs; exits 0 only on END result=pass.
qemu-smp%: all FORCE
	@tools/qemu.sh --smp $* --mem $(MEM) --cmdline "$(CMDLINE)" --accel "$(ACCEL)" \
	  --timeout $(TIMEOUT)

# The gdb stub's port comes from the user id, so two users on one machine do not clash (xv6).
GDBPORT ?= $(shell expr $$(id -u) % 5000 + 25000)

# QEMU halted at reset with a gdb stub; a panic stops every CPU for gdb.
qemu-gdb: all
	@tools/qemu.sh --smp $(SMP) --mem $(MEM) --cmdline "panic=halt $(CMDLINE)" \
	  --accel "$(ACCEL)" --timeout $(TIMEOUT) --gdb $(GDBPORT)

# Attach to `make qemu-gdb` and stop at the 64-bit C entry (a hardware breakpoint: the
# kernel is not in memory yet when QEMU is at reset).
gdb: $(BUILD)/kernel.elf
	gdb -q -x tools/gdbinit -ex "target remote 127.0.0.1:$(GDBPORT)" \
	  -ex "set scheduler-locking step" -ex "thbreak kmain" -ex "continue"

# Host tests: the kernel's own source files, compiled for the host with sanitizers.
HOSTCFLAGS := -std=gnu11 -iquote include -D__KERNEL_HOST_TEST -fsanitize=address,undefined \
  -fno-sanitize-recover=all -g -O1 -Wall -Wextra -Werror
HOST_TESTS := test_cmdline test_vsprintf test_ksyms test_stats test_acpi test_radix test_bench \
  test_spinlock test_pagecache test_path test_vma
$(BUILD)/host/test_cmdline: tests/host/test_cmdline.c kernel/lib/cmdline.c
$(BUILD)/host/test_vsprintf: tests/host/test_vsprintf.c kernel/lib/vsprintf.c
$(BUILD)/host/test_ksyms: tests/host/test_ksyms.c kernel/lib/ksyms.c
$(BUILD)/host/test_stats: tests/host/test_stats.c kernel/lib/stats.c
$(BUILD)/host/test_acpi: tests/host/test_acpi.c arch/x86_64/acpi.c
HOSTCFLAGS_acpi := -I arch/x86_64/include
# The radix tree against liburcu: the shim headers stand in for the kernel's slab and RCU.
$(BUILD)/host/test_radix: tests/host/radix/test_radix.c mm/radix-tree.c tests/host/radix/shim/shim.c
# A shim header that stands in for one of include/ is forced in first (-include): include/'s
# own headers find their neighbours before any -iquote directory.
HOSTCFLAGS_radix := -iquote tests/host/radix/shim -include tests/host/radix/shim/preempt.h
$(BUILD)/host/test_spinlock: tests/host/test_spinlock.c kernel/locking/ticket.c \
  kernel/locking/qspinlock.c kernel/locking/tas.c kernel/locking/rwlock.c
HOSTCFLAGS_spinlock := -iquote tests/host/spinlock/shim -I tests/host/spinlock/shim -include tests/host/spinlock/shim/preempt.h
HOSTLIBS_spinlock := -lpthread
# The page cache's four variants, on the radix tree and liburcu, with a small mm shim.
$(BUILD)/host/test_pagecache: tests/host/test_pagecache.c tests/host/pagecache/shim.c \
  tests/host/radix/shim/shim.c mm/filemap.c mm/pagecache_hash.c mm/pagecache_radix.c \
  mm/radix-tree.c
HOSTCFLAGS_pagecache := -iquote tests/host/radix/shim -iquote tests/host -I arch/x86_64/include \
  -include tests/host/radix/shim/preempt.h
HOSTLIBS_pagecache := -lurcu -lpthread
$(BUILD)/host/test_path: tests/host/test_path.c fs/path.c
$(BUILD)/host/test_vma: tests/host/test_vma.c mm/mmap.c
HOSTCFLAGS_vma := -I arch/x86_64/include -Wno-unused-parameter
$(BUILD)/host/test_bench: tests/host/test_bench.c kernel/bench/table.c kernel/lib/vsprintf.c kernel/lib/stats.c
HOSTCFLAGS_bench := -fno-builtin
HOSTLIBS_radix := -lurcu -lpthread
# Every host test is rebuilt when any header changes: each compiles kernel sources through
# the kernel's own headers and its shims.
HOST_HEADERS := $(wildcard include/*.h arch/x86_64/include/asm/*.h tests/host/*.h tests/host/*/*.h \
  tests/host/*/shim/*.h)
$(BUILD)/host/test_%: $(HOST_HEADERS)
	@mkdir -p $(dir $@)
	@echo "  HOSTCC  $@"
	@$(CC) $(HOSTCFLAGS_$*) $(HOSTCFLAGS) $(filter %.c,$^) -o $@ $(HOSTLIBS_$*)
HOSTCFLAGS_vsprintf := -fno-builtin
HOSTLIBS_stats := -lm

host-tests: $(addprefix $(BUILD)/host/,$(HOST_TESTS))

# The radix tree against liburcu's RCU hash table (cds_lfht) on the same keys, on the host:
# optimized, no sanitizers; prints lookups/s of both and their ratio.
bench-host: deps
	@mkdir -p $(BUILD)/host
	@$(CC) -std=gnu11 -iquote tests/host/radix/shim -iquote include -D__KERNEL_HOST_TEST \
	  -D_LGPL_SOURCE -O2 -Wall -Wextra -Werror tests/host/radix/bench_radix.c mm/radix-tree.c \
	  tests/host/radix/shim/shim.c -lurcu -lurcu-cds -lpthread -o $(BUILD)/host/bench_radix
	@$(BUILD)/host/bench_radix

test: all host-tests
	@tests/run.sh

report:
	@tools/report.py $(if $(LOG),$(LOG),$(BUILD)/logs/last.log) $(BUILD)/report

clean:
	rm -rf $(BUILD)

FORCE:
-include $(if $(NODEPS),,$(KOBJ:.o=.d))
