// The spinlock family behind one switch, with the lock rules every kind must keep: shared by
// the host test (tests/host/test_spinlock.c) and the self-test (tests/kernel/spinlock_test.c).
// The includer defines EXPECT(cond), which records a failed check and goes on.
#pragma once
#include "rwlock.h"
#include "spinlock.h"

enum kind { TICKET, QUEUED, TAS, SPIN, RWLOCK, NKINDS };
static const char *const kind_name[NKINDS] = { "ticket", "queued", "tas", "spinlock", "rwlock" };

static struct ticket_lock ticket = TICKET_LOCK_INIT;
static struct qspinlock queued = QSPINLOCK_INIT;
static struct tas_lock tas = TAS_LOCK_INIT;
static DEFINE_SPINLOCK(spin);
static DEFINE_RWLOCK(rw);

// The rwlock stands in as a plain lock through its write side.
static void
lock(enum kind k)
{
  switch(k) {
  case TICKET: ticket_lock(&ticket); break;
  case QUEUED: queued_spin_lock(&queued); break;
  case TAS: tas_lock(&tas); break;
  case SPIN: spin_lock(&spin); break;
  default: write_lock(&rw); break;
  }
}

static void
unlock(enum kind k)
{
  switch(k) {
  case TICKET: ticket_unlock(&ticket); break;
  case QUEUED: queued_spin_unlock(&queued); break;
  case TAS: tas_unlock(&tas); break;
  case SPIN: spin_unlock(&spin); break;
  default: write_unlock(&rw); break;
  }
}

static bool
trylock(enum kind k)
{
  switch(k) {
  case TICKET: return ticket_trylock(&ticket);
  case QUEUED: return queued_spin_trylock(&queued);
  case TAS: return tas_trylock(&tas);
  case SPIN: return spin_trylock(&spin);
  default: return write_trylock(&rw);
  }
}

// Every kind but the rwlock, which has no is_locked.
static bool
is_locked(enum kind k)
{
  switch(k) {
  case TICKET: return ticket_is_locked(&ticket);
  case QUEUED: return queued_spin_is_locked(&queued);
  case TAS: return tas_is_locked(&tas);
  default: return spin_is_locked(&spin);
  }
}

static void
check_trylock(enum kind k)
{
  EXPECT(trylock(k));     // free: taken
  EXPECT(!trylock(k));    // held (by us): refused, not a deadlock
  unlock(k);
  lock(k);
  EXPECT(!trylock(k));
  unlock(k);
  EXPECT(trylock(k));     // released: free again
  unlock(k);
}

static void
check_is_locked(void)
{
  for(enum kind k = 0; k < RWLOCK; k++) {
    EXPECT(!is_locked(k));
    lock(k);
    EXPECT(is_locked(k));
    unlock(k);
    EXPECT(!is_locked(k));
  }
}

static void
check_rwlock_sharing(void)
{
  EXPECT(read_trylock(&rw));
  EXPECT(read_trylock(&rw));    // readers share
  EXPECT(!write_trylock(&rw));  // a writer waits for them
  read_unlock(&rw);
  read_unlock(&rw);
  write_lock(&rw);
  EXPECT(!read_trylock(&rw));   // a writer keeps readers out
  write_unlock(&rw);
  read_lock(&rw);
  read_unlock(&rw);
}
