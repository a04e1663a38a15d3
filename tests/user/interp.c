// interp: execve of dynamically linked programs (PT_INTERP) against Linux's answers: hello-dyn
// through the C library's loader, exit0 (an ET_EXEC without a C library) named as the
// interpreter, a #! script whose
// interpreter is dynamic, and program headers naming interpreters that are not, each errno as
// Linux's load_elf_binary gives it. The programs are this one's neighbours (/proc/self/exe's
// directory): /test/bin under the kernel, the scratch directory on the host.
#define PROG "interp"
#include "check.h"
#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char bindir[PATH_MAX], dir[64];
static char *const env[] = { "HOME=/", NULL };

// Runs path with argv in a child, its output into out (up to len - 1 bytes, NUL-terminated):
// the exit status, or 1000 + errno when execve failed, or 2000 + the signal that ended it.
static int
run(const char *path, char *const argv[], char *out, size_t len)
{
  int fd[2];
  if(pipe(fd) != 0)
    return -1;
  pid_t pid = fork();
  if(pid == 0) {
    dup2(fd[1], 1);
    close(fd[0]);
    execve(path, argv, env);
    _exit(127);
  }
  close(fd[1]);
  size_t got = 0;
  ssize_t n;
  while(got + 1 < len && (n = read(fd[0], out + got, len - 1 - got)) > 0)
    got += n;
  out[got] = 0;
  close(fd[0]);
  int st;
  waitpid(pid, &st, 0);
  return WIFSIGNALED(st) ? 2000 + WTERMSIG(st) : WEXITSTATUS(st);
}

// execve(path) in a child: 0 if it ran and exited 0, else the errno it failed with (the
// child reports it as its status), or 1000 + the signal that ended it.
static int
exec_errno(const char *path)
{
  pid_t pid = fork();
  if(pid == 0) {
    char *const argv[] = { (char *)path, NULL };
    int fd = open("/dev/null", O_WRONLY);
    dup2(fd, 1);
    execve(path, argv, env);
    _exit(errno);
  }
  int st;
  waitpid(pid, &st, 0);
  return WIFSIGNALED(st) ? 1000 + WTERMSIG(st) : WEXITSTATUS(st);
}

// execve(path) must fail with want: the errno seen is named when it does not.
static void
expect_errno(const char *path, int want, const char *what)
{
  int got = exec_errno(path);
  check(got == want, what);
  if(got != want)
    printf("interp: %s: got %d\n", what, got);
}

// A program of one PT_LOAD (its whole file, at 0x10000000: clear of exit0's 0x400000) and one
// PT_INTERP of n bytes:
// name, padded with 'x' where n is longer, not terminated where n equals its length.
static void
write_elf(const char *path, const char *name, size_t n)
{
  static unsigned char buf[8192];
  memset(buf, 0, sizeof(buf));
  Elf64_Ehdr *eh = (Elf64_Ehdr *)buf;
  memcpy(eh->e_ident, ELFMAG, SELFMAG);
  eh->e_ident[EI_CLASS] = ELFCLASS64;
  eh->e_ident[EI_DATA] = ELFDATA2LSB;
  eh->e_ident[EI_VERSION] = EV_CURRENT;
  eh->e_type = ET_EXEC;
  eh->e_machine = EM_X86_64;
  eh->e_version = EV_CURRENT;
  eh->e_entry = 0x10000000 + 0x200;
  eh->e_phoff = sizeof(*eh);
  eh->e_ehsize = sizeof(*eh);
  eh->e_phentsize = sizeof(Elf64_Phdr);
  eh->e_phnum = 2;
  Elf64_Phdr *ph = (Elf64_Phdr *)(buf + sizeof(*eh));
  size_t at = 0x300, size = at + n + 1 > sizeof(buf) ? sizeof(buf) : at + n + 1;
  ph[0] = (Elf64_Phdr){ .p_type = PT_INTERP, .p_flags = PF_R, .p_offset = at,
                        .p_filesz = n, .p_memsz = n, .p_align = 1 };
  ph[1] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_offset = 0,
                        .p_vaddr = 0x10000000, .p_filesz = size, .p_memsz = size,
                        .p_align = 0x1000 };
  buf[0x200] = 0x0f;   // ud2: the program itself never runs in these cases
  buf[0x201] = 0x0b;
  size_t len = strlen(name);
  memset(buf + at, 'x', size - at);
  memcpy(buf + at, name, len < n ? len : n);
  if(len < n)
    buf[at + len] = 0;
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755);
  check(fd >= 0 && write(fd, buf, size) == (ssize_t)size, "write a crafted program");
  close(fd);
}

// A file of its own bytes, with mode.
static void
write_file(const char *path, const char *bytes, size_t n, mode_t mode)
{
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
  check(fd >= 0 && write(fd, bytes, n) == (ssize_t)n, "write a file");
  close(fd);
}

