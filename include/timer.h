// Kernel timers (Linux's struct timer_list): a callback run from the tick interrupt of one CPU
// once its expiry has passed; the sleeps of schedule_timeout and the itimers are built on them.
#pragma once
#include "compiler.h"
#include "list.h"
#include "types.h"

struct timer_base;

// Unlike Linux's, expires is in ktime_ns, not jiffies: the tick stops on an idle CPU, so
// there is no global jiffies counter here, and an idle CPU arms its one-shot timer for the
// first expiry (kernel/timer.c). The callback runs in interrupt context with interrupts off:
// it must not sleep.
struct timer_list {
  struct list_head entry;            // in base->pending (under base->lock); empty: not pending
  u64 expires;                       // ktime_ns; under base->lock while pending
  void (*function)(struct timer_list *);
  struct timer_base *base;           // the CPU's base it was last queued on (or TIMER_MIGRATING
                                     // while mod_timer moves it); changed under base->lock
};

// The structure holding a timer, from the timer, in a callback (Linux's from_timer).
#define from_timer(var, timer, field) container_of(timer, __typeof__(*var), field)

// Linux's timer_setup, without its flags (no TIMER_DEFERRABLE, TIMER_PINNED, TIMER_IRQSAFE
// here: every callback runs with interrupts off already).
void timer_setup(struct timer_list *timer, void (*fn)(struct timer_list *));
void add_timer(struct timer_list *timer);        // queue an inactive timer on this CPU
int mod_timer(struct timer_list *timer, u64 expires);   // 1 if it was pending, 0 if not
int del_timer(struct timer_list *timer);         // 1 if it was pending; the callback may run on
// Like del_timer, but waits for a callback already running on another CPU: afterwards the
// timer is neither pending nor running, unless the caller lets something re-arm it. Never
// from the timer's own callback, nor holding a lock that callback takes.
int del_timer_sync(struct timer_list *timer);
// del_timer_sync's one attempt: -1, doing nothing, when the callback is running now (for a
// caller holding a lock the callback takes: it drops the lock and tries again, as Linux's
// do_setitimer does with the sighand lock).
int try_to_del_timer_sync(struct timer_list *timer);

static inline bool
timer_pending(const struct timer_list *timer)
{
  // Racy unless under the base's lock, as in Linux: the tick may dequeue it meanwhile.
  return READ_ONCE(timer->entry.next) != &timer->entry;
}

void init_timers_cpu(void);        // this CPU's base, before its first tick
void run_timers(void);             // from the tick interrupt: expired callbacks of this CPU
u64 timer_next_expiry(void);       // this CPU's earliest expiry (ktime_ns), or 0 if none
