// Host test of drivers/tty/n_tty.c, the line discipline: canonical editing and its echo, line ends and
// EOF, signals, literal next, non-canonical reads, mode switches, the buffer's limits and
// output processing, against what Linux's n_tty does for the same bytes.
#include <string.h>
#include "check.h"
#include "tty.h"

static struct n_tty l;
static char echoed[8192];
static size_t nechoed;
static int last_sig;
static int wakes;

static void
type(const char *s, size_t n)
{
  for(size_t i = 0; i < n; i++) {
    struct n_tty_out out;
    n_tty_receive(&l, (u8)s[i], &out);
    if(nechoed + out.necho > sizeof(echoed))
      nechoed = 0;   // long inputs: only the recent echo matters
    memcpy(echoed + nechoed, out.echo, out.necho);
    nechoed += out.necho;
    if(out.sig)
      last_sig = out.sig;
    wakes += out.wake;
  }
}

#define TYPE(s) type(s, sizeof(s) - 1)

static void
reset(void)
{
  n_tty_init(&l);
  nechoed = 0;
  last_sig = 0;
  wakes = 0;
}

// One read of at most n bytes as a string; *eof tells end of file.
static const char *
rd(u32 n, bool *eof)
{
  static char buf[N_TTY_BUF_SIZE + 1];
  u32 k = n_tty_read(&l, (u8 *)buf, n, eof);
  buf[k] = 0;
  return buf;
}

static bool
echo_is(const char *want)
{
  bool ok = nechoed == strlen(want) && memcmp(echoed, want, nechoed) == 0;
  nechoed = 0;
  return ok;
}

static void
canonical(void)
{
  bool eof;
  reset();
  TYPE("hel");
  CHECK(n_tty_avail(&l) == 0);   // no line yet
  CHECK(wakes == 0);
  TYPE("lo\r");                  // ICRNL: Enter ends the line
  CHECK(wakes == 1);
  CHECK(echo_is("hello\n"));
  CHECK(n_tty_avail(&l) == 6);
  CHECK(strcmp(rd(3, &eof), "hel") == 0 && !eof);   // a short read leaves the rest
  CHECK(strcmp(rd(100, &eof), "lo\n") == 0 && !eof);
  CHECK(n_tty_avail(&l) == 0);

  TYPE("one\ntwo\n");            // two lines: one read each
  CHECK(strcmp(rd(100, &eof), "one\n") == 0);
  CHECK(strcmp(rd(100, &eof), "two\n") == 0);

  // DEL and ^H erase with "\b \b"; a control character took two columns (^X).
  nechoed = 0;
  TYPE("abx\x7f" "c\x01\b\n");
  CHECK(echo_is("abx\b \bc^A\b \b\b \b\n"));
  CHECK(strcmp(rd(100, &eof), "abc\n") == 0);
  TYPE("\x7f\x7fz\n");           // erase at the line's start does nothing
  CHECK(strcmp(rd(100, &eof), "z\n") == 0);
  // A UTF-8 character goes as one.
  TYPE("a\xc3\xa9\x7f\n");
  CHECK(strcmp(rd(100, &eof), "a\n") == 0);
  // ^U (ECHOKE) rubs the whole line out; ^W one word.
  nechoed = 0;
  TYPE("junk\x15ok\n");
  CHECK(echo_is("junk\b \b\b \b\b \b\b \bok\n"));
  CHECK(strcmp(rd(100, &eof), "ok\n") == 0);
  TYPE("ls -l  \x17x\n");
  CHECK(strcmp(rd(100, &eof), "ls x\n") == 0);
  // Erase never reaches into a finished line.
  TYPE("done\nab\x7f\x7f\x7f\x7f" "c\n");
  CHECK(strcmp(rd(100, &eof), "done\n") == 0);
  CHECK(strcmp(rd(100, &eof), "c\n") == 0);

  // ^D: at a line's start end of file (read 0, eof), mid-line it ends the line without itself.
  TYPE("\x04");
  CHECK(n_tty_avail(&l) == 1);
  CHECK(strcmp(rd(100, &eof), "") == 0 && eof);
  CHECK(n_tty_avail(&l) == 0);
  TYPE("abc\x04");
  CHECK(strcmp(rd(100, &eof), "abc") == 0 && !eof);
  CHECK(n_tty_avail(&l) == 0);
  TYPE("xy\x04");                // a short read keeps the EOF character for the rest
  CHECK(strcmp(rd(1, &eof), "x") == 0 && !eof);
  CHECK(strcmp(rd(100, &eof), "y") == 0 && !eof);
  CHECK(n_tty_avail(&l) == 0);
  // ^V takes the next byte literally: a ^D and a ^C as data.
  nechoed = 0;
  TYPE("\x16\x04\x16\x03\n");
  CHECK(echo_is("^\b^D^\b^C\n"));
  CHECK(strcmp(rd(100, &eof), "\x04\x03\n") == 0 && !eof);
  CHECK(last_sig == 0);
}

