// The console terminal: /dev/console (major 5, minor 1, Linux's TTYAUX_MAJOR: not a
// pseudo-terminal's, so glibc treats it as a terminal of its own) and fds 0-2 of every process.
// Bytes from the serial receive interrupt reach the kthread "tty" through a small ring (as
// Linux's flip buffers reach flush_to_ldisc in a worker), which runs the line discipline
// (n_tty.c), echoes and signals in process context; readers sleep on read_wait. Output is
// whole lines until the terminal is in use, then goes to it as written (console.c).
#include "errno.h"
#include "fs.h"
#include "poll.h"
#include "printk.h"
#include "process.h"
#include "sched.h"
#include "sighand.h"
#include <asm/serial.h>
#include "signal.h"
#include "spinlock.h"
#include "string.h"
#include "syscalls.h"
#include "time.h"
#include "tty.h"
#include <asm/uaccess.h>
#include "wait.h"

#define FLIP_SIZE 512

// The terminal's state, all under tty_lock.
static DEFINE_SPINLOCK(tty_lock);
static struct n_tty ldisc;
static struct winsize tty_winsize = { 24, 80, 0, 0 };
static int fg_pgrp;                  // the foreground process group (TIOCSPGRP), 0: none
static bool session;                 // init= runs: input is taken and reads wait for it
static bool interactive;             // output as written, not as printk lines
static DECLARE_WAIT_QUEUE_HEAD(read_wait);


// Received bytes, from the interrupt handler to the kthread; flip_lock with interrupts off.
static DEFINE_SPINLOCK(flip_lock);
static u8 flip[FLIP_SIZE];
static u32 flip_head, flip_tail;
static u64 flip_dropped;             // bytes that found the ring full
static DECLARE_WAIT_QUEUE_HEAD(flip_wait);

void
tty_receive_irq(u8 c)
{
  u64 flags;
  spin_lock_irqsave(&flip_lock, flags);
  if(flip_head - flip_tail < FLIP_SIZE)
    flip[flip_head++ % FLIP_SIZE] = c;
  else
    flip_dropped++;
  spin_unlock_irqrestore(&flip_lock, flags);
  wake_up(&flip_wait);
}

void
tty_write(const u8 *buf, u32 n)
{
  struct termios t;
  u8 out[256];
  spin_lock(&tty_lock);
  t = ldisc.termios;
  spin_unlock(&tty_lock);
  while(n) {
    u32 k = MIN(n, sizeof(out) / 2);
    console_write_raw((const char *)out, n_tty_output(&t, buf, k, out));
    buf += k;
    n -= k;
  }
}

// ^C, ^\ and ^Z: to every process of the foreground group, as Linux's n_tty does (isig);
// ESRCH (the group is gone) is nobody's business.
static void
tty_signal(int sig)
{
  if(fg_pgrp > 0)
    kill_pgrp(fg_pgrp, sig);
}

static void
receive_one(u8 c)
{
  struct n_tty_out out;
  u8 echo[2 * N_TTY_ECHO_MAX];
  spin_lock(&tty_lock);
  if(!session) {
    spin_unlock(&tty_lock);
    return;
  }
  interactive = true;
  n_tty_receive(&ldisc, c, &out);
  u32 k = n_tty_output(&ldisc.termios, out.echo, out.necho, echo);
  if(out.sig)
    tty_signal(out.sig);
  spin_unlock(&tty_lock);
  if(k)
    console_write_raw((const char *)echo, k);
  if(out.wake)
    wake_up_all(&read_wait);
}

static int
tty_thread(void *arg)
{
  for(;;) {
    u8 got[FLIP_SIZE];
    u32 n = 0;
    wait_event_idle(flip_wait, READ_ONCE(flip_head) != READ_ONCE(flip_tail));
    u64 flags;
    spin_lock_irqsave(&flip_lock, flags);
    while(flip_tail != flip_head)
      got[n++] = flip[flip_tail++ % FLIP_SIZE];
    spin_unlock_irqrestore(&flip_lock, flags);
    for(u32 i = 0; i < n; i++)
      receive_one(got[i]);
  }
  return 0;
}

void
tty_reset(void)
{
  spin_lock(&tty_lock);
  n_tty_init(&ldisc);
  tty_winsize = (struct winsize){ 24, 80, 0, 0 };
  fg_pgrp = 0;
  spin_unlock(&tty_lock);
}

void
tty_open_session(void)
{
  tty_reset();   // each session starts from Linux's defaults, whatever tests set
  spin_lock(&tty_lock);
  session = true;
  interactive = false;
  spin_unlock(&tty_lock);
  serial_rx_start(tty_receive_irq);
}

void
tty_close_session(void)
{
  serial_rx_stop();
  spin_lock(&tty_lock);
  session = false;
  interactive = false;
  fg_pgrp = 0;
  spin_unlock(&tty_lock);
  wake_up_all(&read_wait);
}

void
tty_set_foreground(struct process *p)
{
  spin_lock(&tty_lock);
  fg_pgrp = READ_ONCE(p->pgid);   // a process the kernel starts leads its own group
  spin_unlock(&tty_lock);
}

