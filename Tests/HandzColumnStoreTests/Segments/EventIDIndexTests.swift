import Foundation
import HandzAnalyticsCore
import HandzTestSupport
import Testing
@testable import HandzColumnStore

/// Exact dedupe without a B-tree insert per event (issue 34 §2): the index answers exactly like a
/// set of every id it was given, whether its runs have filters in memory or not, after merges,
/// and after a reopen.
@Suite struct EventIDIndexTests {
    /// A deterministic stream of random-looking (v4-like) ids.
    struct IDStream {
        var state: UInt64
        mutating func next() -> UUIDWords {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let high = state
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UUIDWords(high: high & ~0xF000 | 0x4000, low: state)
        }
    }

    @Test("no duplicate is stored and no unique id refused when the ids outgrow memory (no filters, many runs, merges, a reopen)",
          arguments: [0, 64 << 20])
    func exactPastMemory(filterBudget: Int) throws {
        let directory = try temporaryDirectory("ids").path
        var stream = IDStream(state: 42)
        var reference = Set<UUIDWords>()
        var given: [UUIDWords] = []
        var refused = 0
        do {
            let index = try EventIDIndex(directory: directory, filterBudgetBytes: filterBudget)
            for round in 0..<12 {
                // Each round: 1,500 ids, a third of them ones given before (a retried batch).
                var sealed: [UUIDWords] = []
                for position in 0..<1_500 {
                    let id = position % 3 == 0 && !given.isEmpty ? given[(position * 7_919 + round) % given.count] : stream.next()
                    let present = try index.contains(id)
                    #expect(present == reference.contains(id))
                    if present {
                        refused += 1
                    } else {
                        index.addPending([id], segment: UInt64(round + 1))
                        reference.insert(id)
                        given.append(id)
                        sealed.append(id)
                    }
                }
                try index.persist(sealed, throughSegment: UInt64(round + 1), minReceivedMs: Int64(round) * 1_000, maxReceivedMs: Int64(round) * 1_000 + 999)
                try index.compact(maxRuns: 3)
                #expect(index.counts.pending == 0)
                #expect(index.counts.runs <= 3)
            }
            #expect(index.counts.persisted == reference.count)
            if filterBudget == 0 { #expect(index.counts.filterBytes == 0) }
        }
        // Every third id offered repeats a stored one (but the very first, with none stored yet):
        // each of those was refused, and no new id.
        #expect(refused == 12 * 500 - 1)
        let reopened = try EventIDIndex(directory: directory, filterBudgetBytes: filterBudget)
        for id in given.prefix(2_000) { #expect(try reopened.contains(id)) }
        var absent = IDStream(state: 7)
        for _ in 0..<2_000 { #expect(try !reopened.contains(absent.next())) }
    }

    @Test("a run's filter lets about 1 % of absent ids through to the disk")
    func filterRate() {
        var filter = IDFilter(capacity: 100_000)
        var stream = IDStream(state: 1)
        for _ in 0..<100_000 { filter.insert(stream.next()) }
        var replay = IDStream(state: 1)
        for _ in 0..<100_000 { #expect(filter.mayContain(replay.next())) }
        var absent = IDStream(state: 99)
        let passed = (0..<100_000).filter { _ in filter.mayContain(absent.next()) }.count
        #expect(passed < 2_000, "false positives: \(passed) of 100,000")
    }

    @Test("a seal drops the pending ids of the segments it sealed, and only theirs")
    func pendingBySegment() throws {
        let index = try EventIDIndex(directory: try temporaryDirectory("ids").path)
        var stream = IDStream(state: 5)
        let first = (0..<50).map { _ in stream.next() }, second = (0..<30).map { _ in stream.next() }
        index.addPending(first, segment: 1)
        index.addPending(second, segment: 2)
        #expect(index.counts.pending == 80)
        try index.persist(first, throughSegment: 1, minReceivedMs: 0, maxReceivedMs: 0)
        #expect(index.counts.pending == 30)
        #expect(index.counts.persisted == 50)
        for id in first + second { #expect(try index.contains(id)) }
        #expect(try !index.contains(stream.next()))
    }

    @Test("retention drops only runs all of whose ids were received before the cutoff")
    func retention() throws {
        let index = try EventIDIndex(directory: try temporaryDirectory("ids").path)
        var stream = IDStream(state: 3)
        let old = (0..<100).map { _ in stream.next() }, new = (0..<100).map { _ in stream.next() }
        try index.persist(old, throughSegment: 0, minReceivedMs: 1_000, maxReceivedMs: 1_999)
        try index.persist(new, throughSegment: 0, minReceivedMs: 1_500, maxReceivedMs: 3_000)
        #expect(try index.dropRuns(receivedBeforeMs: 2_500) == 100)
        #expect(try !index.contains(old[0]))
        #expect(try index.contains(new[0]))
    }

    @Test("merges keep each run within one 30-day window of receive time, so retention frees the ids of the windows it passed")
    func mergesWithinWindows() throws {
        let directory = try temporaryDirectory("ids-windows").path
        let index = try EventIDIndex(directory: directory)
        var stream = IDStream(state: 5)
        let window = EventIDIndex.windowMs
        var ids: [[UUIDWords]] = [[], [], []]
        // Three seals in each of three windows, 100 ids each, one after another in receive time.
        for w in 0..<3 {
            for seal in 0..<3 {
                let batch = (0..<100).map { _ in stream.next() }
                ids[w] += batch
                let start = Int64(w) * window + Int64(seal) * 1_000
                try index.persist(batch, throughSegment: UInt64(w * 3 + seal + 1), minReceivedMs: start, maxReceivedMs: start + 999)
            }
        }
        try index.compact(maxRuns: 2)
        let runFiles = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".hzids") }
        #expect(runFiles.count == 1 + 1 + 2, "one run for each finished window, at most maxRuns for the newest: \(runFiles.count)")
        for id in ids.joined() { #expect(try index.contains(id)) }
        // Retention past the first window: exactly its ids go; the others stay.
        #expect(try index.dropRuns(receivedBeforeMs: window) == 300)
        #expect(try ids[0].allSatisfy { try !index.contains($0) })
        #expect(try (ids[1] + ids[2]).allSatisfy { try index.contains($0) })
    }

    @Test("a run file no manifest lists (a crash before publishing) is removed; a damaged manifest is refused")
    func crashLeftovers() throws {
        let directory = try temporaryDirectory("ids").path
        do {
            let index = try EventIDIndex(directory: directory)
            try index.persist([UUIDWords(high: 1, low: 2)], throughSegment: 0, minReceivedMs: 0, maxReceivedMs: 0)
        }
        let stray = directory + "/00000000000000ff.hzids"
        try IDRun.write([UUIDWords(high: 9, low: 9)], to: stray, name: "stray")
        let index = try EventIDIndex(directory: directory)
        #expect(!FileManager.default.fileExists(atPath: stray))
        #expect(try index.contains(UUIDWords(high: 1, low: 2)))
        #expect(try !index.contains(UUIDWords(high: 9, low: 9)))
        let manifest = directory + "/runs"
        var text = try String(contentsOfFile: manifest, encoding: .utf8)
        text = text.replacingOccurrences(of: " 1 0 0", with: " 2 0 0")
        try text.write(toFile: manifest, atomically: false, encoding: .utf8)
        #expect(throws: SegmentLogError.self) { _ = try EventIDIndex(directory: directory) }
    }
}
