// Host stand-in for the interrupt flag (include/spinlock.h and include/rwlock.h include it):
// the x86 stand-in beside this file already has the local_irq_save/restore the locks use.
#pragma once
#include <asm/x86.h>
