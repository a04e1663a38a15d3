// printk: format a message, stamp each line with the time, keep it in the log ring, print it.
// One lock around the ring and the UART keeps whole lines from interleaving between CPUs.
#include "printk.h"
#include <asm/processor.h>
#include <asm/serial.h>
#include "spinlock.h"
#include "string.h"
#include "time.h"
#include "vsprintf.h"
#include <stdarg.h>

// The ring the gdb command kdmesg reads: log_buf[(i) % LOG_BUF_SIZE] for i in
// [log_next - LOG_BUF_SIZE, log_next), oldest first.
char log_buf[LOG_BUF_SIZE];
u64 log_next;

static DEFINE_SPINLOCK(log_lock);
static bool panicking;
// The terminal's cursor is not at a line start: console_write_raw's last byte was not a
// newline. A printk line then starts on a new line, so kernel lines stay whole. log_lock.
static bool midline;
// Levels below this reach the console; KERN_DEBUG stays in the ring (Linux's default of 7).
static int console_loglevel = 7;

static void
log_store(const char *s, size_t n)
{
  for(size_t i = 0; i < n; i++)
    log_buf[(log_next + i) % LOG_BUF_SIZE] = s[i];
  log_next += n;
}

// Once a CPU panics, a lock holder may never let go: the panicking CPU takes the
// lock for a bounded time and then prints anyway (Linux's "console bust").
void
printk_panic_mode(void)
{
  WRITE_ONCE(panicking, true);
}

static bool
log_lock_take(void)
{
  if(!READ_ONCE(panicking)) {
    spin_lock(&log_lock);
    return true;
  }
  for(int i = 0; i < 1000000; i++) {
    if(spin_trylock(&log_lock))
      return true;
    cpu_relax();
  }
  return false;
}

int
printk(const char *fmt, ...)
{
  char msg[512];
  char line[600];
  int level = 6;
  va_list ap;

  if(fmt[0] == KERN_SOH[0] && fmt[1] >= '0' && fmt[1] <= '7') {
    level = fmt[1] - '0';
    fmt += 2;
  }
  va_start(ap, fmt);
  int len = vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  if(len >= (int)sizeof(msg))
    len = sizeof(msg) - 1;

  u64 ns = ktime_ns();
  u64 flags = local_irq_save();
  bool locked = log_lock_take();
  // Every line gets the timestamp; a message without a final newline gets one,
  // so one printk is always whole lines.
  const char *p = msg;
  const char *end = msg + len;
  if(midline && level < console_loglevel) {
    serial_write("\n", 1);
    log_store("\n", 1);
    midline = false;
  }
  while(p < end) {
    const char *nl = memchr(p, '\n', end - p);
    size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
    int h = scnprintf(line, sizeof(line), "[%5u.%06u] ", (unsigned)(ns / 1000000000),
                      (unsigned)(ns / 1000 % 1000000));
    if(n > sizeof(line) - h - 1)
      n = sizeof(line) - h - 1;
    memcpy(line + h, p, n);
    line[h + n] = '\n';
    log_store(line, h + n + 1);
    if(level < console_loglevel)
      serial_write(line, h + n + 1);
    p = nl ? nl + 1 : end;
  }
  if(locked)
    spin_unlock(&log_lock);
  local_irq_restore(flags);
  return len;
}

void
printk_line(const char *s, size_t n)
{
  char head[32];
  u64 ns = ktime_ns();
  int h = scnprintf(head, sizeof(head), "[%5u.%06u] ", (unsigned)(ns / 1000000000),
                    (unsigned)(ns / 1000 % 1000000));
  u64 flags = local_irq_save();
  bool locked = log_lock_take();
  if(midline) {
    serial_write("\n", 1);
    log_store("\n", 1);
    midline = false;
  }
  log_store(head, h);
  log_store(s, n);
  log_store("\n", 1);
  serial_write(head, h);
  serial_write(s, n);
  serial_write("\n", 1);
  if(locked)
    spin_unlock(&log_lock);
  local_irq_restore(flags);
}

void
console_write_raw(const char *s, size_t n)
{
  if(!n)
    return;
  u64 flags = local_irq_save();
  bool locked = log_lock_take();
  log_store(s, n);
  for(size_t i = 0; i < n; i++)
    serial_putc(s[i]);
  midline = s[n - 1] != '\n';
  if(locked)
    spin_unlock(&log_lock);
  local_irq_restore(flags);
}
