// get_mempolicy(2) and set_mempolicy(2) on a machine of one memory node: a thread's policy is
// kept and given back as Linux checks and keeps it, every page is on node 0, and node 0 is all
// a process may use. procps's ps sets and asks them (through libnuma's probe).
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
// to whole longs): one long of node bits, the rest of the caller's buffer cleared; EINVAL
// beyond a page.
static long
copy_nodes_to_user(u64 umask, u64 maxnode, u64 nodes)
{
  u64 copy = ((maxnode - 1 + 63) & ~63UL) / 8;
  if(copy > sizeof(nodes)) {
    if(copy > PAGE_SIZE)
      return -EINVAL;
    if(clear_user((char *)umask + sizeof(nodes), copy - sizeof(nodes)))
      return -EFAULT;
    copy = sizeof(nodes);
  }
  return copy && copy_to_user((void *)umask, &nodes, copy) ? -EFAULT : 0;
}

// The node mask Linux gives back for a policy: the user's own for MPOL_F_STATIC_NODES and
// MPOL_F_RELATIVE_NODES, node 0 for a policy that names nodes, none for the default and local.
static u64
policy_nodes(const struct mempolicy *pol)
{
  int mode = pol->mode & ~MPOL_MODE_FLAGS;
  if(pol->mode & (MPOL_F_STATIC_NODES | MPOL_F_RELATIVE_NODES))
    return pol->user_nodes;
  return mode == MPOL_DEFAULT || mode == MPOL_LOCAL ? 0 : 1;
}

// Linux's kernel_get_mempolicy and do_get_mempolicy, their checks in their order.
long
sys_get_mempolicy(u64 upolicy, u64 umask, u64 maxnode, u64 addr, u64 flags)
{
  struct mempolicy pol = current->mempolicy;
  u64 nodes;
  if(umask && maxnode < NR_NODE_IDS)
    return -EINVAL;
  if(flags & ~(u64)(MPOL_F_NODE | MPOL_F_ADDR | MPOL_F_MEMS_ALLOWED))
    return -EINVAL;
  if(flags & MPOL_F_MEMS_ALLOWED) {
    if(flags & (MPOL_F_NODE | MPOL_F_ADDR))
      return -EINVAL;
    pol = (struct mempolicy){ MPOL_DEFAULT, 0 };
    nodes = 1;
  } else if(flags & MPOL_F_ADDR) {
    // A mapping has no policy of its own here (no mbind): the default's. With MPOL_F_NODE,
    // the node of its page there, which Linux faults in with get_user_pages (failing on
    // PROT_NONE memory): node 0, not faulted in here.
    struct mm *mm = current->mm;
    down_read(&mm->mmap_sem);
    struct vma *v = find_vma(mm, addr);
    bool ok = v && v->start <= addr && (!(flags & MPOL_F_NODE) || (v->flags & VM_PROT));
    up_read(&mm->mmap_sem);
    if(!ok)
      return -EFAULT;
    pol = (struct mempolicy){ MPOL_DEFAULT, 0 };
    nodes = 0;
  } else if(flags & MPOL_F_NODE) {
    if((pol.mode & ~MPOL_MODE_FLAGS) != MPOL_INTERLEAVE)
      return -EINVAL;
    pol.mode = 0;   // the next node to interleave on: node 0
    nodes = policy_nodes(&current->mempolicy);
  } else {
    nodes = policy_nodes(&pol);
  }
  if(upolicy && copy_to_user((void *)upolicy, &pol.mode, sizeof(pol.mode)))
    return -EFAULT;
  return umask ? copy_nodes_to_user(umask, maxnode, nodes) : 0;
}

// Linux's get_nodes: maxnode - 1 bits from umask, bits past MAX_NUMNODES (a Debian kernel's
// CONFIG_NODES_SHIFT=10) required to be 0. Nodes past 63 cannot exist here (one node), so
// their bits only decide whether the mask is empty; *nodes keeps the first 64.
#define MAX_NUMNODES 1024
static long
get_nodes(u64 umask, u64 maxnode, u64 *nodes, bool *empty)
{
  *nodes = 0;
  *empty = true;
  if(--maxnode == 0 || !umask)
    return 0;
  if(maxnode > PAGE_SIZE * 8)
    return -EINVAL;
  for(u64 i = 0; i * 64 < maxnode; i++) {
    u64 w;
    if(copy_from_user(&w, (const u64 *)umask + i, sizeof(w)))
      return -EFAULT;
    if(maxnode - i * 64 < 64)
      w &= (1ULL << (maxnode - i * 64)) - 1;
    if(w && i * 64 >= MAX_NUMNODES)
      return -EINVAL;
    if(i == 0)
      *nodes = w;
    *empty &= w == 0;
  }
  return 0;
}

// Linux's kernel_set_mempolicy: sanitize_mpol_flags, get_nodes, mpol_new and the node mask
// meeting the nodes with memory (node 0), in that order, each with its errno.
long
sys_set_mempolicy(u64 umode, u64 umask, u64 maxnode)
{
  int flags = (int)umode & MPOL_MODE_FLAGS, mode = (int)umode & ~MPOL_MODE_FLAGS;
  if((unsigned)mode >= MPOL_MAX)
    return -EINVAL;
  if((flags & MPOL_F_STATIC_NODES) && (flags & MPOL_F_RELATIVE_NODES))
    return -EINVAL;
  if((flags & MPOL_F_NUMA_BALANCING) && mode != MPOL_BIND)
    return -EINVAL;
  u64 nodes;
  bool empty;
  long err = get_nodes(umask, maxnode, &nodes, &empty);
  if(err)
    return err;
  bool user = flags & (MPOL_F_STATIC_NODES | MPOL_F_RELATIVE_NODES);
  if(mode == MPOL_DEFAULT) {
    if(!empty)
      return -EINVAL;
    current->mempolicy = (struct mempolicy){ MPOL_DEFAULT, 0 };
    return 0;
  }
  if(mode == MPOL_PREFERRED && empty) {
    if(user)
      return -EINVAL;
    mode = MPOL_LOCAL;
  } else if(mode == MPOL_LOCAL) {
    if(!empty || user)
      return -EINVAL;
  } else if(empty) {
    return -EINVAL;
  }
  // The nodes the policy may use: the given ones that have memory (node 0), or for relative
  // nodes the given mask folded onto them (any node maps to node 0); none is EINVAL.
  if(mode != MPOL_LOCAL && !(flags & MPOL_F_RELATIVE_NODES) && !(nodes & 1))
    return -EINVAL;
  current->mempolicy = (struct mempolicy){ mode | flags, user ? nodes : 0 };
  return 0;
}
