#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import HandzAnalyticsCore
import Synchronization

/// Exact dedupe by event id without a B-tree insert per event (issue 34 §2), in the way of an LSM
/// tree: the ids of the segments not yet sealed are held in memory (the pending set), and the ids
/// of sealed ones in immutable sorted runs on disk (`IDRun`), each with a filter in memory while
/// the memory budget allows, merged so that few runs are searched. Exact across restarts (the
/// runs are listed in a manifest published by rename; the pending set is rebuilt from the
/// segments that remain), across the retention period (a run goes only when every id in it was
/// received before retention's cutoff), and past what fits in memory (a run without a filter is
/// searched on disk).
///
/// Thread-safety: one writer thread asks ``contains(_:)`` and adds ids with ``addPending(_:segment:)``;
/// the sealer calls ``persist(_:throughSegment:minReceivedMs:maxReceivedMs:)``, ``compact(maxRuns:)`` and
/// ``dropRuns(receivedBeforeMs:)`` from another. A run is visible before its ids leave the pending
/// set, so an id is always found in one of them.
///
/// The pending ids are kept in one set per segment, so a seal drops its segments' sets whole
/// under the lock instead of removing its ids one by one: the sealer runs at nice 15, and the
/// writer thread, which every request waits for, would wait for the lock while the sealer, holding
/// it, waited for the CPU (BENCHMARKS.md, "A day's retention while ingesting").
public final class EventIDIndex: @unchecked Sendable {
    public let directory: String
    /// Bytes of run filters held in memory at most; a run beyond it is searched on disk.
    public let filterBudgetBytes: Int
    private struct State {
        /// The ids of each segment not sealed yet, oldest first.
        var pending: [PendingIDs] = []
        /// Newest first.
        var runs: [IDRun] = []
        var nextRunNumber: UInt64 = 1
        var filterBytes = 0
    }
    private let state = Mutex(State())
    /// Held by ``persist(_:minReceivedMs:maxReceivedMs:)``, ``compact(maxRuns:)`` and
    /// ``dropRuns(receivedBeforeMs:)``: each changes the run list whole, one at a time.
    private let maintenance = Mutex(())
    static let manifestName = "runs"
    static let runExtension = "hzids"

    /// Opens the index in `directory` (created when missing), loading the runs its manifest
    /// lists and removing run files it does not (a seal or merge that crashed before publishing).
    public init(directory: String, filterBudgetBytes: Int = 256 << 20) throws(SegmentLogError) {
        self.directory = directory
        self.filterBudgetBytes = filterBudgetBytes
        guard mkdir(directory, 0o755) == 0 || errno == EEXIST else { throw SegmentLog.error(".", "cannot create the id directory") }
        let listed = try Self.readManifest(directory + "/" + Self.manifestName)
        var loaded = State()
        for entry in listed {
            let run = try IDRun(path: directory + "/" + entry.name, name: entry.name, minReceivedMs: entry.minReceivedMs,
                                maxReceivedMs: entry.maxReceivedMs, withFilter: loaded.filterBytes + IDFilter.bytes(capacity: entry.count) <= filterBudgetBytes)
            loaded.filterBytes += run.filter?.byteCount ?? 0
            loaded.runs.append(run)
            if let number = Self.runNumber(entry.name) { loaded.nextRunNumber = max(loaded.nextRunNumber, number + 1) }
        }
        let names = Set(listed.map(\.name))
        for name in SegmentLog.list(directory) where name.hasSuffix("." + Self.runExtension) || name.hasSuffix(".tmp") {
            if !names.contains(name) { unlink(directory + "/" + name) }
        }
        state.withLock { $0 = loaded }
    }

    /// The ids of one segment not sealed yet.
    struct PendingIDs {
        var segment: UInt64
        var ids: Set<UUIDWords>
    }

    /// Ids a segment's set holds before it first grows: the previous segment's count and a
    /// quarter more (the first: a few seconds of full load, about 40 MiB). Growing a large set
    /// rehashes every id on the writer's thread, a pause every request of the group waits for.
    static func pendingCapacity(after previous: Int?) -> Int {
        guard let previous else { return 1 << 21 }
        return max(1 << 16, previous + previous / 4)
    }

    /// Ids in memory (pending) and on disk (in runs), and the runs' count.
    public var counts: (pending: Int, persisted: Int, runs: Int, filterBytes: Int) {
        state.withLock { ($0.pending.reduce(0) { $0 + $1.ids.count }, $0.runs.reduce(0) { $0 + $1.count }, $0.runs.count, $0.filterBytes) }
    }

    /// Whether `id` is stored: pending, or in a run.
    public func contains(_ id: UUIDWords) throws(SegmentLogError) -> Bool {
        let runs: [IDRun]
        do {
            let (found, snapshot) = state.withLock { ($0.pending.contains { $0.ids.contains(id) }, $0.runs) }
            if found { return true }
            runs = snapshot
        }
        for run in runs where try run.contains(id) { return true }
        return false
    }

