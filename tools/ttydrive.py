#!/usr/bin/env python3
"""Types into a terminal program as a person would and checks what the terminal shows.

  ttydrive.py pty [--session S] PROGRAM
                                     the program under a pseudo-terminal on this host (Linux is
                                     the oracle: the same session must pass there); for the
                                     shell session PROGRAM is a busybox, run as `sh`
  ttydrive.py qemu [--session S] [--smp N] [--log LOG] [--timeout S] [--image debug]
                                     this kernel's serial console: tools/qemu.sh boots
                                     `bench=none init=/test/bin/termios -- interactive` (or
                                     `init=/bin/sh`) with the serial on pipes (QEMU's -serial stdio);
                                     termios is a test program, a file of the test archive, which
                                     only the debug image's boots load: that session boots it

Session termios (the default; tests/user/termios.c, "interactive"): a line, an erase (DEL), a
kill (^U), ^D at a line's start (end of file), raw mode (no echo, VMIN 3), a VTIME time-out,
O_NONBLOCK's EAGAIN, poll (idle, then a typed line), a blocked read a signal interrupts (EINTR)
or restarts (SA_RESTART, then a typed line), ^\ to a SIGQUIT handler, then ^C to the spinning
program, which must end by SIGINT.

Session shell (Debian's busybox sh with line editing and job control): the prompt, a command
line with a pipeline, an erase in line editing, ^C to a sleeping and to a spinning program (the
shell stays, `$?` is 130), job control (`sleep 100`, ^Z and busybox's Stopped line, `jobs`,
`bg`, `jobs` again, `fg`, ^C, `$?` 130; a background read stopped by SIGTTIN and a write with
TOSTOP by SIGTTOU, each continued by `fg`), on the kernel the benchmark program with other thread
counts, then `exit 3`, the status init= or wait reports.

Prints one PASS/FAIL line per step and `N passed, N failed`; exits 0 only when all passed.
"""
import argparse
import os
import re
import select
import signal
import struct
import subprocess
import sys
import time

STEP_SECS = 120   # a generous bound for one step on a loaded host: never a measured time


class Term:
    """What the terminal showed so far, read from fd; send() types."""

    def __init__(self, rfd, wfd):
        self.rfd, self.wfd = rfd, wfd
        self.seen = b""      # everything shown, carriage returns kept
        self.pos = 0         # expect() searches from here

    def send(self, data):
        os.write(self.wfd, data)

    def _fill(self, deadline):
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        r, _, _ = select.select([self.rfd], [], [], left)
        if not r:
            return False
        try:
            chunk = os.read(self.rfd, 4096)
        except OSError:   # a pty's master reads EIO once the program is gone
            chunk = b""
        if not chunk:
            return False
        self.seen += chunk
        return True

    def expect(self, pattern, secs=STEP_SECS):
        """Waits for pattern (bytes, a regex over the output with \\r removed) after the last
        match; returns the text between the last match and this one's end, or None."""
        deadline = time.monotonic() + secs
        rx = re.compile(pattern)
        while True:
            text = self.seen[self.pos:].replace(b"\r", b"")
            m = rx.search(text)
            if m:
                # Advance over the raw bytes that hold the matched text.
                raw, k = self.pos, 0
                while k < m.end():
                    if self.seen[raw:raw + 1] != b"\r":
                        k += 1
                    raw += 1
                self.pos = raw
                return text[:m.end()]
            if not self._fill(deadline):
                return None


passed = failed = 0


def result(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"PASS  tty/{name}")
    else:
        failed += 1
        print(f"FAIL  tty/{name} {detail}")
    sys.stdout.flush()
    return ok


