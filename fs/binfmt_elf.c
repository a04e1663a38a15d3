// Loading an ELF64 executable into a new process's address space: its PT_LOAD segments mapped
// from the file's page cache (private: a read fault shares the cached page, the first write
// copies it), and for a dynamically linked program the interpreter its PT_INTERP names
// (ld.so), mapped the same way at an address of its own; then the initial stack _start reads:
// argc, argv, envp and the auxiliary vector (System V x86-64 psABI 3.4.1 "Initial Stack and
// Register State"; Linux's fs/binfmt_elf.c load_elf_binary, load_elf_interp, create_elf_tables).
#include <asm/cpu.h>
#include "elf.h"
#include "errno.h"
#include "fs.h"
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
#include "uapi/limits.h"
#include "vm.h"

// At most this many bytes of program headers (Linux's load_elf_phdrs: 64 KiB).
#define ELF_PHDRS_MAX 65536

// One ELF file as the loader reads it: the header, the program headers, and the page-aligned
// span its PT_LOAD segments cover before any load bias.
struct elf_file {
  struct file *file;
  u64 size;
  Elf64_Ehdr eh;
  Elf64_Phdr *ph;   // kmalloc'd, eh.e_phnum of them
  u64 lo, hi;
};

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

// The file's bytes [pos, pos + len): 0, or -EIO when the file ends before (Linux's elf_read).
static int
elf_read(struct file *f, void *buf, size_t len, u64 pos)
{
  ssize_t n = vfs_pread(f, buf, len, pos);
  if(n < 0)
    return (int)n;
  return (size_t)n == len ? 0 : -EIO;
}

// Reads f's headers into e and checks them: 0, or -ENOEXEC with *why naming what is wrong (the
// caller words it: the program's or its interpreter's), -EIO for a file shorter than an ELF
// header, -ENOMEM.
static int
elf_open(struct elf_file *e, struct file *f, const char **why)
{
  memset(e, 0, sizeof(*e));
  e->file = f;
  struct kstat st;
  int err = vfs_fstat(f, &st);
  if(err)
    return err;
  e->size = st.size;
  *why = "shorter than an ELF header";
  if((err = elf_read(f, &e->eh, sizeof(e->eh), 0)))
    return err;
  const Elf64_Ehdr *eh = &e->eh;
  *why = "not an x86-64 ELF64 little-endian file";
  if(memcmp(eh->e_ident, "\177ELF", 4) || eh->e_ident[4] != 2 || eh->e_ident[5] != 1 ||
     eh->e_machine != EM_X86_64)
    return -ENOEXEC;
  *why = "not an executable (ELF type is neither EXEC nor DYN)";
  if(eh->e_type != ET_EXEC && eh->e_type != ET_DYN)
    return -ENOEXEC;
  *why = "bad program headers";
  size_t bytes = (size_t)eh->e_phnum * sizeof(Elf64_Phdr);
  if(eh->e_phentsize != sizeof(Elf64_Phdr) || eh->e_phnum == 0 || bytes > ELF_PHDRS_MAX ||
     eh->e_phoff > e->size || bytes > e->size - eh->e_phoff)
    return -ENOEXEC;
  if(!(e->ph = kmalloc(bytes, GFP_KERNEL)))
    return -ENOMEM;
  if((err = elf_read(f, e->ph, bytes, eh->e_phoff)))
    return err == -EIO ? -ENOEXEC : err;   // the file shrank since fstat
  e->lo = ~0UL;
  *why = "bad PT_LOAD segment";
  for(int i = 0; i < eh->e_phnum; i++) {
    const Elf64_Phdr *ph = &e->ph[i];
    if(ph->p_type != PT_LOAD)
      continue;
    if(ph->p_offset > e->size || ph->p_filesz > e->size - ph->p_offset ||
       ph->p_filesz > ph->p_memsz || ph->p_memsz > USER_END ||
       ph->p_vaddr > USER_END - ph->p_memsz ||
       ph->p_vaddr % PAGE_SIZE != ph->p_offset % PAGE_SIZE)
      return -ENOEXEC;
    e->lo = MIN(e->lo, ALIGN_DOWN(ph->p_vaddr, PAGE_SIZE));
    e->hi = MAX(e->hi, ALIGN_UP(ph->p_vaddr + ph->p_memsz, PAGE_SIZE));
  }
  *why = "no PT_LOAD segment";
  return e->hi ? 0 : -ENOEXEC;
}

static void
elf_close(struct elf_file *e)
{
  kfree(e->ph);
  e->ph = NULL;
}

