// Lock statistics (include/lock_stat.h): classes registered when first taken while on, counts
// per CPU per class, and each thread's stack of held locks for the hold times.
//
// Every hook runs with interrupts off on its own CPU: an interrupt handler that takes a lock
// pushes onto the interrupted thread's held-lock stack and updates this CPU's counts, and it
// must not do so halfway through the thread's own update. The kernel never preempts or
// migrates a thread inside a hook, so this CPU's counts and current's stack are ours.
#include "cpumask.h"
#include "lock_stat.h"
#include "sched.h"
#include "smp.h"
#include "spinlock.h"
#include "string.h"
#include "time.h"
#include <asm/irqflags.h>

#ifdef CONFIG_LOCK_STAT

bool lock_stat_on;
struct lock_class_key *lock_stat_planted_miss;
struct lock_class_key *lock_classes[MAX_LOCK_CLASSES];
int nr_lock_classes;
u64 lock_stat_overflow;

// Bumped by each lock_stat_start; a thread whose held_epoch differs holds nothing we counted.
static u32 lock_stat_epoch;

// Registration of new classes: rare (a class's first acquisition while on), so one lock. An
// arch lock, not a spinlock_t: taking a spinlock_t here would call these hooks again.
static arch_spinlock_t classes_lock = ARCH_SPIN_LOCK_UNLOCKED;

static DEFINE_PER_CPU(struct lock_class_stats[MAX_LOCK_CLASSES], lock_stats);

// A lock that no init site gave a class (zeroed memory never passed to an init macro):
// counted here rather than lost, so that the console shows one exists.
static struct lock_class_key no_class = { .name = "no-init-site" };

static int
register_class(struct lock_class_key *key)
{
  int id;

  arch_spin_lock(&classes_lock);
  id = key->id;
  if(id == 0) {
    if(nr_lock_classes < MAX_LOCK_CLASSES) {
      lock_classes[nr_lock_classes] = key;
      id = nr_lock_classes + 1;
      // Pairs with the acquire loads of nr_lock_classes in lock_stat_fold and lock_stat_read.
      smp_store_release(&nr_lock_classes, id);
    } else {
      id = -1;
    }
    WRITE_ONCE(key->id, id);
  }
  arch_spin_unlock(&classes_lock);
  return id;
}

// This CPU's counts of the map's class; NULL once the class table is full.
static struct lock_class_stats *
class_stats(struct lockdep_map *map)
{
  struct lock_class_key *key = map->key ? map->key : &no_class;
  int id = READ_ONCE(key->id);

  if(unlikely(id == 0))
    id = register_class(key);
  if(id < 0) {
    lock_stat_overflow++;
    return NULL;
  }
  return &this_cpu(lock_stats)[id - 1];
}

// t's held-lock stack, emptied if it dates from an earlier on-period.
static struct thread *
held_locks_of(struct thread *t)
{
  u32 epoch = READ_ONCE(lock_stat_epoch);

  if(t->held_epoch != epoch) {
    t->held_epoch = epoch;
    t->lockdep_depth = 0;
  }
  return t;
}

// The innermost entry of t for map, or -1: locks are mostly released in the reverse order,
// but not always (hand-over-hand walks), so the entry may lie below others.
static int
held_index(struct thread *t, struct lockdep_map *map)
{
  int i;

  for(i = t->lockdep_depth - 1; i >= 0; i--)
    if(t->held_locks[i].map == map)
      return i;
  return -1;
}

static void
held_remove(struct thread *t, int i)
{
  memmove(&t->held_locks[i], &t->held_locks[i + 1],
          (t->lockdep_depth - i - 1) * sizeof(t->held_locks[0]));
  t->lockdep_depth--;
}

static void
held_push(struct thread *t, struct held_lock h)
{
  if(t->lockdep_depth < MAX_LOCK_DEPTH)
    t->held_locks[t->lockdep_depth++] = h;
  else
    lock_stat_overflow++;
}

