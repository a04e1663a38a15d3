// /proc/cpuinfo: Linux's x86 show_cpuinfo fields (arch/x86/kernel/cpu/proc.c names them) from
// CPUID, one block per online CPU; lscpu, nproc's fallback, Python and build scripts read it.
#include "cpumask.h"
#include "smp.h"
#include "string.h"
#include "time.h"
#include "vsprintf.h"
#include <asm/cpuinfo.h>
#include <asm/smp.h>
#include <asm/x86.h>

// The flags Linux prints for these CPUID bits, by its names (arch/x86/include/asm/cpufeatures.h),
// for the leaves read here: 1 EDX and ECX, 7.0 EBX, 0x80000001 EDX and ECX. Bits Linux does
// not print, or that this table leaves out (the rarer extensions), have no name.
struct flag_word {
  u32 leaf;
  char reg;            // 'b', 'c' or 'd'
  const char *name[32];
};

static const struct flag_word flag_words[] = {
  { 1, 'd', { "fpu", "vme", "de", "pse", "tsc", "msr", "pae", "mce", "cx8", "apic", NULL, "sep",
              "mtrr", "pge", "mca", "cmov", "pat", "pse36", "pn", "clflush", NULL, "dts", "acpi",
              "mmx", "fxsr", "sse", "sse2", "ss", "ht", "tm", "ia64", "pbe" } },
  { 0x80000001, 'd', { [11] = "syscall", [19] = "mp", [20] = "nx", [22] = "mmxext",
                       [25] = "fxsr_opt", [26] = "pdpe1gb", [27] = "rdtscp", [29] = "lm",
                       [30] = "3dnowext", [31] = "3dnow" } },
  { 1, 'c', { "pni", "pclmulqdq", "dtes64", "monitor", "ds_cpl", "vmx", "smx", "est", "tm2",
              "ssse3", "cid", "sdbg", "fma", "cx16", "xtpr", "pdcm", NULL, "pcid", "dca",
              "sse4_1", "sse4_2", "x2apic", "movbe", "popcnt", "tsc_deadline_timer", "aes",
              "xsave", NULL, "avx", "f16c", "rdrand", "hypervisor" } },
  { 0x80000001, 'c', { "lahf_lm", "cmp_legacy", "svm", "extapic", "cr8_legacy", "abm", "sse4a",
                       "misalignsse", "3dnowprefetch", "osvw", "ibs", "xop", NULL, "skinit",
                       "wdt", NULL, "fma4", NULL, NULL, "nodeid_msr", NULL, "tbm",
                       "topoext" } },
  { 7, 'b', { [0] = "fsgsbase", [3] = "bmi1", [4] = "hle", [5] = "avx2", [7] = "smep",
              [8] = "bmi2", [9] = "erms", [10] = "invpcid", [11] = "rtm", [16] = "avx512f",
              [18] = "rdseed", [19] = "adx", [20] = "smap", [23] = "clflushopt", [24] = "clwb",
              [29] = "sha_ni" } },
};

static u32
cpuid_reg(u32 leaf, char reg)
{
  u32 a, b, c, d, max;
  cpuid(leaf & 0x80000000, 0, &max, &b, &c, &d);   // the highest leaf of that range
  if(leaf > max)
    return 0;
  cpuid(leaf, 0, &a, &b, &c, &d);
  return reg == 'a' ? a : reg == 'b' ? b : reg == 'c' ? c : d;
}

static size_t
show_flags(char *buf, size_t len)
{
  size_t n = 0;
  for(size_t w = 0; w < sizeof(flag_words) / sizeof(flag_words[0]); w++) {
    u32 bits = cpuid_reg(flag_words[w].leaf, flag_words[w].reg);
    for(int i = 0; i < 32; i++)
      if((bits >> i & 1) && flag_words[w].name[i])
        n += scnprintf(buf + n, len - n, " %s", flag_words[w].name[i]);
  }
  return n;
}

// Every CPU of one machine is the same model (QEMU gives them all one -cpu), so CPUID is read
// once, on the CPU that reads the file, and only the numbering differs between blocks.
size_t
arch_cpuinfo_show(char *buf, size_t len)
{
  u32 a, b, c, d, vendor[4] = { 0 }, brand[13] = { 0 };
  cpuid(0, 0, &a, &vendor[0], &vendor[2], &vendor[1]);   // "Genu" "ineI" "ntel": EBX EDX ECX
  u32 level = a;
  cpuid(1, 0, &a, &b, &c, &d);
  // SDM vol. 2A, CPUID leaf 1: the family and model with their extended fields added.
  u32 family = a >> 8 & 0xf, model = a >> 4 & 0xf, stepping = a & 0xf;
  if(family == 0xf)
    family += a >> 20 & 0xff;
  if(family >= 6)
    model |= (a >> 16 & 0xf) << 4;
  u32 clflush = (b >> 8 & 0xff) * 8;
  if(cpuid_reg(0x80000004, 'a'))
    for(u32 i = 0; i < 3; i++)
      cpuid(0x80000002 + i, 0, &brand[4 * i], &brand[4 * i + 1], &brand[4 * i + 2],
            &brand[4 * i + 3]);
  const char *name = (const char *)brand;
  while(*name == ' ')
    name++;
  u32 sizes = cpuid_reg(0x80000008, 'a');
  char flags[640];
  show_flags(flags, sizeof(flags));
  int ncpu = num_online_cpus(), cpu;
  size_t n = 0;
  for_each_online_cpu(cpu) {
    if(len - n < CPUINFO_PER_CPU)
      break;
    n += scnprintf(buf + n, len - n,
                   "processor\t: %d\nvendor_id\t: %s\ncpu family\t: %u\nmodel\t\t: %u\n"
                   "model name\t: %s\nstepping\t: %u\ncpu MHz\t\t: %llu.%03llu\n"
                   "physical id\t: 0\nsiblings\t: %d\ncore id\t\t: %d\ncpu cores\t: %d\n"
                   "apicid\t\t: %u\ninitial apicid\t: %u\nfpu\t\t: yes\nfpu_exception\t: yes\n"
                   "cpuid level\t: %u\nwp\t\t: yes\nflags\t\t:%s\nbugs\t\t:\n"
                   "bogomips\t: %llu.%02llu\nclflush size\t: %u\ncache_alignment\t: %u\n"
                   "address sizes\t: %u bits physical, %u bits virtual\npower management:\n\n",
                   cpu, (const char *)vendor, family, model, *name ? name : "unknown", stepping,
                   (unsigned long long)(tsc_khz / 1000), (unsigned long long)(tsc_khz % 1000),
                   ncpu, cpu, ncpu, cpu_apic_id[cpu], cpu_apic_id[cpu], level, flags,
                   // Linux's bogomips is its delay loop's calibration, twice the TSC's MHz on
                   // a CPU with a constant TSC (calibrate_delay uses the TSC there).
                   (unsigned long long)(tsc_khz / 500), (unsigned long long)(tsc_khz / 5 % 100),
                   clflush, clflush, sizes & 0xff, sizes >> 8 & 0xff);
  }
  return n;
}
