// The end of every run: print the END line (doc/console.md), then leave QEMU or stay up.
// poweroff=no keeps every CPU idle for gdb; panic=halt keeps a failed run stopped where it is.
#include "cmdline.h"
#include "panic.h"
#include "power.h"
#include "printk.h"
#include "sched.h"
#include "smp.h"

void
kernel_end(bool pass)
{
  // END is the last line of every run (doc/console.md), so whatever else there is to say
  // comes first.
  bool halt = !pass && kcmdline.panic == PANIC_HALT;
  if(halt)
    printk(KERN_EMERG "panic=halt: the run failed and stays stopped; attach gdb to look around\n");
  else if(!kcmdline.poweroff && !panic_in_progress())
    printk("poweroff=no: the run is over; every CPU stays up and idle\n");
  printk(KERN_EMERG "END result=%s\n", pass ? "pass" : "fail");
  // panic=halt holds every failed run for gdb, a failed self-test as well as a panic.
  // After a panic the other CPUs are stopped by NMI; otherwise they are idle already.
  if(halt)
    machine_halt();
  if(panic_in_progress()) {
    machine_exit(false);
    machine_halt();
  }
  if(kcmdline.poweroff)
    machine_exit(pass);   // returns only without the isa-debug-exit device
  // poweroff=no (or no exit device): init sleeps for good, so CPU 0 halts in its idle loop
  // with its tick stopped like every other CPU, and gdb can attach and look around. An idle
  // wait: the hung-task check leaves it alone.
  current->idle_wait = true;
  current->wait_on = "the end of the run";
  set_current_state(T_SLEEPING);
  schedule();
  panic("kernel_end: init woke up after the end of the run");
}
