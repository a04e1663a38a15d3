// exit0: a static program without a C library that does nothing but exit_group(0): what
// ubench's uexec suite execve's, so that it times the kernel's execve alone.
// Built with -nostdlib (Makefile); _start is the ELF entry point (System V x86-64 ABI, 3.4).

void __attribute__((noreturn))
_start(void)
{
  for(;;)
    __asm__ volatile("syscall" : : "a"(231), "D"(0) : "rcx", "r11", "memory");
}
