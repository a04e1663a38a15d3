// Shared between the AP trampoline (assembly) and smp.c: where the trampoline page lives.
// SIPI vector = page number, so it must be page aligned below 1 MiB (Intel MP spec, B.4).
#pragma once
#define TRAMPOLINE_PA 0x8000

#ifndef __ASSEMBLER__
// Labels of trampoline.S: the page's bounds, the words smp.c fills in before the SIPI (the
// page tables and EFER an AP loads), the 64-bit entry, and ap_entry, where APs start in C.
extern char trampoline_start[], trampoline_end[], trampoline_cr3[], trampoline_efer[],
  trampoline_entry[], ap_entry[];
#endif