    /// Adds the ids of frames just made durable in `segment`.
    public func addPending<S: Sequence>(_ ids: S, segment: UInt64) where S.Element == UUIDWords {
        state.withLock { state in
            if state.pending.last?.segment != segment {
                var set = Set<UUIDWords>()
                set.reserveCapacity(Self.pendingCapacity(after: state.pending.last?.ids.count))
                state.pending.append(PendingIDs(segment: segment, ids: set))
            }
            for id in ids { state.pending[state.pending.count - 1].ids.insert(id) }
        }
    }

    /// Writes `ids` (the ids of the sealed segments through `throughSegment`, any order) as a run,
    /// publishes it, then drops those segments' pending sets. Ids already in a run may be given
    /// again (a seal repeated after a crash): a lookup finds them either way.
    public func persist(_ ids: [UUIDWords], throughSegment: UInt64, minReceivedMs: Int64, maxReceivedMs: Int64) throws(SegmentLogError) {
        guard !ids.isEmpty else { return }
        try maintenance.withLock { _ throws(SegmentLogError) in
            try persistHeld(ids, throughSegment: throughSegment, minReceivedMs: minReceivedMs, maxReceivedMs: maxReceivedMs)
        }
    }

    private func persistHeld(_ ids: [UUIDWords], throughSegment: UInt64, minReceivedMs: Int64, maxReceivedMs: Int64) throws(SegmentLogError) {
        let sorted = Self.sortedUnique(ids)
        let number = state.withLock { state -> UInt64 in
            defer { state.nextRunNumber += 1 }
            return state.nextRunNumber
        }
        let run = try writeRun(sorted, number: number, minReceivedMs: minReceivedMs, maxReceivedMs: maxReceivedMs)
        try publish { runs in runs.insert(run, at: 0) }
        // Taken out under the lock, freed after it.
        let sealed = state.withLock { state -> [PendingIDs] in
            let sealed = state.pending.filter { $0.segment <= throughSegment }
            state.pending.removeAll { $0.segment <= throughSegment }
            return sealed
        }
        _ = sealed
    }

    /// How much receive time the runs merged together may span: a run is merged only with runs
    /// of the same window (by its newest id's receive time), so retention, which drops a run once
    /// its newest id is past the cutoff, frees each window's ids at most one window after the
    /// cutoff passes them. Merged across windows, the oldest ids would live as long as the newest
    /// (16 bytes an event, kept for ever). 30 days: over a 13-month retention about 14 windows'
    /// runs, whose filters every new id is looked up in.
    public static let windowMs: Int64 = 30 * 86_400_000

    /// The window a run belongs to (``windowMs``).
    static func window(_ run: IDRun) -> Int64 {
        run.maxReceivedMs >= 0 ? run.maxReceivedMs / windowMs : (run.maxReceivedMs + 1) / windowMs - 1
    }

    /// Merges runs of one window (``windowMs``) together, size-tiered as LSM trees merge, until
    /// the newest window has at most `maxRuns` and each older one a single run (no seal adds to
    /// it any more: receive times only grow). Each id is rewritten about log2(runs) times.
    public func compact(maxRuns: Int = 6) throws(SegmentLogError) {
        try maintenance.withLock { _ throws(SegmentLogError) in try compactHeld(maxRuns: maxRuns) }
    }

    /// The two smallest runs of the first window that holds more than it should; nil when none does.
    static func nextMerge(_ runs: [IDRun], maxRuns: Int) -> [IDRun]? {
        let byWindow = Dictionary(grouping: runs, by: window)
        guard let newest = byWindow.keys.max() else { return nil }
        for key in byWindow.keys.sorted() {
            let group = byWindow[key]!
            guard group.count > (key == newest ? maxRuns : 1) else { continue }
            return Array(group.sorted { $0.count < $1.count }.prefix(2))
        }
        return nil
    }

    private func compactHeld(maxRuns: Int) throws(SegmentLogError) {
        while true {
            let runs = state.withLock { $0.runs }
            guard let smallest = Self.nextMerge(runs, maxRuns: maxRuns) else { return }
            var merged: [UUIDWords] = []
            for run in smallest { merged += try run.allIDs() }
            let number = state.withLock { state -> UInt64 in
                defer { state.nextRunNumber += 1 }
                return state.nextRunNumber
            }
            let run = try writeRun(Self.sortedUnique(merged), number: number,
                                   minReceivedMs: smallest.map(\.minReceivedMs).min()!, maxReceivedMs: smallest.map(\.maxReceivedMs).max()!)
            let gone = Set(smallest.map(\.name))
            try publish { runs in
                let at = runs.firstIndex { gone.contains($0.name) } ?? 0
                runs.removeAll { gone.contains($0.name) }
                runs.insert(run, at: min(at, runs.count))
            }
            for name in gone { unlink(directory + "/" + name) }
        }
    }

