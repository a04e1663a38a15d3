// End of interrupt (the local APIC's EOI, arch/x86_64/lapic.c): each handler set with
// set_irq_handler signals it once; until then interrupts of its priority class or lower wait.
#pragma once

// Before or after the handler's work, as the handler chooses (SDM vol. 3A, 11.8.5).
void arch_irq_eoi(void);
