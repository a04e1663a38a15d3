# gdb command `klockstat`: the live lock statistics of a stopped kernel (lockstat=yes,
# kernel/locking/lock_stat.c), every CPU's counts summed per lock class, most contended first.
import gdb

# struct lock_class_stats (include/lock_stat.h): five u64 in this order.
KLOCKSTAT_FIELDS = ("acquisitions", "contended", "wait_ns", "max_wait_ns", "hold_ns")


def klockstat_per_cpu(var, cpus, nr):
    """Each online CPU's first nr entries of the per-CPU array var, one remote read per CPU,
    as lists of the five counts."""
    size = var.type.target().sizeof
    rows = []
    for cpu in cpus:
        raw = gdb.selected_inferior().read_memory(int(kper_cpu_ptr(var, cpu)), size * nr).tobytes()
        rows.append([[int.from_bytes(raw[i * size + 8 * k:i * size + 8 * k + 8], "little")
                      for k in range(len(KLOCKSTAT_FIELDS))] for i in range(nr)])
    return rows


def klockstat_sum(per_cpu, i):
    """Class i over the CPUs: sums, but the longest wait is the longest of any CPU."""
    counts = [row[i] for row in per_cpu]
    total = [sum(c[k] for c in counts) for k in range(len(KLOCKSTAT_FIELDS))]
    total[3] = max((c[3] for c in counts), default=0)
    return total


class KLockstat(gdb.Command):
    """klockstat: the lock statistics counted since they were last folded away (by a benchmark
run's end or a self-test), per lock class, summed over the online CPUs: acquisitions,
contended acquisitions, total and longest wait, total hold time (ns). Classes that were never
taken while the statistics were on are left out; the most contended come first."""

    def __init__(self):
        super().__init__("klockstat", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        if arg.strip():
            raise gdb.GdbError("usage: klockstat (no arguments)")
        try:
            self.show()
        except gdb.error as e:   # also gdb.MemoryError
            raise gdb.GdbError("klockstat: %s" % e)

    def show(self):
        try:
            on = bool(int(ksym("lock_stat_on")))
        except gdb.GdbError:
            raise gdb.GdbError("klockstat: this kernel was built with LOCKSTAT=0")
        nr = int(ksym("nr_lock_classes"))
        classes = ksym("lock_classes")
        per_cpu = klockstat_per_cpu(ksym("lock_stats"), konline(), nr)
        rows = []
        for i in range(nr):
            total = klockstat_sum(per_cpu, i)
            if total[0]:
                rows.append((kcstring(classes[i]["name"]), total))
        rows.sort(key=lambda r: (-r[1][1], -r[1][2], -r[1][0], r[0]))
        print("lock statistics %s: %d classes registered, %d taken, %d acquisitions uncounted"
              % ("on" if on else "off", nr, len(rows), int(ksym("lock_stat_overflow"))))
        if rows:
            print("  %-28s %12s %10s %14s %14s %14s" % (("class",) + KLOCKSTAT_FIELDS))
        for name, t in rows:
            print("  %-28s %12d %10d %14d %14d %14d" % ((name,) + tuple(t)))


KLockstat()
