// The table of the programs user_images.S embeds, looked up by the last component of a path.
#include "string.h"
#include "user_bins.h"

#define BIN(n) extern const u8 user_bin_##n[], user_bin_##n##_end[];
BIN(hello) BIN(hello_pie) BIN(threads) BIN(mem) BIN(fmap) BIN(fault) BIN(fpu) BIN(spin) BIN(hostile) BIN(oom) BIN(exitgroup) BIN(clock) BIN(files) BIN(names) BIN(termios) BIN(pipe) BIN(pipeproc) BIN(poll) BIN(signals) BIN(proc) BIN(jobctl) BIN(conline)
#undef BIN

static const struct {
  const char *name;
  const u8 *start, *end;
} bins[] = {
#define BIN(n) { #n, user_bin_##n, user_bin_##n##_end },
  { "hello-pie", user_bin_hello_pie, user_bin_hello_pie_end },
  BIN(hello) BIN(threads) BIN(mem) BIN(fmap) BIN(fault) BIN(fpu) BIN(spin) BIN(hostile) BIN(oom) BIN(exitgroup) BIN(clock) BIN(files) BIN(names) BIN(termios) BIN(pipe) BIN(pipeproc) BIN(poll) BIN(signals) BIN(proc) BIN(jobctl) BIN(conline)
#undef BIN
};

const void *
user_bin_lookup(const char *path, size_t *len)
{
  const char *base = path;
  for(const char *c = path; *c; c++)
    if(*c == '/')
      base = c + 1;
  for(size_t i = 0; i < sizeof(bins) / sizeof(bins[0]); i++) {
    if(strcmp(bins[i].name, base) == 0) {
      *len = bins[i].end - bins[i].start;
      return bins[i].start;
    }
  }
  return NULL;
}
