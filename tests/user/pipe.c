// pipe: pipes against Linux's results (man 7 pipe): round trips, pipe2's flags, fstat and
// fcntl on pipe ends, O_NONBLOCK's EAGAIN and a full pipe's capacity, end-of-file when the
// last writer goes (also through dup2), EPIPE with SIGPIPE ignored, readers and writers that
// block until another thread acts, and PIPE_BUF atomicity: writer threads send records that a
// reader must find whole and in each writer's order. "pipe sigpipe" writes to a pipe with no
// reader and SIGPIPE's default action: it must die of SIGPIPE (status 141). Exits 0 when all
// hold.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#define PROG "pipe"
#include "check.h"

#define PIPE_SIZE 65536   // Linux's default capacity: 16 pages
#define WRITERS 8

static void
pause_briefly(void)
{
  usleep(20000);   // lets another thread reach its blocking call; correctness never needs it
}

// Reads exactly n bytes (a pipe read may return less): the count read before EOF or error.
static long
read_full(int fd, char *buf, long n)
{
  long done = 0;
  while(done < n) {
    long r = read(fd, buf + done, n - done);
    if(r <= 0)
      break;
    done += r;
  }
  return done;
}

static void
basics(void)
{
  int p[2];
  char buf[64];
  struct stat st;
  int lowest = dup(0);
  close(lowest);
  check(pipe(p) == 0 && p[0] == lowest && p[1] > p[0], "pipe gives the lowest fds");
  check(write(p[1], "hello", 5) == 5, "write");
  check(read(p[0], buf, sizeof(buf)) == 5 && !memcmp(buf, "hello", 5), "read what was written");
  check(write(p[1], "ab", 2) == 2 && write(p[1], "cd", 2) == 2, "two writes");
  check(read(p[0], buf, 3) == 3 && !memcmp(buf, "abc", 3), "a short read");
  check(read(p[0], buf, 3) == 1 && buf[0] == 'd', "the rest, not waiting for more");
  check(write(p[1], buf, 0) == 0 && read(p[0], buf, 0) == 0, "zero-length calls");
  check(fstat(p[0], &st) == 0 && S_ISFIFO(st.st_mode), "fstat read end: S_IFIFO");
  check(fstat(p[1], &st) == 0 && S_ISFIFO(st.st_mode), "fstat write end: S_IFIFO");
  check(fcntl(p[0], F_GETFL) == O_RDONLY, "F_GETFL read end");
  check(fcntl(p[1], F_GETFL) == O_WRONLY, "F_GETFL write end");
  check(fcntl(p[0], F_GETFD) == 0, "no FD_CLOEXEC");
  check(fcntl(p[0], F_GETPIPE_SZ) == PIPE_SIZE, "F_GETPIPE_SZ");
  int nul = open("/dev/null", O_RDONLY);
  FAILS(fcntl(nul, F_GETPIPE_SZ), EBADF);
  close(nul);
  FAILS(write(p[0], "x", 1), EBADF);
  FAILS(read(p[1], buf, 1), EBADF);
  FAILS(lseek(p[0], 0, SEEK_SET), ESPIPE);
  FAILS(pread(p[0], buf, 1, 0), ESPIPE);
  FAILS(pwrite(p[1], buf, 1, 0), ESPIPE);
  FAILS(syscall(SYS_write, p[1], 8, 4), EFAULT);
  check(write(p[1], "xy", 2) == 2, "write again");
  FAILS(syscall(SYS_read, p[0], 8, 4), EFAULT);
  check(read(p[0], buf, 4) == 2, "data survives a faulting read");
  int d = fcntl(p[1], F_DUPFD_CLOEXEC, 10);
  check(d >= 10 && fcntl(d, F_GETFD) == FD_CLOEXEC, "F_DUPFD_CLOEXEC of a pipe end");
  check(write(d, "z", 1) == 1 && read(p[0], buf, 1) == 1 && buf[0] == 'z', "through the dup");
  close(d);
  close(p[0]);
  close(p[1]);

  check(pipe2(p, O_CLOEXEC | O_NONBLOCK) == 0, "pipe2");
  check(fcntl(p[0], F_GETFD) == FD_CLOEXEC && fcntl(p[1], F_GETFD) == FD_CLOEXEC, "O_CLOEXEC");
  check(fcntl(p[0], F_GETFL) == (O_RDONLY | O_NONBLOCK), "O_NONBLOCK read end");
  check(fcntl(p[1], F_GETFL) == (O_WRONLY | O_NONBLOCK), "O_NONBLOCK write end");
  FAILS(read(p[0], buf, 1), EAGAIN);
  check(fcntl(p[0], F_SETFL, 0) == 0 && fcntl(p[0], F_GETFL) == O_RDONLY, "F_SETFL clears");
  close(p[0]);
  close(p[1]);
  FAILS(pipe2(p, O_APPEND), EINVAL);
  FAILS(syscall(SYS_pipe, 8), EFAULT);
  int probe = dup(0);
  check(probe == lowest, "a failed pipe leaves no fd behind");
  close(probe);
}

