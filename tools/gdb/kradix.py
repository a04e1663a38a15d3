# gdb command `kradix <tree>`: a radix tree's fanout, height, node count and entries.
# The argument is any expression for a struct radix_tree_root (or a pointer to one).
import gdb

# include/radix-tree.h: the fanouts a tree may have.
RADIX_TREE_MIN_SHIFT, RADIX_TREE_MAX_SHIFT = 2, 7


def kradix_slots(node, at, shift):
    """A node's 2^shift slots (mm/radix-tree.c), read in one go rather than one by one."""
    raw = gdb.selected_inferior().read_memory(node + at, 8 << shift).tobytes()
    return [int.from_bytes(raw[i:i + 8], "little") for i in range(0, 8 << shift, 8)]


class KRadix(gdb.Command):
    """kradix TREE: summarize a struct radix_tree_root: fanout, height, nodes per level, entries,
the first and last index with their items, which it also leaves in $kradix_first and
$kradix_last. TREE is an expression: a root or a pointer to one."""

    def __init__(self):
        super().__init__("kradix", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        if not arg:
            raise gdb.GdbError("usage: kradix TREE (an expression for a struct radix_tree_root)")
        try:
            self.show(arg)
        except gdb.error as e:   # also gdb.MemoryError
            raise gdb.GdbError("kradix: %s" % e)

    def show(self, arg):
        root = gdb.parse_and_eval(arg)
        if root.type.strip_typedefs().code == gdb.TYPE_CODE_PTR:
            root = root.dereference()
        if str(root.type.strip_typedefs()) != "struct radix_tree_root":
            raise gdb.GdbError("kradix: %s is a %s, not a struct radix_tree_root" % (arg, root.type))
        shift = int(root["shift"])
        if not RADIX_TREE_MIN_SHIFT <= shift <= RADIX_TREE_MAX_SHIFT:
            # A hash-variant address_space never initializes its page_tree, for one.
            raise gdb.GdbError("kradix: %s has shift %d, not %d..%d: not an initialized tree"
                               % (arg, shift, RADIX_TREE_MIN_SHIFT, RADIX_TREE_MAX_SHIFT))
        node_t = gdb.lookup_type("struct radix_tree_node")
        height_at, slots_at = node_t["height"].bitpos // 8, node_t["slots"].bitpos // 8
        top = int(root["rnode"])
        if top == 0:
            print("radix tree: fanout %d, empty" % (1 << shift))
            return
        inferior = gdb.selected_inferior()
        height = inferior.read_memory(top + height_at, 1).tobytes()[0]
        per_level = [0] * (height + 1)
        entries, first, last = 0, None, None
        # Depth-first over (node, its height, first index it covers); a node of height h
        # covers fanout^h indices and its slots hold nodes (h > 1) or items (h == 1).
        stack = [(top, height, 0)]
        while stack:
            node, h, base = stack.pop()
            got = inferior.read_memory(node + height_at, 1).tobytes()[0]
            if got != h:
                raise gdb.GdbError("kradix: node %#x has height %d where %d belongs: "
                                   "a corrupt tree" % (node, got, h))
            per_level[h] += 1
            span = 1 << (shift * (h - 1))
            for i, slot in enumerate(kradix_slots(node, slots_at, shift)):
                if slot == 0:
                    continue
                index = base + i * span
                if h == 1:
                    entries += 1
                    if first is None or index < first[0]:
                        first = (index, slot)
                    if last is None or index > last[0]:
                        last = (index, slot)
                else:
                    stack.append((slot, h - 1, index))
        print("radix tree: fanout %d, height %d, %d nodes, %d entries"
              % (1 << shift, height, sum(per_level), entries))
        for h in range(height, 0, -1):
            print("  height %d: %d nodes" % (h, per_level[h]))
        if entries:
            print("  first index %#x item %#x" % first)
            print("  last index %#x item %#x" % last)
            # For the next command, e.g. `kpage $kradix_last` on a page cache's tree.
            void_p = gdb.lookup_type("void").pointer()
            gdb.set_convenience_variable("kradix_first", gdb.Value(first[1]).cast(void_p))
            gdb.set_convenience_variable("kradix_last", gdb.Value(last[1]).cast(void_p))


KRadix()