def session(term, boot_secs):
    """The typed session; returns False when it could not go on."""
    shown = term.expect(rb"termios: ready\n", boot_secs)
    if not result("program ready", shown is not None, repr(term.seen[-300:])):
        return False
    steps = [
        ("line", b"hello world\r", rb"hello world\ngot \[hello world\] 11\n"),
        ("erase with DEL", b"abx\x7fc\r", rb"abx\x08 \x08c\ngot \[abc\] 3\n"),
        ("kill with ^U", b"junk\x15ok\r", rb"junk(\x08 \x08){4}ok\ngot \[ok\] 2\n"),
        ("^D at line start is end of file", b"\x04", rb"got eof\n"),
    ]
    for name, typed, want in steps:
        if term.expect(rb"line> ") is None:
            return result(name, False, "(no prompt)")
        term.send(typed)
        shown = term.expect(want)
        if not result(name, shown is not None, repr(term.seen[term.pos:][-200:])):
            return False
    if term.expect(rb"raw> ") is None:
        return result("raw mode", False, "(no prompt)")
    term.send(b"xyz")
    shown = term.expect(rb"got raw \[xyz\]\n")
    result("raw mode: VMIN 3, no echo", shown is not None and b"xyz" not in
           shown.split(b"got raw")[0], repr(shown))
    shown = term.expect(rb"got (no )?timeout\n")
    result("VMIN 0 VTIME 2 times out with 0", shown is not None and b"no timeout" not in shown,
           repr(shown))
    shown = term.expect(rb"got (no )?eagain\n")
    result("O_NONBLOCK read: EAGAIN", shown is not None and b"no eagain" not in shown, repr(shown))
    shown = term.expect(rb"poll (not )?idle\n")
    result("poll: an idle terminal is writable, not readable", shown is not None and
           b"not idle" not in shown, repr(shown))
    if term.expect(rb"poll> ") is None:
        return result("poll", False, "(no prompt)")
    term.send(b"pp\r")
    shown = term.expect(rb"got polled \[pp\] 1\n")
    result("poll: a typed line is readable", shown is not None, repr(term.seen[-200:]))
    shown = term.expect(rb"got (no )?eintr\n")
    result("a signal ends a blocked read: EINTR", shown is not None and b"no eintr" not in shown,
           repr(shown))
    if term.expect(rb"handled\n") is None:
        return result("SA_RESTART", False, "(no handler ran)")
    term.send(b"after\r")
    shown = term.expect(rb"got restarted \[after\] handled 1\n")
    result("SA_RESTART: the read goes on after the handler", shown is not None,
           repr(term.seen[-200:]))
    if term.expect(rb"quit> ") is None:
        return result("^\\", False, "(no prompt)")
    time.sleep(0.5)   # in its loop, not in a read
    term.send(b"\x1c")
    shown = term.expect(rb"got sigquit\n")
    result("^\\ sends SIGQUIT (echoed ^\\)", shown is not None and b"^\\" in shown,
           repr(term.seen[-200:]))
    if not result("spinning", term.expect(rb"spinning\n") is not None, repr(term.seen[-200:])):
        return False
    time.sleep(0.5)   # the program is in its loop, not in a read
    term.send(b"\x03")
    return True


# busybox sh's prompt for root in / is "/ # " ("$ " for another user on the host).
PROMPT = rb"/ [#$] "


def shell_command(term, name, typed, want):
    """Types a command line at a prompt; its output must match want, then a new prompt."""
    term.send(typed + b"\r")
    shown = term.expect(want)
    ok = shown is not None and term.expect(PROMPT) is not None
    return result(name, ok, repr(term.seen[-300:]))


def shell_interrupt(term, name, command, started):
    """Starts command, waits for its line saying it started, ^C: the shell must stay and give
    a new prompt, and $? must be 130 (128 + SIGINT)."""
    term.send(command + b"\r")
    if term.expect(started) is None:
        return result(name, False, "(it did not start) " + repr(term.seen[-300:]))
    time.sleep(1)   # past the exec: the program itself is in its sleep or loop
    term.send(b"\x03")
    shown = term.expect(PROMPT)
    if not result(name, shown is not None and b"^C" in shown, repr(term.seen[-300:])):
        return False
    return shell_command(term, name + "-status-130", b"echo status $?", rb"\nstatus 130\n")


