# gdb command `kmm <mm address or expression>`: an address space's VMAs in address order, with
# its resident pages and those MADV_FREE handed to reclaim (PG_lazyfree), read from its page tables.
import gdb

PAGE_SHIFT = 12
PAGE_OFFSET = 0xffff888000000000   # arch/x86_64/include/asm/memlayout.h
PTE_P, PTE_D = 1 << 0, 1 << 6
PTE_ADDR = 0x000ffffffffff000


def vmas(node):
    """The AVL tree in order (mm/mmap.c keys it by start)."""
    if int(node) == 0:
        return
    yield from vmas(node["left"])
    yield node
    yield from vmas(node["right"])


def read_u64(addr):
    return int(gdb.Value(addr).cast(gdb.lookup_type("u64").pointer()).dereference())


def pte_of(pml4, va):
    """The PTE value for va, or 0 when a table on the way is missing."""
    table = pml4
    for level in (3, 2, 1):
        e = read_u64(table + 8 * ((va >> (12 + 9 * level)) & 511))
        if not e & PTE_P:
            return 0
        table = (e & PTE_ADDR) + PAGE_OFFSET
    return read_u64(table + 8 * ((va >> 12) & 511))


def table_present(pml4, va):
    """False when va's whole page table (2 MiB) is missing: the walk skips it."""
    table = pml4
    for level in (3, 2, 1):
        e = read_u64(table + 8 * ((va >> (12 + 9 * level)) & 511))
        if not e & PTE_P:
            return False
        table = (e & PTE_ADDR) + PAGE_OFFSET
    return True


class KMm(gdb.Command):
    """kmm MM: show an address space (struct mm *): its VMAs, and per VMA the resident pages,
how many are dirty, and how many are lazily freed (MADV_FREE, on the reclaim core's list)."""

    def __init__(self):
        super().__init__("kmm", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        if not arg:
            raise gdb.GdbError("usage: kmm MM-ADDRESS-OR-EXPRESSION")
        mm = gdb.parse_and_eval(arg).cast(gdb.lookup_type("struct mm").pointer()).dereference()
        # A mask of CPUs that may hold its TLB entries: empty when no thread uses the mm.
        lazy_bit = 1 << int(gdb.parse_and_eval("PG_lazyfree"))
        mem_map = int(gdb.parse_and_eval("mem_map"))
        page_size = gdb.lookup_type("struct page").sizeof
        pml4 = int(mm["pml4"])
        bits = mm["cpu_mask"]["bits"]
        cpus = [w * 64 + i for w in range(bits.type.sizeof // 8) for i in range(64)
                if int(bits[w]) >> i & 1]
        print("mm %#x cr3 %#x users %d rss %d vmas %d flushes %d cpus %s" % (
            int(mm.address), int(mm["cr3"]), int(mm["users"]), int(mm["rss"]),
            int(mm["nr_vmas"]), int(mm["tlb_flushes"]), cpus or "none"))
        total_res = total_lazy = 0
        for v in vmas(mm["vma_root"]):
            start, end, flags = int(v["start"]), int(v["end"]), int(v["flags"])
            resident = dirty = lazy = 0
            va = start
            while va < end:
                if not table_present(pml4, va):
                    va = (va | ((2 << 20) - 1)) + 1
                    continue
                pte = pte_of(pml4, va)
                if pte & PTE_P:
                    resident += 1
                    dirty += bool(pte & PTE_D)
                    pfn = (pte & PTE_ADDR) >> PAGE_SHIFT
                    page = gdb.Value(mem_map + pfn * page_size).cast(
                        gdb.lookup_type("struct page").pointer()).dereference()
                    lazy += bool(int(page["flags"]) & lazy_bit)
                va += 1 << PAGE_SHIFT
            total_res += resident
            total_lazy += lazy
            print("  %#014x-%#014x %s%s %6d pages  resident %d dirty %d lazyfree %d" % (
                start, end, "r" if flags & 1 else "-", "w" if flags & 2 else "-",
                (end - start) >> PAGE_SHIFT, resident, dirty, lazy))
        print("  total resident %d lazyfree %d" % (total_res, total_lazy))


KMm()
