# gdb command `kprofile [table]`: the profile of a stopped kernel (kernel/profile.c), top
# functions by self and total samples and the most frequent stacks, folded root first.
import struct

import gdb

KPROFILE_KINDS = ("kernel", "idle", "user")   # enum prof_kind, include/stacktable.h


def kprofile_field(t, name):
    """Byte offset of a field of struct type t."""
    for f in t.fields():
        if f.name == name:
            return f.bitpos // 8
    raise gdb.GdbError("kprofile: struct %s has no field %s" % (t.name, name))


def kprofile_stacks(table):
    """(count, kind, cut, frames innermost first) of every used slot of a struct prof_table."""
    st = gdb.lookup_type("struct prof_stack")
    size, nslots = st.sizeof, int(table["size"])
    base = int(table["slot"])
    if nslots == 0 or base == 0:
        return []
    raw = gdb.selected_inferior().read_memory(base, size * nslots).tobytes()
    o_count, o_kind = kprofile_field(st, "count"), kprofile_field(st, "kind")
    o_depth, o_cut, o_pc = (kprofile_field(st, "depth"), kprofile_field(st, "cut"),
                            kprofile_field(st, "pc"))
    out = []
    for i in range(nslots):
        s = raw[i * size:(i + 1) * size]
        count = struct.unpack_from("<I", s, o_count)[0]
        if count == 0:
            continue
        depth = s[o_depth]
        pcs = struct.unpack_from("<%dQ" % depth, s, o_pc) if depth else ()
        out.append((count, s[o_kind], s[o_cut], pcs))
    return out


def kprofile_name(kind, pc):
    if kind != 0 or pc is None:
        return KPROFILE_KINDS[kind] if kind < len(KPROFILE_KINDS) else "kind%d" % kind
    blk = gdb.block_for_pc(pc)
    while blk is not None and blk.function is None:
        blk = blk.superblock
    if blk is not None:
        return blk.function.name
    sym = gdb.execute("info symbol 0x%x" % pc, to_string=True).split()
    return sym[0] if sym and sym[0] != "No" else "0x%x" % pc


class KProfile(gdb.Command):
    """The profiler's samples: kprofile [TABLE] [N].
Without TABLE, the samples every CPU has taken since the profiler last collected them (during
a benchmark run: that run's so far); TABLE is an expression for a struct prof_table or a
pointer to one, such as a benchmark point's table: kprofile 'kernel/bench/point_profile.c'::points[0].
Prints the samples, the top N functions (default 10) by self and by total samples, and the N
most frequent stacks, folded root first as the PROFILE lines are."""

    def __init__(self):
        super().__init__("kprofile", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        words = arg.split()
        n = int(words.pop()) if words and words[-1].isdigit() else 10
        try:
            self.run(" ".join(words), n)
        except gdb.error as e:
            raise gdb.GdbError("kprofile: %s" % e)

    def tables(self, expr):
        if expr:
            v = gdb.parse_and_eval(expr)
            if v.type.strip_typedefs().code == gdb.TYPE_CODE_PTR:
                if int(v) == 0:
                    raise gdb.GdbError("kprofile: %s is NULL" % expr)
                v = v.dereference()
            if v.type.strip_typedefs().tag != "prof_table":
                raise gdb.GdbError("kprofile: %s is not a struct prof_table" % expr)
            return expr, [v]
        hz = int(gdb.parse_and_eval("profile_hz"))
        if hz == 0:
            raise gdb.GdbError("kprofile: the profiler is not set up (profile= is 0 and no "
                               "self-test started it)")
        # kper_cpu_ptr and konline come from tools/gdb/kernel.py, loaded first.
        var = gdb.lookup_static_symbol("prof_cpu").value()
        online = konline()
        out = [kper_cpu_ptr(var, cpu).dereference()["t"] for cpu in online]
        return "%d CPUs' uncollected samples at %d Hz" % (len(online), hz), out

    def run(self, expr, n):
        what, tables = self.tables(expr)
        stacks, total, dropped = {}, 0, 0
        for t in tables:
            total += int(t["samples"])
            dropped += int(t["dropped"])
            for count, kind, cut, pcs in kprofile_stacks(t):
                key = (kind, cut, pcs)
                stacks[key] = stacks.get(key, 0) + count
        print("%s: %d samples, %d stacks, %d dropped" % (what, total, len(stacks), dropped))
        if total == 0:
            return
        funcs = {}
        for (kind, cut, pcs), count in stacks.items():
            names = [kprofile_name(kind, pc) for pc in pcs] if kind == 0 and pcs \
                else [kprofile_name(kind, None)]
            for i, name in enumerate(names):
                f = funcs.setdefault(name, [0, 0])
                if i == 0:
                    f[0] += count
                if name not in names[:i]:
                    f[1] += count
        for col, label in ((0, "self"), (1, "total")):
            print("top by %s:   self   total  function" % label)
            for name, f in sorted(funcs.items(), key=lambda x: -x[1][col])[:n]:
                print("  %6.1f%% %6.1f%%  %s" % (100.0 * f[0] / total, 100.0 * f[1] / total, name))
        print("stacks:")
        for (kind, cut, pcs), count in sorted(stacks.items(), key=lambda x: -x[1])[:n]:
            names = [kprofile_name(kind, pc) for pc in reversed(pcs)] if kind == 0 and pcs \
                else [kprofile_name(kind, None)]
            print("  %6d  %s" % (count, ";".join((["..."] if cut else []) + names)))


KProfile()
