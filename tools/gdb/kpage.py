# gdb command `kpage <pfn|address>`: one page frame's struct page, with its flags decoded.
# An argument below max_pfn is a pfn; otherwise a direct-map, kernel-image or mem_map address.
import gdb

PAGE_SHIFT = 12
PAGE_OFFSET = 0xffff888000000000   # arch/x86_64/include/asm/memlayout.h
KERNEL_VMA = 0xffffffff80000000


def kpage_flag_names():
    """Bit number -> name, read from the kernel's enum pageflags so the two never differ."""
    names = {}
    for f in gdb.lookup_type("enum pageflags").fields():
        if f.name != "NR_PAGEFLAGS":
            names[f.enumval] = f.name
    return names


def kpage_to_pfn(value, max_pfn, mem_map, page_size):
    if value < max_pfn:
        return value
    if mem_map <= value < mem_map + max_pfn * page_size:
        return (value - mem_map) // page_size
    if value >= KERNEL_VMA:
        return (value - KERNEL_VMA) >> PAGE_SHIFT
    if value >= PAGE_OFFSET:
        return (value - PAGE_OFFSET) >> PAGE_SHIFT
    raise gdb.GdbError("kpage: %#x is neither a pfn (below %#x) nor a kernel address"
                       % (value, max_pfn))


def kpage_owner(page, set_flags):
    """Who the page belongs to, from the fields' meaning in include/mm.h and mm/lazyfree.c:
    an anonymous page names its mm in private and its address in index; page->mapping is
    &anon_owner once MADV_FREE handed it to reclaim, else a page cache's address_space."""
    mapping, private = int(page["mapping"]), int(page["private"])
    anon_owner = int(gdb.parse_and_eval("&anon_owner"))
    if mapping == anon_owner or (mapping == 0 and private and "PG_swapbacked" in set_flags):
        how = "lazily freed (MADV_FREE)" if "PG_lazyfree" in set_flags else "anonymous"
        return "%s: mm %#x address %#x" % (how, private, int(page["index"]))
    if mapping:
        return "page cache: address_space %#x index %#x" % (mapping, int(page["index"]))
    return None


class KPage(gdb.Command):
    """kpage PFN|ADDRESS: show the struct page of a page frame (flags, refcount, mapping, index)
and what it is: free, reserved, slab, anonymous memory of an mm, or page cache.
A number below max_pfn is a pfn; otherwise it is a direct-map or kernel-image address, or the
address of a struct page in mem_map."""

    def __init__(self):
        super().__init__("kpage", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        if not arg:
            raise gdb.GdbError("usage: kpage PFN|ADDRESS")
        try:
            self.show(arg)
        except gdb.error as e:   # also gdb.MemoryError
            raise gdb.GdbError("kpage: %s" % e)

    def show(self, arg):
        max_pfn = int(gdb.parse_and_eval("max_pfn"))
        mem_map = gdb.parse_and_eval("mem_map")
        if max_pfn == 0 or int(mem_map) == 0:
            raise gdb.GdbError("kpage: the page allocator is not set up yet (mm_init)")
        page_size = gdb.lookup_type("struct page").sizeof
        pfn = kpage_to_pfn(int(gdb.parse_and_eval(arg)), max_pfn, int(mem_map), page_size)
        if pfn >= max_pfn:
            raise gdb.GdbError("kpage: pfn %#x is beyond max_pfn %#x" % (pfn, max_pfn))
        page = mem_map[pfn]
        flags = int(page["flags"])
        names = kpage_flag_names()
        set_flags = [names.get(b, "bit%d" % b) for b in range(64) if flags >> b & 1]
        private = int(page["private"])
        print("pfn %#x phys %#x page %#x" % (pfn, pfn << PAGE_SHIFT,
                                             int(mem_map) + pfn * page_size))
        print("  flags %#x %s" % (flags, " ".join(set_flags) if set_flags else "(none)"))
        print("  refcount %d mapping %#x index %#x private %#x"
              % (int(page["refcount"]), int(page["mapping"]), int(page["index"]), private))
        if "PG_buddy" in set_flags:
            print("  free block of order %d (%d pages)" % (private, 1 << private))
        elif "PG_large_kmalloc" in set_flags:
            print("  kmalloc of order %d" % private)
        elif "PG_slab" in set_flags:
            slab = gdb.Value(private).cast(gdb.lookup_type("struct slab").pointer())
            cache = slab["cache"]
            print("  slab of cache '%s': %d of %d objects free" % (
                cache["name"].string(), int(slab["nfree"]), int(cache["nobjs"])))
        elif "PG_reserved" in set_flags:
            print("  reserved: never given to the page allocator")
        elif int(page["refcount"]) == 0:
            print("  free (inside a larger block or on a per-CPU list)")
        else:
            owner = kpage_owner(page, set_flags)
            if owner:
                print("  " + owner)


KPage()
