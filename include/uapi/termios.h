// The terminal ABI: struct termios and winsize as TCGETS/TCSETS and TIOCGWINSZ copy them, c_cc
// indices, mode bits and tty ioctl numbers, with Linux's values (asm-generic/termbits.h, ioctls.h).
#pragma once
#include "types.h"

// Linux's struct termios as TCGETS/TCSETS copy it (include/uapi/asm-generic/termbits.h): 36
// bytes. glibc's larger struct termios is converted from it in tcgetattr.
#define NCCS 19
struct termios {
  u32 c_iflag, c_oflag, c_cflag, c_lflag;
  u8 c_line;
  u8 c_cc[NCCS];
};

struct winsize {
  u16 ws_row, ws_col, ws_xpixel, ws_ypixel;
};

// c_cc indices.
#define VINTR 0
#define VQUIT 1
#define VERASE 2
#define VKILL 3
#define VEOF 4
#define VTIME 5
#define VMIN 6
#define VSTART 8
#define VSTOP 9
#define VSUSP 10
#define VEOL 11
#define VREPRINT 12
#define VWERASE 14
#define VLNEXT 15
#define VEOL2 16

// c_iflag
#define IGNBRK 0000001
#define ISTRIP 0000040
#define INLCR  0000100
#define IGNCR  0000200
#define ICRNL  0000400
#define IXON   0002000
// c_oflag
#define OPOST  0000001
#define ONLCR  0000004
// c_cflag
#define B38400 0000017
#define CS8    0000060
#define CREAD  0000200
// c_lflag
#define ISIG    0000001
#define ICANON  0000002
#define ECHO    0000010
#define ECHOE   0000020
#define ECHOK   0000040
#define ECHONL  0000100
#define NOFLSH  0000200
#define TOSTOP  0000400
#define ECHOCTL 0001000
#define ECHOKE  0004000
#define IEXTEN  0100000

// ioctl numbers (include/uapi/asm-generic/ioctls.h).
#define TCGETS     0x5401
#define TCSETS     0x5402
#define TCSETSW    0x5403
#define TCSETSF    0x5404
#define TCSBRK     0x5409
#define TCFLSH     0x540b
#define TIOCSCTTY  0x540e
#define TIOCGPGRP  0x540f
#define TIOCSPGRP  0x5410
#define TIOCOUTQ   0x5411
#define TIOCGWINSZ 0x5413
#define TIOCSWINSZ 0x5414
#define FIONREAD   0x541b
#define TIOCNOTTY  0x5422

// TCFLSH's queue selector (include/uapi/asm-generic/termbits.h).
#define TCIFLUSH  0
#define TCOFLUSH  1
#define TCIOFLUSH 2
