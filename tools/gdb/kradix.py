# gdb command `kradix <tree>`: a radix tree's fanout, height, node count and entries.
# The argument is any expression for a struct radix_tree_root (or a pointer to one).
import gdb


class KRadix(gdb.Command):
    """kradix TREE: summarize a struct radix_tree_root: fanout, height, nodes per level, entries,
the first and last index. TREE is an expression: a root or a pointer to one."""

    def __init__(self):
        super().__init__("kradix", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        if not arg:
            raise gdb.GdbError("usage: kradix TREE (an expression for a struct radix_tree_root)")
        try:
            root = gdb.parse_and_eval(arg)
        except gdb.error as e:
            raise gdb.GdbError("kradix: %s" % e)
        if root.type.strip_typedefs().code == gdb.TYPE_CODE_PTR:
            root = root.dereference()
        if str(root.type.strip_typedefs()) != "struct radix_tree_root":
            raise gdb.GdbError("kradix: %s is a %s, not a struct radix_tree_root" % (arg, root.type))
        shift = int(root["shift"])
        node_t = gdb.lookup_type("struct radix_tree_node").pointer()
        top = root["rnode"]
        if int(top) == 0:
            print("radix tree: fanout %d, empty" % (1 << shift))
            return
        height = int(top.cast(node_t)["height"])
        per_level = [0] * (height + 1)
        entries, first, last = 0, None, None
        # Depth-first over (node, first index it covers); a node of height h covers
        # fanout^h indices and its slots hold nodes (h > 1) or items (h == 1).
        stack = [(top.cast(node_t), 0)]
        while stack:
            node, base = stack.pop()
            h = int(node["height"])
            per_level[h] += 1
            span = 1 << (shift * (h - 1))
            for i in range(1 << shift):
                slot = node["slots"][i]
                if int(slot) == 0:
                    continue
                index = base + i * span
                if h == 1:
                    entries += 1
                    first = index if first is None else min(first, index)
                    last = index if last is None else max(last, index)
                else:
                    stack.append((slot.cast(node_t), index))
        print("radix tree: fanout %d, height %d, %d nodes, %d entries"
              % (1 << shift, height, sum(per_level), entries))
        for h in range(height, 0, -1):
            print("  height %d: %d nodes" % (h, per_level[h]))
        if entries:
            print("  indices %#x .. %#x" % (first, last))


KRadix()
