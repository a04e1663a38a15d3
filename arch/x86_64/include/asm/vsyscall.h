// The legacy vsyscall page (arch/x86_64/vsyscall.c): its fixed address, and the page-fault
// handler's test and emulation of a call into it.
#pragma once
#include "types.h"

#define VSYSCALL_ADDR 0xffffffffff600000UL   // Linux's VSYSCALL_ADDR: -10 MiB

struct trapframe;
// The SIGSEGV a fault in the page that was not an emulated call gets: its si_code, si_addr.
struct vsyscall_segv {
  int code;
  u64 addr;
};
bool is_vsyscall_vaddr(u64 addr);
bool emulate_vsyscall(struct trapframe *tf, u64 addr, struct vsyscall_segv *segv);
