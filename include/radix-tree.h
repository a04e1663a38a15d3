// Radix tree mapping unsigned long indices to pointers, with RCU lock-free lookups: the
// page cache index (Momchil Velikov's 2002 radix-tree pagecache; Linux lib/radix-tree.c).
#pragma once
#include "gfp.h"

// Fanout is 2^shift, chosen per tree: Linux used 6 (64-way); the experiments compare 4, 6
// and 7, and tests use 2 and 3 for tall trees.
#define RADIX_TREE_MIN_SHIFT 2
#define RADIX_TREE_MAX_SHIFT 7

// Levels needed to cover every unsigned long index with this shift.
#define RADIX_TREE_MAX_PATH(shift) \
  ((8 * sizeof(unsigned long) + (shift) - 1) / (shift))

// Nodes one insert may need at worst: a tree of one leaf holding index 0 gains ULONG_MAX,
// growing new roots up to full height and a full-height path below the top one.
#define RADIX_TREE_PRELOAD_SIZE(shift) (2 * (RADIX_TREE_MAX_PATH(shift) - 1))

struct radix_tree_node;

struct radix_tree_root {
  unsigned int shift;
  struct radix_tree_node *rnode;   // NULL when empty
};

// Locking: insert and delete change the tree and must be serialized by the caller's
// lock (the page cache uses the mapping's tree lock). lookup, lookup_slot and
// gang_lookup only read: they may run under rcu_read_lock() alone, concurrently with
// one writer. They then see each entry as it was at some moment during the call.
// Items are non-NULL pointers; the tree never dereferences them.

int radix_tree_init(void);
int radix_tree_init_root(struct radix_tree_root *root, unsigned int shift);
#define INIT_RADIX_TREE(root, shift) radix_tree_init_root(root, shift)

int radix_tree_insert(struct radix_tree_root *root, unsigned long index, void *item);
void *radix_tree_lookup(struct radix_tree_root *root, unsigned long index);
void **radix_tree_lookup_slot(struct radix_tree_root *root, unsigned long index);
void *radix_tree_delete(struct radix_tree_root *root, unsigned long index);
unsigned int radix_tree_gang_lookup(struct radix_tree_root *root, void **results,
                                    unsigned long first, unsigned int max);

int radix_tree_preload(gfp_t gfp);
void radix_tree_preload_end(void);
// on_each_cpu(radix_tree_drain_preloads, NULL, true): every CPU's stash back to the node
// pools, whose reserves it fills first (the leak check's quiescent state, mm/leakcheck.c).
void radix_tree_drain_preloads(void *unused);

unsigned int radix_tree_height(struct radix_tree_root *root);
unsigned long radix_tree_nr_nodes(struct radix_tree_root *root);
