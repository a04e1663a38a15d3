// Circular doubly linked lists with a sentinel head, as Linux's <linux/list.h>.
// The list_head lives inside the object; list_entry finds the object from it.
#pragma once
#include "compiler.h"
#include "types.h"

struct list_head {
  struct list_head *next, *prev;
};

#define LIST_HEAD_INIT(name) { &(name), &(name) }
#define LIST_HEAD(name) struct list_head name = LIST_HEAD_INIT(name)

static inline void
INIT_LIST_HEAD(struct list_head *h)
{
  h->next = h;
  h->prev = h;
}

static inline void
__list_add(struct list_head *n, struct list_head *prev, struct list_head *next)
{
  next->prev = n;
  n->next = next;
  n->prev = prev;
  prev->next = n;
}

static inline void list_add(struct list_head *n, struct list_head *h) { __list_add(n, h, h->next); }
static inline void list_add_tail(struct list_head *n, struct list_head *h) { __list_add(n, h->prev, h); }

static inline void
list_del(struct list_head *e)
{
  e->next->prev = e->prev;
  e->prev->next = e->next;
  e->next = e->prev = NULL;   // a second list_del faults instead of corrupting
}

static inline void
list_del_init(struct list_head *e)
{
  e->next->prev = e->prev;
  e->prev->next = e->next;
  INIT_LIST_HEAD(e);
}

static inline void
list_move_tail(struct list_head *e, struct list_head *h)
{
  list_del_init(e);
  list_add_tail(e, h);
}

static inline bool list_empty(const struct list_head *h) { return h->next == h; }

// Exactly one entry.
static inline bool
list_is_singular(const struct list_head *h)
{
  return h->next != h && h->next == h->prev;
}

// Whether h is empty, read without the list's lock (one load: a reader that acts on the
// answer takes the lock and looks again, or tolerates a stale one).
static inline bool list_empty_careful(const struct list_head *h) { return READ_ONCE(h->next) == h; }

// Moves every entry of list to the front of h (list is left as it was: reinitialize it, or
// use list_splice_init).
static inline void
list_splice(struct list_head *list, struct list_head *h)
{
  if(list_empty(list))
    return;
  struct list_head *first = list->next, *last = list->prev, *at = h->next;
  first->prev = h;
  h->next = first;
  last->next = at;
  at->prev = last;
}

static inline void
list_splice_init(struct list_head *list, struct list_head *h)
{
  list_splice(list, h);
  INIT_LIST_HEAD(list);
}

#define list_entry(ptr, type, member) container_of(ptr, type, member)
#define list_first_entry(h, type, member) list_entry((h)->next, type, member)
#define list_first_entry_or_null(h, type, member) \
  (list_empty(h) ? NULL : list_first_entry(h, type, member))
#define list_for_each_entry(pos, h, member)                                  \
  for(pos = list_entry((h)->next, __typeof__(*pos), member); &pos->member != (h); \
      pos = list_entry(pos->member.next, __typeof__(*pos), member))
#define list_for_each_entry_safe(pos, n, h, member)                          \
  for(pos = list_entry((h)->next, __typeof__(*pos), member),                 \
      n = list_entry(pos->member.next, __typeof__(*pos), member);            \
      &pos->member != (h); pos = n, n = list_entry(n->member.next, __typeof__(*n), member))
