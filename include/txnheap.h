// txnheap.h: the per-thread heap of the 2007 MADV_FREE workload, one source for the boot
// suite (kernel/bench/madvise.c) and ubench's umadvise (user/ubench/mm.c), so both run it alike.
#pragma once
#include "types.h"

#define TXN_CLASSES 6       // chunk sizes page << 0..5: 4 KiB to 128 KiB
#define TXN_CHUNKS 8        // per class and thread
#define TXN_MIN_BUFS 3      // buffers per transaction, TXN_MIN_BUFS..TXN_MAX_BUFS
#define TXN_MAX_BUFS 6
#define TXN_LINE_BYTES 64   // a cache line: one word of each is written, then read and summed
// Each class has TXN_CHUNKS chunks, so the classes below k take TXN_CHUNKS * (2^k - 1) pages.
#define TXN_HEAP_PAGES (TXN_CHUNKS * ((1UL << TXN_CLASSES) - 1))
// Where each thread's heap starts: on a 2 MiB boundary, so that no two threads' heaps share a
// page table (nor, under vm.ptl=split, its lock). glibc's per-thread heaps are so aligned, to
// HEAP_MAX_SIZE (64 MiB on 64-bit: malloc/arena.c, new_heap, so that heap_for_ptr can mask a
// pointer), and so were the 2007 workload's; 2 MiB, one page table's span, is the part of it
// that matters to the kernel. Mapped one after another instead, heaps of 2016 KiB shared
// tables with their neighbours: ptlock waits in the boot suite at 8 threads (2026-12-07).
#define TXN_HEAP_ALIGN (2UL << 20)

_Static_assert(TXN_CHUNKS >= TXN_MAX_BUFS, "a transaction may take TXN_MAX_BUFS chunks of a class");
_Static_assert(TXN_CHUNKS <= 256, "free lists hold chunk numbers in a u8");

// Per class a ring of free chunks handed out oldest-freed first, so that freed memory ages
// before it is reused (a database's malloc, as the thread describes it).
struct txn_heap {
  u8 ring[TXN_CLASSES][TXN_CHUNKS];   // free chunk numbers, oldest first from head
  u8 head[TXN_CLASSES];
  u8 count[TXN_CLASSES];
  u64 rng;
};

struct txn_buf {
  unsigned long page;   // its first page, counted from the heap's start
  int class, chunk;
};

// Every chunk free; the random sequence of the thread with this index.
void txn_heap_init(struct txn_heap *h, int index);
// The next number of the heap's xorshift64 sequence.
u64 txn_rand(struct txn_heap *h);
// A transaction's buffers: fills b[0..n) with the oldest free chunk of a random class each,
// *seed with the value its words are written with; returns n.
int txn_begin(struct txn_heap *h, struct txn_buf b[TXN_MAX_BUFS], u64 *seed);
// Frees b's chunk: it goes to the tail of its class's ring.
void txn_put(struct txn_heap *h, const struct txn_buf *b);
