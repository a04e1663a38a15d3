// Host stand-in for the x86 helpers: what generic code takes from asm/x86.h, the spin-wait
// and the interrupt flag, from the stand-ins beside this file.
#pragma once
#include <asm/irqflags.h>
#include <asm/processor.h>
