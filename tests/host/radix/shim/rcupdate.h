// Host stand-in for the kernel's RCU interface: liburcu's default (memb) flavor.
// liburcu already uses the kernel's names and signatures (struct rcu_head, call_rcu, ...).
#pragma once
#include <urcu.h>

// Every thread that reads under RCU or calls call_rcu() must first call
// rcu_register_thread() and, before it exits, rcu_unregister_thread().
