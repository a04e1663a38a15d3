// poll(2)'s readiness: the event bits, and the table a file's poll operation registers its
// wait queues on (fs/poll_table.c; Linux's poll_table and poll_wait, include/linux/poll.h).
#pragma once
#include "types.h"
#include "wait.h"

#include "uapi/poll.h"

// What a file without a poll operation reports: it never blocks (Linux's DEFAULT_POLLMASK),
// so regular files, directories and /dev/null are always ready.
#define DEFAULT_POLLMASK (POLLIN | POLLOUT | POLLRDNORM | POLLWRNORM)

struct file;
struct poll_table_page;

// One poll or select call's waits. A file's poll operation calls poll_wait for every queue
// whose wake-up may change its answer, then reports its events; the caller sleeps until one
// of those queues is woken. wait.c's wake-up takes an entry off its queue before waking the
// thread, so an entry found off its queue is a wake-up that came (poll_triggered): Linux's
// pollwake sets pwq->triggered instead.
struct poll_table {
  bool queue;                    // false: only asking (timeout 0, or an event already found)
  int error;                     // -ENOMEM: a wait could not be registered
  struct poll_table_page *pages; // the entries, each on one wait queue
  // Set: poll_wait calls this instead of queuing an entry of its own (epoll's watchers,
  // fs/eventpoll.c; Linux's poll_table._qproc).
  void (*qproc)(struct file *f, struct wait_queue_head *wq, struct poll_table *pt);
};

void poll_initwait(struct poll_table *pt);
// Called by a file's poll operation; does nothing when pt is NULL or only asking.
void poll_wait(struct file *f, struct wait_queue_head *wq, struct poll_table *pt);
// Whether a registered queue has been woken since its entry went on it.
bool poll_triggered(struct poll_table *pt);
void poll_freewait(struct poll_table *pt);   // every entry off its queue, and freed
// A file's readiness through its poll operation (the console's terminal for a NULL file),
// DEFAULT_POLLMASK for one without; whether it has one (epoll watches only those).
struct ufile;
unsigned vfs_poll(struct ufile *uf, struct poll_table *pt);
bool file_can_poll(struct ufile *uf);
