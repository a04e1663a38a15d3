// Radix tree of pointers indexed by unsigned long, with lock-free RCU readers: the page
// cache index of the 2002 "radix-tree pagecache" (Momchil Velikov; Linux lib/radix-tree.c).

#include "types.h"
#include "compiler.h"
#include "errno.h"
#include "string.h"
#include "gfp.h"
#include "slab.h"
#include "mempool.h"
#include "percpu.h"
#include "preempt.h"
#include "rcupdate.h"
#include "radix-tree.h"

#define LONG_BITS (8 * sizeof(unsigned long))
#define NR_SHIFTS (RADIX_TREE_MAX_SHIFT - RADIX_TREE_MIN_SHIFT + 1)
#define MAX_HEIGHT RADIX_TREE_MAX_PATH(RADIX_TREE_MIN_SHIFT)

// Heights count from the bottom: a leaf (height 1) holds items, a node of height h
// holds nodes of height h-1. A node's height never changes, because the tree grows
// and shrinks only at the top, so lock-free readers can trust it.
//
// No tags (Linux's per-slot bitmaps that let writeback find dirty pages): nothing here
// looks entries up by tag, and bitmaps sized for the widest fanout would make narrow
// nodes look dearer in the fanout comparison. A node is three words and its slots:
// 56 bytes at fanout 4, 88 at 8, 152 at 16, 280 at 32, 536 at 64, 1048 at 128.
struct radix_tree_node {
  unsigned char height;
  unsigned char shift;     // the tree's, which names the cache the node returns to
  unsigned short count;    // non-NULL slots
  struct rcu_head rcu;
  void *slots[];           // 2^shift of them
};
_Static_assert(sizeof(struct radix_tree_node) == 3 * sizeof(void *),
               "a node is three words before its slots");

// Per-CPU stash of nodes for inserts under a spinlock, one list per shift (Linux 2.5's
// radix_tree_preload). Stashed nodes are unpublished, so their slot 0 chains the list.
struct radix_tree_preload {
  unsigned int nr[NR_SHIFTS];
  struct radix_tree_node *nodes[NR_SHIFTS];
};

static DEFINE_PER_CPU(struct radix_tree_preload, radix_tree_preloads);

static struct kmem_cache *node_cache[NR_SHIFTS];
static mempool_t *node_pool[NR_SHIFTS];

static const char *const cache_name[NR_SHIFTS] = {
  "radix_tree_node4", "radix_tree_node8", "radix_tree_node16",
  "radix_tree_node32", "radix_tree_node64", "radix_tree_node128",
};

// Largest index a tree of this height can hold.
static unsigned long
maxindex(unsigned int shift, unsigned int height)
{
  if(shift * height >= LONG_BITS)
    return ~0UL;
  return (1UL << (shift * height)) - 1;
}

// Slot that index goes through in a node of this height.
static unsigned int
offset(unsigned long index, unsigned int shift, unsigned int height)
{
  return (index >> (shift * (height - 1))) & ((1UL << shift) - 1);
}

// Smallest height that holds index.
static unsigned int
height_for(unsigned int shift, unsigned long index)
{
  unsigned int h;

  h = 1;
  while(index > maxindex(shift, h))
    h++;
  return h;
}

static size_t
node_size(unsigned int shift)
{
  return sizeof(struct radix_tree_node) + (sizeof(void *) << shift);
}

// Creates a node cache per fanout, each backed by a reserve of one worst-case insert
// so that preloading makes progress even when the allocator fails ("use mempool to
// avoid OOM situation involving radix nodes", the 2002 LKML thread). Called once at boot.
int
radix_tree_init(void)
{
  unsigned int i, shift;

  for(i = 0; i < NR_SHIFTS; i++) {
    shift = RADIX_TREE_MIN_SHIFT + i;
    node_cache[i] = kmem_cache_create(cache_name[i], node_size(shift), 0, 0, NULL);
    if(!node_cache[i])
      return -ENOMEM;
    node_pool[i] = mempool_create_slab_pool(RADIX_TREE_PRELOAD_SIZE(shift), node_cache[i]);
    if(!node_pool[i])
      return -ENOMEM;
  }
  return 0;
}

int
radix_tree_init_root(struct radix_tree_root *root, unsigned int shift)
{
  if(shift < RADIX_TREE_MIN_SHIFT || shift > RADIX_TREE_MAX_SHIFT)
    return -EINVAL;
  root->shift = shift;
  root->rnode = NULL;
  return 0;
}