u64
lock_contended(struct lockdep_map *map)
{
  u64 flags = local_irq_save();
  struct lock_class_stats *s = class_stats(map);

  // Counted now, not at the taking: a holder can see that someone waits for it
  // (lockstat-count forces its contention this way).
  if(s)
    s->contended++;
  local_irq_restore(flags);
  return ktime_ns();
}

void
lock_acquired(struct lockdep_map *map, u64 t0)
{
  u64 now = ktime_ns(), flags = local_irq_save(), wait;
  struct lock_class_stats *s;
  struct thread *t;

  if(unlikely(READ_ONCE(lock_stat_planted_miss)) && lock_stat_planted_miss == map->key) {
    WRITE_ONCE(lock_stat_planted_miss, NULL);
    goto out;
  }
  s = class_stats(map);
  if(!s)
    goto out;
  s->acquisitions++;
  if(t0) {
    wait = now - t0;
    s->wait_ns += wait;
    s->max_wait_ns = MAX(s->max_wait_ns, wait);
  }
  t = held_locks_of(current);
  held_push(t, (struct held_lock){ .map = map, .acquire_ns = now });
out:
  local_irq_restore(flags);
}

void
lock_release(struct lockdep_map *map)
{
  u64 now = ktime_ns(), flags = local_irq_save();
  struct thread *t = held_locks_of(current);
  struct lock_class_stats *s;
  int i = held_index(t, map);

  // Not found: taken while off, or in an earlier on-period; its hold is not ours to count.
  if(i >= 0) {
    if((s = class_stats(map)))
      s->hold_ns += now - t->held_locks[i].acquire_ns;
    held_remove(t, i);
  }
  local_irq_restore(flags);
}

void
lock_hand_over(struct lockdep_map *map, struct thread *to)
{
  u64 flags = local_irq_save();
  struct thread *t = held_locks_of(current);
  int i = held_index(t, map);

  if(i >= 0) {
    held_push(held_locks_of(to), t->held_locks[i]);
    held_remove(t, i);
  }
  local_irq_restore(flags);
}

void
spin_lock_stat(spinlock_t *l)
{
  LOCK_CONTENDED(&l->dep_map, arch_spin_trylock(&l->raw_lock), arch_spin_lock(&l->raw_lock));
}

void
lock_stat_start(void)
{
  WRITE_ONCE(lock_stat_epoch, lock_stat_epoch + 1);
  // Pairs with the load in held_locks_of_current: a thread that sees the statistics on sees
  // the new epoch too, and drops what it held from before.
  smp_store_release(&lock_stat_on, true);
}

void
lock_stat_stop(void)
{
  WRITE_ONCE(lock_stat_on, false);
}

void
lock_stat_fold(struct lock_class_stats *sum)
{
  int n = smp_load_acquire(&nr_lock_classes), cpu, i;

  for_each_online_cpu(cpu) {
    struct lock_class_stats *s = *per_cpu_ptr(&lock_stats, cpu);
    for(i = 0; i < n; i++) {
      sum[i].acquisitions += s[i].acquisitions;
      sum[i].contended += s[i].contended;
      sum[i].wait_ns += s[i].wait_ns;
      sum[i].max_wait_ns = MAX(sum[i].max_wait_ns, s[i].max_wait_ns);
      sum[i].hold_ns += s[i].hold_ns;
    }
    memset(s, 0, n * sizeof(*s));
  }
}

void
lock_stat_read(const struct lock_class_key *key, struct lock_class_stats *out)
{
  int id = READ_ONCE(key->id), cpu;

  memset(out, 0, sizeof(*out));
  if(id <= 0)
    return;
  for_each_online_cpu(cpu) {
    // Another CPU's counts, read while it may still add to them: READ_ONCE, as a snapshot.
    struct lock_class_stats *s = &(*per_cpu_ptr(&lock_stats, cpu))[id - 1];
    out->acquisitions += READ_ONCE(s->acquisitions);
    out->contended += READ_ONCE(s->contended);
    out->wait_ns += READ_ONCE(s->wait_ns);
    out->max_wait_ns = MAX(out->max_wait_ns, READ_ONCE(s->max_wait_ns));
    out->hold_ns += READ_ONCE(s->hold_ns);
  }
}

#endif
