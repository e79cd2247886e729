// glibc's mallopt(3), which Swift's Glibc module does not export (<malloc.h> is not in it): the
// command line tunes the allocator for the column engine's scans once at start
// (HandzAnalyticsCLI's MemoryTuning). Header only; glibc has the symbol.
#pragma once
#if defined(__linux__)
#include <malloc.h>

/// Serves blocks below `mmap_threshold` bytes from the heap (no mmap/munmap per block) and returns
/// the heap's free top to the OS only beyond `trim_threshold` bytes. Returns 1 when both took.
static inline int handz_tune_allocator(int mmap_threshold, int trim_threshold) {
    return mallopt(M_MMAP_THRESHOLD, mmap_threshold) == 1 && mallopt(M_TRIM_THRESHOLD, trim_threshold) == 1;
}
#endif
