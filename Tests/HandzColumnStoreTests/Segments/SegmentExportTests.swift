import Foundation
import HandzAnalyticsCore
@testable import HandzColumnStore
import HandzStore
import HandzTestSupport
import Testing

/// The segment engine's export (issue 34 §5; `export lake`, a deletion's lake step): the events
/// the SQLite engine exports for the same requests, in the same order, whatever the range and
/// however the windows fall.
@Suite struct SegmentExportTests {
    /// Each event's cells as text, `properties` parsed (equal JSON, not necessarily equal text).
    static func comparable(_ events: [ExportedEvent]) throws -> [[String]] {
        try events.map { event in
            try EventColumn.allCases.map { column -> String in
                switch event[column] {
                case .integer(let value): return String(value)
                case .text(let text?) where column == .properties:
                    let object = try JSONSerialization.jsonObject(with: Data(text.utf8))
                    return String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
                case .text(let text): return text ?? "NULL"
                }
            }
        }
    }

    static func export(_ store: any EventStore, from: Int64, to: Int64) async throws -> [ExportedEvent] {
        let events = Locked<[ExportedEvent]>([])
        try await store.exportEvents(receivedFromMs: from, toMs: to) { event in events.withLock { $0.append(event) } }
        return events.withLock { $0 }
    }

    @Test("the segment engine exports what the SQLite engine exports, sealed and unsealed events alike, in windows of any size")
    func exportsAgree() async throws {
        let engines = try await SegmentDeletionTests.TwoEngines(installs: 30, days: 4, seed: 21, sealedShare: 0.5)
        let (data, requests, sqlite, segments) = (engines.data, engines.requests, engines.sqlite, engines.segments)
        defer { try? FileManager.default.removeItem(at: data.directory) }

        let all = try await Self.export(sqlite, from: .min, to: .max)
        #expect(all.count == requests.reduce(0) { $0 + $1.rows.count })
        #expect(try Self.comparable(try await Self.export(segments, from: .min, to: .max)) == (try Self.comparable(all)))
        // One day's hours, cut inside the data.
        let from = SimulatedStore.fromMs + 30 * 3_600_000, to = from + 26 * 3_600_000
        let day = try await Self.export(sqlite, from: from, to: to)
        #expect(!day.isEmpty && day.count < all.count)
        #expect(try Self.comparable(try await Self.export(segments, from: from, to: to)) == (try Self.comparable(day)))

        // Small windows give the same sequence.
        var export = ChunkExport(store: try ColumnStore(directory: ColumnStore.directory(forDatabase: segments.path)))
        export.windowRows = 97
        var windowed: [ExportedEvent] = []
        try export.forEach(receivedFromMs: .min, toMs: .max) { windowed.append($0) }
        #expect(try Self.comparable(windowed) == (try Self.comparable(all)))
        sqlite.closeNow()
        await segments.close()
    }
}