bool
tty_interactive(void)
{
  return READ_ONCE(interactive);
}

// A program reading in a session puts the terminal in use; true if it is.
bool
tty_claim(void)
{
  spin_lock(&tty_lock);
  if(session)
    interactive = true;
  bool r = session;
  spin_unlock(&tty_lock);
  return r;
}


// Whether current may act on the terminal as its foreground process group does (Linux's
// __tty_check_change, drivers/tty/tty_jobctrl.c): every process shares the console as its
// terminal here, so in a session, a process outside the foreground group gets sig (SIGTTIN
// for a read, SIGTTOU for a write with TOSTOP or a change of the terminal's settings) and the
// call -ERESTARTSYS, to be made again once the group is continued in the foreground. If it
// blocks or ignores sig, a read fails with EIO and anything else goes on; a member of an
// orphaned group, whom no shell would continue, gets EIO.
static long
tty_check_change(int sig)
{
  struct process *p = current->proc;
  if(!p)
    return 0;
  int fg = READ_ONCE(fg_pgrp), pgrp = READ_ONCE(p->pgid);
  if(!READ_ONCE(session) || !fg || pgrp == fg)
    return 0;
  // A process the kernel started ignores stop signals (kernel/signal.c): as if by SIG_IGN,
  // or its read would be restarted for ever.
  bool ignored = (READ_ONCE(current->sig->blocked) & sigmask(sig)) ||
                 sig_handler(p, sig) == SIG_IGN || !READ_ONCE(p->parent);
  if(ignored)
    return sig == SIGTTIN ? -EIO : 0;
  if(pgrp_orphaned(pgrp, NULL))
    return -EIO;
  kill_pgrp(pgrp, sig);
  return -ERESTARTSYS;
}

long
tty_check_write(void)
{
  spin_lock(&tty_lock);
  bool tostop = ldisc.termios.c_lflag & TOSTOP;
  spin_unlock(&tty_lock);
  return tostop ? tty_check_change(SIGTTOU) : 0;
}

// Canonical mode waits for a line; non-canonical mode follows VMIN and VTIME (termios(3)):
// MIN bytes (or n if fewer), TIME tenths of a second between bytes once one came; with MIN 0,
// whatever came within TIME; with both 0, whatever is there.
long
tty_read(u8 *buf, u32 n, bool nonblock)
{
  struct wait_queue_entry we = { current, LIST_HEAD_INIT(we.entry), NULL };
  u32 got = 0;
  u64 deadline = 0;
  long r = tty_check_change(SIGTTIN);
  if(r)
    return r;
  bool was_idle = current->idle_wait;
  current->idle_wait = true;   // a terminal may wait for a person for ever
  for(;;) {
    prepare_to_wait(&read_wait, &we, T_SLEEPING);
    spin_lock(&tty_lock);
    if(!session) {
      spin_unlock(&tty_lock);
      r = got;   // end of file outside a session
      break;
    }
    interactive = true;
    bool eof, done = false;
    const struct termios *t = &ldisc.termios;
    if(t->c_lflag & ICANON) {
      if(n_tty_avail(&ldisc)) {
        got = n_tty_read(&ldisc, buf, n, &eof);
        done = true;
      }
    } else {
      u32 before = got;
      got += n_tty_read(&ldisc, buf + got, n - got, &eof);
      u32 vmin = t->c_cc[VMIN];
      u64 vtime = t->c_cc[VTIME] * 100000000ULL;
      if(got >= MIN(vmin, n) && (vmin || got || !vtime))
        done = true;   // MIN reached; or MIN 0 with a byte, or with TIME 0
      else if(vtime && (!vmin ? !deadline : got > before))
        deadline = ktime_ns() + vtime;   // MIN 0: from the read; else between bytes
    }
    spin_unlock(&tty_lock);
    if(done) {
      r = got;
      break;
    }
    if(nonblock) {
      r = got ? (long)got : -EAGAIN;
      break;
    }
    if(signal_pending(current)) {   // a handler runs, then read is restarted or says EINTR
      r = got ? (long)got : -ERESTARTSYS;
      break;
    }
    if(deadline) {
      u64 now = ktime_ns();
      if(now >= deadline) {
        r = got;
        break;
      }
      schedule_timeout(deadline - now);
    } else {
      schedule();
    }
  }
  finish_wait(&read_wait, &we);
  current->idle_wait = was_idle;
  return r;
}

void
tty_set_termios(const struct termios *t, bool flush)
{
  spin_lock(&tty_lock);
  if(flush)
    n_tty_flush(&ldisc);
  n_tty_set_termios(&ldisc, t);
  spin_unlock(&tty_lock);
  wake_up_all(&read_wait);   // a new mode may make what is there readable
}

static bool
pgrp_exists(int pgrp)
{
  bool found = false;
  u64 flags;
  spin_lock_irqsave(&process_list_lock, flags);
  struct process *p;
  list_for_each_entry(p, &process_list, tasks)
    found |= READ_ONCE(p->pgid) == pgrp;
  spin_unlock_irqrestore(&process_list_lock, flags);
  return found;
}

