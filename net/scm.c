// SCM_RIGHTS (man 7 unix, man 3 cmsg): the control messages of sendmsg and recvmsg. A sender's
// fds become references to their open file descriptions, held while the message is in flight;
// a receiver gets new fds on them. Linux's net/core/scm.c.
#include "errno.h"
#include "fdtable.h"
#include "net.h"
#include "process.h"
#include "slab.h"
#include "string.h"
#include <asm/uaccess.h>

// Linux's net.core.optmem_max: a control buffer larger than this is ENOBUFS.
#define OPTMEM_MAX 20480

void
scm_destroy(struct scm_fp_list *fp)
{
  if(!fp)
    return;
  unix_detach_fds(fp);   // out of flight before the puts: a freed file must be off the list
  for(int i = 0; i < fp->count; i++)
    fput(fp->fp[i]);   // may release a socket, and its queue: no lock is held here
  kfree(fp);
}

struct scm_fp_list *
scm_fp_dup(struct scm_fp_list *fp)
{
  struct scm_fp_list *d = kmalloc(sizeof(*d), GFP_KERNEL);
  if(!d)
    return NULL;
  d->count = fp->count;
  d->inflight = false;   // the copies are the peeker's (unix_peek_fds)
  for(int i = 0; i < fp->count; i++) {
    d->fp[i] = fp->fp[i];
    __atomic_add_fetch(&d->fp[i]->refs, 1, __ATOMIC_RELAXED);
  }
  return d;
}

// The SCM_RIGHTS fds of one cmsg onto *fpp (made at the first): EBADF for an fd not open,
// EINVAL past SCM_MAX_FD in all.
static int
scm_fp_copy(const struct cmsghdr *cm, struct scm_fp_list **fpp)
{
  int n = (int)((cm->cmsg_len - sizeof(*cm)) / sizeof(int));
  const int *fds = (const int *)(cm + 1);
  if(n <= 0)
    return 0;
  struct scm_fp_list *fp = *fpp;
  if(!fp) {
    if(!(fp = kmalloc(sizeof(*fp), GFP_KERNEL)))
      return -ENOMEM;
    fp->count = 0;
    fp->inflight = false;
    *fpp = fp;
  }
  if(fp->count + n > SCM_MAX_FD)
    return -EINVAL;
  for(int i = 0; i < n; i++) {
    struct ufile *uf = fget(fds[i]);
    if(!uf)
      return -EBADF;
    fp->fp[fp->count++] = uf;
  }
  return 0;
}

// sendmsg's control buffer: every cmsg checked (a length shorter than its header or past the
// buffer is EINVAL, as Linux's __scm_send); SOL_SOCKET's SCM_RIGHTS taken; SCM_CREDENTIALS
// accepted when it names the caller (EPERM otherwise) and not passed on (SO_PASSCRED delivers
// nothing here); any other EINVAL. *fpp the files, or NULL.
int
scm_send(u64 control, u64 controllen, struct scm_fp_list **fpp)
{
  *fpp = NULL;
  if(!controllen)
    return 0;
  if(controllen > OPTMEM_MAX)
    return -ENOBUFS;
  if(controllen < sizeof(struct cmsghdr))
    return -EINVAL;
  char *buf = kmalloc(controllen, GFP_KERNEL);
  if(!buf)
    return -ENOMEM;
  int err = copy_from_user(buf, (void *)control, controllen) ? -EFAULT : 0;
  for(u64 off = 0; !err && off + sizeof(struct cmsghdr) <= controllen;) {
    struct cmsghdr *cm = (struct cmsghdr *)(buf + off);
    if(cm->cmsg_len < sizeof(*cm) || cm->cmsg_len > controllen - off) {
      err = -EINVAL;
      break;
    }
    if(cm->cmsg_level != SOL_SOCKET) {
      err = -EINVAL;
    } else if(cm->cmsg_type == SCM_RIGHTS) {
      err = scm_fp_copy(cm, fpp);
    } else if(cm->cmsg_type == SCM_CREDENTIALS) {
      struct ucred c;
      if(cm->cmsg_len != CMSG_LEN(sizeof(c))) {
        err = -EINVAL;
      } else {
        memcpy(&c, cm + 1, sizeof(c));
        if(c.pid != (u32)current->proc->pid || c.uid || c.gid)
          err = -EPERM;
      }
    } else {
      err = -EINVAL;
    }
    off += CMSG_ALIGN(cm->cmsg_len);
  }
  kfree(buf);
  if(err) {
    scm_destroy(*fpp);
    *fpp = NULL;
  }
  return err;
}

// recvmsg's SCM_RIGHTS: as many fds as the buffer holds after its header (Linux's
// scm_detach_fds), the rest closed with MSG_CTRUNC; a buffer too short for the header gets
// none. The fds are installed first and the message written after: a fault closes them again.
// Returns the bytes of the buffer used (recvmsg's new msg_controllen).
long
scm_recv(struct scm_fp_list *fp, u64 control, u64 controllen, unsigned flags, u32 *mflags)
{
  int room = controllen > sizeof(struct cmsghdr)
                 ? (int)MIN((controllen - sizeof(struct cmsghdr)) / sizeof(int), (u64)SCM_MAX_FD)
                 : 0;
  int fds[SCM_MAX_FD], n = 0;
  long used = 0;
  if(!control)
    room = 0;
  for(; n < fp->count && n < room; n++) {
    int fd = fd_install(fp->fp[n], 0, flags & MSG_CMSG_CLOEXEC);
    if(fd < 0)
      break;   // EMFILE: the rest are dropped, as Linux's
    fds[n] = fd;
    fp->fp[n] = NULL;   // the fd has the reference now
  }
  if(n) {
    struct cmsghdr cm = { CMSG_LEN(n * sizeof(int)), SOL_SOCKET, SCM_RIGHTS };
    used = (long)MIN((u64)CMSG_SPACE(n * sizeof(int)), controllen);
    if(copy_to_user((void *)control, &cm, sizeof(cm)) ||
       copy_to_user((char *)control + sizeof(cm), fds, n * sizeof(int))) {
      for(int i = 0; i < n; i++)
        fd_close(fds[i]);
      used = -EFAULT;
    }
  }
  if(n < fp->count)
    *mflags |= MSG_CTRUNC;
  for(int i = n; i < fp->count; i++)
    fput(fp->fp[i]);
  kfree(fp);
  return used;
}
