// tty-input: the console's input path as typed bytes take it, from the receive interrupt's
// entry (tty_receive_irq) through the ring and the kthread "tty" to a read, in a session of
// the test's own with echo off (the console shows nothing), and no input outside a session;
// and a kernel line printed after terminal output that ended mid-line starts a line of its own.
#include "errno.h"
#include "printk.h"
#include "sched.h"
#include "selftest.h"
#include "string.h"
#include "tty.h"

extern char log_buf[LOG_BUF_SIZE];
extern u64 log_next;

static void
feed(const char *s)
{
  while(*s)
    tty_receive_irq((u8)*s++);
}

// A read that gives up after about 5 s instead of waiting for ever on a lost byte.
static long
read_soon(u8 *buf, u32 n)
{
  for(int i = 0; i < 500; i++) {
    long r = tty_read(buf, n, true);
    if(r != -EAGAIN)
      return r;
    msleep(10);
  }
  return -EAGAIN;
}

static bool
tty_input(void)
{
  u8 buf[64];
  bool ok = true;
  long r;
  tty_open_session();
  struct termios t;
  tty_default_termios(&t);
  t.c_lflag &= ~ECHO;
  tty_set_termios(&t, true);
  ok &= tty_read(buf, sizeof(buf), true) == -EAGAIN;   // nothing typed yet
  feed("hello\r");
  r = read_soon(buf, sizeof(buf));
  ok &= r == 6 && memcmp(buf, "hello\n", 6) == 0;
  feed("ab\x7f" "c\x15ok\r");   // DEL, then ^U kills "ac"
  r = read_soon(buf, sizeof(buf));
  ok &= r == 3 && memcmp(buf, "ok\n", 3) == 0;
  feed("x\x03y\r");             // ^C flushes "x"; no foreground process to signal
  r = read_soon(buf, sizeof(buf));
  ok &= r == 2 && memcmp(buf, "y\n", 2) == 0;
  ok &= tty_interactive();      // a read put the terminal in use
  t.c_lflag &= ~ICANON;
  t.c_cc[VMIN] = 0;
  t.c_cc[VTIME] = 1;
  tty_set_termios(&t, false);
  ok &= tty_read(buf, sizeof(buf), false) == 0;   // VTIME 1 with nothing typed: 0
  feed("q");
  r = read_soon(buf, sizeof(buf));
  ok &= r == 1 && buf[0] == 'q';
  tty_close_session();
  ok &= !tty_interactive();
  ok &= tty_read(buf, sizeof(buf), false) == 0;   // outside a session: end of file
  feed("z");                                      // dropped: no session takes it
  msleep(50);
  tty_open_session();
  ok &= tty_read(buf, sizeof(buf), true) == -EAGAIN;
  tty_close_session();
  // Terminal output without a newline, then a kernel line: the log (and the console) holds a
  // newline between them, whatever else printed meanwhile.
  static const char raw[] = "tty-input: terminal output without a newline";
  u64 at = READ_ONCE(log_next);
  console_write_raw(raw, sizeof(raw) - 1);
  printk("tty-input: a kernel line after it\n");
  bool whole = memcmp(&log_buf[at % LOG_BUF_SIZE], raw, sizeof(raw) - 1) != 0 ||
               log_buf[(at + sizeof(raw) - 1) % LOG_BUF_SIZE] == '\n';
  ok &= whole;
  selftest_extra("last-read=%ld kernel-line-whole=%d", r, whole);
  return ok;
}
SELFTEST("tty-input", tty_input);
