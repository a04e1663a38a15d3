// Host stand-in for per-CPU variables: an array indexed by the thread's CPU number, so one
// thread can reach another's copy (the MCS lock writes into its predecessor's node).
#pragma once
#include <asm/cpu.h>

#define NR_CPUS 64
#define DEFINE_PER_CPU(type, name) __typeof__(type) name[NR_CPUS]
#define DECLARE_PER_CPU(type, name) extern __typeof__(type) name[NR_CPUS]
#define per_cpu(var, cpu) ((var)[cpu])
#define this_cpu(var) per_cpu(var, smp_processor_id())
