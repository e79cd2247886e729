import ArgumentParser
import Foundation
#if canImport(CAllocator)
import CAllocator
#endif

/// glibc's allocator tuned for the column engine's scans, set once at start (Linux only).
///
/// A scan decodes each chunk's columns into arrays of a few MiB and frees them before the next
/// chunk. By default glibc serves such blocks with `mmap` and unmaps them on `free` (its dynamic
/// threshold only rises once one is freed), and trims the heap's free top back to the OS: every
/// chunk's arrays then came back as fresh pages, and first-touch page faults were 28 % of `paths`
/// over 7.28 M events (perf). Keeping blocks up to 32 MiB (glibc's largest threshold) on the heap
/// and trimming only beyond 256 MiB free made `paths … --direction previous --depth 5` 1.40 →
/// 1.20 s and `trend … --measure users` 1.45 → 1.26 s (farm-bench -n 5, paired, same run,
/// `MALLOC_MMAP_THRESHOLD_`/`MALLOC_TRIM_THRESHOLD_`: BENCHMARKS.md).
///
/// `serve` keeps glibc's defaults. It runs for months under a documented memory bound (HandzServer
/// docs, "Operations", Overload), and with the tuning every allocator arena kept its own high-water
/// mark: under load, threads that find their arena locked move to another, so the freed heap held
/// grows with contention. `OverloadTests` peaked at 118–119 MiB with the tuning against 98–109
/// without it on a loaded machine, and once at 151 MiB in CI, past its 150 MiB bound. A served
/// page's scan pays the page faults the tuning saves a one-shot command (about 12 %).
enum MemoryTuning {
    static let mmapThresholdBytes: Int32 = 32 << 20
    static let trimThresholdBytes: Int32 = 256 << 20

    /// Whether `command` runs with the tuning: every command but the long-running server.
    static func tunes(_ command: ParsableCommand) -> Bool {
        !(command is Serve)
    }

    static func apply(for command: ParsableCommand) {
        guard tunes(command) else { return }
        #if canImport(CAllocator)
        // An operator's own MALLOC_* settings win.
        guard !ProcessInfo.processInfo.environment.keys.contains(where: { $0.hasPrefix("MALLOC_") }) else { return }
        _ = handz_tune_allocator(mmapThresholdBytes, trimThresholdBytes)
        #endif
    }
}