long
tty_ioctl(u32 cmd, u64 arg)
{
  void *u = (void *)arg;
  struct termios t;
  struct winsize ws;
  int v;
  long r;
  switch(cmd) {
  case TCGETS:
    spin_lock(&tty_lock);
    t = ldisc.termios;
    spin_unlock(&tty_lock);
    return copy_to_user(u, &t, sizeof(t)) ? -EFAULT : 0;
  case TCSETS:
  case TCSETSW:    // output is written synchronously: always drained
  case TCSETSF:
    if(copy_from_user(&t, u, sizeof(t)))
      return -EFAULT;
    if((v = tty_check_change(SIGTTOU)) != 0)
      return v;
    tty_set_termios(&t, cmd == TCSETSF);
    return 0;
  case TIOCGWINSZ:
    spin_lock(&tty_lock);
    ws = tty_winsize;
    spin_unlock(&tty_lock);
    return copy_to_user(u, &ws, sizeof(ws)) ? -EFAULT : 0;
  case TIOCSWINSZ:
    if(copy_from_user(&ws, u, sizeof(ws)))
      return -EFAULT;
    spin_lock(&tty_lock);
    tty_winsize = ws;
    spin_unlock(&tty_lock);
    return 0;
  case TIOCGPGRP:
    v = READ_ONCE(fg_pgrp);
    return put_user(v, (int *)u) ? -EFAULT : 0;
  case TIOCSPGRP:
    if(get_user(v, (int *)u))
      return -EFAULT;
    if(v < 0)
      return -EINVAL;
    if((r = tty_check_change(SIGTTOU)) != 0)   // tcsetpgrp(3) from the background
      return r;
    if(!pgrp_exists(v))
      return -ESRCH;   // Linux's tiocspgrp: no such group
    WRITE_ONCE(fg_pgrp, v);
    return 0;
  case FIONREAD:
    spin_lock(&tty_lock);
    v = ldisc.termios.c_lflag & ICANON ? ldisc.canon_head - ldisc.read_tail
                                       : ldisc.read_head - ldisc.read_tail;
    spin_unlock(&tty_lock);
    return put_user(v, (int *)u) ? -EFAULT : 0;
  case TIOCOUTQ:
    return put_user(0, (int *)u) ? -EFAULT : 0;
  case TCFLSH:
    if(arg > TCIOFLUSH)
      return -EINVAL;
    if((r = tty_check_change(SIGTTOU)) != 0)
      return r;
    if(arg != TCOFLUSH) {
      spin_lock(&tty_lock);
      n_tty_flush(&ldisc);
      spin_unlock(&tty_lock);
    }
    return 0;
  case TCSBRK:       // tcdrain: nothing is ever queued
  case TIOCSCTTY:    // the console is every process's terminal already
  case TIOCNOTTY:
    return 0;
  default:
    return -ENOTTY;
  }
}

// /dev/console opened by name writes through the same line assembler as fds 0-2
// (drivers/tty/console.c): one line length and one lock for every writer.
static ssize_t
console_fwrite(struct file *f, const void *buf, size_t len, u64 *pos)
{
  long r = tty_check_write();
  return r ? r : console_write_kernel(buf, len);
}

static ssize_t
console_fread(struct file *f, void *buf, size_t len, u64 *pos)
{
  return tty_read(buf, MIN(len, (size_t)N_TTY_BUF_SIZE), false);
}

// poll(2): writes never wait; a read would not wait outside a session (end of file), or when
// a line is there (canonical), or VMIN bytes with VTIME 0, else one (Linux's
// input_available_p with poll set). A program polling in a session puts the terminal in use,
// as a read does, so its prompt shows. f is NULL for the console behind fds 0-2.
unsigned
tty_poll(struct file *f, struct poll_table *pt)
{
  if(tty_claim() && current->proc)
    console_flush(current->proc);
  poll_wait(f, &read_wait, pt);
  unsigned mask = POLLOUT | POLLWRNORM;
  spin_lock(&tty_lock);
  const struct termios *t = &ldisc.termios;
  u32 want = !(t->c_lflag & ICANON) && !t->c_cc[VTIME] && t->c_cc[VMIN] ? t->c_cc[VMIN] : 1;
  if(!session || n_tty_avail(&ldisc) >= want)
    mask |= POLLIN | POLLRDNORM;
  spin_unlock(&tty_lock);
  return mask;
}

static const struct file_operations console_fops = {
  .read = console_fread,
  .write = console_fwrite,
  .poll = tty_poll,
};

bool
tty_is_console(const struct file *f)
{
  return f->f_op == &console_fops;
}

void
tty_init(void)
{
  n_tty_init(&ldisc);
  if(register_chrdev(MKDEV(5, 1), "console", &console_fops))
    pr_err("vfs: cannot register /dev/console\n");
  if(!kthread_create(tty_thread, NULL, -1, "tty"))
    pr_err("tty: no thread for console input\n");
}
