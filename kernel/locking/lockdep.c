// Lock-order checking (include/lockdep.h), the rules of Linux's lockdep
// (Documentation/locking/lockdep-design.rst) in a smaller form: classes, the order graph,
// interrupt usage per class, and sleeping where a thread must not.
//
// Every hook runs with interrupts off and marks its CPU as inside lockdep: a handler on this CPU
// must not push onto the interrupted thread's held stack halfway through the thread's own
// update, and the locks lockdep itself takes (printk's, in a report) are not checked. The graph
// and the class table grow under graph_lock, an arch lock; the common case, an edge already
// known, is found without it. Once a panic has started, lockdep stays out of the way.
#include "ksyms.h"
#include "lockdep.h"
#include "lockdep_graph.h"
#include "panic.h"
#include "preempt.h"
#include "printk.h"
#include "rcupdate.h"
#include "sched.h"
#include "smp.h"
#include "spinlock.h"
#include "tick.h"
#include <asm/irqflags.h>
#include <asm/stacktrace.h>

#ifdef CONFIG_LOCKDEP

#ifndef CONFIG_DEBUG_SPINLOCK
#error "CONFIG_LOCKDEP hooks spin_lock through CONFIG_DEBUG_SPINLOCK's out-of-line spin_lock"
#endif

// Interrupt usage of a class, each bit set once with the trace of where it first happened
// (Linux's LOCK_USED_IN_HARDIRQ, LOCK_ENABLED_HARDIRQ and their _READ forms).
enum {
  USED_IN_IRQ,        // taken in an interrupt handler
  USED_IN_IRQ_READ,   // taken for reading in one
  ENABLED_IRQ,        // held with interrupts on, outside interrupts
  ENABLED_IRQ_READ,   // held for reading so
  NR_USAGE,
};
static const char *const usage_names[NR_USAGE] = {
  "taken in an interrupt handler", "taken for reading in an interrupt handler",
  "held with interrupts on", "held for reading with interrupts on",
};
// The bits that deadlock with each: a handler that wants the lock interrupts its holder on
// the same CPU. Readers in interrupts only wait for a writer (kernel/locking/rwlock.c lets
// them past a waiting one), so a read in a handler conflicts only with a write held with
// interrupts on.
static const u8 usage_conflicts[NR_USAGE] = {
  [USED_IN_IRQ] = 1 << ENABLED_IRQ | 1 << ENABLED_IRQ_READ,
  [USED_IN_IRQ_READ] = 1 << ENABLED_IRQ,
  [ENABLED_IRQ] = 1 << USED_IN_IRQ | 1 << USED_IN_IRQ_READ,
  [ENABLED_IRQ_READ] = 1 << USED_IN_IRQ,
};

// A class: one init site (its lock_class_key) and subclass.
struct lock_class {
  struct lock_class_key *key;
  u8 subclass;
  u8 usage;                                  // 1 << USED_IN_IRQ ...; under graph_lock
  bool irq_reported;                         // its irq-inconsistent report is out
  int nr_usage_trace[NR_USAGE];
  u64 usage_trace[NR_USAGE][LOCKDEP_TRACE];  // where each usage bit was first set
};

static struct lock_class classes[LOCKDEP_MAX_CLASSES];
static int nr_classes;
static struct lock_graph graph;
static arch_spinlock_t graph_lock = ARCH_SPIN_LOCK_UNLOCKED;
// One report at a time, so that two CPUs' lines do not interleave.
static arch_spinlock_t report_lock = ARCH_SPIN_LOCK_UNLOCKED;

static DEFINE_PER_CPU(int, lockdep_recursion);
static bool lockdep_off;   // a table overflowed: checking stops, and the run fails
static int counts[LOCKDEP_NR_KINDS];
static int nr_errors;      // overflows and locks without a class

// A lock whose memory no init macro saw (zeroed, never spin_lock_init'ed): one class for all
// of them, and an error, since lockdep cannot tell them apart.
static struct lock_class_key no_class_key = { .name = "no-init-site" };

static const char *const kind_names[LOCKDEP_NR_KINDS] = {
  "circular", "irq-inconsistent", "sleep-in-atomic", "sleep-in-rcu",
};

