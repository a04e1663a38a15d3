// Shared between the AP trampoline (assembly) and smp.c: where the trampoline page lives.
// SIPI vector = page number, so it must be page aligned below 1 MiB (Intel MP spec, B.4).
#pragma once
#define TRAMPOLINE_PA 0x8000

#ifndef __ASSEMBLER__
// Labels of trampoline.S: the page's bounds, the words smp.c fills in before the SIPI (the
// page tables and EFER an AP loads), the 64-bit entry, and ap_entry, where APs start in C.
extern char trampoline_start[], trampoline_end[], trampoline_cr3[], trampoline_efer[],
  trampoline_entry[], ap_entry[];

// Bring-up as the smp-bringup self-test checks it (smp.c).
extern int nr_cpus_started;          // CPU ids 0..n-1 were prepared and sent INIT-SIPI-SIPI
extern u64 ap_callin_deadline_ns;    // when the BSP gives up on APs that have not called in
extern u64 late_ap_online_ns;        // when the AP of smp.late_ap= came online; 0: none did
#endif
