// The line discipline: what bytes typed at the console become for a reader. Canonical mode
// edits a line (erase, word erase, kill, EOF, literal next) and echoes; ISIG characters become
// signals. Semantics from termios(3) and Linux's n_tty.c. Pure: drivers/tty/tty.c locks it.
#include "string.h"
#include "tty.h"
#include "uapi/signal.h"

#define MASK(i) ((i) & (N_TTY_BUF_SIZE - 1))

static bool
test_bit_at(const u8 *map, u32 i)
{
  return map[MASK(i) / 8] >> (MASK(i) % 8) & 1;
}

static void
put_bit_at(u8 *map, u32 i, bool v)
{
  u8 bit = 1u << (MASK(i) % 8);
  map[MASK(i) / 8] = v ? map[MASK(i) / 8] | bit : map[MASK(i) / 8] & ~bit;
}

// Linux's tty_std_termios: a serial console after boot, 38400 baud 8N1, canonical with echo;
// c_cc as INIT_C_CC (include/linux/tty.h): ^C ^\ DEL ^U ^D, VTIME 0, VMIN 1, ^Q ^S ^Z, ^R ^O ^W ^V.
void
tty_default_termios(struct termios *t)
{
  static const u8 cc[NCCS] = { 3, 28, 127, 21, 4, 0, 1, 0, 17, 19, 26, 0, 18, 15, 23, 22, 0 };
  memset(t, 0, sizeof(*t));
  t->c_iflag = ICRNL | IXON;
  t->c_oflag = OPOST | ONLCR;
  t->c_cflag = B38400 | CS8 | CREAD;
  t->c_lflag = ISIG | ICANON | ECHO | ECHOE | ECHOK | ECHOCTL | ECHOKE | IEXTEN;
  memcpy(t->c_cc, cc, sizeof(cc));
}

void
n_tty_flush(struct n_tty *l)
{
  l->read_tail = l->canon_head = l->read_head = 0;
  l->lnext = false;
}

void
n_tty_init(struct n_tty *l)
{
  memset(l, 0, sizeof(*l));
  tty_default_termios(&l->termios);
}

// Switching canonical mode on makes what was received one line, switching it off makes all of
// it readable: Linux's n_tty_set_termios.
void
n_tty_set_termios(struct n_tty *l, const struct termios *t)
{
  bool was = l->termios.c_lflag & ICANON;
  l->termios = *t;
  if(was == !!(t->c_lflag & ICANON))
    return;
  memset(l->delim, 0, sizeof(l->delim));
  memset(l->eof, 0, sizeof(l->eof));
  if((t->c_lflag & ICANON) && l->read_head != l->read_tail) {
    put_bit_at(l->delim, l->read_head - 1, true);
    l->canon_head = l->read_head;
  } else {
    l->canon_head = l->read_tail;
  }
}

static void
echo(struct n_tty_out *out, const char *s, u32 n)
{
  for(u32 i = 0; i < n && out->necho < N_TTY_ECHO_MAX; i++)
    out->echo[out->necho++] = s[i];
}

static bool
is_ctl(u8 c)
{
  return (c < 0x20 && c != '\t' && c != '\n') || c == 0x7f;
}

// A byte as ECHO shows it: with ECHOCTL a control character as ^X (DEL as ^?).
static void
echo_char(struct n_tty *l, struct n_tty_out *out, u8 c)
{
  if(!(l->termios.c_lflag & ECHO))
    return;
  if((l->termios.c_lflag & ECHOCTL) && is_ctl(c)) {
    char s[2] = { '^', (char)(c ^ 0x40) };
    echo(out, s, 2);
  } else {
    echo(out, (const char *)&c, 1);
  }
}

static void
put(struct n_tty *l, u8 c, bool delim, bool eof)
{
  put_bit_at(l->delim, l->read_head, delim);
  put_bit_at(l->eof, l->read_head, eof);
  l->buf[MASK(l->read_head)] = c;
  l->read_head++;
}

// Removes the last character of the line being edited (a UTF-8 sequence as one) and rubs it out
// on the screen: ECHOE backs over it ("\b \b", twice for a ^X), else the erase character is echoed.
static bool
erase_one(struct n_tty *l, struct n_tty_out *out, bool visual)
{
  if(l->read_head == l->canon_head)
    return false;
  u8 c;
  do
    c = l->buf[MASK(--l->read_head)];
  while((c & 0xc0) == 0x80 && l->read_head != l->canon_head);
  if(visual && (l->termios.c_lflag & ECHO)) {
    int cols = (l->termios.c_lflag & ECHOCTL) && is_ctl(c) ? 2 : 1;
    for(int i = 0; i < cols; i++)
      echo(out, "\b \b", 3);
  }
  return true;
}

static bool
is_space(u8 c)
{
  return c == ' ' || c == '\t';
}

