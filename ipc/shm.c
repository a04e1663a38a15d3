// System V shared memory (man 2 shmget, shmat, shmdt, shmctl; Linux's ipc/shm.c): a segment is
// an unnamed shmem file (mm/shmem.c) that shmat maps MAP_SHARED; its pages live while the
// segment is in the table or any mapping holds the file, so IPC_RMID right after shmat (the
// usual idiom) keeps the memory of every process attached, forked children included.
#include "errno.h"
#include "fs.h"
#include "ipc.h"
#include "process.h"
#include "slab.h"
#include "syscalls.h"
#include "time.h"
#include "vm.h"
#include <asm/uaccess.h>
#include "uapi/ipc.h"
#include "uapi/mman.h"

struct shmid_kernel {
  struct kern_ipc_perm perm;
  struct file *file;      // the segment's reference; each mapping holds its own
  size_t size;            // as asked; the file is whole pages
  s64 atime, dtime, ctime;   // seconds, under perm.lock
  int cpid, lpid;            // under perm.lock
};

// A segment's file says so in its private_data: shmdt detaches these only, not a
// MAP_SHARED|MAP_ANONYMOUS mapping, whose file is shmem's too (Linux tells them by shm_vm_ops).
static const char sysv_shm_mark;

static bool
is_sysv_shm(const struct file *f)
{
  return is_shmem_file(f) && f->private_data == &sysv_shm_mark;
}

static void
shm_free(struct kern_ipc_perm *p)
{
  struct shmid_kernel *shp = container_of(p, struct shmid_kernel, perm);
  vfs_close(shp->file);   // the pages go with the last mapping's reference
  kfree(shp);
}

static struct ipc_ids shm_ids = { .mutex = MUTEX_INIT(shm_ids.mutex), .free = shm_free };

static s64
now_sec(void)
{
  return (s64)(realtime_ns() / NSEC_PER_SEC);
}

static struct kern_ipc_perm *
shm_make(void *arg, long *err)
{
  size_t size = *(size_t *)arg;
  if(size < SHMMIN || size > SHMMAX) {
    *err = -EINVAL;
    return NULL;
  }
  struct shmid_kernel *shp = kzalloc(sizeof(*shp), GFP_KERNEL);
  struct file *f = shp ? shmem_file_setup(size) : NULL;
  if(!f) {
    kfree(shp);
    *err = -ENOMEM;
    return NULL;
  }
  f->private_data = (void *)&sysv_shm_mark;
  shp->file = f;
  shp->size = size;
  shp->ctime = now_sec();
  shp->cpid = current->proc->pid;
  return &shp->perm;
}

// An existing segment smaller than asked for is EINVAL (shmget(2)).
static long
shm_check(struct kern_ipc_perm *p, void *arg)
{
  return container_of(p, struct shmid_kernel, perm)->size < *(size_t *)arg ? -EINVAL : 0;
}

long
sys_shmget(u64 key, u64 size, u64 flg)
{
  size_t sz = size;
  return ipcget(&shm_ids, (int)key, (int)flg, shm_make, shm_check, &sz);
}

// shmat(2): at addr (rounded down under SHM_RND, else it must be page-aligned; the range must
// be free unless SHM_REMAP), or where the kernel chooses; read-only under SHM_RDONLY.
long
sys_shmat(u64 id, u64 addr, u64 flg)
{
  if(addr & (PAGE_SIZE - 1)) {
    if(!(flg & SHM_RND))
      return -EINVAL;
    addr &= ~(u64)(PAGE_SIZE - 1);
  }
  if(addr == 0 && (flg & SHM_REMAP))
    return -EINVAL;
  struct kern_ipc_perm *p = ipc_obtain(&shm_ids, (int)id);
  if(!p)
    return -EINVAL;
  struct shmid_kernel *shp = container_of(p, struct shmid_kernel, perm);
  bool ro = flg & SHM_RDONLY;
  int prot = PROT_READ | (ro ? 0 : PROT_WRITE) | (flg & SHM_EXEC ? PROT_EXEC : 0);
  int flags = MAP_SHARED | (addr ? (flg & SHM_REMAP ? MAP_FIXED : MAP_FIXED_NOREPLACE) : 0);
  long r = vm_mmap_file(current->mm, addr, shp->size, prot, flags, shp->file, 0,
                        VM_SHARED | (ro ? 0 : VM_MAYWRITE));
  if(r == -EEXIST)
    r = -EINVAL;   // Linux's do_shmat: a range already mapped, without SHM_REMAP
  if(r >= 0) {
    spin_lock(&p->lock);
    shp->atime = now_sec();
    shp->lpid = current->proc->pid;
    spin_unlock(&p->lock);
  }
  ipc_put(&shm_ids, p);
  return r;
}

static bool
has_file(struct kern_ipc_perm *p, const void *f)
{
  return container_of(p, struct shmid_kernel, perm)->file == f;
}

// The segment whose file f is, referenced, or NULL (removed already: no times to set).
static struct shmid_kernel *
shm_of_file(struct file *f)
{
  struct kern_ipc_perm *p = ipc_find(&shm_ids, has_file, f);
  return p ? container_of(p, struct shmid_kernel, perm) : NULL;
}

