// Per-point profiles (profile=): each column's timed runs collected from the sampler, and at the
// point's end its top functions and PROFILE lines (doc/console.md).
#include "bench.h"
#include "cmdline.h"
#include "printk.h"
#include "profile.h"
#include "vsprintf.h"

#define POINT_STACKS 2048   // distinct stacks a point keeps (a run's every CPU merged in)
// PROFILE lines a point prints at most: its most frequent stacks, until they cover 99% of the
// samples or this many lines are out.
#define PROFILE_LINES 30
#define PROFILE_COVER_PM 990

static struct prof_table *points[BENCH_MAX_SLOTS];
static u32 order[POINT_STACKS];

// profile= asked for it and the profiler is set up (a self-test may set it up in any boot; its
// samples are its own business).
static bool
on(void)
{
  return kcmdline.profile_hz && profile_hz;
}

void
bench_profile_start(void)
{
  if(on())
    profile_start();
}

void
bench_profile_stop(void)
{
  if(on())
    profile_stop();
}

// A point's tables are allocated before its first setup and freed after its last teardown:
// inside that window, a suite that counts the free pages around its runs (madvise) would see
// them as its own leak.
void
bench_profile_point_begin(int nslots)
{
  for(int i = 0; on() && i < nslots; i++)
    if(!(points[i] = profile_table_alloc(POINT_STACKS)))
      pr_err("profile: no memory for a point's samples: its profile is left out\n");
}

void
bench_profile_point_end(void)
{
  for(int i = 0; i < BENCH_MAX_SLOTS; i++) {
    profile_table_free(points[i]);
    points[i] = NULL;
  }
}

void
bench_profile_run_end(int slot)
{
  if(on())
    profile_collect(slot >= 0 ? points[slot] : NULL);
}

void
bench_profile_point(int slot, const char *suite, const char *point, int threads)
{
  struct prof_table *t = on() ? points[slot] : NULL;
  char line[BENCH_LINE_MAX + 1], what[160], share[16];
  u64 covered = 0, pm;
  u32 n, i;
  int len;

  if(!t)
    return;
  scnprintf(what, sizeof(what), "%s %s threads=%d", suite, point, threads);
  profile_print_top(t, what, 5);
  n = prof_sorted(t, order);
  for(i = 0; i < n && i < PROFILE_LINES; i++) {
    if(t->samples && covered * 1000 >= PROFILE_COVER_PM * t->samples)
      break;
    const struct prof_stack *s = &t->slot[order[i]];
    len = scnprintf(line, sizeof(line), "PROFILE suite=%s %s threads=%d samples=%lu stack=", suite,
                    point, threads, t->samples);
    // " count=" and ten digits must still fit.
    len += prof_fold(line + len, sizeof(line) - len - 17, s, profile_sym, NULL);
    scnprintf(line + len, sizeof(line) - len, " count=%u", s->count);
    printk("%s\n", line);
    covered += s->count;
  }
  pm = t->samples ? covered * 1000 / t->samples : 0;
  scnprintf(share, sizeof(share), "%lu.%lu%%", pm / 10, pm % 10);
  pr_info("profile: %s: %u PROFILE lines for the %u stacks cover %s of the samples (at most %d "
          "lines, until 99%%)\n", what, i, n, share, PROFILE_LINES);
}

bool
bench_profile_split(int slot, const char *const *const *cats, u32 ncats, u64 *count,
                    u64 *hits, u64 *idle_ns, u64 *cpu_ns)
{
  const struct prof_table *t = on() ? points[slot] : NULL;

  if(!t || !t->samples)
    return false;
  prof_split(t, profile_sym, NULL, cats, ncats, count, hits);
  *idle_ns = t->idle_ns;
  *cpu_ns = t->cpu_ns;
  return true;
}
