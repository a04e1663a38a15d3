// Hash-chain lists (hlist: a one-pointer head) whose readers may walk them under
// rcu_read_lock while one writer, under its own lock, adds and removes entries (Linux rculist.h).
#pragma once
#include "compiler.h"
#include "rcupdate.h"
#include "types.h"

struct hlist_node {
  struct hlist_node *next;
  struct hlist_node **pprev;   // the pointer that points at this node; NULL: not on a list
};

struct hlist_head {
  struct hlist_node *first;
};

static inline void
INIT_HLIST_NODE(struct hlist_node *n)
{
  n->next = NULL;
  n->pprev = NULL;
}

static inline bool hlist_unhashed(const struct hlist_node *n) { return !n->pprev; }

// The node is fully set up before the pointer that publishes it (rcu_assign_pointer).
static inline void
hlist_add_head_rcu(struct hlist_node *n, struct hlist_head *h)
{
  struct hlist_node *first = h->first;
  n->next = first;
  n->pprev = &h->first;
  if(first)
    first->pprev = &n->next;
  rcu_assign_pointer(h->first, n);
}

// A reader standing on n keeps going: n->next is left as it was. The node may be freed
// only after a grace period.
static inline void
hlist_del_rcu(struct hlist_node *n)
{
  struct hlist_node *next = n->next;
  WRITE_ONCE(*n->pprev, next);
  if(next)
    next->pprev = n->pprev;
  n->pprev = NULL;
}

#define hlist_entry_safe(ptr, type, member) \
  ({ __typeof__(ptr) p_ = (ptr); p_ ? container_of(p_, type, member) : NULL; })

#define hlist_for_each_entry_rcu(pos, head, member)                                   \
  for(pos = hlist_entry_safe(rcu_dereference((head)->first), __typeof__(*pos), member); \
      pos; pos = hlist_entry_safe(rcu_dereference(pos->member.next), __typeof__(*pos), member))