// A zeroed node for an insert. The caller holds the tree's lock, so this must not
// sleep; if the allocator fails, the stash that radix_tree_preload filled takes over.
// Allocator first, as in Linux 2.5: the stash stays full while memory is plentiful.
static struct radix_tree_node *
node_alloc(unsigned int shift)
{
  unsigned int i;
  struct radix_tree_preload *rtp;
  struct radix_tree_node *node;

  i = shift - RADIX_TREE_MIN_SHIFT;
  node = kmem_cache_alloc(node_cache[i], GFP_ATOMIC);
  if(!node) {
    rtp = this_cpu_ptr(&radix_tree_preloads);
    node = rtp->nodes[i];
    if(!node)
      return NULL;
    rtp->nodes[i] = node->slots[0];
    rtp->nr[i]--;
  }
  memset(node, 0, node_size(shift));
  node->shift = shift;
  return node;
}

// Hands back a node no reader can reach; the pool refills its reserve first.
static void
node_release(struct radix_tree_node *node)
{
  mempool_free(node, node_pool[node->shift - RADIX_TREE_MIN_SHIFT]);
}

static void
node_free_rcu(struct rcu_head *head)
{
  node_release(container_of(head, struct radix_tree_node, rcu));
}

// Frees a node already unlinked from the tree once every reader that might still
// hold it has left its RCU read-side section.
static void
node_free(struct radix_tree_node *node)
{
  call_rcu(&node->rcu, node_free_rcu);
}

// The leaf on the path to index, or NULL; with path, also the node at each height
// (path[1] is the leaf). Safe under rcu_read_lock() or the writer's lock.
static struct radix_tree_node *
walk(struct radix_tree_root *root, unsigned long index, struct radix_tree_node **path)
{
  struct radix_tree_node *node;
  unsigned int h;

  // The height comes from the node just loaded, not from the root, so a reader racing
  // with a grow or shrink always pairs a node with its own height (why Linux keeps the
  // height in the node).
  node = rcu_dereference(root->rnode);
  if(!node || index > maxindex(root->shift, node->height))
    return NULL;
  for(h = node->height; h > 1; h--) {
    if(path)
      path[h] = node;
    node = rcu_dereference(node->slots[offset(index, root->shift, h)]);
    if(!node)
      return NULL;
  }
  if(path)
    path[1] = node;
  return node;
}

// The item at index, filling path as walk() does; NULL if there is none.
static void *
find(struct radix_tree_root *root, unsigned long index, struct radix_tree_node **path)
{
  struct radix_tree_node *leaf;

  leaf = walk(root, index, path);
  if(!leaf)
    return NULL;
  return rcu_dereference(leaf->slots[offset(index, root->shift, 1)]);
}

void *
radix_tree_lookup(struct radix_tree_root *root, unsigned long index)
{
  return find(root, index, NULL);
}

// The slot holding index's item, or NULL if there is none. Under the writer's lock the
// caller may replace the item through it with rcu_assign_pointer; under RCU alone the
// slot is valid until rcu_read_unlock().
void **
radix_tree_lookup_slot(struct radix_tree_root *root, unsigned long index)
{
  struct radix_tree_node *leaf;
  void **slot;

  leaf = walk(root, index, NULL);
  if(!leaf)
    return NULL;
  slot = &leaf->slots[offset(index, root->shift, 1)];
  return rcu_dereference(*slot) ? slot : NULL;
}

// How many new nodes an insert at index takes (attach() spends exactly these),
// or -EEXIST if index is taken.
static int
nodes_needed(struct radix_tree_root *root, unsigned long index)
{
  struct radix_tree_node *node;
  unsigned int shift, need, h;

  shift = root->shift;
  need = height_for(shift, index);
  node = root->rnode;
  if(!node)
    return need;
  // Beyond the old root's span: new roots stack on it, and index leaves the top one
  // by a slot other than 0, so every node below that is new too.
  if(need > node->height)
    return (need - node->height) + (need - 1);
  for(h = node->height; h > 1; h--) {
    node = node->slots[offset(index, shift, h)];
    if(!node)
      return h - 1;
  }
  return node->slots[offset(index, shift, 1)] ? -EEXIST : 0;
}

