// What the files of /proc/<pid>/ share (fs/proc_pid.c, fs/proc_maps.c): finding the process a
// node stands for.
#pragma once
#include "process.h"

// The process pid names, or NULL when none is listed; the caller holds rcu_read_lock, which
// keeps the process (freed a grace period after it is unlisted) and its mm and fd table.
struct process *pid_process_rcu(int pid);
