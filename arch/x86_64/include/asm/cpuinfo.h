// /proc/cpuinfo's text (arch/x86_64/cpuinfo.c): what the CPU says of itself by CPUID, per online
// CPU, in Linux's x86 format; generic /proc code calls it and knows nothing of CPUID.
#pragma once
#include "types.h"

// The text for every online CPU into buf (len bytes): its length, less than len (truncated at
// a CPU's end when len is short). CPUINFO_PER_CPU bounds one CPU's block.
#define CPUINFO_PER_CPU 1536
size_t arch_cpuinfo_show(char *buf, size_t len);
