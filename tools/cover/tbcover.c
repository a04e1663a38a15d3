// tbcover: a QEMU TCG plugin that records which kernel code ran, for make fuzz-syscalls COVER=1.
// It notes the start of every translation block TCG translates in the kernel's text; writes them.
//
// Why translation and not execution: TCG translates a block the first time a vCPU is about to
// run it (and again only after a code-cache flush), so the set of translated block starts is
// the set of executed ones, at no cost per execution: the fuzzer runs at full speed. The
// interface is QEMU's plugin API (docs/devel/tcg-plugins.rst of QEMU 7.2, API version 1);
// QEMU's -plugin loads this file with "out=PATH" and calls qemu_plugin_install.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The few declarations of QEMU's plugin API (include/qemu/qemu-plugin.h) this plugin uses;
// Debian ships no header for it.
typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
typedef struct qemu_info_t qemu_info_t;
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb, void *udata);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);

#define EXPORT __attribute__((visibility("default")))
EXPORT int qemu_plugin_version = 1;

// The kernel's text: linker.ld links it at KERNEL_BASE (the top 2 GiB, -mcmodel=kernel);
// 64 MiB is more than the debug image's text and data together. One bit per byte address:
// a block start is any byte, and 8 MiB of bitmap is nothing on the host.
#define KERNEL_BASE 0xffffffff80000000ULL
#define SPAN (64ULL << 20)
static uint8_t *seen;
static const char *out;

// Called from every vCPU thread (MTTCG): the bit is set atomically.
static void
tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
  (void)id;
  uint64_t off = qemu_plugin_tb_vaddr(tb) - KERNEL_BASE;
  if(off < SPAN)
    __atomic_fetch_or(&seen[off >> 3], (uint8_t)(1u << (off & 7)), __ATOMIC_RELAXED);
}

// At QEMU's exit: every block start, one hexadecimal address a line, ascending.
static void
at_exit(qemu_plugin_id_t id, void *udata)
{
  (void)id;
  (void)udata;
  FILE *f = fopen(out, "w");
  if(!f) {
    perror(out);
    return;
  }
  for(uint64_t i = 0; i < SPAN; i++)
    if(seen[i >> 3] & (1u << (i & 7)))
      fprintf(f, "%llx\n", (unsigned long long)(KERNEL_BASE + i));
  fclose(f);
}

EXPORT int
qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
  (void)info;
  for(int i = 0; i < argc; i++)
    if(!strncmp(argv[i], "out=", 4))
      out = argv[i] + 4;
  if(!out) {
    fprintf(stderr, "tbcover: no out=PATH argument\n");
    return -1;
  }
  seen = calloc(SPAN / 8, 1);
  if(!seen)
    return -1;
  qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
  qemu_plugin_register_atexit_cb(id, at_exit, NULL);
  return 0;
}
