// oom: maps and touches 16 MiB at a time until the kernel says no: an mmap that fails with
// ENOMEM (exit 0), or the out-of-memory kill (status 137, as Linux's OOM killer's SIGKILL).
// Guest only: on the host it would take the host's memory.
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

int
main(void)
{
  size_t chunk = 16 << 20, mib = 0;
  for(;;) {
    char *p = mmap(NULL, chunk, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if(p == MAP_FAILED) {
      printf("oom: mmap failed after %zu MiB\n", mib);
      return 0;
    }
    for(size_t i = 0; i < chunk; i += 4096)
      p[i] = 1;
    mib += 16;
    if(mib % 256 == 0)
      printf("oom: %zu MiB touched\n", mib);
  }
}
