# The four kinds of boot of make compare-linux (tools/compare_linux.py): each kernel's command
# line, and the check, from a boot's log, that Linux did take the equal terms it was given.
"""this: this kernel waiting for IPI answers as Linux does (ipi.wait=spin); this_halt: its
default (ipi.wait=halt); linux: Debian's Linux told to do the same work as this kernel
(EQUAL); linux_debian: Debian's defaults. The verdict reads this against linux; the other two
say what each difference is worth (doc/compare-linux.md)."""

import re

KINDS = ("this", "this_halt", "linux", "linux_debian")
NAMES = {"this": "this kernel (ipi.wait=spin)", "this_halt": "this kernel (ipi.wait=halt)",
         "linux": "Linux, equal terms", "linux_debian": "Linux, Debian's defaults"}
# The verdict's pair; --explain no leaves the other two out.
MAIN = ("this", "linux")

# Linux's words for equal terms: each removes work Debian's Linux 6.1 does by default and this
# kernel never does (read from a verbose boot's log and Debian's /boot/config-6.1.0-57-amd64;
# doc/compare-linux.md, "Equal terms", also lists what no boot parameter removes).
EQUAL = [
    # CONFIG_INIT_ON_ALLOC_DEFAULT_ON=y zeroes every page and slab object when allocated
    # (mm/page_alloc.c, want_init_on_alloc); this kernel zeroes only the pages user memory
    # needs zeroed. init_on_free is off by default; said so that the log line shows both.
    "init_on_alloc=0", "init_on_free=0",
    # Speculative-execution defences: page-table isolation (a CR3 switch on every kernel entry
    # and exit), retpolines, return thunks, buffer clearing on exit to user (Documentation/
    # admin-guide/hw-vuln/). This kernel has none of them.
    "mitigations=off",
    # CONFIG_TRANSPARENT_HUGEPAGE_ALWAYS=y: anonymous faults in an aligned 2 MiB range
    # allocate and zero a huge page, so umadvise's arenas took 14-24 faults a transaction
    # against this kernel's 46-47: different work. This kernel maps 4 KiB pages only.
    "transparent_hugepage=never",
    # CONFIG_RANDOMIZE_KSTACK_OFFSET_DEFAULT=y: every system call moves the kernel stack by a
    # random offset (a rdtsc and an alloca in do_syscall_64, include/linux/randomize_kstack.h).
    "randomize_kstack_offset=off",
    # CONFIG_HARDENED_USERCOPY=y: every copy to or from user space checks the kernel object's
    # bounds (slab cache, stack frame: mm/usercopy.c, __check_object_size).
    "hardened_usercopy=off",
    # CONFIG_LSM lists landlock, lockdown, yama, apparmor, tomoyo, bpf ...: their hooks run on
    # every open, mmap, exec and fork. capability alone is what this kernel checks (root).
    "lsm=capability",
    # CONFIG_PSI=y and not disabled by default: pressure-stall accounting on every task
    # enqueue, dequeue and switch (kernel/sched/psi.c). This kernel keeps no such account.
    "psi=0",
    # CONFIG_PREEMPT_DYNAMIC=y, voluntary by default: might_resched points and preemption
    # checks. This kernel is not preemptible (doc/design.md, "Scheduling"); preempt=none is
    # Linux's same model.
    "preempt=none",
    # Under TCG Linux cannot calibrate the TSC against the PIT and keeps watching it against
    # the HPET (the clocksource watchdog, a timer reading an emulated device). This kernel
    # trusts the TSC; tsc=reliable says the same to Linux (arch/x86/kernel/tsc.c).
    "tsc=reliable",
    # CONFIG_MEMCG=y: every page fault's page and every accounted slab object is charged to
    # the task's memory cgroup (mm/memcontrol.c). This kernel has no cgroups.
    "cgroup_disable=memory",
    # CONFIG_AUDITSYSCALL=y: off without an audit daemon, as here; audit=0 makes sure no
    # task gets an audit context (kernel/auditsc.c, audit_alloc) and the log says so.
    "audit=0",
]

# panic=-1: a panic reboots at once, which -no-reboot turns into the end of the run.
# no5lvl: -cpu max offers LA57, and Linux would walk five levels of page tables where this
# kernel walks four (arch/x86/boot/compressed/pgtable_64.c); the same depth for both.
LINUX_BASE = "console=ttyS0,115200 quiet panic=-1 no5lvl"


def cmdline(kind, args, this_extra=""):
    """The kernel command line of a boot of kind, the program's arguments after --; this_extra:
    more words for this kernel's boots (make compare-linux's CMDLINE=, e.g. vm.pt=percore)."""
    extra = " " + this_extra if this_extra else ""
    if kind == "this":
        return "bench=none ipi.wait=spin%s init=/bin/ubench -- %s" % (extra, args)
    if kind == "this_halt":
        return "bench=none ipi.wait=halt%s init=/bin/ubench -- %s" % (extra, args)
    if kind == "linux":
        return "%s %s -- %s" % (LINUX_BASE, " ".join(EQUAL), args)
    return "%s -- %s" % (LINUX_BASE, args)


