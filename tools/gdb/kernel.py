# Kernel-aware gdb commands: kdmesg, kcpus, kthreads, kbt, and the functions $kcpu, $kper_cpu.
# Loaded by tools/gdbinit (or alone: `source tools/gdb/kernel.py`); Linux's scripts/gdb is the model.

import re

import gdb

MASK64 = (1 << 64) - 1


def ksym(name):
    """The value of a global or file-static kernel variable."""
    sym = gdb.lookup_global_symbol(name) or gdb.lookup_static_symbol(name)
    if sym is None:
        raise gdb.GdbError("no kernel symbol '%s' (is build/kernel.elf loaded?)" % name)
    return sym.value()


def kaddr(name):
    """The address of a symbol, also of linker symbols that have no debug type."""
    try:
        return int(gdb.parse_and_eval("(unsigned long)&%s" % name)) & MASK64
    except gdb.error:
        raise gdb.GdbError("no kernel symbol '%s' (is build/kernel.elf loaded?)" % name)


def kint(v, who):
    try:
        return int(v)
    except gdb.error:
        raise gdb.GdbError("%s: a CPU number is an integer" % who)


def kread(addr, size):
    return gdb.selected_inferior().read_memory(addr, size).tobytes()


def kread_u64(addr):
    return int.from_bytes(kread(addr, 8), "little")


def kmask_cpus(mask):
    """The CPU ids set in a struct cpumask."""
    bits = mask["bits"]
    words = bits.type.range()[1] + 1
    cpus = []
    for w in range(words):
        word = int(bits[w]) & MASK64
        cpus += [w * 64 + b for b in range(64) if word >> b & 1]
    return cpus


def konline():
    return kmask_cpus(ksym("cpu_online_mask"))


def kcpu_check(cpu, who):
    """Rejects a CPU number that is not online, naming the ones that are."""
    online = konline()
    if cpu not in online:
        have = ",".join(str(c) for c in online) or "none yet"
        raise gdb.GdbError("%s: CPU %d is not online (online: %s)" % (who, cpu, have))


def kper_cpu_ptr(var, cpu):
    """A pointer to CPU cpu's copy of the per-CPU variable var (a gdb.Value): the
    variable's address in .percpu plus __per_cpu_offset[cpu], as per_cpu_ptr() does."""
    off = int(ksym("__per_cpu_offset")[cpu]) & MASK64
    addr = (int(var.address) + off) & MASK64
    return gdb.Value(addr).cast(var.type.pointer())


def kcpu_ptr(cpu):
    return kper_cpu_ptr(ksym("cpu_info"), cpu)


def kvcpus():
    """Maps CPU id to gdb thread number. Each vCPU's %gs base is its struct cpu (see
    percpu_early_init and cpu_init), which holds the id; a vCPU that has not set %gs yet
    is left out. The selected thread and frame are restored afterwards."""
    thread = gdb.selected_thread()
    if thread is None:
        return {}
    frame = gdb.selected_frame()
    ids = {}
    try:
        for t in gdb.selected_inferior().threads():
            t.switch()
            try:
                gs = int(gdb.selected_frame().read_register("gs_base")) & MASK64
                if gs:
                    ids[int(gdb.Value(gs).cast(kcpu_ptr(0).type)["id"])] = t.num
            except (gdb.error, gdb.MemoryError):
                pass
    finally:
        thread.switch()
        frame.select()
    return ids


def kstate_names():
    """enum thread_state as {value: 'sleeping', ...}."""
    return {f.enumval: f.name[2:].lower() for f in gdb.lookup_type("enum thread_state").fields()}


def kthreads_used():
    """Every thread slot not T_FREE. The table is read in one go and cut into slots here:
    one remote read instead of one per field."""
    table = ksym("threads")
    ttype = table.type.target()
    size = ttype.sizeof
    state = ttype["state"].bitpos // 8
    raw = kread(int(table.address), table.type.sizeof)
    used = []
    for slot in range(0, len(raw), size):
        if int.from_bytes(raw[slot + state:slot + state + 4], "little") != 0:
            used.append(gdb.Value(raw[slot:slot + size], ttype))
    return used


def kthread_find(arg, who):
    """The thread named by a tid or a name; a clear error if none or several match."""
    threads = kthreads_used()
    if arg.isdigit():
        found = [t for t in threads if int(t["tid"]) == int(arg)]
    else:
        found = [t for t in threads if t["name"].string() == arg]
    if not found:
        raise gdb.GdbError("%s: no thread '%s' (kthreads lists them)" % (who, arg))
    if len(found) > 1:
        tids = ", ".join(str(int(t["tid"])) for t in found)
        raise gdb.GdbError("%s: %d threads are named '%s' (tids %s): give a tid"
                           % (who, len(found), arg, tids))
    return found[0]


