// x87/SSE/AVX state of user threads: FXSAVE, or XSAVE where the CPU has it, saved when a user
// thread is switched out and restored when it is switched in. The kernel is built without SSE
// (Makefile), so between the two the registers are the user's alone.
#include "panic.h"
#include "printk.h"
#include "string.h"
#include <asm/fpu.h>
#include <asm/x86.h>

bool fpu_xsave;          // XSAVE/XRSTOR with xcr0, else FXSAVE/FXRSTOR
u64 fpu_xcr0;            // x87 | SSE (| AVX): what XCR0 enables and what XSAVE saves
u32 fpu_size = 512;      // bytes of one thread's area (CPUID.(EAX=0DH,ECX=0).EBX with XSAVE)
u32 fpu_mxcsr_mask;      // MXCSR bits FXRSTOR/XRSTOR accept (a signal frame's are checked)
static u8 fpu_initial[FPU_AREA_MAX] __aligned(64);

// Linux's initial state of a new process (fpstate_init): FCW 0x37f (all x87 exceptions
// masked, 64-bit precision), MXCSR 0x1f80 (all SIMD exceptions masked), every register empty.
// In the XSAVE form XSTATE_BV = 0 makes XRSTOR load the x87 and AVX init state; MXCSR comes
// from the legacy area whenever SSE or AVX is requested (SDM vol. 1, 13.8.1).
static void
fpu_make_initial(void)
{
  memset(fpu_initial, 0, sizeof(fpu_initial));
  *(u16 *)&fpu_initial[0] = 0x37f;          // FCW
  *(u32 *)&fpu_initial[24] = 0x1f80;        // MXCSR
}

// On every CPU, from cpu_user_init: FXSAVE and SSE on (CR4.OSFXSR, SIMD exceptions as #XM),
// x87 native errors (CR0.NE), no emulation and no lazy #NM (CR0.EM, CR0.TS clear).
void
fpu_init_cpu(bool boot_cpu)
{
  write_cr0((read_cr0() | CR0_MP | CR0_NE) & ~(CR0_EM | CR0_TS));
  u64 cr4 = read_cr4() | CR4_OSFXSR | CR4_OSXMMEXCPT;
  u32 a, b, c, d;
  cpuid(1, 0, &a, &b, &c, &d);
  bool xsave = c & (1u << 26);
  if(xsave)
    cr4 |= CR4_OSXSAVE;
  write_cr4(cr4);
  if(xsave) {
    cpuid(0xd, 0, &a, &b, &c, &d);
    u64 xcr0 = a & 7;                       // x87, SSE, AVX: nothing wider is enabled
    xsetbv(0, xcr0);
    cpuid(0xd, 0, &a, &b, &c, &d);          // EBX: the area size for the XCR0 just set
    if(boot_cpu) {
      if(b > FPU_AREA_MAX)
        panic("fpu: XSAVE area of %u bytes exceeds %d", b, FPU_AREA_MAX);
      fpu_xsave = true;
      fpu_xcr0 = xcr0;
      fpu_size = b;
    }
  }
  if(boot_cpu) {
    // MXCSR_MASK from an FXSAVE image; 0 means the default 0xffbf (SDM vol. 1, 11.6.6).
    static u8 probe[512] __aligned(16);
    __asm__ volatile("fxsave64 %0" : "=m"(probe));
    fpu_mxcsr_mask = *(u32 *)&probe[28] ? *(u32 *)&probe[28] : 0xffbf;
    fpu_make_initial();
    printk("fpu: %s, xcr0 %#lx, %u bytes per thread\n", fpu_xsave ? "xsave" : "fxsave",
           fpu_xcr0, fpu_size);
  }
}

void
fpu_init_state(void *area)
{
  memcpy(area, fpu_initial, fpu_size);
}

void
fpu_save(void *area)
{
  if(fpu_xsave)
    __asm__ volatile("xsave64 (%0)" ::"r"(area), "a"((u32)fpu_xcr0), "d"((u32)(fpu_xcr0 >> 32))
                     : "memory");
  else
    __asm__ volatile("fxsave64 (%0)" ::"r"(area) : "memory");
}

void
fpu_restore(const void *area)
{
  if(fpu_xsave)
    __asm__ volatile("xrstor64 (%0)" ::"r"(area), "a"((u32)fpu_xcr0), "d"((u32)(fpu_xcr0 >> 32))
                     : "memory");
  else
    __asm__ volatile("fxrstor64 (%0)" ::"r"(area) : "memory");
}
