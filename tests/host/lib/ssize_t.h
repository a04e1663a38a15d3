// The kernel's ssize_t for a kernel file built on the host without the host's <sys/types.h>
// (fs.h's dev_t clashes with it): the same type as glibc's, so a second typedef is allowed.
#pragma once
typedef long ssize_t;
