// The dependency graph of lock classes (include/lockdep_graph.h): adjacency lists in static
// arrays, and the breadth-first search that finds the path a new edge would close into a cycle.
#include "compiler.h"
#include "lockdep_graph.h"

struct lock_edge *
lock_graph_find(struct lock_graph *g, int from, int to)
{
  // Pairs with the release in lock_graph_add: an edge seen at a head is filled in, and so is
  // every edge its next leads to (each was published before it).
  u32 e = smp_load_acquire(&g->out[from]);

  while(e) {
    struct lock_edge *edge = &g->edges[e - 1];
    if(edge->to == to)
      return edge;
    e = edge->next;
  }
  return NULL;
}

struct lock_edge *
lock_graph_add(struct lock_graph *g, int from, int to)
{
  struct lock_edge *edge;

  if(g->nr_edges == LOCKDEP_MAX_EDGES)
    return NULL;
  edge = &g->edges[g->nr_edges];
  edge->from = from;
  edge->to = to;
  edge->nr_trace = 0;
  edge->next = g->out[from];
  // Pairs with the acquire in lock_graph_find: the edge's fields before its publication.
  smp_store_release(&g->out[from], ++g->nr_edges);
  return edge;
}

int
lock_graph_path(struct lock_graph *g, int from, int to, struct lock_edge **path, int max)
{
  int head = 0, tail = 0, n = 0, c;

  if(from == to)
    return 0;
  if(++g->gen == 0) {   // wrapped: marks of 2^32 searches ago would look fresh
    for(int i = 0; i < LOCKDEP_MAX_CLASSES; i++)
      g->seen[i] = 0;
    g->gen = 1;
  }
  g->seen[from] = g->gen;
  g->queue[tail++] = from;
  while(head < tail) {
    c = g->queue[head++];
    for(u32 e = g->out[c]; e; e = g->edges[e - 1].next) {
      int next = g->edges[e - 1].to;
      if(g->seen[next] == g->gen)
        continue;
      g->seen[next] = g->gen;
      g->via[next] = e - 1;
      if(next == to)
        goto found;
      g->queue[tail++] = next;   // each class enters once: the queue cannot overflow
    }
  }
  return -1;
found:
  // Back from `to` along via[]: count the edges, then store the first max of them in order.
  for(c = to; c != from; c = g->edges[g->via[c]].from)
    n++;
  int i = n;
  for(c = to; c != from; c = g->edges[g->via[c]].from)
    if(--i < max)
      path[i] = &g->edges[g->via[c]];
  return n;
}
