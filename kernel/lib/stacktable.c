// Profile tables (include/stacktable.h): a hash of sampled stacks, merged per benchmark point, ranked
// by count and by function, and folded into the "root;...;leaf" lines of flame graphs.
#include "stacktable.h"
#include "string.h"
#include "vsprintf.h"

const char *const prof_kind_name[PROF_NKINDS] = {
  [PROF_KERNEL] = "kernel",
  [PROF_IDLE] = "idle",
  [PROF_USER] = "user",
};

void
prof_table_init(struct prof_table *t, struct prof_stack *slots, u32 size)
{
  t->size = size;
  t->slot = slots;
  prof_table_reset(t);
}

void
prof_table_reset(struct prof_table *t)
{
  memset(t->slot, 0, (size_t)t->size * sizeof(t->slot[0]));
  t->used = 0;
  t->samples = t->dropped = 0;
  t->cost_ns = t->cpu_ns = t->idle_ns = 0;
}

// FNV-1a over the kind and the frames.
static u32
stack_hash(const struct prof_stack *s)
{
  u64 h = 14695981039346656037ULL;

  h = (h ^ s->kind) * 1099511628211ULL;
  for(u32 i = 0; i < s->depth; i++)
    h = (h ^ s->pc[i]) * 1099511628211ULL;
  return (u32)(h ^ (h >> 32));
}

static bool
same_stack(const struct prof_stack *a, const struct prof_stack *b)
{
  if(a->kind != b->kind || a->depth != b->depth || a->cut != b->cut)
    return false;
  for(u32 i = 0; i < a->depth; i++)
    if(a->pc[i] != b->pc[i])
      return false;
  return true;
}

// Linear probing; a table is never emptied slot by slot, so the first free slot ends a search.
static bool
add(struct prof_table *t, const struct prof_stack *s, u32 n, u32 hits)
{
  u32 mask = t->size - 1, i = stack_hash(s) & mask;

  t->samples += n;
  for(u32 probes = 0; probes < t->size; probes++, i = (i + 1) & mask) {
    struct prof_stack *e = &t->slot[i];
    if(e->count == 0) {
      if(t->used + 1 > t->size - t->size / 8)   // keep probes short: at most 7/8 full
        break;
      *e = *s;
      e->count = n;
      e->hits = hits;
      t->used++;
      return true;
    }
    if(same_stack(e, s)) {
      e->count += n;
      e->hits += hits;
      return true;
    }
  }
  t->dropped += n;
  return false;
}

bool
prof_table_add(struct prof_table *t, const struct prof_stack *s, u32 n)
{
  return add(t, s, n, 1);
}

bool
prof_table_add_hits(struct prof_table *t, const struct prof_stack *s, u32 n, u32 hits)
{
  return add(t, s, n, hits);
}

void
prof_table_merge(struct prof_table *dst, const struct prof_table *src)
{
  for(u32 i = 0; i < src->size; i++)
    if(src->slot[i].count)
      add(dst, &src->slot[i], src->slot[i].count, src->slot[i].hits);
  // Samples src had to drop count as dropped here too; its kept ones were added above.
  dst->samples += src->dropped;
  dst->dropped += src->dropped;
}

// Insertion sort: a point has at most a few hundred stacks, sorted once at its end.
u32
prof_sorted(const struct prof_table *t, u32 *idx)
{
  u32 n = 0;

  for(u32 i = 0; i < t->size; i++) {
    if(!t->slot[i].count)
      continue;
    u32 j = n++;
    for(; j > 0 && t->slot[idx[j - 1]].count < t->slot[i].count; j--)
      idx[j] = idx[j - 1];
    idx[j] = i;
  }
  return n;
}

// The frames a sample stands for: a kernel stack's, or its kind as a pseudo-function.
static u32
frames(const struct prof_stack *s, u64 *pc)
{
  if(s->kind != PROF_KERNEL || s->depth == 0) {
    pc[0] = s->kind;
    return 1;
  }
  memcpy(pc, s->pc, s->depth * sizeof(pc[0]));
  return s->depth;
}

