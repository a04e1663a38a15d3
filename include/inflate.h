// Decompression for the initramfs: DEFLATE (RFC 1951, kernel/lib/inflate.c) and the gzip
// format around it (RFC 1952, kernel/lib/gunzip.c). The input is all in memory; the output
// goes to a callback in pieces, through a window the caller provides.
#pragma once
#include "types.h"

#define INFLATE_WINDOW (64 * 1024)   // the caller's scratch: twice DEFLATE's 32 KiB distance

// Takes the decompressed bytes; a negative return stops decompression with that value.
typedef int (*inflate_out_fn)(void *arg, const u8 *buf, size_t len);

// Decompresses the raw DEFLATE stream at in: 0 with *used the bytes it took (the stream
// ends inside in), or -EINVAL with *why saying what is wrong with the data, or the
// callback's error. window: INFLATE_WINDOW bytes of the caller's.
int inflate(const u8 *in, size_t inlen, size_t *used, u8 *window, inflate_out_fn out,
            void *arg, const char **why);

// One gzip member at in (header, DEFLATE data, CRC-32 and length checked): as inflate.
int gunzip(const u8 *in, size_t inlen, size_t *used, u8 *window, inflate_out_fn out,
           void *arg, const char **why);
bool gzip_magic(const u8 *in, size_t inlen);   // starts with 1f 8b
u32 crc32_le(u32 crc, const u8 *buf, size_t len);   // gzip's CRC-32, 0 to start
