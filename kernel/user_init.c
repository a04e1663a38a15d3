// init=: the program the command line names, run after the self-tests and benchmarks with
// the words after -- as its arguments and Linux's initial environment; its exit status
// decides END. A program is a file: the initramfs puts the programs of user/ in /bin, the
// debug image's test archive the test programs in /test/bin, INITRD= whatever it holds.
#include "bench.h"
#include "cmdline.h"
#include "errno.h"
#include "fs.h"
#include "mm.h"
#include "printk.h"
#include "process.h"
#include "tty.h"

// Returns 0 when there is no init= or it exited with status 0, else 1.
int
run_init_program(void)
{
  if(!kcmdline.init[0])
    return 0;
  static const char *argv[INIT_ARGS_MAX + 2];
  static const char *const envp[] = { "HOME=/", "TERM=linux", "PATH=/bin:/usr/bin", NULL };
  argv[0] = kcmdline.init;
  for(int i = 0; i < kcmdline.ninit_args; i++)
    argv[1 + i] = kcmdline.init_args[i];
  argv[1 + kcmdline.ninit_args] = NULL;
  struct kstat st;
  int err = vfs_stat(kcmdline.init, 0, &st);
  if(err) {
    pr_err("init: %s: no such program (error %d)\n", kcmdline.init, err);
    return 1;
  }
  printk("init: %s: a file, %lu bytes\n", kcmdline.init, (unsigned long)st.size);
  // The console is init='s terminal while it runs (drivers/tty/tty.c): input, echo, ^C.
  tty_open_session();
  bench_program_begin();
  struct process *p = process_spawn(kcmdline.init, argv, envp, &err);
  if(!p) {
    bench_program_end(kcmdline.init);
    tty_close_session();
    pr_err("init: %s: cannot run it (error %d)\n", kcmdline.init, err);
    return 1;
  }
  tty_set_foreground(p);
  int status = process_wait(p);
  bench_program_end(kcmdline.init);
  tty_close_session();
  if(status > 128)
    printk("init: %s killed by signal %d (status %d)\n", kcmdline.init, status - 128, status);
  else
    printk("init: %s exited with status %d\n", kcmdline.init, status);
  return status != 0;
}