// shmdt(2): the attachment that starts at addr, and the mappings of the same segment that
// follow it without a gap (an mprotect may have split it), as Linux's shmdt.
long
sys_shmdt(u64 addr)
{
  if(addr & (PAGE_SIZE - 1))
    return -EINVAL;
  struct mm *mm = current->mm;
  down_read(&mm->mmap_sem);
  struct vma *v = find_vma(mm, addr);
  struct file *f = v && v->start == addr && v->pgoff == 0 && is_sysv_shm(v->file) ? v->file
                                                                                     : NULL;
  unsigned long end = addr;
  if(f) {
    get_file(f);
    for(; v && v->file == f && v->start == end; v = vma_next(mm, v))
      end = v->end;
  }
  up_read(&mm->mmap_sem);
  if(!f)
    return -EINVAL;
  long r = vm_munmap(mm, addr, end - addr);
  struct shmid_kernel *shp = shm_of_file(f);
  if(shp) {
    spin_lock(&shp->perm.lock);
    shp->dtime = now_sec();
    shp->lpid = current->proc->pid;
    spin_unlock(&shp->perm.lock);
    ipc_put(&shm_ids, &shp->perm);
  }
  vfs_close(f);
  return r;
}

// Attachments: every VMA that maps the segment's file, in any process.
static u64
shm_nattch(struct shmid_kernel *shp)
{
  struct inode *inode = shp->file->f_inode;
  u64 n = 0;
  spin_lock(&inode->i_mmap_lock);
  for(struct list_head *l = inode->i_mmap.next; l != &inode->i_mmap; l = l->next)
    n++;
  spin_unlock(&inode->i_mmap_lock);
  return n;
}

static long
shm_stat(struct shmid_kernel *shp, u64 ubuf)
{
  struct shmid64_ds ds = { 0 };
  spin_lock(&shp->perm.lock);
  ipc_fill_perm(&shp->perm, &ds.shm_perm);
  ds.shm_segsz = shp->size;
  ds.shm_atime = shp->atime;
  ds.shm_dtime = shp->dtime;
  ds.shm_ctime = shp->ctime;
  ds.shm_cpid = shp->cpid;
  ds.shm_lpid = shp->lpid;
  spin_unlock(&shp->perm.lock);
  ds.shm_nattch = shm_nattch(shp);
  return copy_to_user((void *)ubuf, &ds, sizeof(ds)) ? -EFAULT : 0;
}

long
sys_shmctl(u64 id, u64 cmd, u64 ubuf)
{
  switch(cmd) {
  case IPC_INFO: {
    struct shminfo64 info = { .shmmax = SHMMAX, .shmmin = SHMMIN, .shmmni = IPC_MNI,
                              .shmseg = IPC_MNI, .shmall = SHMMAX >> PAGE_SHIFT };
    if(copy_to_user((void *)ubuf, &info, sizeof(info)))
      return -EFAULT;
    int hi = ipc_highest_slot(&shm_ids);
    return hi < 0 ? 0 : hi;
  }
  case SHM_INFO: {
    struct shm_info info = { .used_ids = shm_ids.in_use };
    if(copy_to_user((void *)ubuf, &info, sizeof(info)))
      return -EFAULT;
    int hi = ipc_highest_slot(&shm_ids);
    return hi < 0 ? 0 : hi;
  }
  case SHM_STAT:
  case SHM_STAT_ANY: {   // id is a slot; the answer is the slot's id
    struct kern_ipc_perm *p = ipc_obtain_slot(&shm_ids, (int)id);
    if(!p)
      return -EINVAL;
    long r = shm_stat(container_of(p, struct shmid_kernel, perm), ubuf);
    if(!r)
      r = p->id;
    ipc_put(&shm_ids, p);
    return r;
  }
  case IPC_STAT:
  case IPC_SET:
  case IPC_RMID:
  case SHM_LOCK:
  case SHM_UNLOCK:
    break;
  default:
    return -EINVAL;
  }
  struct ipc64_perm in;
  if(cmd == IPC_SET && copy_from_user(&in, (const void *)ubuf, sizeof(in)))
    return -EFAULT;   // struct shmid64_ds begins with its ipc64_perm
  struct kern_ipc_perm *p = ipc_obtain(&shm_ids, (int)id);
  if(!p)
    return -EINVAL;
  struct shmid_kernel *shp = container_of(p, struct shmid_kernel, perm);
  long r = 0;
  if(cmd == IPC_STAT) {
    r = shm_stat(shp, ubuf);
  } else if(cmd == IPC_SET) {
    spin_lock(&p->lock);
    ipc_set_perm(p, &in);
    shp->ctime = now_sec();
    spin_unlock(&p->lock);
  } else if(cmd == IPC_RMID) {
    ipc_rmid(&shm_ids, p);   // the memory stays with the attachments
  }   // SHM_LOCK, SHM_UNLOCK: nothing here is ever swapped
  ipc_put(&shm_ids, p);
  return r;
}