    /// Drops every run all of whose ids were received before `cutoffMs` (retention, CH33-P3);
    /// returns how many ids went.
    @discardableResult
    public func dropRuns(receivedBeforeMs cutoffMs: Int64) throws(SegmentLogError) -> Int {
        try maintenance.withLock { _ throws(SegmentLogError) in try dropRunsHeld(receivedBeforeMs: cutoffMs) }
    }

    private func dropRunsHeld(receivedBeforeMs cutoffMs: Int64) throws(SegmentLogError) -> Int {
        let gone = state.withLock { $0.runs.filter { $0.maxReceivedMs < cutoffMs } }
        guard !gone.isEmpty else { return 0 }
        let names = Set(gone.map(\.name))
        try publish { runs in runs.removeAll { names.contains($0.name) } }
        for name in names { unlink(directory + "/" + name) }
        return gone.reduce(0) { $0 + $1.count }
    }

    // MARK: Files

    private func writeRun(_ ids: [UUIDWords], number: UInt64, minReceivedMs: Int64, maxReceivedMs: Int64) throws(SegmentLogError) -> IDRun {
        let name = SegmentLayout.fileName(sequence: number).replacingExtension(with: Self.runExtension)
        let path = directory + "/" + name
        try IDRun.write(ids, to: path, name: name)
        let withFilter = state.withLock { $0.filterBytes + IDFilter.bytes(capacity: ids.count) <= filterBudgetBytes }
        return try IDRun(path: path, name: name, minReceivedMs: minReceivedMs, maxReceivedMs: maxReceivedMs, withFilter: withFilter)
    }

    /// Changes the run list, publishes the manifest (temporary file, flush, rename, flush the
    /// directory), then makes the new list visible.
    private func publish(_ change: (inout [IDRun]) -> Void) throws(SegmentLogError) {
        var runs = state.withLock { $0.runs }
        change(&runs)
        var text = "HZIDS 1\n"
        for run in runs { text += "\(run.name) \(run.count) \(run.minReceivedMs) \(run.maxReceivedMs)\n" }
        text += "crc \(BlockCompression.checksum(Array(text.utf8)))\n"
        let path = directory + "/" + Self.manifestName
        let bytes = Array(text.utf8)
        let fd = open(path + ".tmp", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw SegmentLog.error(Self.manifestName, "cannot create") }
        let wrote = bytes.withUnsafeBytes { write(fd, $0.baseAddress!, bytes.count) }
        guard wrote == bytes.count, fsync(fd) == 0 else {
            let failure = SegmentLog.error(Self.manifestName, "cannot write")
            close(fd)
            throw failure
        }
        close(fd)
        guard rename(path + ".tmp", path) == 0 else { throw SegmentLog.error(Self.manifestName, "cannot rename") }
        let directoryFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryFD >= 0 {
            fsync(directoryFD)
            close(directoryFD)
        }
        state.withLock { state in
            state.runs = runs
            state.filterBytes = runs.reduce(0) { $0 + ($1.filter?.byteCount ?? 0) }
        }
    }

    struct ManifestEntry: Equatable {
        var name: String
        var count: Int
        var minReceivedMs: Int64
        var maxReceivedMs: Int64
    }

    static func readManifest(_ path: String) throws(SegmentLogError) -> [ManifestEntry] {
        guard access(path, F_OK) == 0 else { return [] }
        let bytes = try SegmentLog.read(path, name: manifestName)
        let text = String(decoding: bytes, as: UTF8.self)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        guard lines.first == "HZIDS 1", let last = lines.last, last.hasPrefix("crc "),
              UInt32(last.dropFirst(4)) == BlockCompression.checksum(Array((lines.dropLast().joined(separator: "\n") + "\n").utf8))
        else { throw SegmentLogError(.corruptSegment, file: manifestName, reason: "not an id manifest, or its checksum does not match") }
        return try lines.dropFirst().dropLast().map { line throws(SegmentLogError) in
            let parts = line.split(separator: " ")
            guard parts.count == 4, let count = Int(parts[1]), let low = Int64(parts[2]), let high = Int64(parts[3]) else {
                throw SegmentLogError(.corruptSegment, file: manifestName, reason: "a malformed line")
            }
            return ManifestEntry(name: String(parts[0]), count: count, minReceivedMs: low, maxReceivedMs: high)
        }
    }

    static func runNumber(_ name: String) -> UInt64? { UInt64(name.prefix(16), radix: 16) }

    static func sortedUnique(_ ids: [UUIDWords]) -> [UUIDWords] {
        var sorted = ids.sorted()
        var kept = 0
        for index in sorted.indices where index == 0 || sorted[index] != sorted[kept - 1] {
            sorted[kept] = sorted[index]
            kept += 1
        }
        sorted.removeLast(sorted.count - kept)
        return sorted
    }
}

extension String {
    /// The name with its extension (after the last dot) replaced.
    func replacingExtension(with newExtension: String) -> String {
        guard let dot = lastIndex(of: ".") else { return self + "." + newExtension }
        return String(self[..<dot]) + "." + newExtension
    }
}
