// RCU: readers run without locks or writes to shared memory; updaters wait for a grace period
// (every CPU has passed a quiescent state) before freeing what readers may still see.
// This kernel is non-preemptive, so a read-side section can never be switched away from.
#pragma once
#include "compiler.h"
#include "percpu.h"
#include "types.h"

struct rcu_head {
  struct rcu_head *next;
  void (*func)(struct rcu_head *);
};

// The read-side nesting depth of this CPU: a tick that finds it non-zero is not a
// quiescent state. That is the whole read-side cost: one per-CPU increment.
DECLARE_PER_CPU(int, rcu_nesting);

#ifndef __KERNEL_HOST_TEST
static inline void
rcu_read_lock(void)
{
  this_cpu(rcu_nesting)++;
  barrier();   // the section's loads stay after the increment (the tick reads it on this CPU)
}

static inline void
rcu_read_unlock(void)
{
  barrier();
  this_cpu(rcu_nesting)--;
}
#else
// Host tests have no tick: their readers are liburcu's (tests/host/lib/rcu.c).
void rcu_read_lock(void);
void rcu_read_unlock(void);
#endif

// A load that a reader follows: x86 keeps dependent loads in order, so a plain untorn
// load suffices; the compiler barrier of READ_ONCE keeps it from being re-read.
#define rcu_dereference(p) READ_ONCE(p)
#define rcu_dereference_protected(p) (p)   // the caller holds the update-side lock
// Publish: everything written to *v before is visible before the pointer is (release).
#define rcu_assign_pointer(p, v) smp_store_release(&(p), (v))

void call_rcu(struct rcu_head *head, void (*func)(struct rcu_head *));
void synchronize_rcu(void);
void rcu_barrier(void);

void rcu_init(void);                 // the grace-period thread; after the scheduler
void rcu_init_cpu(void);             // each CPU as it comes online
int rcu_gp_cpu(void);                // the CPU the grace-period thread is bound to
void rcu_note_context_switch(void);  // a quiescent state
void rcu_note_qs(void);              // cond_resched: a quiescent state if not in a reader
void rcu_tick(void);                 // from the tick: quiescent state, run finished callbacks
void rcu_idle_enter(void);           // idle: an extended quiescent state
void rcu_idle_exit(void);
void rcu_do_batch(void);             // run this CPU's callbacks whose grace period ended
bool rcu_has_done(void);

struct rcu_stats {
  u64 gp_completed;       // grace periods ended
  u64 cbs_invoked;        // callbacks run
  u64 cbs_queued;
};
void rcu_get_stats(struct rcu_stats *s);
void rcu_show_state(void);   // for dumps: grace periods, and each CPU's waiting callbacks
// For planted-rcu only: call_rcu runs the callback at once, before any grace period.
void rcu_plant_early_gp(bool on);
