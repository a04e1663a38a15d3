// Memory and string functions for the kernel, written plainly: the compiler vectorizes nothing
// here (no SSE). memcpy and memset, the hot ones, are the arch's (arch/x86_64/string.S).
#include "string.h"

void *
memmove(void *d, const void *s, size_t n)
{
  unsigned char *dp = d;
  const unsigned char *sp = s;
  if(dp <= sp || dp >= sp + n)
    return memcpy(d, s, n);
  while(n--)
    dp[n] = sp[n];
  return d;
}

int
memcmp(const void *a, const void *b, size_t n)
{
  const unsigned char *p = a, *q = b;
  for(size_t i = 0; i < n; i++)
    if(p[i] != q[i])
      return p[i] - q[i];
  return 0;
}

void *
memchr(const void *s, int c, size_t n)
{
  const unsigned char *p = s;
  for(size_t i = 0; i < n; i++)
    if(p[i] == (unsigned char)c)
      return (void *)(p + i);
  return NULL;
}

size_t
strlen(const char *s)
{
  size_t n = 0;
  while(s[n])
    n++;
  return n;
}

size_t
strnlen(const char *s, size_t max)
{
  size_t n = 0;
  while(n < max && s[n])
    n++;
  return n;
}

int
strcmp(const char *a, const char *b)
{
  while(*a && *a == *b)
    a++, b++;
  return (unsigned char)*a - (unsigned char)*b;
}

int
strncmp(const char *a, const char *b, size_t n)
{
  for(; n > 0; n--, a++, b++) {
    if(*a != *b)
      return (unsigned char)*a - (unsigned char)*b;
    if(!*a)
      return 0;
  }
  return 0;
}

char *
strchr(const char *s, int c)
{
  for(; *s; s++)
    if(*s == (char)c)
      return (char *)s;
  return c == 0 ? (char *)s : NULL;
}

size_t
strlcpy(char *d, const char *s, size_t size)
{
  size_t n = strlen(s);
  if(size) {
    size_t k = n < size - 1 ? n : size - 1;
    memcpy(d, s, k);
    d[k] = 0;
  }
  return n;
}
