// /dev/console (major 5, minor 1, Linux's TTYAUX_MAJOR: not a pseudo-terminal's major, so glibc
// treats it as a terminal of its own). Writes become printk lines, whole lines only, so a
// program's output never splits a kernel line; reads find no input (end-of-file).
#include "errno.h"
#include "fs.h"
#include "printk.h"
#include "spinlock.h"
#include "string.h"

#define TCGETS 0x5401   // include/uapi/asm-generic/ioctls.h
#define CONSOLE_LINE 400

// The unfinished line of whatever was written last: writers of several processes share it,
// as they share the screen. console_lock.
static char pending[CONSOLE_LINE];
static size_t npending;
static DEFINE_SPINLOCK(console_lock);

static void
flush_line(void)
{
  printk("%.*s\n", (int)npending, pending);
  npending = 0;
}

static ssize_t
console_write(struct file *f, const void *buf, size_t len, u64 *pos)
{
  const char *p = buf;
  spin_lock(&console_lock);
  for(size_t i = 0; i < len; i++) {
    if(p[i] == '\n')
      flush_line();
    else {
      pending[npending++] = p[i];
      if(npending == CONSOLE_LINE)
        flush_line();   // a line longer than printk's goes out in pieces
    }
  }
  spin_unlock(&console_lock);
  return len;
}

static ssize_t
console_read(struct file *f, void *buf, size_t len, u64 *pos)
{
  return 0;
}

// Linux's struct termios (include/uapi/asm-generic/termbits.h): what TCGETS fills in. The
// values are a serial console's after boot: 38400 baud, 8 bits, canonical mode with echo.
struct termios {
  u32 c_iflag, c_oflag, c_cflag, c_lflag;
  u8 c_line;
  u8 c_cc[19];
};

static int
console_ioctl(struct file *f, unsigned cmd, void *arg)
{
  if(cmd != TCGETS)
    return -ENOTTY;
  struct termios *t = arg;
  memset(t, 0, sizeof(*t));
  t->c_iflag = 0x500;    // ICRNL | IXON
  t->c_oflag = 0x5;      // OPOST | ONLCR
  t->c_cflag = 0xbf;     // B38400 | CS8 | CREAD
  t->c_lflag = 0x8a3b;   // ISIG | ICANON | ECHO | ECHOE | ECHOK | ECHOCTL | ECHOKE | IEXTEN
  static const u8 cc[] = { 3, 28, 127, 21, 4, 0, 1, 0, 17, 19, 26, 0, 18, 15, 23, 22 };
  memcpy(t->c_cc, cc, sizeof(cc));
  return 0;
}

static const struct file_operations console_fops = {
  .read = console_read,
  .write = console_write,
  .ioctl = console_ioctl,
};

size_t
tty_termios_size(void)
{
  return sizeof(struct termios);
}

void
tty_init(void)
{
  if(register_chrdev(MKDEV(5, 1), "console", &console_fops))
    pr_err("vfs: cannot register /dev/console\n");
}
