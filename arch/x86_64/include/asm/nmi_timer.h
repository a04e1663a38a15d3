// A periodic NMI for the sampling profiler (kernel/profile.c): one CPU takes it at a fixed rate,
// even with interrupts off, and fans it out (arch/x86_64/hpet.c drives it from the HPET).
#pragma once
#include "types.h"

// Prepares the NMI source for hz samples a second delivered to CPU cpu; false (with a console
// line saying why) if the machine has none.
bool arch_nmi_timer_init(u32 hz, int cpu);
void arch_nmi_timer_start(void);   // NMIs from now on, the first a period from now
void arch_nmi_timer_stop(void);    // none after this returns
// From the NMI handler of the CPU that takes them: how many periods have passed since the last
// call (more than one when the vCPU was not running). 0 does not prove the NMI is another
// source's: a period can raise two (arch/x86_64/hpet.c).
u32 arch_nmi_timer_fired(void);