def order(kinds, i):
    """A round's boots, kernels alternating; every other round reversed, so that neither pair
    runs first more often (counterbalanced against the host's drift within a round)."""
    base = [k for k in ("this", "linux", "this_halt", "linux_debian") if k in kinds]
    return base if i % 2 == 0 else base[::-1]


SEEN = re.compile(r"^(?:\[\s*\d+\.\d+\] ?)?init: seen (\w+): (.*)$")
IGNORED = re.compile(r"cmdline: ignoring '(ipi\.wait=\w+)': unknown key")


def seen(path):
    """What a boot's log says its kernel did: for Linux, user/linux/init.c's `init: seen`
    lines as {what: value} (klog: the kernel's lines, joined by ' | '); for this kernel,
    {"ipi.wait": "unknown key"} when it did not know ipi.wait= (before kernel/ipi.c took it)."""
    out = {}
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return out
    klog = []
    for l in lines:
        m = SEEN.match(l)
        if m and m.group(1) == "klog":
            klog.append(m.group(2))
        elif m:
            out[m.group(1)] = m.group(2)
        m = IGNORED.search(l)
        if m:
            out["ipi.wait"] = "%s unknown to this kernel" % m.group(1)
    for k, prefix in KLOG.items():
        hits = [l for l in klog if l.startswith(prefix)]
        if hits:
            out[k] = hits[-1]
    return out


# The kernel lines of interest, by what they say (the last of each: the clocksource is
# switched twice, tsc-early then tsc).
KLOG = {"auto-init": "mem auto-init:", "preempt": "Dynamic Preempt:",
        "switched": "clocksource: Switched to clocksource", "unknown":
        "Unknown kernel command line parameters", "audit": "audit:",
        "memcg": "cgroup: Disabling", "landlock": "landlock:", "apparmor": "AppArmor:",
        "bpf-lsm": "LSM support for eBPF"}

# What an equal-terms boot must show: (what, test of seen, what was wanted).
CHECKS = [
    ("thp", lambda s: "[never]" in s.get("thp", ""), "[never] in transparent_hugepage/enabled"),
    ("auto-init", lambda s: "heap alloc:off" in s.get("auto-init", "") and
     "heap free:off" in s.get("auto-init", ""), "mem auto-init: heap alloc:off, heap free:off"),
    ("preempt", lambda s: s.get("preempt", "").endswith(": none"), "Dynamic Preempt: none"),
    # tsc-early reads the same counter: Linux moves to "tsc" only once a delayed work has
    # refined the calibration, which on a slow host may not have run when init looks.
    ("clocksource", lambda s: s.get("clocksource") in ("tsc", "tsc-early"),
     "clocksource tsc or tsc-early"),
    # lockdown is initialized early whatever lsm= says (CONFIG_SECURITY_LOCKDOWN_LSM_EARLY);
    # without a lockdown= level its one hook, security_locked_down, runs on none of ubench's
    # paths.
    ("lsm", lambda s: set(s.get("lsm", "?").split(",")) <= {"capability", "lockdown"},
     "no LSM but capability (and early lockdown)"),
    ("psi", lambda s: s.get("psi") == "absent", "no /proc/pressure"),
    ("memcg", lambda s: "memory" in s.get("memcg", ""), "the memory cgroup disabled"),
    ("audit", lambda s: "disabled" in s.get("audit", ""), "audit disabled"),
    ("unknown", lambda s: not any(w.split("=")[0] in s.get("unknown", "") for w in EQUAL),
     "none of the equal-terms words unknown to Linux"),
]


def check(kind, s):
    """Why a boot of kind did not run on the terms asked, or None. Only the equal-terms Linux
    is checked: its command line must be in effect for the verdict to mean what it says."""
    if kind != "linux":
        return None
    if not s:
        return "no `init: seen` lines (build/linux/initrd.cpio older than user/linux/init.c?)"
    words = s.get("cmdline", "").split()
    missing = [w for w in EQUAL if w not in words]
    if missing:
        return "not on its command line: %s" % " ".join(missing)
    bad = [want for what, ok, want in CHECKS if not ok(s)]
    return "did not take effect: %s" % "; ".join(bad) if bad else None


# The report's rows of what each boot saw: (label, key).
SHOWN = [("transparent huge pages", "thp"), ("mem auto-init", "auto-init"),
         ("preemption", "preempt"), ("clocksource", "clocksource"), ("LSMs", "lsm"),
         ("PSI (/proc/pressure/cpu)", "psi"), ("memory cgroup", "memcg"), ("audit", "audit"),
         ("unknown parameters", "unknown"), ("ipi.wait=", "ipi.wait")]
