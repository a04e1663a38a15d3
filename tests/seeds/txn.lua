-- txn.lua: the transaction of seed 001's real run (make seeds-real), for Debian's sysbench:
-- each event allocates 3 to 6 buffers of 4 KiB to 128 KiB with the process's malloc,
-- writes one word of every cache line, reads them back and frees them: the work of one
-- transaction of the in-kernel madvise suite (include/txnheap.h), done by a real allocator
-- (Debian's jemalloc, preloaded) that decides when and how freed pages go back to the kernel.
local ffi = require("ffi")
ffi.cdef[[
void *malloc(size_t size);
void free(void *ptr);
]]

local PAGE, LINE_WORDS = 4096, 8
local bufs, words = {}, {}

function thread_init()
  -- A sequence per thread, the same in every run: the kernels see the same sizes.
  math.randomseed(sysbench.tid + 1)
end

function event()
  local n, sum, want = math.random(3, 6), 0, 0
  for i = 1, n do
    local w = PAGE * 2 ^ math.random(0, 5) / 8
    local p = ffi.cast("uint64_t *", ffi.C.malloc(w * 8))
    if p == nil then error("malloc failed") end
    for k = 0, w - 1, LINE_WORDS do p[k] = k + i; want = want + k + i end
    bufs[i], words[i] = p, w
  end
  for i = 1, n do
    local p = bufs[i]
    for k = 0, words[i] - 1, LINE_WORDS do sum = sum + tonumber(p[k]) end
    ffi.C.free(p)
  end
  -- A buffer that did not read back what was written is a kernel bug (a page lost or zeroed
  -- under a live allocation): the run stops, and the harness reports it.
  if sum ~= want then error("transaction read back " .. sum .. ", wrote " .. want) end
end
