// mmap, mprotect, mremap, madvise and msync arguments with Linux's values
// (include/uapi/asm-generic/mman-common.h, mman.h): the one definition of each.
#pragma once

#define PROT_NONE    0x0
#define PROT_READ    0x1
#define PROT_WRITE   0x2
#define PROT_EXEC    0x4
#define MAP_SHARED   0x01
#define MAP_PRIVATE  0x02
#define MAP_FIXED    0x10
#define MAP_ANONYMOUS 0x20
#define MAP_FIXED_NOREPLACE 0x100000
#define MREMAP_MAYMOVE 1
#define MREMAP_FIXED   2

#define MAP_TYPE     0x0f   // the sharing type: SHARED, PRIVATE or SHARED_VALIDATE
#define MAP_SHARED_VALIDATE 0x03

#define MADV_NORMAL   0
#define MADV_WILLNEED 3
#define MADV_DONTNEED 4
#define MADV_FREE     8
#define MADV_REMOVE   9
#define MADV_HWPOISON 100

#define MS_ASYNC      1
#define MS_INVALIDATE 2
#define MS_SYNC       4
