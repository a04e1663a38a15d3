// Sequence counts: a writer makes the count odd while it changes what the count covers, and a
// lockless reader that sees the count odd or moved knows its reads may be torn (Linux seqlock.h).
#pragma once
#include "compiler.h"
#include "spinlock.h"
#include "types.h"
#include <asm/processor.h>

// x86 keeps loads in order with loads and stores with stores (Intel SDM vol. 3, 8.2.2), so
// compiler barriers are all the ordering the read and write sides need here.
typedef struct {
  u32 sequence;
} seqcount_t;

#define SEQCNT_ZERO { 0 }

static inline void seqcount_init(seqcount_t *s) { s->sequence = 0; }

// The count with its low bit cleared: if a write was in progress, the retry check fails.
static inline u32
raw_seqcount_begin(const seqcount_t *s)
{
  u32 v = READ_ONCE(s->sequence);
  barrier();
  return v & ~1u;
}

// Waits out a write in progress.
static inline u32
read_seqcount_begin(const seqcount_t *s)
{
  u32 v;
  while((v = READ_ONCE(s->sequence)) & 1)
    cpu_relax();
  barrier();
  return v;
}

static inline bool
read_seqcount_retry(const seqcount_t *s, u32 start)
{
  barrier();
  return READ_ONCE(s->sequence) != start;
}

// Writers are serialized by the caller's lock.
static inline void
write_seqcount_begin(seqcount_t *s)
{
  WRITE_ONCE(s->sequence, s->sequence + 1);
  barrier();
}

static inline void
write_seqcount_end(seqcount_t *s)
{
  barrier();
  WRITE_ONCE(s->sequence, s->sequence + 1);
}

// A sequence count with its own writer lock.
typedef struct {
  seqcount_t seq;
  spinlock_t lock;
} seqlock_t;

#define DEFINE_SEQLOCK(x) seqlock_t x = { SEQCNT_ZERO, SPINLOCK_INIT(x.lock) }

static inline u32 read_seqbegin(const seqlock_t *l) { return read_seqcount_begin(&l->seq); }
static inline bool read_seqretry(const seqlock_t *l, u32 start)
{ return read_seqcount_retry(&l->seq, start); }

static inline void
write_seqlock(seqlock_t *l)
{
  spin_lock(&l->lock);
  write_seqcount_begin(&l->seq);
}

static inline void
write_sequnlock(seqlock_t *l)
{
  write_seqcount_end(&l->seq);
  spin_unlock(&l->lock);
}
