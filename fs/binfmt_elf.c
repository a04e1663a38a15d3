// Loading a static ELF64 executable (ET_EXEC, or ET_DYN without PT_INTERP: static-PIE) into a
// new process's address space, and the initial stack glibc's _start reads: argc, argv, envp
// and the auxiliary vector (System V x86-64 psABI 3.4.1 "Initial Stack and Register State"; Linux's
// fs/binfmt_elf.c create_elf_tables).
#include <asm/cpu.h>
#include "elf.h"
#include "errno.h"
#include <asm/memlayout.h>
#include "mm.h"
#include "printk.h"
#include "process.h"
#include "random.h"
#include "sched.h"
#include "slab.h"
#include "string.h"
#include <asm/traps.h>
#include <asm/uaccess.h>
#include "vm.h"


static int
noexec(struct process *p, const char *why)
{
  printk("exec: %s: %s\n", p->path, why);
  return -ENOEXEC;
}

static int
vm_prot(u32 p_flags)
{
  return (p_flags & PF_R ? PROT_READ : 0) | (p_flags & PF_W ? PROT_WRITE : 0) |
         (p_flags & PF_X ? PROT_EXEC : 0);
}

// Pushes n bytes onto the new stack; 0 on a fault.
static u64
push_bytes(u64 *sp, const void *src, size_t n)
{
  *sp -= n;
  return copy_to_user((void *)*sp, src, n) ? 0 : *sp;
}

static int
count_strings(const char *const v[], size_t *bytes)
{
  int n = 0;
  for(; v && v[n]; n++)
    *bytes += strlen(v[n]) + 1;
  return n;
}

// The stack from the top down: end marker, AT_EXECFN, the environment and argument strings,
// the platform string, AT_RANDOM's 16 bytes, then 16-byte aligned: argc, argv[], NULL, envp[],
// NULL, auxv pairs ending in AT_NULL. rsp points at argc.
static int
setup_stack(struct process *p, const char *const argv[], const char *const envp[],
            u64 *auxv, int nauxv, struct trapframe *tf)
{
  size_t bytes = 0;
  int argc = count_strings(argv, &bytes), envc = count_strings(envp, &bytes);
  if(bytes + 8 * (argc + envc) > ARG_MAX_BYTES)
    return -E2BIG;
  int nwords = 1 + argc + 1 + envc + 1 + nauxv;
  unsigned order = 0;
  while(((size_t)PAGE_SIZE << order) < nwords * sizeof(u64))
    order++;
  u64 *words = (u64 *)__get_free_pages(GFP_KERNEL, order);
  if(!words)
    return -ENOMEM;
  u64 sp = USER_STACK_TOP, zero = 0;
  int err = -EFAULT;
  if(!push_bytes(&sp, &zero, 8))
    goto out;
  u64 execfn = push_bytes(&sp, p->path, strlen(p->path) + 1);
  for(int i = envc - 1; i >= 0; i--)
    if(!(words[2 + argc + i] = push_bytes(&sp, envp[i], strlen(envp[i]) + 1)))
      goto out;
  for(int i = argc - 1; i >= 0; i--)
    if(!(words[1 + i] = push_bytes(&sp, argv[i], strlen(argv[i]) + 1)))
      goto out;
  u64 platform = push_bytes(&sp, "x86_64", 7);
  u8 rnd[16];
  get_random_bytes(rnd, sizeof(rnd));
  u64 random = push_bytes(&sp, rnd, sizeof(rnd));
  if(!execfn || !platform || !random)
    goto out;
  words[0] = argc;
  words[1 + argc] = 0;
  words[2 + argc + envc] = 0;
  u64 *a = &words[3 + argc + envc];
  memcpy(a, auxv, nauxv * sizeof(u64));
  for(int i = 0; i < nauxv; i += 2) {   // fill in the addresses only known now
    if(a[i] == AT_PLATFORM)
      a[i + 1] = platform;
    else if(a[i] == AT_RANDOM)
      a[i + 1] = random;
    else if(a[i] == AT_EXECFN)
      a[i + 1] = execfn;
  }
  sp = ALIGN_DOWN(sp - nwords * sizeof(u64), 16);
  if(copy_to_user((void *)sp, words, nwords * sizeof(u64)))
    goto out;
  tf->rsp = sp;
  err = 0;
out:
  free_pages((unsigned long)words, order);
  return err;
}