// Enters lockdep on this CPU, interrupts off; false when it must stay out.
static bool
lockdep_enter(u64 *flags)
{
  if(unlikely(READ_ONCE(lockdep_off)) || panic_in_progress())
    return false;
  *flags = local_irq_save();
  if(this_cpu(lockdep_recursion) || !current) {
    local_irq_restore(*flags);
    return false;
  }
  this_cpu(lockdep_recursion)++;
  return true;
}

static void
lockdep_exit(u64 flags)
{
  this_cpu(lockdep_recursion)--;
  local_irq_restore(flags);
}

// Stops checking for good after a table overflowed: what it would say from then on could be
// wrong. Called with graph_lock held or not; printing is done by the caller.
static void
lockdep_disable(void)
{
  WRITE_ONCE(lockdep_off, true);
  __atomic_fetch_add(&nr_errors, 1, __ATOMIC_RELAXED);
}

// The trace of the lock call being checked (stack_walk from here): the stack from the caller
// of the lock function (ip) outwards. Lockdep's own frames, and the lock function's, are left
// out.
static int
save_trace(u64 *trace, u64 ip)
{
  u64 all[32];
  int n = stack_walk((u64)__builtin_frame_address(0), 0, 0, all, ARRAY_SIZE(all), NULL);
  int i = 0, k;

  while(i < n && all[i] != ip)
    i++;
  if(i == n)   // not on the stack (a tail call): keep it all
    i = 0;
  for(k = 0; k < LOCKDEP_TRACE && i + k < n; k++)
    trace[k] = all[i + k];
  return k;
}

static int
register_class(struct lock_class_key *key, int subclass)
{
  int id;

  arch_spin_lock(&graph_lock);
  id = key->dep_class[subclass] - 1;
  if(id < 0 && nr_classes < LOCKDEP_MAX_CLASSES) {
    id = nr_classes++;
    classes[id].key = key;
    classes[id].subclass = subclass;
    // Pairs with the acquire in class_of: the class is filled in before its id is seen.
    smp_store_release(&key->dep_class[subclass], id + 1);
  }
  arch_spin_unlock(&graph_lock);
  if(id < 0) {
    lockdep_disable();
    pr_err("lockdep: more than %d lock classes; checking stops (LOCKDEP_MAX_CLASSES)\n",
           LOCKDEP_MAX_CLASSES);
  }
  return id;
}

// The class of a lock taken as subclass; -1 when the table is full.
static int
class_of(struct lockdep_map *map, int subclass, u64 ip)
{
  struct lock_class_key *key = map->key;
  int id;

  if(subclass < 0 || subclass >= MAX_LOCKDEP_SUBCLASSES)
    panic("lockdep: subclass %d of %s out of range (MAX_LOCKDEP_SUBCLASSES %d)", subclass,
          key ? key->name : "?", MAX_LOCKDEP_SUBCLASSES);
  if(unlikely(!key)) {
    u64 off = 0;
    const char *fn = ksym_lookup(ip, &off);
    if(!no_class_key.dep_class[0]) {
      __atomic_fetch_add(&nr_errors, 1, __ATOMIC_RELAXED);
      pr_err("lockdep: lock %p taken at %s+%#lx has no class: its init macro never ran\n",
             map, fn ? fn : "?", off);
    }
    key = &no_class_key;
  }
  // Pairs with the release in register_class.
  id = smp_load_acquire(&key->dep_class[subclass]) - 1;
  return id >= 0 ? id : register_class(key, subclass);
}

// A class's name as the report prints it: the key's name, "/n" for subclass n, and nothing a
// parser of `classes=a,b` would split on.
static const char *
class_name(int id, char *buf, int size)
{
  const char *s = classes[id].key->name;
  int n = 0;

  for(; *s && n < size - 4; s++)
    buf[n++] = (*s == ' ' || *s == ',' || *s == '=') ? '_' : *s;
  if(classes[id].subclass && n < size - 3) {
    buf[n++] = '/';
    buf[n++] = '0' + classes[id].subclass;
  }
  buf[n] = 0;
  return buf;
}

static void
print_held(struct thread *t)
{
  char name[64];

  printk(KERN_ERR "lockdep: %s (tid %d) holds %d lock%s:\n", t->name, t->tid, t->dep.depth,
         t->dep.depth == 1 ? "" : "s");
  for(int i = 0; i < t->dep.depth; i++) {
    struct lockdep_held *h = &t->dep.held[i];
    u64 off = 0;
    const char *fn = ksym_lookup(h->ip, &off);
    printk(KERN_ERR "lockdep:   #%d %s%s%s, taken at %s+%#lx\n", i,
           class_name(h->class, name, sizeof(name)), h->flags & LOCKDEP_READ ? " (read)" : "",
           h->irq ? " (in an interrupt)" : "", fn ? fn : "?", off);
  }
}