// Fills a non-blocking pipe with PIPE_BUF writes: exactly PIPE_SIZE go in, then EAGAIN;
// after one PIPE_BUF read, a longer write goes in part.
static void
capacity(void)
{
  int p[2];
  static char buf[PIPE_SIZE + 8192], back[PIPE_SIZE + 8192];
  for(int i = 0; i < (int)sizeof(buf); i++)
    buf[i] = (char)(i * 7 + i / 4096);
  check(pipe2(p, O_NONBLOCK) == 0, "pipe2 O_NONBLOCK");
  long total = 0, r;
  for(int i = 0; i < 100 && (r = write(p[1], buf + total, 4096)) > 0; i++)
    total += r;
  check(total == PIPE_SIZE, "a full pipe holds 64 KiB");
  FAILS(write(p[1], buf, 1), EAGAIN);
  FAILS(write(p[1], buf, 8192), EAGAIN);
  check(read(p[0], back, 4096) == 4096 && !memcmp(back, buf, 4096), "read a page back");
  check(write(p[1], buf + total, 4097) == 4096, "a write over PIPE_BUF takes what fits");
  total += 4096;
  FAILS(write(p[1], buf, 1), EAGAIN);
  check(read_full(p[0], back + 4096, total - 4096) == total - 4096 &&
        !memcmp(back, buf, total), "everything back, in order");
  FAILS(read(p[0], back, 1), EAGAIN);
  close(p[0]);
  close(p[1]);
}

// End of file once the last writer is gone, however it goes; until then, EAGAIN.
static void
end_of_file(void)
{
  int p[2];
  char buf[16];
  check(pipe2(p, O_NONBLOCK) == 0, "pipe2");
  int w2 = dup(p[1]);
  check(write(p[1], "ab", 2) == 2, "write before closing");
  close(p[1]);
  check(read(p[0], buf, sizeof(buf)) == 2, "data before the end");
  FAILS(read(p[0], buf, 1), EAGAIN);   // a writer is still open: the dup
  int nul = open("/dev/null", O_RDONLY);
  check(dup2(nul, w2) == w2, "dup2 over the last writer");
  check(read(p[0], buf, 1) == 0, "end of file after dup2 closed the last writer");
  check(read(p[0], buf, 1) == 0, "and it stays so");
  close(nul);
  close(w2);
  close(p[0]);

  // EPIPE with SIGPIPE ignored: the write fails and the program goes on.
  struct sigaction sa = { .sa_handler = SIG_IGN };
  check(sigaction(SIGPIPE, &sa, NULL) == 0, "ignore SIGPIPE");
  check(pipe(p) == 0, "pipe");
  close(p[0]);
  FAILS(write(p[1], "x", 1), EPIPE);
  static char big[0x10000];
  FAILS(write(p[1], big, sizeof(big)), EPIPE);
  close(p[1]);
  check(pipe(p) == 0, "pipe");
  int r2 = dup(p[0]);
  close(p[0]);
  check(write(p[1], "x", 1) == 1, "a reader is still open");
  check(dup3(p[1], r2, 0) == r2, "dup3 over the last reader");
  FAILS(write(p[1], "x", 1), EPIPE);
  close(r2);
  close(p[1]);
}

