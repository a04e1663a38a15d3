// Queued spinlock: the MCS lock (Mellor-Crummey & Scott, "Algorithms for scalable synchronization
// on shared-memory multiprocessors", ACM TOCS 9(1), 1991): FIFO, each waiter on its own node.
//
// A ticket lock's waiters all spin on one word, so each handover invalidates every waiter's
// cache line; here a waiter spins on its own per-CPU node and the holder touches only its
// successor's. One change from the paper, taken from Linux's qspinlock: the lock word carries a
// locked byte next to the queue tail, and the queue head waits on that byte. A CPU's node is
// then free once it holds the lock, so unlock needs no node, and a CPU needs nodes only for
// the waits that can nest on it: thread, interrupt, NMI, and a spare (MAX_NODES).
// Linux's pending bit (a second CPU waits without queueing) and its paravirt hooks are
// left out: they speed up two-CPU contention and virtual machines, at the cost of a
// state machine that is much harder to read, and this lock is here to be read and measured.
#include "percpu.h"
#include "spinlock.h"
#include <asm/cpu.h>
#include <asm/processor.h>

#define MAX_NODES 4

// A waiter's node, one cache line each so that no two spinning CPUs share a line.
struct qnode {
  struct qnode *next;   // the waiter queued behind this one
  u32 locked;           // set by the predecessor: this waiter is now the queue head
} __aligned(64);

// qnode_count: nodes this CPU uses now; an interrupt that waits takes the next one.
DEFINE_PER_CPU(struct qnode[MAX_NODES], qnodes);
DEFINE_PER_CPU(int, qnode_count);

// The tail names a node as ((cpu + 1) << 2 | level), so 0 means "no waiter".
_Static_assert(((NR_CPUS + 1) << 2) <= 0xffff, "the tail is 16 bits");
static u16
encode_tail(int cpu, int idx)
{
  return (u16)((cpu + 1) << 2 | idx);
}

static struct qnode *
decode_tail(u16 tail)
{
  return &per_cpu(qnodes, (tail >> 2) - 1)[tail & 3];
}

bool
queued_spin_trylock(struct qspinlock *l)
{
  // Only a free lock with nobody queued may be taken: a waiter is never overtaken.
  // Relaxed read: a stale value only makes the compare-and-swap fail.
  u32 free = READ_ONCE(l->val);
  if(free != 0)
    return false;
  // Acquire on success: the critical section stays after it.
  return __atomic_compare_exchange_n(&l->val, &free, 1, false, __ATOMIC_ACQUIRE,
                                     __ATOMIC_RELAXED);
}

// Waits for the lock with this CPU's next free node; returns holding it.
static void
queued_spin_lock_slowpath(struct qspinlock *l)
{
  // An interrupt may arrive at any instruction here and wait on a lock itself. It takes the
  // next node and gives it back before returning, so the count is ours again afterwards;
  // the barriers keep the compiler from moving the count past the node's use.
  int idx = this_cpu(qnode_count)++;
  barrier();
  if(idx >= MAX_NODES) {
    // Deeper nesting than thread, irq, NMI and a spare: wait unqueued (and unfairly).
    while(!queued_spin_trylock(l))
      cpu_relax();
    goto out;
  }
  struct qnode *node = &this_cpu(qnodes)[idx];
  node->next = NULL;
  node->locked = 0;
  u16 tail = encode_tail(smp_processor_id(), idx);

  // Join the queue. Release: whoever links behind us sees our node initialised.
  // Acquire: we see the predecessor's node initialised before we write into it.
  u16 prev = __atomic_exchange_n(&l->tail, tail, __ATOMIC_ACQ_REL);
  if(prev) {
    // Release: the predecessor sees our node initialised before it hands over.
    smp_store_release(&decode_tail(prev)->next, node);
    // Acquire pairs with the predecessor's release below. This is the local spin; not the
    // queue head yet, so under a hypervisor it may halt (virt_wait).
    u32 spins = 0;
    while(!smp_load_acquire(&node->locked))
      virt_wait(&spins);
  }

  // Queue head: only this CPU spins on the lock word, waiting for the holder to leave.
  // Acquire pairs with queued_spin_unlock: the holder's critical section comes first.
  while(smp_load_acquire(&l->locked))
    cpu_relax();

  // Last in the queue: take the lock and empty the queue at once. Relaxed is enough,
  // the acquire load above already ordered us after the holder.
  u32 val = READ_ONCE(l->val);
  if(val >> 16 == tail &&
     __atomic_compare_exchange_n(&l->val, &val, 1, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
    goto out;

  // Someone queued behind us. The word is not 0, so no trylock can take the lock
  // meanwhile: setting the byte is enough. Relaxed, for the same reason as above.
  WRITE_ONCE(l->locked, 1);
  // Acquire: the successor's node is initialised before we write into it.
  struct qnode *next;
  while(!(next = smp_load_acquire(&node->next)))
    cpu_relax();
  // Release: pairs with the successor's acquire spin; it is the queue head now.
  smp_store_release(&next->locked, 1);
out:
  barrier();
  this_cpu(qnode_count)--;
}

void
queued_spin_lock(struct qspinlock *l)
{
  // Uncontended: one compare-and-swap from free to locked, no node needed.
  if(likely(queued_spin_trylock(l)))
    return;
  queued_spin_lock_slowpath(l);
}

void
queued_spin_unlock(struct qspinlock *l)
{
  // Release: the critical section's stores are visible before the byte clears.
  // A byte store is atomic on x86 and stays in order with the word-sized atomics on the
  // same word (SDM vol. 3A, "Memory Ordering in P6 and More Recent Processor Families");
  // Linux's unlock is the same store, and it saves a locked instruction per unlock.
  smp_store_release(&l->locked, 0);
}

bool
queued_spin_is_locked(struct qspinlock *l)
{
  // Held or with waiters queued, as in Linux. Relaxed: a snapshot that orders nothing.
  return READ_ONCE(l->val) != 0;
}
