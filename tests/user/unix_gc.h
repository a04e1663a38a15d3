// unix_gc.h: the collection of AF_UNIX sockets in flight in cycles (tests/user/unix.c's part;
// Linux's net/unix/garbage.c): cycles freed, a cycle held from outside kept, a stress.
//
// The witness of a collection is a pipe's write end sent inside the cycle and closed here:
// its read end sees end of file once the last copy is put, which only the collector can do.
// Linux collects when a unix socket is released (from a work queue since 6.10), so each wait
// releases a fresh socketpair and polls, for a bounded time.
#pragma once

// Releases a socketpair: a collection starts (Linux's unix_release_sock, and the kernel's).
static void
gc_kick(void)
{
  int sv[2];
  if(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0) {
    close(sv[0]);
    close(sv[1]);
  }
}

// Whether rd reads end of file within ms milliseconds, kicking the collector meanwhile.
static int
gc_eof_within(int rd, int ms)
{
  for(int waited = 0; waited < ms; waited += 10) {
    gc_kick();
    struct pollfd p = { rd, POLLIN, 0 };
    if(poll(&p, 1, 10) == 1) {
      char c;
      return read(rd, &c, 1) == 0;
    }
  }
  return 0;
}

// Receives one message's fds (up to 8) from s into fds: how many, or -1.
static int
recv_fds(int s, int *fds, int flags)
{
  char buf[16], cbuf[CMSG_SPACE(sizeof(int) * 8)];
  struct iovec io = { buf, sizeof(buf) };
  struct msghdr m = { .msg_iov = &io, .msg_iovlen = 1, .msg_control = cbuf,
                      .msg_controllen = sizeof(cbuf) };
  if(recvmsg(s, &m, flags) < 0)
    return -1;
  struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
  if(!cm || cm->cmsg_type != SCM_RIGHTS)
    return 0;
  int n = (int)((cm->cmsg_len - CMSG_LEN(0)) / sizeof(int));
  memcpy(fds, CMSG_DATA(cm), sizeof(int) * n);
  return n;
}

static const int gc_types[3] = { SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET };

// send_fds that never waits (the stress sends on sockets others close or fill).
static void
gc_send(int s, const int *fds, int n)
{
  send_fds_flags(s, fds, n, MSG_DONTWAIT | MSG_NOSIGNAL);
}

// A ring of n sockets x[i], each queue holding the next one's fd (n = 1: its own), the first
// holding also a socket c whose queue holds the pipe's write end: c is in flight inside the
// ring, the pipe's end one step further. Everything closed, the ring is garbage.
static void
gc_ring(int n, int type)
{
  int x[16], y[16], p[2], c[2];
  char what[96];
  snprintf(what, sizeof(what), "a ring of %d (type %d) and a pipe end two steps in", n, type);
  int ok = pipe(p) == 0 && socketpair(AF_UNIX, type, 0, c) == 0;
  for(int i = 0; i < n; i++) {   // y[i] is x[i]'s peer: what it sends lands in x[i]'s queue
    int sv[2];
    ok &= socketpair(AF_UNIX, type, 0, sv) == 0;
    x[i] = sv[0];
    y[i] = sv[1];
  }
  ok &= send_fds(c[1], &p[1], 1) == 1;   // the pipe's write end in c's queue
  for(int i = 0; i < n; i++)
    ok &= send_fds(y[i], &x[(i + 1) % n], 1) == 1;   // x[i+1] into x[i]'s queue
  ok &= send_fds(y[0], &c[0], 1) == 1;   // c into x[0]'s queue
  close(p[1]);
  close(c[0]);
  close(c[1]);
  for(int i = 0; i < n; i++) {
    close(x[i]);
    close(y[i]);
  }
  check(ok, what);
  check(gc_eof_within(p[0], 5000), "the collector frees the ring: the pipe reads end of file");
  close(p[0]);
}

// Two sockets holding each other, one still open here: nothing may be taken. Then the
// open one passes on what it holds, and every file still works.
static void
gc_held(void)
{
  int a[2], b[2], p[2];
  check(socketpair(AF_UNIX, SOCK_STREAM, 0, a) == 0 && socketpair(AF_UNIX, SOCK_DGRAM, 0, b) == 0 &&
        pipe(p) == 0, "two pairs and a pipe");
  int bp[2] = { a[0], p[1] };
  check(send_fds(a[1], &b[0], 1) == 1 && send_fds(b[1], bp, 2) == 1,
        "a[0] holds b[0], b[0] holds a[0] and the pipe's write end");
  close(a[1]);
  close(b[1]);
  close(b[0]);
  close(p[1]);
  // a[0] is open here: the cycle is reachable. Collections run; none may free it.
  for(int i = 0; i < 5; i++)
    gc_kick();
  struct pollfd pf = { p[0], POLLIN, 0 };
  check(poll(&pf, 1, 200) == 0, "a cycle held from outside is not collected");
  int got[8], got2[8];
  int peeked = recv_fds(a[0], got, MSG_PEEK);   // a copy, as Linux's scm_fp_dup
  check(peeked == 1, "MSG_PEEK gives b[0] again");
  if(peeked == 1)
    close(got[0]);
  gc_kick();
  check(recv_fds(a[0], got, 0) == 1, "receive b[0] from a[0]");
  check(recv_fds(got[0], got2, 0) == 2, "receive a[0] and the pipe's end from it");
  check(write(got2[1], "live", 4) == 4 && read(p[0], (char[8]){ 0 }, 8) == 4,
        "the passed pipe end writes");
  struct stat s1, s2;
  check(fstat(got2[0], &s1) == 0 && fstat(a[0], &s2) == 0 && s1.st_ino == s2.st_ino,
        "the passed socket is a[0]");
  close(got[0]);
  close(got2[0]);
  close(got2[1]);
  close(a[0]);
  check(gc_eof_within(p[0], 2000), "all closed: end of file");
  close(p[0]);
}