// Called with the new address space adopted (use_mm) by the spawning or exec'ing thread;
// tf is the first thread's frame.
int
load_elf(struct process *p, const void *image, size_t len, const char *const argv[],
         const char *const envp[], struct trapframe *tf)
{
  const Elf64_Ehdr *eh = image;
  if(len < sizeof(*eh) || memcmp(eh->e_ident, "\177ELF", 4) || eh->e_ident[4] != 2 ||
     eh->e_ident[5] != 1 || eh->e_machine != EM_X86_64)
    return noexec(p, "not an x86-64 ELF64 little-endian file");
  if(eh->e_type != ET_EXEC && eh->e_type != ET_DYN)
    return noexec(p, "not an executable (ELF type is neither EXEC nor DYN)");
  if(eh->e_phentsize != sizeof(Elf64_Phdr) || eh->e_phnum == 0 || eh->e_phoff > len ||
     eh->e_phnum > (len - eh->e_phoff) / sizeof(Elf64_Phdr))
    return noexec(p, "bad program headers");
  const Elf64_Phdr *ph = (const Elf64_Phdr *)((const u8 *)image + eh->e_phoff);
  u64 lo = ~0UL, hi = 0, phdr = 0;
  for(int i = 0; i < eh->e_phnum; i++) {
    if(ph[i].p_type == PT_INTERP)
      return noexec(p, "dynamically linked (PT_INTERP): only static executables run here");
    if(ph[i].p_type == PT_PHDR)
      phdr = ph[i].p_vaddr;
    if(ph[i].p_type != PT_LOAD)
      continue;
    if(ph[i].p_offset > len || ph[i].p_filesz > len - ph[i].p_offset ||
       ph[i].p_filesz > ph[i].p_memsz || ph[i].p_memsz > USER_END ||
       ph[i].p_vaddr > USER_END - ph[i].p_memsz ||
       ph[i].p_vaddr % PAGE_SIZE != ph[i].p_offset % PAGE_SIZE)
      return noexec(p, "bad PT_LOAD segment");
    lo = MIN(lo, ALIGN_DOWN(ph[i].p_vaddr, PAGE_SIZE));
    hi = MAX(hi, ALIGN_UP(ph[i].p_vaddr + ph[i].p_memsz, PAGE_SIZE));
    if(!phdr && ph[i].p_offset == 0)   // the first segment maps the headers (binfmt_elf's AT_PHDR)
      phdr = ph[i].p_vaddr + eh->e_phoff;
  }
  if(hi == 0)
    return noexec(p, "no PT_LOAD segment");
  u64 base = eh->e_type == ET_DYN ? PIE_BASE - lo : 0;
  if(base + lo < 0x10000 || base + hi > USER_STACK_TOP - USER_STACK_SIZE - (1UL << 30))
    return noexec(p, "segments outside the user address range");
  // The entry as it will run, after the load bias (which wraps for an ET_DYN whose segments
  // start above PIE_BASE): below TASK_SIZE, as Linux's BAD_ADDR check wants it; a kernel or
  // non-canonical one would make the first IRET fault in ring 0.
  if(base + eh->e_entry >= TASK_SIZE)
    return noexec(p, "entry point outside the user address range");
  // Map every segment writable, copy the file's bytes, then give each its own rights: a
  // page two segments share gets the later one's, as Linux's successive mmaps do. Whole
  // pages from the file, so that such a page holds both segments' bytes; the bss past
  // p_filesz is fresh zero pages.
  struct mm *mm = current->mm;   // the adopted one: execve's new mm, not yet p->mm
  for(int i = 0; i < eh->e_phnum; i++) {
    if(ph[i].p_type != PT_LOAD || ph[i].p_memsz == 0)
      continue;
    u64 start = ALIGN_DOWN(base + ph[i].p_vaddr, PAGE_SIZE);
    u64 end = ALIGN_UP(base + ph[i].p_vaddr + ph[i].p_memsz, PAGE_SIZE);
    long r = vm_mmap(mm, start, end - start, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED);
    if(r < 0)
      return (int)r;
  }
  for(int i = 0; i < eh->e_phnum; i++) {
    if(ph[i].p_type != PT_LOAD || ph[i].p_filesz == 0)
      continue;
    u64 skew = ph[i].p_offset % PAGE_SIZE;
    if(copy_to_user((void *)(base + ph[i].p_vaddr - skew), (const u8 *)image + ph[i].p_offset - skew,
                    ph[i].p_filesz + skew))
      return -EFAULT;
  }
  for(int i = 0; i < eh->e_phnum; i++) {
    if(ph[i].p_type != PT_LOAD || ph[i].p_memsz == 0)
      continue;
    u64 start = ALIGN_DOWN(base + ph[i].p_vaddr, PAGE_SIZE);
    u64 end = ALIGN_UP(base + ph[i].p_vaddr + ph[i].p_memsz, PAGE_SIZE);
    int r = vm_mprotect(mm, start, end - start, vm_prot(ph[i].p_flags));
    if(r < 0)
      return r;
  }
  // The stack: RLIMIT_STACK's 8 MiB reserved, paged in on demand; never executable
  // (PT_GNU_STACK is RW in every binary gcc makes here).
  long r = vm_mmap(mm, USER_STACK_TOP - USER_STACK_SIZE, USER_STACK_SIZE, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED);
  if(r < 0)
    return (int)r;
  p->brk_start = p->brk = base + hi;
  u64 auxv[] = {
    AT_HWCAP, elf_hwcap(), AT_PAGESZ, PAGE_SIZE, AT_CLKTCK, 100,
    AT_PHDR, phdr ? base + phdr : 0, AT_PHENT, sizeof(Elf64_Phdr), AT_PHNUM, eh->e_phnum,
    AT_BASE, 0, AT_FLAGS, 0, AT_ENTRY, base + eh->e_entry,
    AT_UID, 0, AT_EUID, 0, AT_GID, 0, AT_EGID, 0, AT_SECURE, 0,
    AT_RANDOM, 0, AT_HWCAP2, 0, AT_EXECFN, 0, AT_PLATFORM, 0, AT_NULL, 0,
  };
  memset(tf, 0, sizeof(*tf));   // every register zero at entry; rdx = 0 is "no rtld_fini"
  int err = setup_stack(p, argv, envp, auxv, sizeof(auxv) / sizeof(auxv[0]), tf);
  if(err)
    return err;
  tf->rip = base + eh->e_entry;
  tf->cs = SEG_UCODE;
  tf->ss = SEG_UDATA;
  tf->rflags = 0x202;   // IF, and the always-one bit
  return 0;
}