static void
path_in(char *out, size_t len, const char *d, const char *name)
{
  snprintf(out, len, "%s/%s", d, name);
}

int
main(void)
{
  ssize_t n = readlink("/proc/self/exe", bindir, sizeof(bindir) - 1);
  check(n > 0, "readlink /proc/self/exe");
  if(n <= 0)
    return 1;
  bindir[n] = 0;
  *strrchr(bindir, '/') = 0;
  snprintf(dir, sizeof(dir), "/tmp/interp.%d", (int)getpid());
  if(mkdir("/tmp", 0755) != 0 && errno != EEXIST) {
    printf("interp: cannot make /tmp (errno %d)\n", errno);
    return 1;
  }
  check(mkdir(dir, 0755) == 0, "mkdir the scratch directory");
  char hello[PATH_MAX + 64], exit0[PATH_MAX + 64], prog[128], out[512], want[PATH_MAX + 128];

  // A program of the C library's, through its loader: its output and status as hello's.
  path_in(hello, sizeof(hello), bindir, "hello-dyn");
  char *const argv1[] = { hello, "dyn", NULL };
  int st = run(hello, argv1, out, sizeof(out));
  snprintf(want, sizeof(want), "hello from user mode: argc 2 argv[0] %s pid ", hello);
  check(st == 0 && strncmp(out, want, strlen(want)) == 0 && strstr(out, "argv[1] = dyn\n"),
        "hello-dyn runs through ld.so");
  if(st != 0 || strncmp(out, want, strlen(want)) != 0)
    printf("interp: hello-dyn: status %d, output \"%s\"\n", st, out);

  // A #! script whose interpreter is hello-dyn: argv interpreter, argument, script.
  char script[128], text[PATH_MAX + 80];
  path_in(script, sizeof(script), dir, "script");
  int len = snprintf(text, sizeof(text), "#!%s one-arg\n", hello);
  write_file(script, text, len, 0755);
  char *const argv2[] = { script, NULL };
  st = run(script, argv2, out, sizeof(out));
  snprintf(want, sizeof(want), "argv[1] = one-arg\nargv[2] = %s\n", script);
  check(st == 0 && strstr(out, want), "a #! script names a dynamic interpreter");

  // An ET_EXEC interpreter, at its own addresses, started at its entry instead of the program.
  path_in(exit0, sizeof(exit0), bindir, "exit0");
  path_in(prog, sizeof(prog), dir, "by-exit0");
  write_elf(prog, exit0, strlen(exit0) + 1);
  expect_errno(prog, 0, "exit0 as the interpreter runs");

  // Interpreters that are not: each errno as Linux's.
  char target[128];
  path_in(prog, sizeof(prog), dir, "bad");
  write_elf(prog, "/nonexistent/ld.so", sizeof("/nonexistent/ld.so"));
  expect_errno(prog, ENOENT, "a missing interpreter: ENOENT");
  write_elf(prog, "/", 2);
  expect_errno(prog, EACCES, "a directory as the interpreter: EACCES");
  path_in(target, sizeof(target), dir, "text");
  static const char notelf[] =
    "#!/bin/sh\n# longer than the 64 bytes of an ELF header, which Linux reads first\n";
  write_file(target, notelf, sizeof(notelf) - 1, 0755);
  write_elf(prog, target, strlen(target) + 1);
  expect_errno(prog, ELIBBAD, "a text file as the interpreter: ELIBBAD");
  path_in(target, sizeof(target), dir, "short");
  write_file(target, "\177ELF", 4, 0755);
  write_elf(prog, target, strlen(target) + 1);
  expect_errno(prog, EIO, "an interpreter shorter than an ELF header: EIO");
  path_in(target, sizeof(target), dir, "noexec");
  write_file(target, "\177ELF", 4, 0644);
  write_elf(prog, target, strlen(target) + 1);
  expect_errno(prog, EACCES, "an interpreter without an execute bit: EACCES");
  write_elf(prog, "/lib64/ld-linux-x86-64.so.2", strlen("/lib64/ld-linux-x86-64.so.2"));
  expect_errno(prog, ENOEXEC, "a name without its NUL: ENOEXEC");
  write_elf(prog, "", 1);
  expect_errno(prog, ENOEXEC, "a name of 1 byte: ENOEXEC");
  write_elf(prog, "/", PATH_MAX + 1);
  expect_errno(prog, ENOEXEC, "a name longer than PATH_MAX: ENOEXEC");

  static const char *const made[] = { "script", "by-exit0", "bad", "text", "short", "noexec" };
  for(size_t i = 0; i < sizeof(made) / sizeof(made[0]); i++) {
    path_in(prog, sizeof(prog), dir, made[i]);
    unlink(prog);
  }
  check(rmdir(dir) == 0, "rmdir the scratch directory");
  printf("interp: %d checks, %d failed\n", checks, fails);
  return fails != 0;
}