def kcstring(ptr):
    if int(ptr) == 0:
        return "-"
    try:
        return ptr.string()
    except (gdb.error, gdb.MemoryError):
        return "<bad pointer 0x%x>" % (int(ptr) & MASK64)


def kno_args(args, who):
    if args:
        raise gdb.GdbError("%s takes no arguments" % who)


class KCommand(gdb.Command):
    """A kernel command: kernel memory that cannot be read (QEMU at reset, before the
    kernel's page tables are loaded) gives an error message, not a Python exception."""

    def __init__(self, name, kind):
        super().__init__(name, kind)
        self.name = name

    def invoke(self, arg, from_tty):
        try:
            self.run(arg.split())
        except gdb.MemoryError as e:
            raise gdb.GdbError("%s: %s (the kernel is mapped from kmain on)" % (self.name, e))


class KFunction(gdb.Function):
    """A convenience function, with KCommand's handling of unreadable memory."""

    def __init__(self, name, usage):
        super().__init__(name)
        self.name = name
        self.usage = usage

    def invoke(self, *args):
        if len(args) != self.usage.count(",") + 1:
            raise gdb.GdbError("usage: " + self.usage)
        try:
            return self.run(*args)
        except gdb.MemoryError as e:
            raise gdb.GdbError("$%s: %s (the kernel is mapped from kmain on)" % (self.name, e))


class KDmesg(KCommand):
    """Print the kernel log ring (log_buf), oldest line first.
Once more than LOG_BUF_SIZE bytes were logged, the ring holds only the last LOG_BUF_SIZE
of them; the oldest, partly overwritten line is then left out."""

    def __init__(self):
        super().__init__("kdmesg", gdb.COMMAND_DATA)

    def run(self, args):
        kno_args(args, "kdmesg")
        buf = ksym("log_buf")
        size = buf.type.sizeof
        n = int(ksym("log_next"))
        ring = kread(int(buf.address), size)
        if n <= size:
            text = ring[:n]
        else:
            start = n % size
            text = ring[start:] + ring[:start]
            text = text[text.find(b"\n") + 1:]
        gdb.write(text.decode("utf-8", "replace"))


class KCpus(KCommand):
    """One row per online CPU: id, APIC id, gdb thread, running thread, idle or busy,
interrupts taken, RCU state (dynticks: odd busy, even idle) and whether the CPU still owes
the current grace period a quiescent state. The first line is RCU's grace-period count."""

    def __init__(self):
        super().__init__("kcpus", gdb.COMMAND_DATA)

    def run(self, args):
        kno_args(args, "kcpus")
        online = konline()
        if not online:
            raise gdb.GdbError("kcpus: no CPU online yet (the kernel has not reached smp_init)")
        seq, done = int(ksym("gp_seq")), int(ksym("gp_completed"))
        owing = kmask_cpus(ksym("qs_pending"))
        if seq == done:
            gdb.write("rcu: gp_seq=%d gp_completed=%d, no grace period running\n" % (seq, done))
        else:
            gdb.write("rcu: gp_seq=%d gp_completed=%d, grace period %d waits for %d CPUs\n"
                      % (seq, done, seq, len(owing)))
        vcpus = kvcpus()
        gdb.write("%-4s %-4s %-6s %-22s %-7s %-9s %-15s %s\n" % (
            "CPU", "APIC", "THREAD", "CURRENT", "STATE", "IRQS", "RCU", "QS-OWED"))
        for cpu in online:
            c = kcpu_ptr(cpu).dereference()
            rdp = kper_cpu_ptr(ksym("rcu_data"), cpu).dereference()
            curr = c["curr"]
            running = "-"
            if int(curr):
                running = "%d %s" % (int(curr["tid"]), curr["name"].string())
            state = "busy"
            if int(c["stopped"]):
                state = "stopped"
            elif int(c["idle"]):
                state = "idle"
            dynticks = int(rdp["dynticks"])
            rcu = "%s dyn=%d" % ("idle" if dynticks % 2 == 0 else "busy", dynticks)
            owes = "yes gp %d" % seq if cpu in owing else "no"
            gdb.write("%-4d %-4d %-6s %-22s %-7s %-9d %-15s %s\n" % (
                cpu, int(c["apic_id"]), vcpus.get(cpu, "-"), running, state,
                int(c["irq_count"]), rcu, owes))