static void
signals(void)
{
  bool eof;
  reset();
  TYPE("partial\x03");
  CHECK(last_sig == 2);          // SIGINT
  CHECK(echo_is("partial^C"));
  CHECK(n_tty_avail(&l) == 0);   // the input was flushed
  TYPE("x\n");
  CHECK(strcmp(rd(100, &eof), "x\n") == 0);
  TYPE("\x1c");
  CHECK(last_sig == 3);          // ^\ SIGQUIT
  TYPE("\x1a");
  CHECK(last_sig == 20);         // ^Z SIGTSTP
  // Without ISIG they are data.
  struct termios t = l.termios;
  t.c_lflag &= ~ISIG;
  n_tty_set_termios(&l, &t);
  last_sig = 0;
  TYPE("\x03\n");
  CHECK(last_sig == 0);
  CHECK(strcmp(rd(100, &eof), "\x03\n") == 0);
  // NOFLSH keeps the input.
  t.c_lflag |= ISIG | NOFLSH;
  n_tty_set_termios(&l, &t);
  TYPE("ab\n\x03");
  CHECK(last_sig == 2 && n_tty_avail(&l) == 3);
}

static void
noncanonical(void)
{
  bool eof;
  reset();
  struct termios t = l.termios;
  t.c_lflag &= ~(ICANON | ECHO);
  n_tty_set_termios(&l, &t);
  TYPE("a");
  CHECK(wakes == 1 && nechoed == 0);
  TYPE("b\x7f\x04\r");           // no editing, no EOF; ICRNL still maps
  CHECK(n_tty_avail(&l) == 5);
  CHECK(memcmp(rd(100, &eof), "ab\x7f\x04\n", 5) == 0 && !eof);
  // Canonical again: what came in raw is one line.
  TYPE("xyz");
  t.c_lflag |= ICANON;
  n_tty_set_termios(&l, &t);
  CHECK(n_tty_avail(&l) == 3);
  CHECK(strcmp(rd(100, &eof), "xyz") == 0);
  // A half-typed line becomes readable when canonical mode goes off.
  TYPE("half");
  CHECK(n_tty_avail(&l) == 0);
  t.c_lflag &= ~ICANON;
  n_tty_set_termios(&l, &t);
  CHECK(n_tty_avail(&l) == 4);
  // IGNCR drops carriage returns; INLCR maps newlines.
  n_tty_flush(&l);
  t.c_iflag |= IGNCR | INLCR;
  n_tty_set_termios(&l, &t);
  TYPE("a\rb\n");
  CHECK(strcmp(rd(100, &eof), "ab\r") == 0);
}

static void
limits(void)
{
  bool eof;
  static char big[N_TTY_BUF_SIZE + 100];
  reset();
  memset(big, 'q', sizeof(big));
  type(big, sizeof(big));
  TYPE("\n");                    // 4095 bytes and the end: Enter still ends a full line
  CHECK(n_tty_avail(&l) == N_TTY_BUF_SIZE);
  const char *s = rd(N_TTY_BUF_SIZE, &eof);
  CHECK(strlen(s) == N_TTY_BUF_SIZE && s[N_TTY_BUF_SIZE - 1] == '\n');
  // The ring wraps: indices keep running past the buffer's size.
  for(int i = 0; i < 3000; i++) {
    TYPE("wrap\n");
    CHECK(strcmp(rd(100, &eof), "wrap\n") == 0);
  }
  // Non-canonical: the whole buffer, then bytes are dropped.
  struct termios t = l.termios;
  t.c_lflag &= ~ICANON;
  n_tty_set_termios(&l, &t);
  type(big, sizeof(big));
  CHECK(n_tty_avail(&l) == N_TTY_BUF_SIZE);
}

static void
output(void)
{
  struct termios t;
  u8 out[32];
  tty_default_termios(&t);
  CHECK(n_tty_output(&t, (const u8 *)"a\nb\n", 4, out) == 6 && memcmp(out, "a\r\nb\r\n", 6) == 0);
  t.c_oflag &= ~OPOST;            // raw output: newlines as they are
  CHECK(n_tty_output(&t, (const u8 *)"a\nb", 3, out) == 3 && memcmp(out, "a\nb", 3) == 0);
  CHECK(sizeof(struct termios) == 36);
}

int
main(void)
{
  canonical();
  signals();
  noncanonical();
  limits();
  output();
  return check_summary("n_tty");
}
