// get_mempolicy(2) on a machine of one memory node: every policy is MPOL_DEFAULT, every page
// is on node 0, and node 0 is all a process may use. procps's ps asks it (NUMA columns).
#include "errno.h"
#include "mm.h"
#include "process.h"
#include "rwsem.h"
#include "sched.h"
#include "syscalls.h"
#include "uapi/mempolicy.h"
#include "vm.h"
#include <asm/uaccess.h>

#define NR_NODE_IDS 1   // Linux's nr_node_ids: node 0 alone

// The mask of maxnode bits (Linux's copy_nodes_to_user counts maxnode - 1 of them, rounded up
// to whole longs): one long of node bits (node 0 set when mems is), the rest of the caller's
// buffer cleared; EINVAL beyond a page.
static long
copy_nodes_to_user(u64 umask, u64 maxnode, bool mems)
{
  u64 copy = ((maxnode - 1 + 63) & ~63UL) / 8, nodes = mems ? 1 : 0;
  if(copy > sizeof(nodes)) {
    if(copy > PAGE_SIZE)
      return -EINVAL;
    if(clear_user((char *)umask + sizeof(nodes), copy - sizeof(nodes)))
      return -EFAULT;
    copy = sizeof(nodes);
  }
  return copy && copy_to_user((void *)umask, &nodes, copy) ? -EFAULT : 0;
}

// Linux's kernel_get_mempolicy and do_get_mempolicy, their checks in their order.
long
sys_get_mempolicy(u64 upolicy, u64 umask, u64 maxnode, u64 addr, u64 flags)
{
  int mode = MPOL_DEFAULT;
  bool mems = false;
  if(umask && maxnode < NR_NODE_IDS)
    return -EINVAL;
  if(flags & ~(u64)(MPOL_F_NODE | MPOL_F_ADDR | MPOL_F_MEMS_ALLOWED))
    return -EINVAL;
  if(flags & MPOL_F_MEMS_ALLOWED) {
    if(flags & (MPOL_F_NODE | MPOL_F_ADDR))
      return -EINVAL;
    mems = true;
  } else if(flags & MPOL_F_ADDR) {
    // The mapping's policy (MPOL_DEFAULT), or with MPOL_F_NODE the node of its page there,
    // which Linux faults in with get_user_pages (it fails on PROT_NONE memory): node 0, not
    // faulted in here.
    struct mm *mm = current->mm;
    down_read(&mm->mmap_sem);
    struct vma *v = find_vma(mm, addr);
    bool ok = v && v->start <= addr && (!(flags & MPOL_F_NODE) || (v->flags & VM_PROT));
    up_read(&mm->mmap_sem);
    if(!ok)
      return -EFAULT;
  } else if(flags & MPOL_F_NODE) {
    return -EINVAL;   // the next interleave node: no process has MPOL_INTERLEAVE
  }
  if(upolicy && copy_to_user((void *)upolicy, &mode, sizeof(mode)))
    return -EFAULT;
  return umask ? copy_nodes_to_user(umask, maxnode, mems) : 0;
}
