// The console as a terminal: the termios ABI, the line discipline (drivers/tty/n_tty.c: what typed
// bytes become, pure and host-tested) and the console terminal around it (drivers/tty/tty.c).
#pragma once
#include "types.h"

struct file;
struct poll_table;
struct process;

#include "uapi/termios.h"

#define N_TTY_BUF_SIZE 4096   // Linux's: a canonical line holds at most 4095 bytes and its end
#define N_TTY_ECHO_MAX 64     // echo bytes one received byte can ask for (an erased line: more calls)

// The line discipline's state: received bytes in a ring. [read_tail, canon_head) holds whole
// lines (canonical mode); [canon_head, read_head) the line being edited. In non-canonical mode
// all of [read_tail, read_head) is readable. Indices run freely and are masked on use.
struct n_tty {
  struct termios termios;
  u8 buf[N_TTY_BUF_SIZE];
  u8 delim[N_TTY_BUF_SIZE / 8];   // bit i: buf[i] ends a line
  u8 eof[N_TTY_BUF_SIZE / 8];     // bit i: ... and is the EOF character, not data
  u32 read_tail, canon_head, read_head;
  bool lnext;                     // the previous byte was VLNEXT: take this one literally
};

// What one received byte asks of the terminal besides the buffer.
struct n_tty_out {
  u8 echo[N_TTY_ECHO_MAX];   // to write to the terminal, before output processing
  u32 necho;
  int sig;                   // for the foreground process group (SIGINT, SIGQUIT, SIGTSTP), or 0
  bool wake;                 // a read may now have something
};

void n_tty_init(struct n_tty *l);                            // Linux's default termios, empty
void n_tty_set_termios(struct n_tty *l, const struct termios *t);
void n_tty_flush(struct n_tty *l);                           // drops every received byte
void n_tty_receive(struct n_tty *l, u8 c, struct n_tty_out *out);
// Bytes a read could take now: canonical, the first whole line (with its end; an EOF
// character counts 1); non-canonical, all of them.
u32 n_tty_avail(const struct n_tty *l);
// A read of at most n bytes into dst: canonical mode gives at most one line (the rest of a
// longer one stays); the EOF character is consumed but never copied, so a line of only EOF
// reads as 0. Returns the bytes copied; *eof_seen tells a 0 from EOF apart from nothing.
u32 n_tty_read(struct n_tty *l, u8 *dst, u32 n, bool *eof_seen);
// Output processing (OPOST, ONLCR): src into dst (room for 2 * n bytes); the bytes written.
u32 n_tty_output(const struct termios *t, const u8 *src, u32 n, u8 *dst);
void tty_default_termios(struct termios *t);

// The console terminal (drivers/tty/tty.c).
// A session: from init='s start to its end the console takes input (the serial receive
// interrupt); outside one a read gives end of file, so no self-test waits for a person.
void tty_open_session(void);
void tty_close_session(void);
void tty_reset(void);   // Linux's defaults again: termios, 80x24, no input, no foreground group
void tty_set_foreground(struct process *p);   // p's group gets ^C, ^\ and ^Z (TIOCSPGRP moves it)
bool tty_interactive(void);                   // output goes to the terminal as written
bool tty_claim(void);                         // a reader: in a session, the terminal is in use
// Reads into a kernel buffer: bytes, 0 at end of file, -EAGAIN, -ERESTARTSYS (a signal).
long tty_read(u8 *buf, u32 n, bool nonblock);
void tty_write(const u8 *buf, u32 n);          // terminal output, processed (ONLCR)
// Before a write to the terminal: with TOSTOP, a background process group gets SIGTTOU and
// the write -ERESTARTSYS (or -EIO when that group is orphaned); else 0.
long tty_check_write(void);
long tty_ioctl(u32 cmd, u64 arg);              // arg a user pointer
void tty_set_termios(const struct termios *t, bool flush);   // TCSETS (TCSETSF: flush)
// From the receive interrupt: bytes as they came off the line.
void tty_receive_irq(u8 c);
bool tty_is_console(const struct file *f);     // /dev/console opened by name
// poll(2)'s events of the console (f NULL: fds 0-2), with a wait on its input queue.
unsigned tty_poll(struct file *f, struct poll_table *pt);