// A listener's unaccepted connection holding the listener: the queue of a connection not
// yet accepted is reached through its listener (Linux's scan_children).
static void
gc_listener(void)
{
  struct sockaddr_un a = { AF_UNIX };
  snprintf(a.sun_path + 1, sizeof(a.sun_path) - 1, "unix-gc-%d", getpid());
  socklen_t al = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(a.sun_path + 1));
  int l = socket(AF_UNIX, SOCK_STREAM, 0), c = socket(AF_UNIX, SOCK_STREAM, 0), p[2];
  check(l >= 0 && c >= 0 && pipe(p) == 0 && bind(l, (struct sockaddr *)&a, al) == 0 &&
        listen(l, 4) == 0 && connect(c, (struct sockaddr *)&a, al) == 0, "a connection");
  int lp[2] = { l, p[1] };
  check(send_fds(c, lp, 2) == 1, "the listener's fd to its unaccepted connection");
  close(p[1]);
  close(l);
  close(c);
  check(gc_eof_within(p[0], 5000), "a listener held by its embryo's queue is collected");
  close(p[0]);
}

// Threads make cycles (each message with the witness's write end), peek and receive from
// sockets others close, for a while; then everything is closed: the witness reads end of
// file, so no message was lost to a leak.
#define GC_SLOTS 16
static int gc_slot[GC_SLOTS];   // sockets handed between threads (-1: none): exchanged
static int gc_witness;

static void *
gc_churn(void *arg)
{
  unsigned seed = (unsigned)(long)arg;
  int bad = 0;
  for(int i = 0; i < 400; i++) {
    int sv[2], fds[3];
    if(socketpair(AF_UNIX, gc_types[rand_r(&seed) % 3], 0, sv)) {
      bad++;
      continue;
    }
    int k = rand_r(&seed) % GC_SLOTS;
    fds[0] = sv[0];
    fds[1] = gc_witness;
    fds[2] = __atomic_load_n(&gc_slot[k], __ATOMIC_RELAXED);   // maybe closed: EBADF
    gc_send(sv[1], fds, fds[2] >= 0 ? 3 : 2);   // sv[0] holds itself: a cycle of one
    switch(rand_r(&seed) % 4) {
    case 0:   // sv[0] passes to another socket's queue and the other way
      if(fds[2] >= 0)
        gc_send(fds[2], fds, 2);
      break;
    case 1: {   // peek and receive what sv[0] holds, closing what comes
      int got[8], n = recv_fds(sv[0], got, MSG_PEEK | MSG_DONTWAIT);
      for(int j = 0; j < n; j++)
        close(got[j]);
      n = recv_fds(sv[0], got, MSG_DONTWAIT);
      for(int j = 0; j < n; j++)
        close(got[j]);
      break;
    }
    default:
      break;
    }
    // Hand sv[0] to the slot (another thread may close it), and close what was there.
    int old = __atomic_exchange_n(&gc_slot[k], sv[0], __ATOMIC_ACQ_REL);
    if(old >= 0)
      close(old);
    close(sv[1]);
  }
  return (void *)(long)bad;
}

static void
gc_stress(void)
{
  int p[2];
  check(pipe(p) == 0, "the witness pipe");
  gc_witness = p[1];
  for(int round = 0; round < 3; round++) {
    for(int i = 0; i < GC_SLOTS; i++)
      gc_slot[i] = -1;
    pthread_t t[4];
    long bad = 0;
    for(int i = 0; i < 4; i++)
      pthread_create(&t[i], NULL, gc_churn, (void *)(long)(round * 4 + i + 1));
    for(int i = 0; i < 4; i++) {
      void *r;
      pthread_join(t[i], &r);
      bad += (long)r;
    }
    for(int i = 0; i < GC_SLOTS; i++)
      if(gc_slot[i] >= 0)
        close(gc_slot[i]);
    check(bad == 0, "4 threads making cycles, peeking and closing");
  }
  close(p[1]);
  check(gc_eof_within(p[0], 10000), "after the stress every message is freed: end of file");
  close(p[0]);
}

static void
collector(void)
{
  for(int t = 0; t < 3; t++) {
    gc_ring(1, gc_types[t]);
    gc_ring(2, gc_types[t]);
  }
  gc_ring(7, SOCK_STREAM);
  gc_ring(16, SOCK_DGRAM);
  gc_held();
  gc_listener();
  gc_stress();
}
