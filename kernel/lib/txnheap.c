// txnheap: the 2007 MADV_FREE workload's per-thread heap (include/txnheap.h), also compiled
// into ubench, so the boot suite and the user-space one draw the same transactions.
#include "txnheap.h"

void
txn_heap_init(struct txn_heap *h, int index)
{
  for(int k = 0; k < TXN_CLASSES; k++) {
    for(int c = 0; c < TXN_CHUNKS; c++)
      h->ring[k][c] = c;
    h->head[k] = 0;
    h->count[k] = TXN_CHUNKS;
  }
  h->rng = 0x9e3779b97f4a7c15ULL * (index + 1);
}

// xorshift64 (Marsaglia, J. Stat. Software 8(14), 2003): repeatable per-thread randomness.
u64
txn_rand(struct txn_heap *h)
{
  h->rng ^= h->rng << 13;
  h->rng ^= h->rng >> 7;
  h->rng ^= h->rng << 17;
  return h->rng;
}

int
txn_begin(struct txn_heap *h, struct txn_buf b[TXN_MAX_BUFS], u64 *seed)
{
  int n = TXN_MIN_BUFS + txn_rand(h) % (TXN_MAX_BUFS - TXN_MIN_BUFS + 1);
  *seed = txn_rand(h);
  for(int i = 0; i < n; i++) {
    int k = txn_rand(h) % TXN_CLASSES, c = h->ring[k][h->head[k]];
    h->head[k] = (h->head[k] + 1) % TXN_CHUNKS;
    h->count[k]--;
    b[i] = (struct txn_buf){ TXN_CHUNKS * ((1UL << k) - 1) + ((unsigned long)c << k), k, c };
  }
  return n;
}

void
txn_put(struct txn_heap *h, const struct txn_buf *b)
{
  h->ring[b->class][(h->head[b->class] + h->count[b->class]) % TXN_CHUNKS] = b->chunk;
  h->count[b->class]++;
}