static void
report_begin(enum lockdep_kind kind, int a, int b, const char *pseudo)
{
  char na[64], nb[64];

  arch_spin_lock(&report_lock);
  __atomic_fetch_add(&counts[kind], 1, __ATOMIC_RELAXED);
  if(pseudo)
    printk("LOCKDEP kind=%s classes=%s\n", kind_names[kind], pseudo);
  else if(b < 0)
    printk("LOCKDEP kind=%s classes=%s\n", kind_names[kind], class_name(a, na, sizeof(na)));
  else
    printk("LOCKDEP kind=%s classes=%s,%s\n", kind_names[kind], class_name(a, na, sizeof(na)),
           class_name(b, nb, sizeof(nb)));
}

static void
report_end(void)
{
  arch_spin_unlock(&report_lock);
}

// prev -> next closes a cycle: path[] is the chain next -> ... -> prev already known
// (n edges; none when prev and next are one class), e the new edge.
static void
report_circular(int prev, int next, struct lock_edge **path, int n, int max,
                struct lock_edge *e)
{
  char np[64], nn[64], a[64], b[64];
  struct thread *t = current;

  report_begin(LOCKDEP_CIRCULAR, prev, next, NULL);
  class_name(prev, np, sizeof(np));
  class_name(next, nn, sizeof(nn));
  if(n == 0)
    printk(KERN_ERR "lockdep: %s (tid %d) on cpu %d takes a second lock of class %s while it "
           "holds one: two threads that do so in the other order deadlock; a nesting that is "
           "safe by design is annotated with spin_lock_nested\n", t->name, t->tid,
           smp_processor_id(), nn);
  else
    printk(KERN_ERR "lockdep: possible deadlock: %s (tid %d) on cpu %d takes %s while it holds "
           "%s, and %s is known to come before %s:\n", t->name, t->tid, smp_processor_id(), nn,
           np, nn, np);
  for(int i = 0; i < n && i < max; i++) {
    printk(KERN_ERR "lockdep: chain %d/%d: %s -> %s, first taken in that order at:\n", i + 1, n,
           class_name(path[i]->from, a, sizeof(a)), class_name(path[i]->to, b, sizeof(b)));
    stack_trace_print(path[i]->trace, path[i]->nr_trace);
  }
  if(n > max)
    printk(KERN_ERR "lockdep: (%d more steps of the chain not shown)\n", n - max);
  printk(KERN_ERR "lockdep: new: %s -> %s, at:\n", np, nn);
  if(e)
    stack_trace_print(e->trace, e->nr_trace);
  print_held(t);
  report_end();
}

#define MAX_PATH 8   // chain steps a report prints

// The thread takes a lock of class next while holding prev (same context): learn the edge,
// and report it if it closes a cycle. Each edge is learned once, so each pair is reported once.
static void
add_dependency(const struct lockdep_held *prev, int next, u64 ip)
{
  struct lock_edge *path[MAX_PATH], *e;
  int n;

  if(lock_graph_find(&graph, prev->class, next))
    return;
  arch_spin_lock(&graph_lock);
  if(lock_graph_find(&graph, prev->class, next)) {
    arch_spin_unlock(&graph_lock);
    return;
  }
  // Does next already lead to prev? Then prev -> next closes the cycle.
  n = lock_graph_path(&graph, next, prev->class, path, MAX_PATH);
  e = lock_graph_add(&graph, prev->class, next);
  if(e)
    e->nr_trace = save_trace(e->trace, ip);
  arch_spin_unlock(&graph_lock);
  // Edges never change once filled in: the report reads them without the lock.
  if(n >= 0)
    report_circular(prev->class, next, path, n, MAX_PATH, e);
  if(!e) {
    lockdep_disable();
    pr_err("lockdep: more than %d lock dependencies; checking stops (LOCKDEP_MAX_EDGES)\n",
           LOCKDEP_MAX_EDGES);
  }
}

