// A program built with musl-gcc -static (make realprogs): musl makes the calls glibc does not
// (stat, lstat, open rather than openat in places), so its output against the host's checks
// them. It prints what it finds of the files cases.sh made, never anything that varies.
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int
cmp(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

int
main(void)
{
  struct stat st;
  const char *paths[] = { "tree", "tree/a", "tree/link", "tree/sub/c", "missing" };
  for(int i = 0; i < 5; i++) {
    if(lstat(paths[i], &st) != 0) {
      printf("%s: lstat: %s\n", paths[i], strerror(errno));
      continue;
    }
    printf("%s: mode %o size %lld links %ld\n", paths[i], (unsigned)st.st_mode,
           S_ISDIR(st.st_mode) ? 0LL : (long long)st.st_size, (long)st.st_nlink);
  }
  if(stat("tree/link", &st) == 0)
    printf("tree/link -> a regular file of %lld bytes\n", (long long)st.st_size);
  DIR *d = opendir("tree/sub");
  char *names[16];
  int n = 0;
  struct dirent *e;
  while(d && n < 16 && (e = readdir(d)))
    names[n++] = strdup(e->d_name);
  if(d)
    closedir(d);
  qsort(names, n, sizeof(names[0]), cmp);
  for(int i = 0; i < n; i++)
    printf("tree/sub: %s\n", names[i]);
  char buf[64];
  int fd = open("words", O_RDONLY);
  ssize_t r = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
  buf[r > 0 ? r : 0] = 0;
  printf("words: %zd bytes, first line %.*s\n", r, (int)strcspn(buf, "\n"), buf);
  return 0;
}