def shell_job_control(term):
    """sleep 100, ^Z: busybox's Stopped line and a prompt; jobs lists it stopped, bg runs it on
    (jobs: Running), fg brings it back, ^C ends it and $? is 130."""
    term.send(b"sleep 100\r")
    time.sleep(1)   # past the fork and exec: sleep is in its nanosleep
    term.send(b"\x1a")
    shown = term.expect(rb"\[1\]\+ +Stopped +sleep 100\n")
    ok = shown is not None and b"^Z" in shown and term.expect(PROMPT) is not None
    if not result("shell/^Z-stops-sleep", ok, repr(term.seen[-300:])):
        return False
    shell_command(term, "shell/jobs-stopped", b"jobs", rb"\n\[1\]\+ +Stopped +sleep 100\n")
    shell_command(term, "shell/bg", b"bg", rb"\n\[1\] sleep 100\n")
    shell_command(term, "shell/jobs-running", b"jobs", rb"\n\[1\]\+ +Running +sleep 100\n")
    term.send(b"fg\r")
    if term.expect(rb"\nsleep 100\n") is None:
        return result("shell/fg", False, repr(term.seen[-300:]))
    time.sleep(1)   # the shell is in its wait, the job in the foreground
    term.send(b"\x03")
    shown = term.expect(PROMPT)
    if not result("shell/fg-then-^C", shown is not None and b"^C" in shown,
                  repr(term.seen[-300:])):
        return False
    return shell_command(term, "shell/fg-^C-status-130", b"echo status $?", rb"\nstatus 130\n")


def shell_background_tty(term):
    """A background job reading the terminal stops by SIGTTIN (`cat & wait`: busybox's
    "Stopped (tty input)"); fg continues it, its read goes on with a typed line, ^D ends it.
    With `stty tostop` a background job's write stops it by SIGTTOU ("Stopped (tty output)")."""
    if not shell_command(term, "shell/background-read-SIGTTIN", b"cat & wait",
                         rb"\n\[1\]\+ +Stopped \(tty input\) +cat\n"):
        return False
    term.send(b"fg\r")
    if term.expect(rb"\ncat\n") is None:
        return result("shell/fg-read-goes-on", False, repr(term.seen[-300:]))
    term.send(b"typed\r")
    shown = term.expect(rb"typed\ntyped\n")
    result("shell/fg-read-goes-on", shown is not None, repr(term.seen[-300:]))
    term.send(b"\x04")
    if not result("shell/fg-read-^D", term.expect(PROMPT) is not None, repr(term.seen[-300:])):
        return False
    if not shell_command(term, "shell/tostop-write-SIGTTOU", b"stty tostop; echo out & wait",
                         rb"\n\[1\]\+ +Stopped \(tty output\) +echo out\n"):
        return False
    shell_command(term, "shell/fg-write-goes-on", b"fg", rb"\necho out\nout\n")
    return shell_command(term, "shell/stty-tostop-off", b"stty -tostop; echo done", rb"\ndone\n")


def shell_session(term, boot_secs, ubench):
    """The shell's session up to `exit 3`; returns False when it could not go on."""
    shown = term.expect(PROMPT, boot_secs)
    if not result("shell/prompt", shown is not None, repr(term.seen[-300:])):
        return False
    if not shell_command(term, "shell/pipeline",
                         b"echo hi; seq 3 | wc -l", rb"\nhi\n *3\n"):
        return False
    shell_command(term, "shell/line-editing-erase", b"echo abx\x7fc", rb"\nabc\n")
    if not shell_interrupt(term, "shell/^C-ends-sleep",
                           b"sh -c 'echo sleeping; exec sleep 100'", rb"\nsleeping\n"):
        return False
    if not shell_interrupt(term, "shell/^C-ends-spin",
                           b"sh -c 'echo spinning; while :; do :; done'", rb"\nspinning\n"):
        return False
    if not shell_job_control(term) or not shell_background_tty(term):
        return False
    if ubench:
        # The benchmark program by hand, with thread counts and runs of one's own.
        shell_command(term, "shell/ubench-by-hand",
                      b"ubench --threads 1,2 --suites upread --secs 0.01 --runs 2",
                      rb"BENCH suite=upread [^\n]*threads=1 [^\n]*\n(.*\n)*"
                      rb"BENCH suite=upread [^\n]*threads=2 [^\n]*\n")
    term.send(b"exit 3\r")
    return True


