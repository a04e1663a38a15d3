// /dev/null and /dev/zero (major 1, as Linux's drivers/char/mem.c): null reads end-of-file and
// swallows writes; zero reads zeros and swallows writes. Neither moves the file position.
#include "fs.h"
#include "printk.h"
#include "sched.h"
#include "string.h"

static ssize_t
null_read(struct file *f, void *buf, size_t len, u64 *pos)
{
  return 0;
}

static ssize_t
null_write(struct file *f, const void *buf, size_t len, u64 *pos)
{
  return len;
}

// A page at a time, so a huge read still reschedules.
static ssize_t
zero_read(struct file *f, void *buf, size_t len, u64 *pos)
{
  for(size_t done = 0; done < len;) {
    size_t n = MIN(len - done, PAGE_SIZE);
    memset((char *)buf + done, 0, n);
    done += n;
    cond_resched();
  }
  return len;
}

static const struct file_operations null_fops = { .read = null_read, .write = null_write };
static const struct file_operations zero_fops = { .read = zero_read, .write = null_write };

void
mem_dev_init(void)
{
  if(register_chrdev(MKDEV(1, 3), "null", &null_fops) ||
     register_chrdev(MKDEV(1, 5), "zero", &zero_fops))
    pr_err("vfs: cannot register /dev/null and /dev/zero\n");
}
