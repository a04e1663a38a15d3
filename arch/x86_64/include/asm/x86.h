// Inline wrappers for x86-64 instructions the kernel needs: ports, MSRs, control registers, CPUID.
// Each is one instruction; the "memory" clobbers keep the compiler from moving memory accesses across.
#pragma once
#include "types.h"
// The interrupt flag and cpu_relax have headers of their own, for generic code; a file that
// includes this one still gets them.
#include <asm/irqflags.h>
#include <asm/processor.h>

static inline void outb(u16 port, u8 v) { __asm__ volatile("outb %0, %1" ::"a"(v), "Nd"(port)); }
static inline u8 inb(u16 port) { u8 v; __asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port)); return v; }

static inline u64
rdmsr(u32 msr)
{
  u32 lo, hi;
  __asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
  return ((u64)hi << 32) | lo;
}

static inline void
wrmsr(u32 msr, u64 v)
{
  __asm__ volatile("wrmsr" ::"c"(msr), "a"((u32)v), "d"((u32)(v >> 32)) : "memory");
}

// RDTSC is not ordered against earlier loads; the lfence makes a timestamp
// taken after a measured loop really come after it (Intel SDM vol. 2B, RDTSC).
static inline u64
rdtsc(void)
{
  u32 lo, hi;
  __asm__ volatile("lfence; rdtsc" : "=a"(lo), "=d"(hi)::"memory");
  return ((u64)hi << 32) | lo;
}

static inline void
cpuid(u32 leaf, u32 sub, u32 *a, u32 *b, u32 *c, u32 *d)
{
  __asm__ volatile("cpuid" : "=a"(*a), "=b"(*b), "=c"(*c), "=d"(*d) : "a"(leaf), "c"(sub));
}

static inline u64 read_cr2(void) { u64 v; __asm__ volatile("mov %%cr2, %0" : "=r"(v)); return v; }
static inline u64 read_cr3(void) { u64 v; __asm__ volatile("mov %%cr3, %0" : "=r"(v)); return v; }
static inline void write_cr3(u64 v) { __asm__ volatile("mov %0, %%cr3" ::"r"(v) : "memory"); }
static inline void invlpg(u64 va) { __asm__ volatile("invlpg (%0)" ::"r"(va) : "memory"); }

static inline u64 read_cr0(void) { u64 v; __asm__ volatile("mov %%cr0, %0" : "=r"(v)); return v; }
static inline void write_cr0(u64 v) { __asm__ volatile("mov %0, %%cr0" ::"r"(v) : "memory"); }
static inline u64 read_cr4(void) { u64 v; __asm__ volatile("mov %%cr4, %0" : "=r"(v)); return v; }
static inline void write_cr4(u64 v) { __asm__ volatile("mov %0, %%cr4" ::"r"(v) : "memory"); }
static inline void xsetbv(u32 reg, u64 v)
{
  __asm__ volatile("xsetbv" ::"c"(reg), "a"((u32)v), "d"((u32)(v >> 32)) : "memory");
}

static inline void hlt(void) { __asm__ volatile("hlt" ::: "memory"); }

// RFLAGS bits (SDM vol. 1, 3.4.3): what SYSCALL's mask clears and rt_sigreturn may change.
#define X86_EFLAGS_TF   (1UL << 8)
#define X86_EFLAGS_DF   (1UL << 10)
#define X86_EFLAGS_IOPL (3UL << 12)
#define X86_EFLAGS_NT   (1UL << 14)
#define X86_EFLAGS_RF   (1UL << 16)
#define X86_EFLAGS_AC   (1UL << 18)

#define MSR_EFER         0xc0000080
#define MSR_STAR         0xc0000081   // SYSCALL/SYSRET selectors (SDM vol. 4, table 2-2)
#define MSR_LSTAR        0xc0000082   // 64-bit SYSCALL entry point
#define MSR_FMASK        0xc0000084   // rflags bits SYSCALL clears
#define MSR_FS_BASE      0xc0000100
#define MSR_GS_BASE      0xc0000101
#define MSR_KERNEL_GS_BASE 0xc0000102 // what swapgs exchanges with the GS base
#define EFER_SCE         (1 << 0)
#define CR0_MP           (1UL << 1)
#define CR0_EM           (1UL << 2)
#define CR0_TS           (1UL << 3)
#define CR0_NE           (1UL << 5)
#define CR4_OSFXSR       (1UL << 9)
#define CR4_OSXMMEXCPT   (1UL << 10)
#define CR4_OSXSAVE      (1UL << 18)
#define CR4_SMEP         (1UL << 20)
#define CR4_SMAP         (1UL << 21)
#define MSR_APIC_BASE    0x1b
#define EFER_NXE         (1 << 11)
