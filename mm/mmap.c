// brk, mmap (anonymous and of files) and munmap (man 2 mmap, brk), with Linux's argument checks;
// the VMA work is mm/vma.c's and mm/munmap.c's (Linux's mm/mmap.c).
#include "cmdline.h"
#include "errno.h"
#include "fdtable.h"
#include "fs.h"
#include <asm/memlayout.h>
#include "mm.h"
#include "printk.h"
#include "process.h"
#include "sched.h"
#include "slab.h"
#include "smp.h"
#include "syscalls.h"
#include <asm/uaccess.h>
#include "vm.h"

#define DEV_ZERO MKDEV(1, 5)
#define LLONG_MAX 0x7fffffffffffffffLL

// brk(2): the raw call returns the new break, or the old one on any failure (brk(2), "C
// library/kernel differences").
// The heap grows by MAP_FIXED_NOREPLACE, so it never overwrites another mapping, and the
// mprotect merges the new piece into the heap's VMA.
long
sys_brk(u64 addr)
{
  struct process *p = current->proc;
  struct mm *mm = current->mm;
  if(addr < p->brk_start || addr >= MMAP_BASE)
    return p->brk;
  u64 old = ALIGN_UP(p->brk, PAGE_SIZE), new = ALIGN_UP(addr, PAGE_SIZE);
  if(new > old) {
    long r = vm_mmap(mm, old, new - old, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE);
    if(r < 0)
      return p->brk;
    if(old > p->brk_start)
      vm_mprotect(mm, old - PAGE_SIZE, new - old + PAGE_SIZE, PROT_READ | PROT_WRITE);
  } else if(new < old) {
    vm_munmap(mm, new, old - new);
  }
  p->brk = addr;
  return addr;
}

// Linux's TASK_SIZE: the top page below 2^47 is never mapped (so that SYSRET never returns
// to a non-canonical address), and a range reaching into it is refused as Linux refuses it.
bool
beyond_task_size(u64 addr, u64 len)
{
  return addr >= USER_STACK_TOP || ALIGN_UP(len, PAGE_SIZE) > USER_STACK_TOP - addr;
}

// Flags Linux's mmap ignores (MAP_POPULATE, MAP_LOCKED and the rest) are dropped here.
static int
mmap_flags(u64 flags)
{
  flags &= MAP_SHARED | MAP_PRIVATE | MAP_FIXED | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE;
  if(flags & MAP_FIXED)
    flags &= ~MAP_FIXED_NOREPLACE;
  return (int)flags;
}

// Anonymous memory; a shared mapping is a file's, so that fork keeps it shared (Linux's
// shmem_zero_setup, also for MAP_SHARED of /dev/zero).
static long
mmap_anon(u64 addr, u64 len, u64 prot, u64 flags)
{
  flags = mmap_flags(flags) | MAP_ANONYMOUS;
  if((flags & (MAP_SHARED | MAP_PRIVATE)) == MAP_SHARED)
    return shmem_zero_setup(current->mm, addr, len, (int)prot, (int)flags);
  return vm_mmap(current->mm, addr, len, (int)prot, (int)flags);
}

// A mapping of an open file, with do_mmap's checks in Linux's order: the type (shared,
// validated shared, private), the open mode (EACCES: a shared writable map needs the fd open
// for writing, any map needs it open for reading; a shared map of a read-only fd may never
// become writable), then whether the file can be mapped: a ramfs regular file from its page
// cache, /dev/zero as anonymous memory (Linux's mmap_zero), anything else ENODEV.
static long
mmap_file(struct ufile *uf, u64 addr, u64 len, u64 prot, u64 flags, u64 off)
{
  u32 acc = uf->flags & O_ACCMODE;
  unsigned long vm = VM_MAYWRITE;
  u64 type = flags & MAP_TYPE;
  if(type == MAP_SHARED_VALIDATE) {
    if(flags & ~(MAP_TYPE | MAP_FIXED | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE | 0x0100 | 0x0800 |
                 0x1000 | 0x2000 | 0x4000 | 0x8000 | 0x10000 | 0x20000 | 0x40000))
      return -EOPNOTSUPP;   // a flag Linux's validating type does not know
    flags = (flags & ~MAP_TYPE) | MAP_SHARED;
  } else if(type != MAP_SHARED && type != MAP_PRIVATE) {
    return -EINVAL;
  }
  if(flags & MAP_SHARED) {
    if((prot & PROT_WRITE) && acc == O_RDONLY)
      return -EACCES;
    vm |= VM_SHARED;
    if(acc == O_RDONLY)
      vm &= ~VM_MAYWRITE;
  }
  if(acc == O_WRONLY)
    return -EACCES;
  struct file *f = uf->file;
  if(!f)
    return -ENODEV;   // the console
  struct inode *inode = f->f_inode;
  if(S_ISCHR(inode->i_mode) && inode->i_rdev == DEV_ZERO)
    return mmap_anon(addr, len, prot, flags);
  if(!S_ISREG(inode->i_mode) || f->f_op)
    return -ENODEV;
  if(len && len <= USER_END && off > (u64)LLONG_MAX - ALIGN_UP(len, PAGE_SIZE))
    return -EOVERFLOW;   // Linux's file_mmap_ok
  return vm_mmap_file(current->mm, addr, len, (int)prot, mmap_flags(flags), f,
                      off >> PAGE_SHIFT, vm);
}