// Canonical editing: the erase, word-erase and kill characters. True if c was one of them.
static bool
edit(struct n_tty *l, u8 c, struct n_tty_out *out)
{
  const struct termios *t = &l->termios;
  bool visual = (t->c_lflag & ECHOE) != 0;
  // Backspace (^H) erases too: terminals send either it or DEL for the key (termios(3) knows
  // only VERASE; a deliberate convenience, named in doc/console.md).
  if(c == t->c_cc[VERASE] || c == '\b') {
    if(erase_one(l, out, visual) && !visual)
      echo_char(l, out, c);
    return true;
  }
  if(c == t->c_cc[VWERASE] && (t->c_lflag & IEXTEN)) {
    while(l->read_head != l->canon_head && is_space(l->buf[MASK(l->read_head - 1)]))
      erase_one(l, out, true);
    while(l->read_head != l->canon_head && !is_space(l->buf[MASK(l->read_head - 1)]))
      erase_one(l, out, true);
    return true;
  }
  if(c == t->c_cc[VKILL]) {
    if(t->c_lflag & ECHOKE) {
      while(erase_one(l, out, true))
        ;
    } else {
      l->read_head = l->canon_head;
      echo_char(l, out, c);
      if(t->c_lflag & ECHOK)
        echo(out, "\n", 1);
    }
    return true;
  }
  return false;
}

// One byte off the line, as Linux's n_tty_receive_char: input mapping, signals, editing,
// line ends, echo. Bytes beyond what the buffer holds are dropped (a canonical line keeps
// room for its end, so Enter always ends it).
void
n_tty_receive(struct n_tty *l, u8 c, struct n_tty_out *out)
{
  const struct termios *t = &l->termios;
  out->necho = 0;
  out->sig = 0;
  out->wake = false;
  bool canon = t->c_lflag & ICANON;
  if(t->c_iflag & ISTRIP)
    c &= 0x7f;
  if(l->lnext) {
    l->lnext = false;
    if((t->c_lflag & ECHO) && (t->c_lflag & ECHOCTL))
      echo(out, "\b", 1);   // over the ^ shown for VLNEXT
  } else {
    if(c == '\r') {
      if(t->c_iflag & IGNCR)
        return;
      if(t->c_iflag & ICRNL)
        c = '\n';
    } else if(c == '\n' && (t->c_iflag & INLCR)) {
      c = '\r';
    }
    if(t->c_lflag & ISIG) {
      int sig = c == t->c_cc[VINTR] ? SIGINT : c == t->c_cc[VQUIT] ? SIGQUIT :
                c == t->c_cc[VSUSP] ? SIGTSTP : 0;
      if(sig && c) {
        if(!(t->c_lflag & NOFLSH))
          n_tty_flush(l);
        echo_char(l, out, c);
        out->sig = sig;
        out->wake = true;
        return;
      }
    }
    if(canon && c && c == t->c_cc[VLNEXT] && (t->c_lflag & IEXTEN)) {
      l->lnext = true;
      if((t->c_lflag & ECHO) && (t->c_lflag & ECHOCTL))
        echo(out, "^", 1);
      return;
    }
    if(canon) {
      if(c && edit(l, c, out))
        return;
      bool eol = c == '\n' || (c && (c == t->c_cc[VEOL] ||
                                      (c == t->c_cc[VEOL2] && (t->c_lflag & IEXTEN))));
      bool eof = c && c == t->c_cc[VEOF];
      if(eol || eof) {
        if(l->read_head - l->read_tail >= N_TTY_BUF_SIZE)
          return;
        put(l, c, true, eof);
        l->canon_head = l->read_head;
        if(c == '\n' && (t->c_lflag & (ECHO | ECHONL)))
          echo(out, "\n", 1);
        else if(eol)
          echo_char(l, out, c);
        out->wake = true;
        return;
      }
    }
  }
  // Data. Canonical mode keeps one byte free for the line's end.
  if(l->read_head - l->read_tail >= N_TTY_BUF_SIZE - (canon ? 1 : 0))
    return;
  put(l, c, false, false);
  echo_char(l, out, c);
  out->wake = !canon;
}

u32
n_tty_avail(const struct n_tty *l)
{
  if(!(l->termios.c_lflag & ICANON))
    return l->read_head - l->read_tail;
  for(u32 i = l->read_tail; i != l->canon_head; i++)
    if(test_bit_at(l->delim, i))
      return i - l->read_tail + 1;
  return 0;
}

u32
n_tty_read(struct n_tty *l, u8 *dst, u32 n, bool *eof_seen)
{
  *eof_seen = false;
  u32 avail = n_tty_avail(l);
  if(!avail)
    return 0;
  u32 got = 0;
  if(l->termios.c_lflag & ICANON) {
    u32 end = l->read_tail + avail - 1;   // the line's delimiter
    bool eof = test_bit_at(l->eof, end);
    u32 data = avail - (eof ? 1 : 0);
    got = data < n ? data : n;
    for(u32 i = 0; i < got; i++)
      dst[i] = l->buf[MASK(l->read_tail + i)];
    l->read_tail += got;
    if(eof && l->read_tail == end) {   // the whole line went: the EOF character goes too
      l->read_tail++;
      *eof_seen = got == 0;
    }
    return got;
  }
  got = avail < n ? avail : n;
  for(u32 i = 0; i < got; i++)
    dst[i] = l->buf[MASK(l->read_tail + i)];
  l->read_tail += got;
  return got;
}

u32
n_tty_output(const struct termios *t, const u8 *src, u32 n, u8 *dst)
{
  bool onlcr = (t->c_oflag & (OPOST | ONLCR)) == (OPOST | ONLCR);
  u32 k = 0;
  for(u32 i = 0; i < n; i++) {
    if(src[i] == '\n' && onlcr)
      dst[k++] = '\r';
    dst[k++] = src[i];
  }
  return k;
}
