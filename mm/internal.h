// What mm/vma.c's tree code shares with mm/munmap.c, and nothing outside mm/ needs (Linux's
// mm/internal.h). All but range_ok are called under mmap_sem for write.
#pragma once
#include "vm.h"

// [addr, addr + len) is page aligned and below TASK_SIZE.
bool range_ok(unsigned long addr, size_t len);
// Removes [start, end) from every VMA it touches and zaps its pages; cutting a hole in one
// VMA takes *spare (set to NULL). No VMA of the range may be unmapping (unmapping_wait).
void unmap_range(struct mm *mm, unsigned long start, unsigned long end, struct vma **spare);
// v leaves the tree and is freed after a grace period, its file's reference dropped.
void vma_remove(struct mm *mm, struct vma *v);
// false if no VMA meeting [start, end) is unmapping, mmap_sem still held; else true, after
// waiting, with mmap_sem dropped: the caller takes it again and looks again (mm/munmap.c).
bool unmapping_wait(struct mm *mm, unsigned long start, unsigned long end);