def run_pty(program, which):
    import pty
    pid, fd = pty.fork()
    if pid == 0:
        # The window size the kernel's console starts with, before the program asks.
        import fcntl
        import termios
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        # ^C, ^\ and a hang-up must reach the program as on a login: a make test started in
        # the background of a non-interactive shell (nohup make test &) runs with SIGINT and
        # SIGQUIT ignored (SIGHUP too, under nohup), and execve keeps an ignored signal
        # ignored (signal(7)).
        for sig in (signal.SIGHUP, signal.SIGINT, signal.SIGQUIT):
            signal.signal(sig, signal.SIG_DFL)
        if which == "shell":
            # As init= starts it: in /, with the kernel's environment.
            os.chdir("/")
            os.execve(program, ["sh"], {"HOME": "/", "TERM": "linux", "PATH": "/bin:/usr/bin"})
        os.execv(program, [program, "interactive"])
    term = Term(fd, fd)
    if which == "shell":
        ok = shell_session(term, STEP_SECS, ubench=False)
    else:
        ok = session(term, STEP_SECS)
    deadline = time.monotonic() + STEP_SECS
    status = None
    while time.monotonic() < deadline:
        term._fill(time.monotonic() + 0.2)
        wpid, st = os.waitpid(pid, os.WNOHANG)
        if wpid:
            status = st
            break
    if status is None:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    if ok and which == "shell":
        result("shell/exit-3", status is not None and
               os.WIFEXITED(status) and os.WEXITSTATUS(status) == 3, f"(wait status {status})")
    elif ok:
        result("^C echoed", b"^C" in term.seen, repr(term.seen[-200:]))
        result("^C ends the program by SIGINT", status is not None and os.WIFSIGNALED(status)
               and os.WTERMSIG(status) == signal.SIGINT, f"(wait status {status})")


def run_qemu(smp, log, timeout, image, which):
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    init = "init=/bin/sh" if which == "shell" else "init=/test/bin/termios -- interactive"
    if which != "shell" and not image:
        image = "debug"   # /test/bin/termios is the test archive's, loaded with the debug image
    cmd = [os.path.join(top, "tools/qemu.sh"), "--smp", str(smp), "--timeout", str(timeout),
           "--cmdline", "bench=none " + init]
    if log:
        cmd += ["--log", log]
    if image:
        cmd += ["--image", image]
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=top)
    term = Term(p.stdout.fileno(), p.stdin.fileno())
    if which == "shell":
        ok = shell_session(term, timeout, ubench=True)
        if ok:
            shown = term.expect(rb"init: /bin/sh exited with status 3\n")
            result("shell/exit-3-init-status", shown is not None,
                   repr(term.seen[-300:]))
        ok = False
    else:
        ok = session(term, timeout)
    if ok:
        # The kernel's line starts a line of its own after the echoed ^C.
        shown = term.expect(rb"\^C\n(\[ *[0-9.]+\] )?init: /test/bin/termios killed by signal 2 "
                            rb"\(status 130\)\n")
        result("^C ends the program by SIGINT (status 130)", shown is not None,
               repr(term.seen[-300:]))
    try:
        p.stdin.close()
        p.wait(timeout=60)
    except (subprocess.TimeoutExpired, BrokenPipeError):
        p.kill()
        p.wait()
    while term._fill(time.monotonic() + 1):
        pass
    if image == "debug":
        result("shell/no-LOCKDEP-report" if which == "shell" else
               "no LOCKDEP report (debug image)", b"LOCKDEP kind=" not in term.seen and
               re.search(rb"lockdep: [0-9]+ classes, .* 0 reports, 0 errors", term.seen),
               "(see the log)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="mode", required=True)
    a = sub.add_parser("pty")
    a.add_argument("--session", choices=["termios", "shell"], default="termios")
    a.add_argument("program")
    b = sub.add_parser("qemu")
    b.add_argument("--session", choices=["termios", "shell"], default="termios")
    b.add_argument("--smp", type=int, default=2)
    b.add_argument("--log", default="")
    b.add_argument("--timeout", type=int, default=300)
    b.add_argument("--image", default="", help="release or debug (lockdep); default: debug for termios, release for shell")
    args = ap.parse_args()
    if args.mode == "pty":
        run_pty(args.program, args.session)
    else:
        run_qemu(args.smp, args.log, args.timeout, args.image, args.session)
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
