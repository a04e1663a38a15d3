// memcpy and memset, one rep movsb / rep stosb each: the CPU moves whole cache lines for them
// (fast strings, SDM vol. 1, 7.3.9.3). The other string functions are C, in kernel/lib/string.c.
  .text

// void *memcpy(void *d, const void *s, size_t n): returns d (System V ABI: d in rdi, s in
// rsi, n in rdx). Forward only: memmove calls it only when that is safe.
  .p2align 4   // as GCC aligns a function
  .globl memcpy
  .type memcpy, @function
memcpy:
  mov %rdi, %rax
  mov %rdx, %rcx
  rep movsb
  ret
  .size memcpy, . - memcpy

// void *memset(void *d, int c, size_t n): returns d; stosb stores the low byte of c.
  .p2align 4
  .globl memset
  .type memset, @function
memset:
  mov %rdi, %r8
  mov %rdx, %rcx
  mov %esi, %eax
  rep stosb
  mov %r8, %rax
  ret
  .size memset, . - memset