// Maps e's PT_LOAD segments into mm at load bias base, as Linux's elf_map and padzero do: the
// segment's pages of the file, privately; the rest of its last file page zeroed (the first
// write copies that page); anonymous zero pages for the bss past it. A page two segments share
// takes the later one's mapping (MAP_FIXED), as Linux's successive mmaps give it.
static int
elf_map(struct mm *mm, const struct elf_file *e, u64 base)
{
  for(int i = 0; i < e->eh.e_phnum; i++) {
    const Elf64_Phdr *ph = &e->ph[i];
    if(ph->p_type != PT_LOAD || ph->p_memsz == 0)
      continue;
    int prot = vm_prot(ph->p_flags);
    u64 addr = base + ph->p_vaddr, start = ALIGN_DOWN(addr, PAGE_SIZE);
    u64 fend = ph->p_filesz ? ALIGN_UP(addr + ph->p_filesz, PAGE_SIZE) : start;
    u64 end = ALIGN_UP(addr + ph->p_memsz, PAGE_SIZE);
    // The bytes after the file's in its last page, zeroed when the bss begins there.
    size_t tail = fend > start && ph->p_filesz < ph->p_memsz ? fend - (addr + ph->p_filesz) : 0;
    if(fend > start) {
      long r = vm_mmap_file(mm, start, fend - start, tail ? prot | PROT_WRITE : prot,
                            MAP_PRIVATE | MAP_FIXED, e->file,
                            (ph->p_offset - (addr - start)) >> PAGE_SHIFT, VM_MAYWRITE);
      if(r < 0)
        return (int)r;
    }
    if(tail) {
      if(clear_user((void *)(addr + ph->p_filesz), tail))
        return -EFAULT;
      if(!(prot & PROT_WRITE)) {
        int err = vm_mprotect(mm, start, fend - start, prot);
        if(err)
          return err;
      }
    }
    if(end > fend) {
      long r = vm_mmap(mm, fend, end - fend, prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED);
      if(r < 0)
        return (int)r;
    }
  }
  return 0;
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

// The interpreter the program's first PT_INTERP names, opened, as Linux's load_elf_binary
// checks it: ENOEXEC for a name shorter than 2 bytes, longer than PATH_MAX or not
// NUL-terminated; then open_exec's errors (ENOENT, ENOTDIR, EACCES, ...). *fp stays NULL for
// a program without one.
static int
open_interp(struct process *p, const struct elf_file *exe, struct file **fp, char **name)
{
  const Elf64_Phdr *ph = NULL;
  for(int i = 0; i < exe->eh.e_phnum && !ph; i++)
    if(exe->ph[i].p_type == PT_INTERP)
      ph = &exe->ph[i];
  if(!ph)
    return 0;
  if(ph->p_filesz < 2 || ph->p_filesz > PATH_MAX)
    return noexec(p, "PT_INTERP: a name shorter than 2 bytes or longer than PATH_MAX");
  char *s = kmalloc(ph->p_filesz, GFP_KERNEL);
  if(!s)
    return -ENOMEM;
  int err = elf_read(exe->file, s, ph->p_filesz, ph->p_offset);
  if(!err && s[ph->p_filesz - 1])
    err = noexec(p, "PT_INTERP: the name is not NUL-terminated");
  if(!err)
    err = open_exec(s, 0, fp);
  if(err) {
    kfree(s);
    return err;
  }
  *name = s;
  return 0;
}

// Maps the interpreter in (opened from f): an ET_DYN one wherever mmap finds room for its
// whole span, each segment then put in its place there (Linux's load_elf_interp), an ET_EXEC
// one at its own addresses; *base is its load bias (AT_BASE). An interpreter that is not one
// is ELIBBAD with a console line: Linux answers so for a bad magic or machine, and ends the
// process with SIGSEGV, past the point of no return, for the rest of what is checked here.
static int
map_interp(struct process *p, struct mm *mm, struct elf_file *in, struct file *f,
           const char *name, u64 *base)
{
  const char *why;
  int err = elf_open(in, f, &why);
  if(err == -ENOEXEC) {
    printk("exec: %s: interpreter %s: %s\n", p->path, name, why);
    return -ELIBBAD;
  }
  if(err)
    return err;
  u64 b = 0;
  if(in->eh.e_type == ET_DYN) {
    long r = vm_mmap(mm, 0, in->hi - in->lo, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS);
    if(r < 0)
      return (int)r;
    b = r - in->lo;
  }
  if(b + in->lo < 0x10000 || b + in->hi > USER_STACK_TOP - USER_STACK_SIZE ||
     b + in->eh.e_entry >= TASK_SIZE) {
    printk("exec: %s: interpreter %s: segments or entry outside the user address range\n",
           p->path, name);
    return -ELIBBAD;
  }
  *base = b;
  return elf_map(mm, in, b);
}

// Called with the new address space adopted (use_mm) by the spawning or exec'ing thread; f
// is the program, opened (each mapping takes its own reference); tf is the first thread's
// frame. 0, or -errno with nothing of the old program touched.
int
load_elf(struct process *p, struct file *f, const char *const argv[], const char *const envp[],
         struct trapframe *tf)
{
  struct elf_file exe, in = { 0 };
  struct file *interp = NULL;
  char *iname = NULL;
  const char *why;
  int err = elf_open(&exe, f, &why);
  if(err == -ENOEXEC || err == -EIO)
    err = noexec(p, why);
  if(!err)
    err = open_interp(p, &exe, &interp, &iname);
  if(err)
    goto out;
  const Elf64_Ehdr *eh = &exe.eh;
  u64 phdr = 0;
  for(int i = 0; i < eh->e_phnum; i++) {
    if(exe.ph[i].p_type == PT_PHDR)
      phdr = exe.ph[i].p_vaddr;
    else if(exe.ph[i].p_type == PT_LOAD && !phdr && exe.ph[i].p_offset == 0)
      phdr = exe.ph[i].p_vaddr + eh->e_phoff;   // the first segment maps the headers
  }
  u64 base = eh->e_type == ET_DYN ? PIE_BASE - exe.lo : 0;
  if(base + exe.lo < 0x10000 || base + exe.hi > USER_STACK_TOP - USER_STACK_SIZE - (1UL << 30)) {
    err = noexec(p, "segments outside the user address range");
    goto out;
  }
  // The entry as it will run, after the load bias (which wraps for an ET_DYN whose segments
  // start above PIE_BASE): below TASK_SIZE, as Linux's BAD_ADDR check wants it; a kernel or
  // non-canonical one would make the first IRET fault in ring 0.
  if(base + eh->e_entry >= TASK_SIZE) {
    err = noexec(p, "entry point outside the user address range");
    goto out;
  }
  struct mm *mm = current->mm;   // the adopted one: execve's new mm, not yet p->mm
  if((err = elf_map(mm, &exe, base)))
    goto out;
  // The stack: RLIMIT_STACK's 8 MiB reserved, paged in on demand; never executable
  // (PT_GNU_STACK is RW in every binary gcc makes here). Before the interpreter, which
  // takes what mmap finds free.
  long r = vm_mmap(mm, USER_STACK_TOP - USER_STACK_SIZE, USER_STACK_SIZE, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED);
  if(r < 0) {
    err = (int)r;
    goto out;
  }
  u64 ibase = 0, entry = base + eh->e_entry;
  if(interp) {
    if((err = map_interp(p, mm, &in, interp, iname, &ibase)))
      goto out;
    entry = ibase + in.eh.e_entry;
  }
  p->brk_start = p->brk = base + exe.hi;
  u64 auxv[] = {
    AT_HWCAP, elf_hwcap(), AT_PAGESZ, PAGE_SIZE, AT_CLKTCK, 100,
    AT_PHDR, phdr ? base + phdr : 0, AT_PHENT, sizeof(Elf64_Phdr), AT_PHNUM, eh->e_phnum,
    AT_BASE, ibase, AT_FLAGS, 0, AT_ENTRY, base + eh->e_entry,
    AT_UID, 0, AT_EUID, 0, AT_GID, 0, AT_EGID, 0, AT_SECURE, 0,
    AT_RANDOM, 0, AT_HWCAP2, 0, AT_EXECFN, 0, AT_PLATFORM, 0, AT_NULL, 0,
  };
  memset(tf, 0, sizeof(*tf));   // every register zero at entry; rdx = 0 is "no rtld_fini"
  if((err = setup_stack(p, argv, envp, auxv, sizeof(auxv) / sizeof(auxv[0]), tf)))
    goto out;
  tf->rip = entry;
  tf->cs = SEG_UCODE;
  tf->ss = SEG_UDATA;
  tf->rflags = 0x202;   // IF, and the always-one bit
out:
  elf_close(&exe);
  elf_close(&in);
  if(interp)
    vfs_close(interp);
  kfree(iname);
  return err;
}
