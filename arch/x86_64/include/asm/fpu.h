// Per-thread FPU state for user mode: one 64-byte aligned area per user thread (a page),
// saved and restored eagerly at context switch (arch/x86_64/fpu.c).
#pragma once
#include "types.h"

#define FPU_AREA_MAX 4096

extern bool fpu_xsave;
extern u64 fpu_xcr0;
extern u32 fpu_size;
extern u32 fpu_mxcsr_mask;

void fpu_init_cpu(bool boot_cpu);
void fpu_init_state(void *area);     // Linux's initial state: FCW 0x37f, MXCSR 0x1f80
void fpu_save(void *area);           // the registers into area
void fpu_restore(const void *area);
