// The lock-order checker's dependency graph (kernel/locking/lockdep_graph.c): an edge a -> b
// says that some thread took a lock of class b while it held one of class a.
#pragma once
#include "types.h"

// More than this kernel's init sites times their subclasses, and than the orders it takes them
// in (a selftest=all boot at 8 vCPUs learns 64 classes and 83 edges, bench=quick 38 and 63);
// all static, since the graph grows inside lock paths where nothing may be allocated.
#define LOCKDEP_MAX_CLASSES 512
#define LOCKDEP_MAX_EDGES 4096
#define LOCKDEP_TRACE 8   // return addresses kept per edge

struct lock_edge {
  u16 from, to;                // class ids
  u32 next;                    // the next edge out of `from`, as index + 1; 0 ends the list
  int nr_trace;
  u64 trace[LOCKDEP_TRACE];    // where `to` was first taken under `from`, innermost first
};

// Edges are only ever added. Readers walk a class's list without a lock: an edge is filled in
// before lock_graph_add publishes it at the head of its list. Adding and searching take the
// caller's lock: the search's scratch arrays are shared.
struct lock_graph {
  u32 out[LOCKDEP_MAX_CLASSES];   // first edge out of each class, as index + 1; 0: none
  struct lock_edge edges[LOCKDEP_MAX_EDGES];
  u32 nr_edges;
  // Breadth-first search, under the caller's lock.
  u32 gen;                          // this search's mark
  u32 seen[LOCKDEP_MAX_CLASSES];    // gen when the search reached the class
  u32 via[LOCKDEP_MAX_CLASSES];     // the edge (index) it was reached by
  u16 queue[LOCKDEP_MAX_CLASSES];
};

// The edge from -> to, or NULL; safe without the lock.
struct lock_edge *lock_graph_find(struct lock_graph *g, int from, int to);
// Adds from -> to (the caller has checked that it is new), its trace left to the caller to
// fill before the next lock_graph_add; NULL when the table is full.
struct lock_edge *lock_graph_add(struct lock_graph *g, int from, int to);
// The shortest path from -> to: -1 when there is none, else its length n (0 when from == to),
// with its first min(n, max) edges in path[].
int lock_graph_path(struct lock_graph *g, int from, int to, struct lock_edge **path, int max);
