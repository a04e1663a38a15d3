// Host test of lockdep's dependency graph (kernel/locking/lockdep_graph.c): random graphs
// against a brute-force reachability closure, the paths it returns, and a full edge table.
#include "check.h"
#include "lockdep_graph.h"
#include <stdlib.h>
#include <string.h>

#define N 24   // classes in the random graphs: small, so that cycles are common

static struct lock_graph g;
static bool reach[N][N];   // reach[a][b]: a path of one edge or more from a to b

static void
closure(void)
{
  for(int k = 0; k < N; k++)
    for(int i = 0; i < N; i++)
      for(int j = 0; j < N; j++)
        if(reach[i][k] && reach[k][j])
          reach[i][j] = true;
}

// A path from -> to: n edges chained end to start, from `from`, ending at `to`, shortest (no
// class twice, and no shorter path by a breadth-first count).
static bool
path_ok(struct lock_edge **p, int n, int from, int to)
{
  int at = from;
  bool seen[N] = { false };

  seen[from] = true;
  for(int i = 0; i < n; i++) {
    if(p[i]->from != at || lock_graph_find(&g, p[i]->from, p[i]->to) != p[i])
      return false;
    at = p[i]->to;
    if(seen[at] && at != to)
      return false;
    seen[at] = true;
  }
  return at == to;
}

// Shortest length by brute force: breadth-first over the adjacency matrix.
static int
shortest(bool adj[N][N], int from, int to)
{
  int dist[N], q[N], h = 0, t = 0;

  for(int i = 0; i < N; i++)
    dist[i] = -1;
  dist[from] = 0;
  q[t++] = from;
  while(h < t) {
    int c = q[h++];
    for(int j = 0; j < N; j++) {
      if(adj[c][j] && dist[j] < 0) {
        dist[j] = dist[c] + 1;
        if(j == to)
          return dist[j];
        q[t++] = j;
      }
    }
  }
  return -1;
}

// Adds random edges one at a time, as lockdep does: before each, asks whether the new edge
// would close a cycle, and checks the answer and its path against the closure.
static void
random_graph(unsigned seed, int edges)
{
  bool adj[N][N] = { { false } };
  struct lock_edge *path[N];

  srand(seed);
  memset(&g, 0, sizeof(g));
  memset(reach, 0, sizeof(reach));
  for(int i = 0; i < edges; i++) {
    int a = rand() % N, b = rand() % N;
    if(lock_graph_find(&g, a, b)) {
      CHECK(adj[a][b]);
      continue;
    }
    CHECK(!adj[a][b]);
    int n = lock_graph_path(&g, b, a, path, N);
    bool cycle = a == b || reach[b][a];
    CHECK((n >= 0) == cycle);
    if(n > 0) {
      CHECK(path_ok(path, n, b, a));
      CHECK(n == shortest(adj, b, a));
    }
    if(a == b)
      CHECK(n == 0);
    struct lock_edge *e = lock_graph_add(&g, a, b);
    CHECK(e && e->from == a && e->to == b);
    adj[a][b] = reach[a][b] = true;
    closure();
  }
}

// A path longer than the caller's array: the length, and its first edges in order.
static void
long_chain(void)
{
  struct lock_edge *path[3];

  memset(&g, 0, sizeof(g));
  for(int i = 0; i < 10; i++)
    lock_graph_add(&g, i, i + 1);
  CHECK(lock_graph_path(&g, 0, 10, path, 3) == 10);
  CHECK(path[0]->from == 0 && path[1]->from == 1 && path[2]->from == 2 && path[2]->to == 3);
  CHECK(lock_graph_path(&g, 10, 0, path, 3) == -1);
  CHECK(lock_graph_path(&g, 5, 5, path, 3) == 0);
}

static void
full_table(void)
{
  memset(&g, 0, sizeof(g));
  for(int i = 0; i < LOCKDEP_MAX_EDGES; i++)
    CHECK(lock_graph_add(&g, i % LOCKDEP_MAX_CLASSES, (i / LOCKDEP_MAX_CLASSES) % 7) != NULL);
  CHECK(lock_graph_add(&g, 1, 2) == NULL);
  CHECK(lock_graph_find(&g, 3, 0) != NULL);
  CHECK(lock_graph_find(&g, 3, 7) == NULL);
}

// Many searches: the marks wrap around without a stale one looking fresh.
static void
generation_wrap(void)
{
  struct lock_edge *path[4];

  memset(&g, 0, sizeof(g));
  lock_graph_add(&g, 0, 1);
  lock_graph_add(&g, 1, 2);
  g.gen = 0xfffffffe;
  for(int i = 0; i < 4; i++) {
    CHECK(lock_graph_path(&g, 0, 2, path, 4) == 2);
    CHECK(lock_graph_path(&g, 2, 0, path, 4) == -1);
  }
}

int
main(void)
{
  for(unsigned seed = 1; seed <= 200; seed++)
    random_graph(seed, 10 + seed % 60);
  long_chain();
  full_table();
  generation_wrap();
  return check_summary("test_lockdep");
}
