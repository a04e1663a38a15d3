// Reference model for the radix tree test: entries in a sorted array, and the height
// and node count a minimal tree holding them must have.
#pragma once
#include <stdlib.h>
#include <string.h>

// The reference: entries sorted by index.
struct ent {
  unsigned long index;
  void *item;
};

struct model {
  struct ent *e;
  size_t n, cap;
};

static size_t
lower_bound(struct model *m, unsigned long index)
{
  size_t lo, hi, mid;

  lo = 0;
  hi = m->n;
  while(lo < hi) {
    mid = lo + (hi - lo) / 2;
    if(m->e[mid].index < index)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

static struct ent *
model_get(struct model *m, unsigned long index)
{
  size_t i;

  i = lower_bound(m, index);
  return i < m->n && m->e[i].index == index ? &m->e[i] : NULL;
}

static void
model_add(struct model *m, unsigned long index, void *item)
{
  size_t i;

  if(m->n == m->cap) {
    m->cap = m->cap ? 2 * m->cap : 256;
    m->e = realloc(m->e, m->cap * sizeof(*m->e));
    if(!m->e)
      abort();
  }
  i = lower_bound(m, index);
  memmove(&m->e[i + 1], &m->e[i], (m->n - i) * sizeof(*m->e));
  m->e[i] = (struct ent){ index, item };
  m->n++;
}

static void
model_del(struct model *m, unsigned long index)
{
  size_t i;

  i = lower_bound(m, index);
  memmove(&m->e[i], &m->e[i + 1], (m->n - i - 1) * sizeof(*m->e));
  m->n--;
}

// Smallest height holding index, computed independently of the tree's own helper.
static unsigned int
min_height(unsigned int shift, unsigned long index)
{
  unsigned int h;

  h = 1;
  while(h * shift < 64 && index >> (h * shift))
    h++;
  return h;
}

static unsigned int
model_height(struct model *m, unsigned int shift)
{
  return m->n ? min_height(shift, m->e[m->n - 1].index) : 0;
}

// Nodes a minimal tree holding the model has: at each height, one per distinct
// index >> (shift * height), the range a node of that height covers.
static unsigned long
model_nodes(struct model *m, unsigned int shift)
{
  unsigned long total, key, prev;
  unsigned int h, bits;
  size_t i;

  total = 0;
  for(h = 1; h <= model_height(m, shift); h++) {
    bits = h * shift;
    total++;
    for(i = 1; i < m->n; i++) {
      prev = bits < 64 ? m->e[i - 1].index >> bits : 0;
      key = bits < 64 ? m->e[i].index >> bits : 0;
      if(key != prev)
        total++;
    }
  }
  return total;
}
