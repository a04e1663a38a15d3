// Host benchmark: RCU lookups in mm/radix-tree.c (fanout 16, 64, 128) against liburcu's
// RCU hash table cds_lfht, over the same keys: the page indices of one large file.

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <urcu.h>
#include <urcu/rculfhash.h>

#include "radix-tree.h"
#include "clock.h"

#define NKEYS (1UL << 20)   // a 4 GiB file of 4 KiB pages
#define RUN_USEC 500000

struct hnode {
  unsigned long key;
  struct cds_lfht_node node;
};

struct reader {
  pthread_t tid;
  unsigned long lookups, found;
};

static struct radix_tree_root tree;
static struct cds_lfht *ht;
static bool use_tree;
static int stop;

// MurmurHash3's 64-bit finalizer (Austin Appleby): spreads consecutive keys over buckets.
static unsigned long
hash(unsigned long k)
{
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdUL;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53UL;
  k ^= k >> 33;
  return k;
}

static int
match(struct cds_lfht_node *node, const void *key)
{
  return caa_container_of(node, struct hnode, node)->key == *(const unsigned long *)key;
}

static void *
ht_lookup(unsigned long key)
{
  struct cds_lfht_iter iter;
  struct cds_lfht_node *node;

  cds_lfht_lookup(ht, hash(key), match, &key, &iter);
  node = cds_lfht_iter_get_node(&iter);
  return node ? caa_container_of(node, struct hnode, node) : NULL;
}

// Looks up keys in a random order (xorshift64) until told to stop; one RCU read-side
// section per lookup, as a page cache lookup would take.
static void *
reader_thread(void *arg)
{
  struct reader *r;
  unsigned long rs, key, i;
  void *item;

  r = arg;
  rs = 88172645463325252UL + (unsigned long)arg;
  rcu_register_thread();
  while(!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
    for(i = 0; i < 1024; i++) {
      rs ^= rs << 13;
      rs ^= rs >> 7;
      rs ^= rs << 17;
      key = rs % NKEYS;
      rcu_read_lock();
      item = use_tree ? radix_tree_lookup(&tree, key) : ht_lookup(key);
      rcu_read_unlock();
      r->found += item != NULL;
    }
    r->lookups += i;
  }
  rcu_unregister_thread();
  return NULL;
}

// Lookups per second with n readers on the current structure.
static double
run(int n)
{
  struct reader r[2] = { 0 };
  unsigned long lookups;
  double start, secs;
  int i;

  __atomic_store_n(&stop, 0, __ATOMIC_RELAXED);
  start = now();
  for(i = 0; i < n; i++)
    pthread_create(&r[i].tid, NULL, reader_thread, &r[i]);
  usleep(RUN_USEC);
  __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
  lookups = 0;
  for(i = 0; i < n; i++) {
    pthread_join(r[i].tid, NULL);
    lookups += r[i].lookups;
    if(r[i].found != r[i].lookups)
      fprintf(stderr, "bench_radix: a lookup missed its key\n");
  }
  secs = now() - start;
  return lookups / secs;
}

int
main(void)
{
  static const unsigned int shifts[] = { 4, 6, 7 };
  struct hnode *nodes;
  double lfht_rate[3], rate;
  unsigned long i;
  unsigned int s;
  int n;

  rcu_register_thread();
  if(radix_tree_init() != 0)
    return 1;
  // A fixed table of one bucket per key, so no resize runs during the measurements.
  ht = cds_lfht_new(NKEYS, NKEYS, NKEYS, 0, NULL);
  nodes = calloc(NKEYS, sizeof(*nodes));
  if(!ht || !nodes)
    return 1;
  for(i = 0; i < NKEYS; i++) {
    nodes[i].key = i;
    cds_lfht_node_init(&nodes[i].node);
    rcu_read_lock();
    cds_lfht_add(ht, hash(i), &nodes[i].node);
    rcu_read_unlock();
  }
  printf("%lu keys (0..%lu), %.1f s per run, random lookups\n", NKEYS, NKEYS - 1,
         RUN_USEC / 1e6);
  printf("%-16s %7s %14s %12s\n", "structure", "readers", "lookups/s", "radix/lfht");
  use_tree = false;
  for(n = 1; n <= 2; n++) {
    lfht_rate[n] = run(n);
    printf("%-16s %7d %14.0f\n", "cds_lfht", n, lfht_rate[n]);
  }
  use_tree = true;
  for(s = 0; s < 3; s++) {
    if(INIT_RADIX_TREE(&tree, shifts[s]) != 0)
      return 1;
    for(i = 0; i < NKEYS; i++)
      if(radix_tree_insert(&tree, i, &nodes[i]) != 0)
        return 1;
    for(n = 1; n <= 2; n++) {
      rate = run(n);
      printf("radix shift %-4u %7d %14.0f %12.2f\n", shifts[s], n, rate,
             rate / lfht_rate[n]);
    }
    for(i = 0; i < NKEYS; i++)
      radix_tree_delete(&tree, i);
  }
  rcu_barrier();
  rcu_unregister_thread();
  return 0;
}
