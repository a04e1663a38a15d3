// Hang detection: a CPU with interrupts off and no tick for WATCHDOG_SECS gets an NMI and panics
// with its own backtrace; a soft lockup (no schedule or cond_resched for SOFTLOCKUP_SECS) and a
// hung task (asleep without a timeout for HUNG_TASK_SECS) panic too. Thresholds as Linux's
// defaults, but for the soft lockup: 8 vCPUs on 2 host cores run a CPU-bound loop slower.
#pragma once
#include "types.h"

#define WATCHDOG_SECS 5
#define WATCHDOG_PER_CPU_MS 330   // the hard-lockup limit is at least this per online CPU
#define SOFTLOCKUP_SECS 30
#define HUNG_TASK_SECS 120

extern int softlockup_secs;   // the thresholds now (planted tests lower them)
extern int hung_task_secs;

struct trapframe;
void watchdog_tick_begin(void);             // the timer interrupt's first act
void watchdog_tick(struct trapframe *tf);   // from the timer interrupt
void watchdog_touch(void);
u64 watchdog_thresh_ns(void);               // the hard-lockup limit now: kernel/watchdog.c
void touch_softlockup_watchdog(void);       // the thread here just scheduled or cond_resched
bool watchdog_nmi(struct trapframe *tf);
void hung_task_init(void);                  // khungtaskd: checks the sleepers once a second