struct sleeper {
  int fd;
  long len, got;
  int err;
  char buf[PIPE_SIZE];
};

static void *
blocked_read(void *arg)
{
  struct sleeper *s = arg;
  s->got = read(s->fd, s->buf, s->len);
  s->err = errno;
  return NULL;
}

static void *
blocked_write(void *arg)
{
  struct sleeper *s = arg;
  s->got = write(s->fd, s->buf, s->len);
  s->err = errno;
  return NULL;
}

// Sleepers woken by another thread: a reader by data and by the last writer's close, a
// writer by room (a long write completes in full) and by the last reader's close (EPIPE).
static void
blocking(void)
{
  static struct sleeper s;
  static char back[2 * PIPE_SIZE];
  pthread_t t;
  int p[2];
  check(pipe(p) == 0, "pipe");
  s.fd = p[0];
  s.len = 100;
  pthread_create(&t, NULL, blocked_read, &s);
  pause_briefly();
  check(write(p[1], "wake", 4) == 4, "write to a waiting reader");
  pthread_join(t, NULL);
  check(s.got == 4 && !memcmp(s.buf, "wake", 4), "the reader got it");

  pthread_create(&t, NULL, blocked_read, &s);
  pause_briefly();
  close(p[1]);
  pthread_join(t, NULL);
  check(s.got == 0, "a waiting reader sees end of file");
  close(p[0]);

  check(pipe(p) == 0, "pipe");
  long total = 0;
  for(int i = 0; i < PIPE_SIZE / 4096; i++)
    total += write(p[1], back, 4096);
  check(total == PIPE_SIZE, "fill");
  for(int i = 0; i < PIPE_SIZE; i++)
    s.buf[i] = (char)(i % 251);
  s.fd = p[1];
  s.len = PIPE_SIZE;
  pthread_create(&t, NULL, blocked_write, &s);
  pause_briefly();
  check(read_full(p[0], back, 2 * PIPE_SIZE) == 2 * PIPE_SIZE, "drain while a writer waits");
  pthread_join(t, NULL);
  check(s.got == PIPE_SIZE && !memcmp(back + PIPE_SIZE, s.buf, PIPE_SIZE),
        "the long write went in whole and in order");

  total = 0;
  for(int i = 0; i < PIPE_SIZE / 4096; i++)
    total += write(p[1], back, 4096);
  s.len = 10;
  pthread_create(&t, NULL, blocked_write, &s);
  pause_briefly();
  close(p[0]);
  pthread_join(t, NULL);
  check(total == PIPE_SIZE && s.got == -1 && s.err == EPIPE, "a waiting writer gets EPIPE");
  close(p[1]);
}

// Writes 10 more bytes after a second: what unblocks a readv that waits when it should not.
static void *
late_writer(void *arg)
{
  sleep(1);
  write(*(int *)arg, "0123456789", 10);
  return NULL;
}

// readv and writev are one read and one write (readv(2)): a readv of {10, 10} from a pipe
// holding 10 bytes returns those 10 at once; a vector with a segment outside user space is
// EFAULT and one with a negative length EINVAL, before anything is written.
static void
vectors(void)
{
  int p[2];
  char a[10], b[10];
  check(pipe(p) == 0, "pipe");
  pthread_t t;
  check(write(p[1], "abcdefghij", 10) == 10, "10 bytes in");
  pthread_create(&t, NULL, late_writer, &p[1]);
  struct iovec two[2] = { { a, 10 }, { b, 10 } };
  check(readv(p[0], two, 2) == 10 && !memcmp(a, "abcdefghij", 10),
        "readv {10, 10} of a pipe holding 10 bytes: 10");
  pthread_join(t, NULL);
  check(read(p[0], a, 10) == 10, "the late 10 bytes");
  struct iovec kernel[2] = { { a, 10 }, { (void *)0xffffffff80000000UL, 10 } };
  FAILS(writev(p[1], kernel, 2), EFAULT);
  struct iovec negative[2] = { { a, 10 }, { b, (size_t)-1 } };
  FAILS(writev(p[1], negative, 2), EINVAL);
  fcntl(p[0], F_SETFL, O_NONBLOCK);
  FAILS(read(p[0], a, 10), EAGAIN);   // neither wrote a byte
  close(p[0]);
  close(p[1]);
}

