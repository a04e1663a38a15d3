// Reader-writer spinlock: readers share the lock, a writer has it alone, and a waiting writer
// holds back new readers so a stream of readers cannot starve it (kernel/locking/rwlock.c).
#pragma once
#include "compiler.h"
#include "lockdep_types.h"
#include "types.h"

// One 32-bit word: bit 0 a writer holds the lock, bit 1 a writer waits for it,
// bits 2..31 the number of readers holding it.
typedef struct {
  u32 cnts;
  struct lockdep_map dep_map;   // its class (include/lockdep_types.h)
} rwlock_t;

#define RWLOCK_INIT(x) { .cnts = 0, .dep_map = STATIC_LOCKDEP_MAP(#x) }
#define DEFINE_RWLOCK(x) rwlock_t x = RWLOCK_INIT(x)

void read_lock(rwlock_t *l);
void read_unlock(rwlock_t *l);
bool read_trylock(rwlock_t *l);
void write_lock(rwlock_t *l);
void write_unlock(rwlock_t *l);
bool write_trylock(rwlock_t *l);