class KThreads(KCommand):
    """Every kernel thread in use: tid, name, CPU, state, whether it is on its CPU now,
times switched in, and what it waits on (wait queue, mutex or msleep)."""

    def __init__(self):
        super().__init__("kthreads", gdb.COMMAND_DATA)

    def run(self, args):
        kno_args(args, "kthreads")
        states = kstate_names()
        gdb.write("%-5s %-24s %-4s %-9s %-6s %-9s %s\n" % (
            "TID", "NAME", "CPU", "STATE", "ON_CPU", "SWITCHES", "WAITS ON"))
        for t in kthreads_used():
            state = states.get(int(t["state"]), str(int(t["state"])))
            gdb.write("%-5d %-24s %-4d %-9s %-6s %-9d %s\n" % (
                int(t["tid"]), t["name"].string(), int(t["cpu"]), state,
                "yes" if t["on_cpu"] else "no", int(t["switches"]), kcstring(t["wait_on"])))


def ksymbolize(pc):
    """'function+0xoff file:line' for a return address. Both are looked up at pc - 1,
    inside the call instruction: a call that ends a noreturn function returns to the
    first byte after it (Linux's %pB does the same)."""
    where = gdb.execute("info symbol 0x%x" % (pc - 1), to_string=True)
    m = re.match(r"(\S+)(?: \+ (\d+))? in section", where)
    name = "%s+0x%x" % (m.group(1), int(m.group(2) or 0) + 1) if m else "??"
    sal = gdb.current_progspace().find_pc_line(pc - 1)
    if sal.symtab:
        name += " %s:%d" % (sal.symtab.filename, sal.line)
    return name


class KBt(KCommand):
    """Backtrace of a kernel thread that is not running: kbt <tid|name>.
switch_to (arch/x86_64/switch.S) left r15, r14, r13, r12, rbx, rbp and the return address
into schedule() at the thread's saved rsp; from that rbp the frame-pointer chain
(the kernel keeps frame pointers) gives each caller's return address."""

    def __init__(self):
        super().__init__("kbt", gdb.COMMAND_STACK)

    def run(self, args):
        if len(args) != 1:
            raise gdb.GdbError("usage: kbt <tid|name>")
        t = kthread_find(args[0], "kbt")
        tid, name, cpu = int(t["tid"]), t["name"].string(), int(t["cpu"])
        if t["on_cpu"]:
            vcpu = kvcpus().get(cpu)
            how = "`thread %d` then `bt`" % vcpu if vcpu else "gdb's `bt` on that vCPU"
            raise gdb.GdbError("kbt: thread %d (%s) is running on CPU %d: its registers are "
                               "live there, use %s" % (tid, name, cpu, how))
        rsp = int(t["rsp"]) & MASK64
        top = int(t["stack_top"]) & MASK64
        self.walk(rsp, top)

    def walk(self, rsp, top):
        pc, fp = kread_u64(rsp + 48), kread_u64(rsp + 40)
        depth = 0
        while pc and depth < 64:
            gdb.write("#%-2d 0x%016x %s\n" % (depth, pc, ksymbolize(pc)))
            # A frame record is [saved rbp, return address]; callers' frames sit higher
            # on the stack, so anything else ends the walk (thread_start's zero rbp).
            if not rsp < fp < top:
                break
            pc, rsp, fp = kread_u64(fp + 8), fp, kread_u64(fp)
            depth += 1


class KCpuFunction(KFunction):
    """$kcpu(n): CPU n's struct cpu, e.g. p $kcpu(1)->curr->name."""

    def __init__(self):
        super().__init__("kcpu", "$kcpu(n)")

    def run(self, cpu):
        cpu = kint(cpu, "$kcpu")
        kcpu_check(cpu, "$kcpu")
        return kcpu_ptr(cpu).dereference()


class KPerCpuFunction(KFunction):
    """$kper_cpu("var", n): CPU n's copy of the per-CPU variable var, e.g.
p $kper_cpu("rcu_data", 2)."""

    def __init__(self):
        super().__init__("kper_cpu", '$kper_cpu("var", n)')

    def run(self, name, cpu):
        try:
            name = name.string()
        except gdb.error:
            raise gdb.GdbError('$kper_cpu: the variable name is a string: $kper_cpu("rcu_data", 0)')
        var = ksym(name)
        addr = int(var.address) & MASK64
        if not kaddr("__per_cpu_start") <= addr < kaddr("__per_cpu_end"):
            raise gdb.GdbError("$kper_cpu: '%s' is not a per-CPU variable (DEFINE_PER_CPU)" % name)
        cpu = kint(cpu, "$kper_cpu")
        kcpu_check(cpu, "$kper_cpu")
        return kper_cpu_ptr(var, cpu).dereference()


KDmesg()
KCpus()
KThreads()
KBt()
KCpuFunction()
KPerCpuFunction()