// PIPE_BUF atomicity: WRITERS threads each write records of one size (at most PIPE_BUF), every
// byte of a record its writer's number and the record's sequence number; the reader reads in
// odd-sized pieces and must find each record whole, each writer's in order, and all of them.
#define RECORDS 64

struct writer {
  int fd, id, size;
  bool vec;   // writev of the record in two halves: one write all the same
};

static void *
record_writer(void *arg)
{
  struct writer *w = arg;
  char rec[4096];
  for(int seq = 0; seq < RECORDS; seq++) {
    memset(rec, (char)(w->id * RECORDS + seq), w->size);
    rec[0] = (char)w->id;
    rec[1] = (char)seq;
    struct iovec halves[2] = { { rec, w->size / 2 },
                               { rec + w->size / 2, w->size - w->size / 2 } };
    if((w->vec ? writev(w->fd, halves, 2) : write(w->fd, rec, w->size)) != w->size)
      return (void *)1;
  }
  return NULL;
}

// Joins the writers, then closes the write end: the reader sees end of file after the last
// record, whatever came through.
struct closer {
  pthread_t *writers;
  int fd, failed;
};

static void *
close_after_writers(void *arg)
{
  struct closer *c = arg;
  for(int i = 0; i < WRITERS; i++) {
    void *r;
    pthread_join(c->writers[i], &r);
    c->failed += r != NULL;
  }
  close(c->fd);
  return NULL;
}

static void
atomicity(int size, bool vec)
{
  int p[2];
  pthread_t t[WRITERS];
  struct writer w[WRITERS];
  int next[WRITERS] = { 0 };
  check(pipe(p) == 0, "pipe");
  for(int i = 0; i < WRITERS; i++) {
    w[i] = (struct writer){ p[1], i, size, vec };
    pthread_create(&t[i], NULL, record_writer, &w[i]);
  }
  struct closer c = { t, p[1], 0 };
  pthread_t ct;
  pthread_create(&ct, NULL, close_after_writers, &c);
  static char rec[4096];
  int got = 0, torn = 0, order = 0;
  char chunk[1000];
  long have = 0;
  for(;;) {
    long r = read(p[0], chunk, 777 + got % 200);   // pieces that never line up with records
    if(r <= 0)
      break;
    for(long i = 0; i < r; i++) {
      rec[have++] = chunk[i];
      if(have < size)
        continue;
      have = 0;
      int id = rec[0], seq = (unsigned char)rec[1];
      if(id < 0 || id >= WRITERS) {
        torn++;
        continue;
      }
      for(int k = 2; k < size; k++)
        if(rec[k] != (char)(id * RECORDS + seq))
          torn++;
      if(seq != next[id]++)
        order++;
      got++;
    }
  }
  pthread_join(ct, NULL);
  check(c.failed == 0, "every writer wrote all its records");
  char what[80];
  snprintf(what, sizeof(what), "%d-byte records%s: %d of %d whole and in order", size,
           vec ? " by writev" : "", got, WRITERS * RECORDS);
  check(got == WRITERS * RECORDS && !torn && !order && have == 0, what);
  close(p[0]);
}

int
main(int argc, char **argv)
{
  if(argc > 1 && !strcmp(argv[1], "sigpipe")) {
    signal(SIGPIPE, SIG_DFL);   // whatever the parent left
    int p[2];
    if(pipe(p))
      return 2;
    close(p[0]);
    write(p[1], "x", 1);
    printf("pipe: survived SIGPIPE\n");
    return 1;
  }
  basics();
  capacity();
  end_of_file();
  blocking();
  atomicity(4096, false);
  atomicity(1000, false);
  atomicity(2, false);
  atomicity(4096, true);
  vectors();
  printf("pipe: %d checks, %d failed\n", checks, fails);
  return fails != 0 || checks < 60;
}
