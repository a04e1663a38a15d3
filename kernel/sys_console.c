// File descriptors 0, 1 and 2: the console, until the VFS gives processes files of their own.
// Output is collected per process and printed a line at a time, so a program's lines and the
// kernel's never split each other. fstat says character device 5:1 (/dev/console) and TCGETS
// succeeds, so glibc line-buffers stdout (its stdio asks isatty(3), which is TCGETS).
#include "errno.h"
#include "printk.h"
#include "process.h"
#include "sched.h"
#include "string.h"
#include "syscalls.h"
#include <asm/uaccess.h>

#define TCGETS 0x5401
#define TIOCGWINSZ 0x5413
#define AT_EMPTY_PATH 0x1000
#define S_IFCHR 0020000

static bool
is_console(u64 fd)
{
  return fd <= 2;
}

// Under p->lock.
static void
emit_line(struct process *p)
{
  p->line[p->line_len] = 0;
  printk("%s\n", p->line);
  p->line_len = 0;
}

void
console_flush(struct process *p)
{
  spin_lock(&p->lock);
  if(p->line_len)
    emit_line(p);
  spin_unlock(&p->lock);
}

static long
console_write(const char *ubuf, u64 n)
{
  struct process *p = current->proc;
  char chunk[128];
  u64 done = 0;
  while(done < n) {
    u64 k = MIN(n - done, sizeof(chunk));
    if(copy_from_user(chunk, ubuf + done, k))
      return done ? (long)done : -EFAULT;
    spin_lock(&p->lock);
    for(u64 i = 0; i < k; i++) {
      if(chunk[i] == '\n') {
        emit_line(p);
        continue;
      }
      p->line[p->line_len++] = chunk[i];
      if(p->line_len == sizeof(p->line) - 1)   // an over-long line goes out in pieces
        emit_line(p);
    }
    p->bytes_written += k;
    spin_unlock(&p->lock);
    done += k;
    cond_resched();
  }
  return done;
}

long
sys_write(u64 fd, u64 buf, u64 n)
{
  if(!is_console(fd))
    return -EBADF;
  if((s64)n < 0)
    return -EINVAL;
  return console_write((const char *)buf, n);
}

long
sys_writev(u64 fd, u64 iov, u64 cnt)
{
  if(!is_console(fd))
    return -EBADF;
  if(cnt > 1024)
    return -EINVAL;
  long total = 0;
  for(u64 i = 0; i < cnt; i++) {
    u64 v[2];
    if(copy_from_user(v, (u64 *)iov + 2 * i, sizeof(v)))
      return total ? total : -EFAULT;
    long r = console_write((const char *)v[0], v[1]);
    if(r < 0)
      return total ? total : r;
    total += r;
  }
  return total;
}

// The console has no input yet: end of file.
long
sys_read(u64 fd, u64 buf, u64 n)
{
  return is_console(fd) ? 0 : -EBADF;
}

long
sys_readv(u64 fd, u64 iov, u64 cnt)
{
  if(!is_console(fd))
    return -EBADF;
  return cnt > 1024 ? -EINVAL : 0;
}

// The console is not seekable: positioned I/O is ESPIPE, as on a tty.
long
sys_pread64(u64 fd, u64 buf, u64 n, u64 off)
{
  return is_console(fd) ? -ESPIPE : -EBADF;
}

long
sys_pwrite64(u64 fd, u64 buf, u64 n, u64 off)
{
  return is_console(fd) ? -ESPIPE : -EBADF;
}

// Every process runs in /. The raw call returns the length with the NUL (getcwd(2)).
long
sys_getcwd(u64 buf, u64 size)
{
  if(size < 2)
    return -ERANGE;
  return copy_to_user((void *)buf, "/", 2) ? -EFAULT : 2;
}

long
sys_close(u64 fd)
{
  return is_console(fd) ? 0 : -EBADF;
}

long
sys_lseek(u64 fd, u64 off, u64 whence)
{
  return is_console(fd) ? -ESPIPE : -EBADF;
}

long
sys_ioctl(u64 fd, u64 cmd, u64 arg)
{
  if(!is_console(fd))
    return -EBADF;
  if(cmd == TCGETS) {
    // struct termios (asm-generic/termbits.h): iflag ICRNL, oflag OPOST|ONLCR, cflag B38400|
    // CS8|CREAD, lflag ISIG|ICANON|ECHO..., then c_line and 19 control characters.
    u8 t[36];
    memset(t, 0, sizeof(t));
    u32 flags[4] = { 0x500, 0x5, 0xbf, 0x8a3b };
    memcpy(t, flags, sizeof(flags));
    return copy_to_user((void *)arg, t, sizeof(t)) ? -EFAULT : 0;
  }
  if(cmd == TIOCGWINSZ) {
    u16 ws[4] = { 24, 80, 0, 0 };
    return copy_to_user((void *)arg, ws, sizeof(ws)) ? -EFAULT : 0;
  }
  return -ENOTTY;
}

// x86-64 struct stat (144 bytes, Linux's arch/x86/include/uapi/asm/stat.h): st_mode at 24, st_rdev at 40, st_blksize at 56.
long
sys_fstat(u64 fd, u64 st)
{
  if(!is_console(fd))
    return -EBADF;
  u64 s[18];
  memset(s, 0, sizeof(s));
  s[0] = 5;                                // st_dev
  s[2] = 1;                                // st_nlink
  s[3] = S_IFCHR | 0620;                   // st_mode (u32), st_uid 0
  s[5] = (5 << 8) | 1;                     // st_rdev: 5:1, not a pty's 136-143
  s[7] = 1024;                             // st_blksize
  return copy_to_user((void *)st, s, sizeof(s)) ? -EFAULT : 0;
}

long
sys_newfstatat(u64 dirfd, u64 path, u64 st, u64 flags)
{
  char c;
  if(get_user(c, (char *)path))
    return -EFAULT;
  if(c == 0 && (flags & AT_EMPTY_PATH))
    return sys_fstat(dirfd, st);
  return -ENOENT;
}

long
sys_openat(u64 dirfd, u64 path, u64 flags, u64 mode)
{
  char name[256];
  long n = strncpy_from_user(name, (const char *)path, sizeof(name));
  return n < 0 ? n : -ENOENT;
}

// /proc/self/exe names the program as it was started; readlink does not NUL-terminate.
long
sys_readlinkat(u64 dirfd, u64 path, u64 buf, u64 size)
{
  char name[32];
  long n = strncpy_from_user(name, (const char *)path, sizeof(name));
  if(n == -EFAULT)
    return -EFAULT;
  if(n < 0 || strcmp(name, "/proc/self/exe"))
    return -ENOENT;
  if((s64)size <= 0)
    return -EINVAL;
  struct process *p = current->proc;
  u64 len = MIN(strlen(p->path), size);
  return copy_to_user((void *)buf, p->path, len) ? -EFAULT : (long)len;
}

long
sys_readlink(u64 path, u64 buf, u64 size)
{
  return sys_readlinkat(-100, path, buf, size);
}