static struct prof_func *
find_func(struct prof_func *f, u32 *n, u32 max, u64 addr)
{
  for(u32 i = 0; i < *n; i++)
    if(f[i].addr == addr)
      return &f[i];
  if(*n == max)
    return NULL;
  f[*n] = (struct prof_func){ .addr = addr };
  return &f[(*n)++];
}

u32
prof_funcs(const struct prof_table *t, struct prof_func *f, u32 max, bool by_total)
{
  u64 pc[PROF_DEPTH];
  u32 n = 0;

  for(u32 i = 0; i < t->size; i++) {
    const struct prof_stack *s = &t->slot[i];
    if(!s->count)
      continue;
    u32 depth = frames(s, pc);
    for(u32 k = 0; k < depth; k++) {
      bool again = false;   // a recursive function counts once per sample
      for(u32 j = 0; j < k; j++)
        again |= pc[j] == pc[k];
      struct prof_func *e = again ? NULL : find_func(f, &n, max, pc[k]);
      if(!e)
        continue;
      e->total += s->count;
      if(k == 0)
        e->self += s->count;
    }
  }
  for(u32 i = 1; i < n; i++) {
    struct prof_func x = f[i];
    u32 j = i;
    for(; j > 0 && (by_total ? f[j - 1].total < x.total : f[j - 1].self < x.self); j--)
      f[j] = f[j - 1];
    f[j] = x;
  }
  return n;
}

int
prof_fold(char *buf, size_t size, const struct prof_stack *s, prof_name_fn name, void *arg)
{
  u64 pc[PROF_DEPTH];
  u32 depth = frames(s, pc), first = 0;
  size_t need;
  int len;

  if(size == 0)
    return 0;
  // Drop root frames until the rest fits behind "...;" (or a lone "..." when none does).
  for(;; first++) {
    bool cut = s->cut || first > 0;
    need = cut ? 3 : 0;
    for(u32 i = first; i < depth; i++)
      need += strlen(name(pc[depth - 1 - i], arg)) + (need > 0);
    if(need < size || first == depth)
      break;
  }
  len = (s->cut || first > 0) ? scnprintf(buf, size, "...") : 0;
  for(u32 i = first; i < depth; i++)
    len += scnprintf(buf + len, size - len, "%s%s", len ? ";" : "", name(pc[depth - 1 - i], arg));
  return len;
}

// frame is name, or name and a suffix from a '.' on (GCC's clones: shootdown.isra.0).
static bool
same_func(const char *frame, const char *name)
{
  size_t n = strlen(name);

  return strncmp(frame, name, n) == 0 && (frame[n] == 0 || frame[n] == '.');
}

// The first category that names a frame of kernel stack s, or -1.
static int
category(const struct prof_stack *s, prof_name_fn name, void *arg,
         const char *const *const *cats, u32 ncats)
{
  for(u32 k = 0; k < ncats; k++)
    for(const char *const *f = cats[k]; *f; f++)
      for(u32 i = 0; i < s->depth; i++)
        if(same_func(name(s->pc[i], arg), *f))
          return k;
  return -1;
}

u64
prof_split(const struct prof_table *t, prof_name_fn name, void *arg,
           const char *const *const *cats, u32 ncats, u64 *count, u64 *hits)
{
  u64 all = 0;

  memset(count, 0, (ncats + 2) * sizeof(count[0]));
  if(hits)
    memset(hits, 0, (ncats + 2) * sizeof(hits[0]));
  for(u32 i = 0; i < t->size; i++) {
    const struct prof_stack *s = &t->slot[i];
    int k;
    if(!s->count)
      continue;
    if(s->kind == PROF_IDLE)
      k = ncats + PROF_SPLIT_IDLE;
    else if(s->kind != PROF_KERNEL || (k = category(s, name, arg, cats, ncats)) < 0)
      k = ncats + PROF_SPLIT_OTHER;
    count[k] += s->count;
    if(hits)
      hits[k] += s->hits;
    all += s->count;
  }
  return all;
}