// The fd is looked up first, as Linux's ksys_mmap_pgoff does (EBADF before anything but the
// offset's alignment). The mapping takes its own reference on the file: closing the fd
// afterwards leaves it mapped.
long
sys_mmap(u64 addr, u64 len, u64 prot, u64 flags, u64 fd, u64 off)
{
  if(off % PAGE_SIZE)
    return -EINVAL;
  struct ufile *uf = NULL;
  if(!(flags & MAP_ANONYMOUS) && !(uf = fget((int)fd)))
    return -EBADF;
  long r;
  if((flags & (MAP_FIXED | MAP_FIXED_NOREPLACE)) && len && beyond_task_size(addr, len))
    r = -ENOMEM;
  else if(uf)
    r = mmap_file(uf, addr, len, prot, flags, off);
  else
    r = mmap_anon(addr, len, prot, flags);
  if(uf)
    fput(uf);
  return r;
}

long
sys_munmap(u64 addr, u64 len)
{
  if(len && len <= USER_END && beyond_task_size(addr, len))
    return -EINVAL;
  enter_lazy_tlb();   // no user memory touched: other CPUs' shootdowns may wait for the end
  int err = vm_munmap(current->mm, addr, len);
  leave_lazy_tlb();
  return err;
}

// vm.fault_lock=: how a page fault finds and locks its VMA (mm/vma_lock.c). madvise.lock=write
// is the kernel before 2007, whose faults took mmap_sem as well: it keeps them there, so that
// the madvise under the write lock still shuts every fault out, as the seed's kernel did.
// madvise.lock=vma (the default) finds and locks a VMA as a fault does, so it needs
// vm.fault_lock=vma; under vm.fault_lock=mmap_sem madvise takes mmap_sem for reading.
void
vma_lock_init(void)
{
  fault_vma_lock = !kcmdline.fault_lock_mmap_sem && !kcmdline.madvise_lock_write;
  if(fault_vma_lock)
    printk("vm: vm.fault_lock=vma: a page fault locks its VMA alone, found without mmap_sem"
           " (Linux 6.4)\n");
  else
    printk("vm: vm.fault_lock=mmap_sem%s: every page fault takes mmap_sem for reading (Linux"
           " before 6.4)\n", kcmdline.fault_lock_mmap_sem ? "" : " (madvise.lock=write)");
  madvise_vma_lock = fault_vma_lock && !kcmdline.madvise_lock_read;
  if(madvise_vma_lock)
    printk("vm: madvise.lock=vma: MADV_DONTNEED and MADV_FREE within one VMA take its lock,"
           " not mmap_sem (Linux 2025)\n");
  else if(!kcmdline.madvise_lock_write)
    printk("vm: madvise.lock=read%s: MADV_DONTNEED and MADV_FREE take mmap_sem for reading\n",
           kcmdline.madvise_lock_read ? "" : " (vm.fault_lock=mmap_sem)");
}

// vm.pt=: each mm made from here on gets per-core page tables, or not (mm/percore.c). Their
// record of which CPUs copied a page table is a 64-bit word, hence the limit.
void
percore_init(void)
{
  vm_pt_percore = kcmdline.vm_pt_percore && nr_cpu_ids <= 64;
  if(vm_pt_percore)
    printk("vm: vm.pt=percore: each CPU runs an address space on page tables of its own,"
           " filled by its faults; a shootdown goes only to CPUs that copied the range"
           " (RadixVM)\n");
  else if(kcmdline.vm_pt_percore)
    pr_err("vm: vm.pt=percore needs at most 64 CPUs, not %d: vm.pt=shared\n", nr_cpu_ids);
  else
    printk("vm: vm.pt=shared: one page table per address space, as Linux\n");
}

// vm.munmap=: the two phases, or one under mmap_sem as before (to compare the two in one
// image: a build of each would differ in where its code lies too, which moves TCG's results).
void
munmap_init(void)
{
  munmap_range = !kcmdline.vm_munmap_lock;
  if(munmap_range)
    printk("vm: vm.munmap=range: munmap marks its VMAs, then zaps and shoots down with mmap_sem"
           " free (RadixVM's range lock)\n");
  else
    printk("vm: vm.munmap=lock: munmap zaps and shoots down under mmap_sem for write\n");
}
