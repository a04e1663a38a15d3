// The interprocessor interrupts generic code sends, each to one CPU by its dense id
// (Linux's names); arch/x86_64/lapic.c sends them through the local APIC.
#pragma once
#include "types.h"

extern u32 cpu_apic_id[];   // dense CPU id -> local APIC id (arch/x86_64/smp.c)

void smp_send_reschedule(int cpu);                  // wakes it from its idle halt
void arch_send_call_function_single_ipi(int cpu);   // it runs its smp_call_function queue
void arch_send_nmi(int cpu);                        // gets through with interrupts off
void arch_send_nmi_from_nmi(int cpu);               // the same, sent from an NMI handler