// Puts item at index, taking new nodes from fresh. Each node is complete before
// rcu_assign_pointer publishes it, so readers see the old tree or a consistent
// part of the new one.
static void
attach(struct radix_tree_root *root, unsigned long index, void *item,
       struct radix_tree_node **fresh)
{
  struct radix_tree_node *top, *node, *child;
  unsigned int shift, height, h, off;

  shift = root->shift;
  height = height_for(shift, index);
  top = root->rnode;
  if(!top) {
    top = *fresh++;
    top->height = height;
  }
  // Grow: each new root holds the old one in slot 0 (Linux's radix_tree_extend). They
  // stay private until root->rnode is set, so plain stores do.
  for(h = top->height + 1; h <= height; h++) {
    node = *fresh++;
    node->height = h;
    node->slots[0] = top;
    node->count = 1;
    top = node;
  }
  node = top;
  for(h = top->height; h > 1; h--) {
    off = offset(index, shift, h);
    child = node->slots[off];
    if(!child) {
      child = *fresh++;
      child->height = h - 1;
      rcu_assign_pointer(node->slots[off], child);
      node->count++;
    }
    node = child;
  }
  rcu_assign_pointer(node->slots[offset(index, shift, 1)], item);
  node->count++;
  if(top != root->rnode)
    rcu_assign_pointer(root->rnode, top);
}

// Returns 0, -EEXIST if index is taken, or -ENOMEM; on failure the tree is unchanged.
int
radix_tree_insert(struct radix_tree_root *root, unsigned long index, void *item)
{
  struct radix_tree_node *fresh[RADIX_TREE_PRELOAD_SIZE(RADIX_TREE_MIN_SHIFT)];
  int need, i;

  if(!item)
    return -EINVAL;
  need = nodes_needed(root, index);
  if(need < 0)
    return need;
  // Allocate everything before touching the tree, so a failure leaves no trace.
  for(i = 0; i < need; i++) {
    fresh[i] = node_alloc(root->shift);
    if(!fresh[i]) {
      while(i-- > 0)
        node_release(fresh[i]);
      return -ENOMEM;
    }
  }
  attach(root, index, item, fresh);
  return 0;
}

// Drops root nodes whose only entry is in slot 0, keeping the height minimal (Linux's
// radix_tree_shrink). The child is already published, and the old root still points
// at it, so a reader holding the old root finds the same entries.
static void
shrink(struct radix_tree_root *root)
{
  struct radix_tree_node *node;

  node = root->rnode;
  while(node->height > 1 && node->count == 1 && node->slots[0]) {
    rcu_assign_pointer(root->rnode, node->slots[0]);
    node_free(node);
    node = root->rnode;
  }
}

// Removes and returns the item at index, or NULL if there is none.
void *
radix_tree_delete(struct radix_tree_root *root, unsigned long index)
{
  struct radix_tree_node *path[MAX_HEIGHT + 1];
  struct radix_tree_node *node;
  unsigned int shift, height, h;
  void *item;

  item = find(root, index, path);
  if(!item)
    return NULL;
  shift = root->shift;
  height = root->rnode->height;
  // Clear the entry, then walk up freeing each node left empty. A node is freed only
  // after the slot that led to it is cleared, so no reader that starts later finds it.
  for(h = 1; h <= height; h++) {
    node = path[h];
    rcu_assign_pointer(node->slots[offset(index, shift, h)], NULL);
    if(h > 1)
      node_free(path[h - 1]);
    if(--node->count > 0) {
      shrink(root);
      return item;
    }
  }
  rcu_assign_pointer(root->rnode, NULL);
  node_free(path[height]);
  return item;
}

// One descent of a gang lookup: finds the first leaf with an entry at or after *index,
// appends that leaf's entries from there to results (up to max in all), and moves
// *index past what it scanned. Returns false once nothing can follow. Each leaf starts
// again from the root, which keeps the walk simple and right against concurrent
// changes of height (the shape of Linux 2.6's __lookup).
static bool
gang_step(struct radix_tree_root *root, unsigned long *index, void **results,
          unsigned int max, unsigned int *found)
{
  struct radix_tree_node *node, *child;
  unsigned int shift, nslots, h, off;
  unsigned long i, span;
  void *item;

  shift = root->shift;
  nslots = 1u << shift;
  i = *index;
  node = rcu_dereference(root->rnode);
  if(!node || i > maxindex(shift, node->height))
    return false;
  for(h = node->height; h > 1; h--) {
    span = 1UL << (shift * (h - 1));
    child = NULL;
    for(off = offset(i, shift, h); off < nslots; off++) {
      child = rcu_dereference(node->slots[off]);
      if(child)
        break;
      i = (i & ~(span - 1)) + span;
      if(i == 0)
        return false;   // wrapped past ULONG_MAX
    }
    if(!child) {
      *index = i;       // nothing left under this node; start over from the root
      return true;
    }
    node = child;
  }
  for(off = offset(i, shift, 1); off < nslots && *found < max; off++) {
    item = rcu_dereference(node->slots[off]);
    if(item)
      results[(*found)++] = item;
    i++;
  }
  *index = i;
  return i != 0;
}

