// /proc/<pid>/maps: one line per mapping, in Linux's format (proc(5); fs/proc/task_mmu.c's
// show_map_vma), read by gdb, sanitizers, Go's and Java's runtimes and pmap.
#include "errno.h"
#include "fs.h"
#include "proc_internal.h"
#include "slab.h"
#include "string.h"
#include "vm.h"
#include "vsprintf.h"
#include <asm/vsyscall.h>

// A line names its file from column 73 on: Linux pads "start-end perms offset dev ino " to
// 25 + 6 * sizeof(void *) - 1 characters, then one space (seq_setwidth, seq_pad).
#define NAME_COLUMN 72
#define LINE_MAX (NAME_COLUMN + PATH_MAX + 16)

// Where the last read stopped: the line of the first mapping at or above addr starts at byte
// pos. A reader going on from there resumes at that mapping rather than formatting every line
// before it again, as seq_file keeps its place. Mappings that changed between two reads move
// the text under the reader, as on Linux.
struct maps_cursor {
  u64 pos;
  unsigned long addr;
};

// One mapping's line into line (LINE_MAX bytes): its length.
static size_t
map_line(char *line, unsigned long start, unsigned long end, unsigned long flags,
         u64 offset, unsigned long ino, const char *name)
{
  size_t n = scnprintf(line, LINE_MAX, "%08lx-%08lx %c%c%c%c %08llx %02x:%02x %lu ", start, end,
                       flags & VM_READ ? 'r' : '-', flags & VM_WRITE ? 'w' : '-',
                       flags & VM_EXEC ? 'x' : '-', flags & VM_SHARED ? 's' : 'p',
                       (unsigned long long)offset, 0, ino ? 1 : 0, ino);   // st_dev 1: the ramfs
  if(name) {
    while(n < NAME_COLUMN)
      line[n++] = ' ';
    n += scnprintf(line + n, LINE_MAX - n, " %s", name);
  }
  return n + scnprintf(line + n, LINE_MAX - n, "\n");
}

// The name Linux gives a mapping: its file's path (" (deleted)" once unlinked), [heap] for
// the one holding the break, [stack] for the one at the stack's top; none for other
// anonymous memory. pathbuf is PATH_MAX bytes.
static const char *
map_name(struct vma *v, unsigned long brk_start, unsigned long brk, char *pathbuf)
{
  if(v->file) {
    char *path;
    struct dentry *d = v->file->f_dentry;
    if(!d || d_path(d, pathbuf, PATH_MAX - 12, &path) != 0)
      return NULL;   // a file with no name (shared anonymous memory, a SysV segment)
    if(d_unlinked(d))
      strlcpy(path + strlen(path), " (deleted)", 12);
    return path;
  }
  if(v->start <= brk && v->end >= brk_start && brk_start)
    return "[heap]";
  if(v->end == USER_STACK_TOP)
    return "[stack]";
  return NULL;
}

// Copies the part of line (n bytes, at byte at of the text) that [*pos, *pos + len) wants.
static size_t
emit(const char *line, size_t n, u64 at, char *buf, size_t len, u64 *pos, size_t done)
{
  if(at + n <= *pos + done || done == len)
    return 0;
  size_t skip = *pos + done - at, c = MIN(n - skip, len - done);
  memcpy(buf + done, line + skip, c);
  return c;
}

static ssize_t
maps_read(struct file *f, void *ubuf, size_t len, u64 *pos)
{
  char *buf = ubuf;
  struct mm *mm = NULL;
  unsigned long brk_start = 0, brk = 0;
  rcu_read_lock();
  struct process *p = pid_process_rcu((int)f->f_inode->i_private);
  if(p) {
    mm = READ_ONCE(p->mm);
    if(mm && !mmget_not_zero(mm))
      mm = NULL;
    brk_start = READ_ONCE(p->brk_start);
    brk = READ_ONCE(p->brk);
  }
  rcu_read_unlock();
  if(!p)
    return -ESRCH;
  char *line = kmalloc(LINE_MAX + PATH_MAX, GFP_KERNEL);
  if(!line) {
    if(mm)
      mmput(mm);
    return -ENOMEM;
  }
  char *pathbuf = line + LINE_MAX;
  // Threads sharing the file each take the cursor or none: no lock, nothing shared.
  struct maps_cursor *cur = __atomic_exchange_n((struct maps_cursor **)&f->private_data, NULL,
                                                __ATOMIC_ACQUIRE);
  u64 at = 0;
  unsigned long addr = 0;
  if(cur && cur->pos <= *pos) {
    at = cur->pos;
    addr = cur->addr;
  }
  size_t done = 0, n;
  struct maps_cursor mark = { at, addr };
  if(mm && mm->user) {
    down_read(&mm->mmap_sem);
    struct vma *v = find_vma(mm, addr);
    if(v && v->start < addr)
      v = vma_next(mm, v);   // a mapping that grew below the mark was shown already
    for(; v && done < len; v = vma_next(mm, v)) {
      if(at <= *pos + done)   // the line the next read will begin in, as far as known
        mark = (struct maps_cursor){ at, v->start };
      n = map_line(line, v->start, v->end, v->flags, v->file ? (u64)v->pgoff << PAGE_SHIFT : 0,
                   v->file ? v->file->f_inode->i_ino : 0, map_name(v, brk_start, brk, pathbuf));
      done += emit(line, n, at, buf, len, pos, done);
      at += n;
    }
    up_read(&mm->mmap_sem);
  }
  if(mm)
    mmput(mm);
  // Linux lists the vsyscall page last, for every process (its gate VMA); xonly: execute only.
  n = map_line(line, VSYSCALL_ADDR, VSYSCALL_ADDR + PAGE_SIZE, VM_EXEC, 0, 0, "[vsyscall]");
  done += emit(line, n, at, buf, len, pos, done);
  kfree(line);
  if(!cur)
    cur = kmalloc(sizeof(*cur), GFP_KERNEL);   // out of memory: the next read starts over
  if(cur)
    *cur = mark;
  if(cur && !__atomic_compare_exchange_n((struct maps_cursor **)&f->private_data,
                                         &(struct maps_cursor *){ NULL }, cur, false,
                                         __ATOMIC_RELEASE, __ATOMIC_RELAXED))
    kfree(cur);   // another thread's read put its own back first
  *pos += done;
  return done;
}

static void
maps_release(struct file *f)
{
  kfree(f->private_data);
}

const struct file_operations proc_maps_fops = { .read = maps_read, .release = maps_release };