static void
report_irq(int id, int bit, int other)
{
  struct lock_class *c = &classes[id];

  report_begin(LOCKDEP_IRQ, id, -1, NULL);
  printk(KERN_ERR "lockdep: inconsistent interrupt use: a lock that is %s is also %s; an "
         "interrupt on a CPU that holds it would spin on it for ever. %s at:\n",
         usage_names[other], usage_names[bit], usage_names[other]);
  stack_trace_print(c->usage_trace[other], c->nr_usage_trace[other]);
  printk(KERN_ERR "lockdep: %s at:\n", usage_names[bit]);
  stack_trace_print(c->usage_trace[bit], c->nr_usage_trace[bit]);
  print_held(current);
  report_end();
}

// Sets a usage bit of a class, the first time with its trace, and reports a conflict once.
static void
mark_usage(int id, int bit, u64 ip)
{
  struct lock_class *c = &classes[id];
  int other = -1;

  if(READ_ONCE(c->usage) & (1 << bit))
    return;
  arch_spin_lock(&graph_lock);
  if(!(c->usage & (1 << bit))) {
    c->nr_usage_trace[bit] = save_trace(c->usage_trace[bit], ip);
    WRITE_ONCE(c->usage, c->usage | 1 << bit);
    u8 bad = c->usage & usage_conflicts[bit];
    if(bad && !c->irq_reported) {
      c->irq_reported = true;
      other = __builtin_ctz(bad);
    }
  }
  arch_spin_unlock(&graph_lock);
  if(other >= 0)
    report_irq(id, bit, other);
}

void
lockdep_acquire(struct lockdep_map *map, int subclass, int flags, u64 ip)
{
  u64 irqflags;
  struct thread *t;
  int id;

  if(!lockdep_enter(&irqflags))
    return;
  t = current;
  id = class_of(map, subclass, ip);
  if(id < 0)
    goto out;
  struct lockdep_held h = { .map = map, .ip = ip, .class = id, .flags = flags,
                            .irq = in_interrupt() };
  // Sleeping locks are never taken in interrupts (their own checks say so): their interrupt
  // state is not a question. A trylock in a handler cannot wait for the holder it interrupted.
  if(!(flags & LOCKDEP_SLEEP)) {
    bool read = flags & LOCKDEP_READ;
    if(h.irq && !(flags & LOCKDEP_TRY))
      mark_usage(id, read ? USED_IN_IRQ_READ : USED_IN_IRQ, ip);
    else if(!h.irq && !irqs_disabled_flags(irqflags))
      mark_usage(id, read ? ENABLED_IRQ_READ : ENABLED_IRQ, ip);
  }
  // The order: an edge from the lock taken last, and from trylocks above it, which are held
  // as well; the earlier locks reach this one through it (Linux's check_prevs_add). A trylock
  // gets no edge: it never waits, so it cannot close a cycle.
  if(!(flags & LOCKDEP_TRY)) {
    for(int i = t->dep.depth - 1; i >= 0 && t->dep.held[i].irq == h.irq; i--) {
      add_dependency(&t->dep.held[i], id, ip);
      if(!(t->dep.held[i].flags & LOCKDEP_TRY))
        break;
    }
  }
  if(t->dep.depth == MAX_LOCK_DEPTH) {
    lockdep_disable();
    pr_err("lockdep: %s holds more than %d locks; checking stops (MAX_LOCK_DEPTH)\n", t->name,
           MAX_LOCK_DEPTH);
    print_held(t);
    goto out;
  }
  t->dep.held[t->dep.depth++] = h;
out:
  lockdep_exit(irqflags);
}

// The innermost entry of t for map, or -1: locks are mostly released innermost first, but not
// always (hand-over-hand walks).
static int
held_index(struct thread *t, struct lockdep_map *map)
{
  for(int i = t->dep.depth - 1; i >= 0; i--)
    if(t->dep.held[i].map == map)
      return i;
  return -1;
}

static void
held_remove(struct thread *t, int i)
{
  for(; i < t->dep.depth - 1; i++)
    t->dep.held[i] = t->dep.held[i + 1];
  t->dep.depth--;
}

