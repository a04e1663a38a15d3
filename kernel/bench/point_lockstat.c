// Lock statistics of the benchmark points (lockstat=yes): on only inside the timed intervals of
// a point's timed runs, summed per column, and printed after its BENCH line as LOCKSTAT lines.
#include "bench.h"
#include "cmdline.h"
#include "lock_stat.h"
#include "point_lockstat.h"
#include "printk.h"
#include "string.h"
#include "vsprintf.h"

#ifdef CONFIG_LOCK_STAT

// The classes a point reports: the most contended ones, enough to name the lock a variant
// fights over and its runners-up without flooding the console (a full 8-vCPU boot has 173
// points).
#define LOCKSTAT_TOP 5

// Columns' runs interleave (kernel/bench/bench.c), so each column sums its own; cleared at
// its first timed run of every point.
static struct lock_class_stats sums[BENCH_MAX_SLOTS][MAX_LOCK_CLASSES];
// The column whose timed run is next, -1 for a warm-up or with lockstat=no. Written by the
// runner before it releases the workers, read by the one that starts the clock: the
// release's generation bump orders it (kernel/bench/bench.c, release and worker_main).
static int armed = -1;

void
bench_lockstat_begin(int slot, u32 round)
{
  armed = -1;
  if(!kcmdline.lockstat || round == 0)
    return;
  if(round == 1)
    memset(sums[slot], 0, sizeof(sums[slot]));
  armed = slot;
}

void
bench_lockstat_start(void)
{
  if(armed >= 0)
    lock_stat_start();
}

void
bench_lockstat_stop(void)
{
  if(armed >= 0)
    lock_stat_stop();
}

// Every worker is parked; a hook that saw the statistics on just before bench_lockstat_stop
// may still be finishing on another CPU, an error of one acquisition at most per CPU.
void
bench_lockstat_end(void)
{
  if(armed >= 0)
    lock_stat_fold(sums[armed]);
  armed = -1;
}

// Whether a ranks above b: more contended acquisitions, then more wait, then more taken.
static bool
above(const struct lock_class_stats *a, const struct lock_class_stats *b)
{
  if(a->contended != b->contended)
    return a->contended > b->contended;
  if(a->wait_ns != b->wait_ns)
    return a->wait_ns > b->wait_ns;
  return a->acquisitions > b->acquisitions;
}

// A class's name as a LOCKSTAT value: no space and no '=' (doc/console.md), whatever the
// expression at its init site looked like.
static void
value_name(char *buf, size_t size, const char *name)
{
  size_t i;

  for(i = 0; name[i] && i + 1 < size; i++)
    buf[i] = name[i] == ' ' || name[i] == '=' ? '_' : name[i];
  buf[i] = '\0';
}

void
bench_lockstat_print(int slot, const char *suite, const char *point, int threads)
{
  const struct lock_class_stats *s = sums[slot];
  int n = smp_load_acquire(&nr_lock_classes), top[LOCKSTAT_TOP], ntop = 0, taken = 0, i, j;
  char name[64], wait[32], hold[32], max[32];

  if(!kcmdline.lockstat)
    return;
  // Insertion into a short sorted list: n is at most MAX_LOCK_CLASSES.
  for(i = 0; i < n; i++) {
    if(s[i].acquisitions == 0)
      continue;
    taken++;
    if(ntop == LOCKSTAT_TOP && !above(&s[i], &s[top[ntop - 1]]))
      continue;
    // A full list drops its last entry: the shift overwrites it.
    j = ntop < LOCKSTAT_TOP ? ntop++ : ntop - 1;
    for(; j > 0 && above(&s[i], &s[top[j - 1]]); j--)
      top[j] = top[j - 1];
    top[j] = i;
  }
  for(i = 0; i < ntop; i++) {
    const struct lock_class_stats *c = &s[top[i]];
    value_name(name, sizeof(name), lock_classes[top[i]]->name);
    printk("LOCKSTAT suite=%s %s threads=%d lock=%s acquisitions=%lu contended=%lu wait_ns=%lu"
           " max_wait_ns=%lu hold_ns=%lu\n", suite, point, threads, name, c->acquisitions,
           c->contended, c->wait_ns, c->max_wait_ns, c->hold_ns);
  }
  pr_info("lockstat: %s %s threads=%d: %d lock classes taken in the timed runs; the most"
          " contended:\n", suite, point, threads, taken);
  pr_info("  %-28s %12s %10s %12s %12s %12s\n", "lock", "acquisitions", "contended", "wait ms",
          "max wait ms", "hold ms");
  for(i = 0; i < ntop; i++) {
    const struct lock_class_stats *c = &s[top[i]];
    bench_fmt_milli(wait, sizeof(wait), c->wait_ns / 1000);
    bench_fmt_milli(max, sizeof(max), c->max_wait_ns / 1000);
    bench_fmt_milli(hold, sizeof(hold), c->hold_ns / 1000);
    pr_info("  %-28s %12lu %10lu %12s %12s %12s\n", lock_classes[top[i]]->name, c->acquisitions,
            c->contended, wait, max, hold);
  }
}

#endif
