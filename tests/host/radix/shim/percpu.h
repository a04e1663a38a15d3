// Host stand-in for per-CPU variables: one copy per thread, each thread acting as a CPU.
#pragma once

#define DEFINE_PER_CPU(type, name) __thread __typeof__(type) name
#define this_cpu_ptr(ptr) (ptr)