void
lockdep_release(struct lockdep_map *map)
{
  u64 irqflags;
  struct thread *t;
  int i;

  if(!lockdep_enter(&irqflags))
    return;
  t = current;
  // Not found: taken before this CPU had a current thread (early boot), or while lockdep
  // stayed out; DEBUG_SPINLOCK catches a release of a lock nobody holds.
  if((i = held_index(t, map)) >= 0) {
    struct lockdep_held h = t->dep.held[i];
    // Interrupts turned on while it was held, as in spin_lock_irqsave, local_irq_enable,
    // spin_unlock: held with interrupts on all the same.
    if(!(h.flags & LOCKDEP_SLEEP) && !h.irq && !irqs_disabled_flags(irqflags))
      mark_usage(h.class, h.flags & LOCKDEP_READ ? ENABLED_IRQ_READ : ENABLED_IRQ, h.ip);
    held_remove(t, i);
  }
  lockdep_exit(irqflags);
}

void
lockdep_hand_over(struct lockdep_map *map, struct thread *to)
{
  u64 irqflags;
  struct thread *t;
  int i;

  if(!lockdep_enter(&irqflags))
    return;
  t = current;
  if((i = held_index(t, map)) >= 0 && to->dep.depth < MAX_LOCK_DEPTH) {
    to->dep.held[to->dep.depth++] = t->dep.held[i];
    held_remove(t, i);
  }
  lockdep_exit(irqflags);
}

// Each place that may sleep is reported once per kind: a loop that calls cond_resched inside
// rcu_read_lock would otherwise print a report per turn.
#define MAX_SLEEP_SITES 64
static u64 sleep_sites[MAX_SLEEP_SITES];   // ip + kind; under report_lock
static int nr_sleep_sites;

static bool
first_sleep_report(u64 ip, enum lockdep_kind kind)
{
  u64 site = ip + kind;   // return addresses are never 1 or 2 apart
  bool first = true;

  arch_spin_lock(&report_lock);
  for(int i = 0; i < nr_sleep_sites; i++)
    if(sleep_sites[i] == site)
      first = false;
  if(first && nr_sleep_sites < MAX_SLEEP_SITES)
    sleep_sites[nr_sleep_sites++] = site;
  arch_spin_unlock(&report_lock);
  return first;
}

void
lockdep_might_sleep(u64 ip)
{
  enum lockdep_kind kind = LOCKDEP_SLEEP_ATOMIC;
  const char *pseudo = NULL, *why;
  struct thread *t;
  u64 irqflags;
  int id = -1;

  if(!lockdep_enter(&irqflags))
    return;
  t = current;
  for(int i = t->dep.depth - 1; i >= 0 && id < 0; i--)
    if(!(t->dep.held[i].flags & LOCKDEP_SLEEP))
      id = t->dep.held[i].class;
  // What the thread is in, innermost first; a spinlock it holds outranks the preempt_count
  // that the lock itself raised.
  if(in_interrupt()) {
    pseudo = "interrupt";
    why = "in an interrupt handler";
  } else if(id >= 0) {
    why = "while holding a spinning lock";
  } else if(this_cpu(preempt_count) != 0) {
    pseudo = "preempt_disable";
    why = "with preemption off (preempt_count not zero)";
  } else if(this_cpu(rcu_nesting) != 0) {
    kind = LOCKDEP_SLEEP_RCU;
    pseudo = "rcu_read_lock";
    why = "inside an RCU read-side section (rcu_read_lock)";
  } else {
    goto out;
  }
  if(!first_sleep_report(ip, kind))
    goto out;
  u64 off = 0;
  const char *fn = ksym_lookup(ip, &off);
  report_begin(kind, id, -1, pseudo);
  printk(KERN_ERR "lockdep: %s (tid %d) on cpu %d, at %s+%#lx, calls what may sleep %s:\n",
         t->name, t->tid, smp_processor_id(), fn ? fn : "?", off, why);
  u64 trace[LOCKDEP_TRACE];
  stack_trace_print(trace, save_trace(trace, ip));
  print_held(t);
  report_end();
out:
  lockdep_exit(irqflags);
}

int
lockdep_count(enum lockdep_kind kind)
{
  return __atomic_load_n(&counts[kind], __ATOMIC_RELAXED);
}

int
lockdep_end(void)
{
  int reports = 0;

  for(int k = 0; k < LOCKDEP_NR_KINDS; k++)
    reports += lockdep_count(k);
  int errors = __atomic_load_n(&nr_errors, __ATOMIC_RELAXED);
  printk("lockdep: %d classes, %u dependencies, %d reports, %d errors%s\n",
         READ_ONCE(nr_classes), READ_ONCE(graph.nr_edges), reports, errors,
         reports + errors ? ": the run fails (the LOCKDEP lines above)" : "");
  return reports + errors;
}

#endif