// Up to max items at indices >= first, in index order.
unsigned int
radix_tree_gang_lookup(struct radix_tree_root *root, void **results, unsigned long first,
                       unsigned int max)
{
  unsigned int found;

  found = 0;
  while(found < max && gang_step(root, &first, results, max, &found))
    ;
  return found;
}

// Fills this CPU's stash with enough nodes for one insert into any tree, so an insert
// made right after, under a spinlock, cannot fail for lack of memory. Nodes come from
// the mempool, whose reserve serves when the allocator fails. On success returns 0
// with preemption disabled until radix_tree_preload_end(); on failure -ENOMEM, with
// preemption enabled. Every fanout is stocked, as the caller names no tree: about 48 KiB
// a CPU, once. Stocking only the fanouts some tree had used took a flag per fanout that
// every new tree stored to: one shared cache line written by every file created.
int
radix_tree_preload(gfp_t gfp)
{
  struct radix_tree_preload *rtp;
  struct radix_tree_node *node;
  unsigned int i, size;

  preempt_disable();
  for(i = 0; i < NR_SHIFTS; i++) {
    size = RADIX_TREE_PRELOAD_SIZE(RADIX_TREE_MIN_SHIFT + i);
    rtp = this_cpu_ptr(&radix_tree_preloads);
    while(rtp->nr[i] < size) {
      // The allocation may sleep and the thread wake on another CPU, so let go of
      // this CPU's stash meanwhile and look it up again after.
      preempt_enable();
      node = mempool_alloc(node_pool[i], gfp);
      if(!node)
        return -ENOMEM;
      preempt_disable();
      rtp = this_cpu_ptr(&radix_tree_preloads);
      if(rtp->nr[i] < size) {
        node->slots[0] = rtp->nodes[i];
        rtp->nodes[i] = node;
        rtp->nr[i]++;
      } else {
        mempool_free(node, node_pool[i]);
      }
    }
  }
  return 0;
}

void
radix_tree_preload_end(void)
{
  preempt_enable();
}

// An on_each_cpu handler: this CPU's stash back to the pools. A thread that holds the
// stash between preload and preload_end keeps preemption disabled, and the kernel never
// preempts, so a count of zero here means the interrupted thread is not using it.
void
radix_tree_drain_preloads(void *unused)
{
  struct radix_tree_preload *rtp = this_cpu_ptr(&radix_tree_preloads);
  struct radix_tree_node *node;
  unsigned int i;

  if(this_cpu(preempt_count) != 0)
    return;
  for(i = 0; i < NR_SHIFTS; i++) {
    while((node = rtp->nodes[i]) != NULL) {
      rtp->nodes[i] = node->slots[0];
      rtp->nr[i]--;
      mempool_free(node, node_pool[i]);
    }
  }
}

// 0 for an empty tree.
unsigned int
radix_tree_height(struct radix_tree_root *root)
{
  struct radix_tree_node *node;

  node = rcu_dereference(root->rnode);
  return node ? node->height : 0;
}

static unsigned long
count_nodes(struct radix_tree_node *node)
{
  struct radix_tree_node *child;
  unsigned long n;
  unsigned int i;

  n = 1;
  if(node->height == 1)
    return n;
  for(i = 0; i < 1u << node->shift; i++) {
    child = rcu_dereference(node->slots[i]);
    if(child)
      n += count_nodes(child);
  }
  return n;
}

// Nodes in the tree, for tests and the gdb helpers; exact under the writer's lock.
unsigned long
radix_tree_nr_nodes(struct radix_tree_root *root)
{
  struct radix_tree_node *node;

  node = rcu_dereference(root->rnode);
  return node ? count_nodes(node) : 0;
}
