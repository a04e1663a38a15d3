// Multiprocessor bring-up and cross-CPU calls.
// CPU ids are dense (0..nr_cpu_ids-1); the arch keeps the hardware's id of each (asm/smp.h).
#pragma once
#include "types.h"
#include <asm/cpu.h>
#include <asm/smp.h>   // the IPIs: smp_send_reschedule and the others

extern int nr_cpu_ids;         // every CPU id in use is below this
extern int nr_cpus_possible;   // CPUs the firmware lists (ACPI MADT)

void smp_init(void);
void ipi_init(void);            // the cross-CPU call vector (kernel/ipi.c)
void smp_stop_others(void);
int num_online_cpus(void);
void percpu_early_init(void);
void call_on_stack(u64 stack_top, void (*fn)(void)) __attribute__((noreturn));

// Cross-CPU function calls. fn runs on the target in interrupt context (interrupts off), and
// touches no user memory: the target may be in lazy TLB mode (arch/x86_64/tlb.c).
// wait: return only after fn has finished everywhere. Every wait is bounded: a CPU that
// does not answer within ipi_timeout() is reported and the call returns -ETIMEDOUT. The call
// then stays queued on that CPU and runs whenever it wakes: a caller whose arg lives on its
// stack, or who frees what fn touches, must not go on (arch/x86_64/tlb.c panics).
#define IPI_TIMEOUT_MS 10000
#define IPI_TIMEOUT_PER_CPU_MS 250   // added for each online CPU (kernel/ipi.c says why)
extern int ipi_timeout_ms;   // 0: the default, scaled by CPU count; planted-tlb-stall sets 1000
int ipi_timeout(void);       // the limit now, in ms
struct cpumask;
int smp_call_function_single(int cpu, void (*fn)(void *), void *arg, bool wait);
int smp_call_function_many(const struct cpumask *mask, void (*fn)(void *), void *arg, bool wait);
int smp_call_function(void (*fn)(void *), void *arg, bool wait);   // every other online CPU
int on_each_cpu(void (*fn)(void *), void *arg, bool wait);         // ... and this one
