// Per-CPU variables: each CPU has its own copy of the .percpu section.
// A variable's address in the section plus the CPU's offset finds that CPU's copy (as in Linux).
#pragma once
#include "compiler.h"
#include "types.h"
#include <asm/percpu.h>   // this_cpu_off(): where this CPU's copies are

#define NR_CPUS 256

// No initializer: every CPU's copy starts zeroed (arch/x86_64/smp.c).
#define DEFINE_PER_CPU(type, name) __section(".percpu") __typeof__(type) name
#define DECLARE_PER_CPU(type, name) extern __typeof__(type) name

extern u64 __per_cpu_offset[NR_CPUS];

// A variable's copy, off bytes away. <asm/percpu.h> may define it first, as the host tests'
// does to hide the arithmetic from the sanitizers (tests/host/include/asm/percpu.h).
#ifndef SHIFT_PERCPU_PTR
#define SHIFT_PERCPU_PTR(ptr, off) ((__typeof__(ptr))((char *)(ptr) + (off)))
#endif

#define per_cpu_ptr(ptr, cpu) SHIFT_PERCPU_PTR((ptr), __per_cpu_offset[(cpu)])
#define this_cpu_ptr(ptr) SHIFT_PERCPU_PTR((ptr), this_cpu_off())
#define per_cpu(var, cpu) (*per_cpu_ptr(&(var), (cpu)))
#define this_cpu(var) (*this_cpu_ptr(&(var)))
