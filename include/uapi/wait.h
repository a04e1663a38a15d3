// wait4(2)'s and waitid(2)'s options and idtypes with Linux's values (include/uapi/linux/wait.h):
// the one definition of each.
#pragma once

#define WNOHANG     0x00000001
#define WUNTRACED   0x00000002   // WSTOPPED for waitid
#define WEXITED     0x00000004
#define WCONTINUED  0x00000008
#define WNOWAIT     0x01000000
#define __WNOTHREAD 0x20000000
#define __WALL      0x40000000
#define __WCLONE    0x80000000

#define P_ALL  0
#define P_PID  1
#define P_PGID 2
