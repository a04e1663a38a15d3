// Kernel timers (Linux's kernel/time/timer.c, in its smallest form): each CPU keeps its pending
// timers on one list, earliest first, and runs the expired ones from its tick interrupt.
#include "panic.h"
#include "percpu.h"
#include "smp.h"
#include "spinlock.h"
#include "tick.h"
#include "time.h"
#include "timer.h"
#include <asm/irqflags.h>
#include <asm/processor.h>

// One CPU's timers. A sorted list, not Linux's wheel: a CPU holds a few sleepers and itimers,
// and the list gives the idle loop its exact next expiry in O(1) (kernel/sched.c); insertion
// is O(n), as the sleeper list it replaced was. lock is taken with interrupts off: run_timers
// takes it in the tick interrupt.
struct timer_base {
  spinlock_t lock;
  struct list_head pending;            // timers by expires, earliest first; under lock
  struct timer_list *running_timer;    // the callback running now, or NULL; under lock
};

static DEFINE_PER_CPU(struct timer_base, timer_bases);

// A timer between two bases (mod_timer): lock_timer_base waits until it has landed, as
// Linux's TIMER_MIGRATING flag makes it wait.
#define TIMER_MIGRATING ((struct timer_base *)1)

void
init_timers_cpu(void)
{
  struct timer_base *base = this_cpu_ptr(&timer_bases);
  spin_lock_init(&base->lock);
  INIT_LIST_HEAD(&base->pending);
  base->running_timer = NULL;
}

void
timer_setup(struct timer_list *timer, void (*fn)(struct timer_list *))
{
  INIT_LIST_HEAD(&timer->entry);
  timer->expires = 0;
  timer->function = fn;
  timer->base = this_cpu_ptr(&timer_bases);
}

// Locks the base the timer is on now. timer->base changes only under the old base's lock
// (to TIMER_MIGRATING) and then the new one's, so it is stable once read again under the lock.
static struct timer_base *
lock_timer_base(struct timer_list *timer, u64 *flags)
{
  for(;;) {
    struct timer_base *base = READ_ONCE(timer->base);
    if(base != TIMER_MIGRATING) {
      spin_lock_irqsave(&base->lock, *flags);
      if(READ_ONCE(timer->base) == base)
        return base;
      spin_unlock_irqrestore(&base->lock, *flags);
    }
    cpu_relax();
  }
}

// Under base->lock.
static int
detach_if_pending(struct timer_list *timer)
{
  if(list_empty(&timer->entry))
    return 0;
  list_del_init(&timer->entry);
  return 1;
}

// Under base->lock: before the first later expiry, so equal expiries run in queueing order.
static void
enqueue_timer(struct timer_base *base, struct timer_list *timer)
{
  struct timer_list *pos;
  list_for_each_entry(pos, &base->pending, entry)
    if(pos->expires > timer->expires)
      break;
  list_add_tail(&timer->entry, &pos->entry);
}

// Queues the timer on this CPU, as Linux's __mod_timer does, unless its callback runs now on
// another CPU: then it stays on that base, so that del_timer_sync, which watches the
// running_timer of the timer's base, cannot miss the callback. A timer queued on another
// CPU's base needs no kick: that CPU is in its tick interrupt, and programs its one-shot
// timer after the callbacks (kernel/tick.c); an idle CPU programs it from its idle loop.
int
mod_timer(struct timer_list *timer, u64 expires)
{
  u64 flags;
  struct timer_base *base = lock_timer_base(timer, &flags);
  int was = detach_if_pending(timer);
  struct timer_base *new = this_cpu_ptr(&timer_bases);   // interrupts are off: we stay here
  if(base != new && base->running_timer != timer) {
    WRITE_ONCE(timer->base, TIMER_MIGRATING);
    spin_unlock(&base->lock);
    spin_lock(&new->lock);
    WRITE_ONCE(timer->base, new);
    base = new;
  }
  timer->expires = expires;
  enqueue_timer(base, timer);
  spin_unlock_irqrestore(&base->lock, flags);
  return was;
}

void
add_timer(struct timer_list *timer)
{
  if(timer_pending(timer))   // Linux's BUG_ON: queued twice would corrupt the list
    panic("add_timer: timer %p (callback %p) is already pending", timer, timer->function);
  mod_timer(timer, timer->expires);
}

int
del_timer(struct timer_list *timer)
{
  u64 flags;
  struct timer_base *base = lock_timer_base(timer, &flags);
  int was = detach_if_pending(timer);
  spin_unlock_irqrestore(&base->lock, flags);
  return was;
}

// planted-timer-nosync (tests/kernel/timer_test.c): the running callback is not waited for.
bool timer_planted_nosync;

int
try_to_del_timer_sync(struct timer_list *timer)
{
  u64 flags;
  struct timer_base *base = lock_timer_base(timer, &flags);
  int ret = -1;
  if(base->running_timer != timer || READ_ONCE(timer_planted_nosync))
    ret = detach_if_pending(timer);
  spin_unlock_irqrestore(&base->lock, flags);
  return ret;
}

int
del_timer_sync(struct timer_list *timer)
{
  // From its own callback it would wait for itself for ever; from an interrupt, for a callback
  // on this CPU that the interrupt stopped (Linux warns of both in __timer_delete_sync).
  if(in_interrupt())
    panic("del_timer_sync of %p (callback %p) in interrupt context", timer, timer->function);
  for(;;) {
    int ret = try_to_del_timer_sync(timer);
    if(ret >= 0)
      return ret;
    cpu_relax();   // the callback runs on another CPU with interrupts off: it ends soon
  }
}

// The callback runs without the base's lock, so that it can re-arm its own timer (mod_timer)
// or take locks that mod_timer's callers hold around it (the itimers' siglock). running_timer
// is set and cleared under the lock; del_timer_sync reads it under the same lock, so once it
// sees another timer (or none), this one's callback has returned.
void
run_timers(void)
{
  struct timer_base *base = this_cpu_ptr(&timer_bases);
  u64 now = ktime_ns();
  spin_lock(&base->lock);
  while(!list_empty(&base->pending)) {
    struct timer_list *timer = list_first_entry(&base->pending, struct timer_list, entry);
    if(timer->expires > now)
      break;
    list_del_init(&timer->entry);
    void (*fn)(struct timer_list *) = timer->function;
    base->running_timer = timer;
    spin_unlock(&base->lock);
    fn(timer);
    spin_lock(&base->lock);
  }
  base->running_timer = NULL;
  spin_unlock(&base->lock);
}

u64
timer_next_expiry(void)
{
  struct timer_base *base = this_cpu_ptr(&timer_bases);
  u64 when = 0, flags;
  spin_lock_irqsave(&base->lock, flags);
  if(!list_empty(&base->pending))
    when = list_first_entry(&base->pending, struct timer_list, entry)->expires;
  spin_unlock_irqrestore(&base->lock, flags);
  return when;
}
