// Where the parts of the kernel image begin and end: symbols that linker.ld defines.
// Declared as arrays so that their address is the boundary itself (Linux's asm-generic/sections.h).
#pragma once

extern char _text[], _etext[];                   // code: read-only, executable
extern char _rodata[], _erodata[];               // read-only data, the registries, __ex_table
extern char _data[], _ebss[];                    // data and bss: read-write, never executable
extern char __per_cpu_start[], __per_cpu_end[];  // the boot CPU's copy of every per-CPU variable
extern char _end[];                              // after the embedded symbol table: the image's end
