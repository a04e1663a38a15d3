# gdb command `kmm [mm]`: an address space's VMAs in address order, with its resident pages
# and those MADV_FREE handed to reclaim (PG_lazyfree), read from its page tables.
import gdb

PAGE_SHIFT = 12
PAGE_OFFSET = 0xffff888000000000   # arch/x86_64/include/asm/memlayout.h
# 4-level paging (Intel SDM vol. 3A, 4.5): present, dirty and the next table's address.
PTE_P, PTE_D = 1 << 0, 1 << 6
PTE_ADDR = 0x000ffffffffff000
PT_SPAN = 1 << 21                  # what one page table maps: 512 pages


def kmm_read(addr, size):
    return gdb.selected_inferior().read_memory(addr, size).tobytes()


def kmm_table(addr):
    """The 512 entries of a page-table page, in one remote read."""
    raw = kmm_read(addr, 4096)
    return [int.from_bytes(raw[i:i + 8], "little") for i in range(0, 4096, 8)]


def kmm_vmas(node):
    """The AVL tree in order (mm/mmap.c keys it by start)."""
    if int(node) == 0:
        return
    yield from kmm_vmas(node["left"])
    yield node
    yield from kmm_vmas(node["right"])


class KMmWalk:
    """The PTEs of one mm, a page table at a time; the upper tables each read once."""

    def __init__(self, pml4):
        self.pml4 = pml4
        self.tables = {}

    def entries(self, addr):
        if addr not in self.tables:
            self.tables[addr] = kmm_table(addr)
        return self.tables[addr]

    def page_table(self, va):
        """The entries of the page table that maps va, or None when a table on the way
        is missing. User memory is mapped with 4 KiB pages only (mm/memory.c)."""
        table = self.pml4
        for level in (3, 2, 1):
            e = self.entries(table)[(va >> (PAGE_SHIFT + 9 * level)) & 511]
            if not e & PTE_P:
                return None
            table = (e & PTE_ADDR) + PAGE_OFFSET
        return kmm_table(table)


def kmm_current():
    """The mm of the thread running on the selected vCPU: its %gs base is its struct cpu."""
    cpu_t = gdb.lookup_type("struct cpu").pointer()
    try:
        gs = int(gdb.selected_frame().read_register("gs_base"))
    except gdb.error:
        gs = 0
    if gs == 0:
        raise gdb.GdbError("kmm: this vCPU has no struct cpu yet (%gs is set up in kmain)")
    curr = gdb.Value(gs).cast(cpu_t)["curr"]
    if int(curr) == 0 or int(curr["mm"]) == 0:
        raise gdb.GdbError("kmm: the thread on this vCPU has no mm (use_mm adopts one): "
                           "give one, e.g. kmm $kcpu(1)->curr->mm")
    return curr["mm"]


class KMm(gdb.Command):
    """kmm [MM]: show an address space (struct mm *): its VMAs, and per VMA the resident pages,
how many are dirty, and how many are lazily freed (MADV_FREE, on the reclaim core's list).
Without MM, the mm of the thread running on the selected vCPU."""

    def __init__(self):
        super().__init__("kmm", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        try:
            mm = gdb.parse_and_eval(arg) if arg else kmm_current()
            if int(mm) == 0:
                raise gdb.GdbError("kmm: %s is NULL" % arg)
            self.show(mm)
        except gdb.error as e:   # also gdb.MemoryError
            raise gdb.GdbError("kmm: %s" % e)

    def show(self, mm):
        mm_t = gdb.lookup_type("struct mm").pointer()
        mm = mm.cast(mm_t).dereference()
        lazy_bit = 1 << int(gdb.parse_and_eval("PG_lazyfree"))
        mem_map = int(gdb.parse_and_eval("mem_map"))
        max_pfn = int(gdb.parse_and_eval("max_pfn"))
        page_t = gdb.lookup_type("struct page")
        page_size, flags_at = page_t.sizeof, page_t["flags"].bitpos // 8
        walk = KMmWalk(int(mm["pgd"]))
        # The CPUs that may hold its TLB entries: none when no thread uses the mm.
        bits = mm["cpu_mask"]["bits"]
        cpus = [w * 64 + i for w in range(bits.type.sizeof // 8) for i in range(64)
                if int(bits[w]) >> i & 1]
        print("mm %#x pgd %#x users %d rss %d vmas %d flushes %d cpus %s" % (
            int(mm.address), int(mm["pgd"]), int(mm["users"]), int(mm["rss"]),
            int(mm["nr_vmas"]), int(mm["tlb_flushes"]),
            ",".join(str(c) for c in cpus) or "none"))
        total_res = total_lazy = 0
        for v in kmm_vmas(mm["vma_root"]):
            start, end, flags = int(v["start"]), int(v["end"]), int(v["flags"])
            resident = dirty = lazy = 0
            va = start
            while va < end:
                pt = walk.page_table(va)
                stop = min(end, (va | (PT_SPAN - 1)) + 1)
                while pt is not None and va < stop:
                    pte = pt[(va >> PAGE_SHIFT) & 511]
                    if pte & PTE_P:
                        resident += 1
                        dirty += bool(pte & PTE_D)
                        pfn = (pte & PTE_ADDR) >> PAGE_SHIFT
                        if pfn < max_pfn:
                            raw = kmm_read(mem_map + pfn * page_size + flags_at, 8)
                            lazy += bool(int.from_bytes(raw, "little") & lazy_bit)
                    va += 1 << PAGE_SHIFT
                va = stop
            total_res += resident
            total_lazy += lazy
            print("  %#014x-%#014x %s%s %6d pages  resident %d dirty %d lazyfree %d" % (
                start, end, "r" if flags & 1 else "-", "w" if flags & 2 else "-",
                (end - start) >> PAGE_SHIFT, resident, dirty, lazy))
        print("  total resident %d lazyfree %d" % (total_res, total_lazy))


KMm()
