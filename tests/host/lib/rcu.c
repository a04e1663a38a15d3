// The kernel's RCU interface on the host, over liburcu's default flavor (memb): readers are
// liburcu's, and call_rcu hands the kernel's rcu_head to liburcu's call_rcu thread.
#include <stddef.h>

// liburcu names its callback head struct rcu_head too: here it takes another name, so that
// the kernel's can be used beside it. <urcu/urcu-memb.h> leaves only urcu_memb_* functions,
// and pointer macros of its own, which give way to the kernel's.
#define rcu_head urcu_rcu_head
#include <urcu/urcu-memb.h>
#undef rcu_head
#undef rcu_dereference
#undef rcu_assign_pointer

#include "rcupdate.h"
#include "host.h"

// liburcu keeps its queue link and the callback in the kernel's rcu_head, which has room for
// exactly those two words; the callback gets back the same pointer it was given.
_Static_assert(sizeof(struct rcu_head) == sizeof(struct urcu_rcu_head) &&
               offsetof(struct rcu_head, func) == offsetof(struct urcu_rcu_head, func),
               "the kernel's rcu_head cannot hold liburcu's");

void
rcu_register_thread(void)
{
  urcu_memb_register_thread();
}

void
rcu_unregister_thread(void)
{
  urcu_memb_unregister_thread();
}

void
rcu_read_lock(void)
{
  urcu_memb_read_lock();
}

void
rcu_read_unlock(void)
{
  urcu_memb_read_unlock();
}

void
call_rcu(struct rcu_head *head, void (*func)(struct rcu_head *))
{
  urcu_memb_call_rcu((struct urcu_rcu_head *)head, (void (*)(struct urcu_rcu_head *))func);
}

void
synchronize_rcu(void)
{
  urcu_memb_synchronize_rcu();
}

void
rcu_barrier(void)
{
  urcu_memb_barrier();
}
