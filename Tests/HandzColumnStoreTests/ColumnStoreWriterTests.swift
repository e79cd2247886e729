import Foundation
import HandzAnalyticsCore
@testable import HandzColumnStore
import HandzQuery
import HandzSQLite
import HandzStore
import HandzTestSupport
import Testing

/// Sealing, merging and publishing (ColumnManifest's steps): the same chunks whatever the part
/// size or the number of seals, a crash before the manifest leaves the previous store, and a
/// deletion in the log leaves no byte of the deleted ids in any file.
@Suite struct ColumnStoreWriterTests {
    let catalog = RepositoryCatalog.catalog

    /// Every chunk's columns, by (event, day), with codes turned into text so two stores whose
    /// dictionaries numbered values in another order compare equal.
    static func contents(_ directory: String) throws -> [String: [String: [String]]] {
        let store = try ColumnStore(directory: directory)
        let dictionaries = try store.uuidDictionary()
        var out: [String: [String: [String]]] = [:]
        for entry in store.manifest.allChunks {
            let chunk = try store.chunk(entry)
            var columns: [String: [String]] = [:]
            for column in try chunk.allColumns() {
                switch column.values {
                case .codes(let codes): columns[column.name] = codes.map { dictionaries.text($0, type: column.type) ?? "∅" }
                case .integers(let words): columns[column.name] = words.map { IntegerCell.value($0).map(String.init) ?? "∅" }
                case .times(let times): columns[column.name] = times.map(String.init)
                case .ids(let ids): columns[column.name] = ids.map(\.canonicalText)
                }
            }
            // Rows in (time, id) order: install codes may differ between two stores.
            let ids = columns[ColumnName.eventID]!
            let order = ids.indices.sorted { ids[$0] < ids[$1] }
            out["\(entry.event)/\(entry.day)"] = columns.mapValues { values in order.map { values[$0] } }
        }
        return out
    }

    @Test("sealed in parts of 200 rows, then merged: the same chunks as one seal of everything")
    func partsMergeToTheSameChunks() throws {
        let data = try SimulatedStore(installs: 40, days: 6, seed: 5)
        defer { try? FileManager.default.removeItem(at: data.directory) }
        let whole = try Self.contents(data.columnsDirectory)
        let parted = data.directory.appendingPathComponent("parted.columns").path
        var sealer = LogSealer()
        sealer.rowsPerPart = 200
        let outcome = try sealer.seal(try SQLiteDatabase(path: data.path), into: try ColumnStoreWriter(directory: parted))
        #expect(outcome.sealedRows > 1_000, "several parts")
        #expect(try Self.contents(parted) == whole)
        let manifest = try ColumnStore(directory: parted).manifest
        #expect(Set(manifest.chunks.map { "\($0.event)/\($0.day)" }).count == manifest.chunks.count, "one chunk per event and day")
        let files = Set(try FileManager.default.contentsOfDirectory(atPath: parted))
        #expect(files == Set(manifest.allChunks.map(\.file) + [ColumnManifest.fileName, manifest.uuids.file, manifest.strings.file]), "no part left behind")
    }

    @Test("events stored after a seal are sealed by the next one, and the store equals one seal of everything")
    func incrementalSeal() throws {
        let data = try SimulatedStore(installs: 40, days: 6, seed: 6)
        defer { try? FileManager.default.removeItem(at: data.directory) }
        let whole = try Self.contents(data.columnsDirectory)
        // A second store: the log's first half sealed, then the rest.
        let later = data.directory.appendingPathComponent("later.sqlite").path
        let database = try SQLiteDatabase(path: later)
        try StoreSchema.migrate(database, nowMs: 0)
        try database.execute("ATTACH '\(data.path)' AS source")
        let total = try #require(try database.scalar("SELECT COUNT(*) FROM source.events"))
        try database.execute("INSERT INTO events SELECT * FROM source.events WHERE rowid <= \(total / 2) ORDER BY rowid")
        let directory = ColumnStore.directory(forDatabase: later)
        let first = try LogSealer().seal(database, into: try ColumnStoreWriter(directory: directory))
        try database.execute("INSERT INTO events SELECT * FROM source.events WHERE rowid > \(total / 2) ORDER BY rowid")
        let second = try LogSealer().seal(database, into: try ColumnStoreWriter(directory: directory))
        #expect(first.sealedRows + second.sealedRows == Int(total))
        #expect(!second.startedOver)
        #expect(try LogSealer().seal(database, into: try ColumnStoreWriter(directory: directory)).sealedRows == 0, "nothing left to seal")
        #expect(try Self.contents(directory) == whole)
    }

    @Test("a seal that wrote chunks and dictionary entries but crashed before its manifest leaves the previous store, and its files are removed")
    func crashBeforeManifest() throws {
        let data = try SimulatedStore(installs: 20, days: 3, seed: 7)
        defer { try? FileManager.default.removeItem(at: data.directory) }
        let before = try Self.contents(data.columnsDirectory)
        let manifestBefore = try ColumnStore(directory: data.columnsDirectory).manifest
        // The crashed seal: a chunk written and flushed, new dictionary entries appended, no publish.
        do {
            // The writer goes with its scope, as a crashed process's does (the kernel releases its lock).
            let writer = try ColumnStoreWriter(directory: data.columnsDirectory)
            var builder = ChunkBuilder(eventName: "app_open", day: 20_513)
            builder.addRow(timeMs: 1_772_323_200_000, receivedMs: 1_772_323_200_001, eventID: UUIDWords(high: 7, low: 7))
            builder.setText(ColumnName.installID, "0190a000-0000-7000-8000-00000000beef", &writer.dictionaries)
            try writer.write(builder)
        }
        let orphan = try #require(try FileManager.default.contentsOfDirectory(atPath: data.columnsDirectory).first { !manifestBefore.allChunks.map(\.file).contains($0) && $0.hasSuffix(".chunk") })
        let uuidPath = data.columnsDirectory + "/" + manifestBefore.uuids.file
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: uuidPath))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(repeating: 0xAB, count: 16))
        try handle.close()

        #expect(try ColumnStore(directory: data.columnsDirectory).manifest == manifestBefore)
        #expect(try Self.contents(data.columnsDirectory) == before)
        // The next writer removes the orphan; its publish cuts the dictionary's stray tail.
        let next = try ColumnStoreWriter(directory: data.columnsDirectory)
        #expect(!FileManager.default.fileExists(atPath: data.columnsDirectory + "/" + orphan))
        try next.publish(sealedThroughRowID: next.manifest.sealedThroughRowID)
        let size = try FileManager.default.attributesOfItem(atPath: uuidPath)[.size] as? Int
        #expect(size == manifestBefore.uuids.bytes)
        #expect(try Self.contents(data.columnsDirectory) == before)
    }

    @Test("events deleted from the log outside its journal (a repair by hand): the next seal starts over and no byte of the deleted install ids is left in any file")
    func deletionLeavesNoBytes() throws {
        let data = try SimulatedStore(installs: 30, days: 4, seed: 8)
        defer { try? FileManager.default.removeItem(at: data.directory) }
        let database = try SQLiteDatabase(path: data.path)
        let forgotten: [String] = try database.prepare("SELECT DISTINCT install_id FROM events ORDER BY install_id LIMIT 3").query { $0.text(0)! }
        try database.execute("DELETE FROM events WHERE install_id IN (\(forgotten.map { "'\($0)'" }.joined(separator: ",")))")
        let outcome = try LogSealer().seal(database, into: try ColumnStoreWriter(directory: data.columnsDirectory))
        #expect(outcome.startedOver)
        let remaining = try #require(try database.scalar("SELECT COUNT(*) FROM events"))
        #expect(try ColumnStore(directory: data.columnsDirectory).rowCount == Int(remaining))
        let patterns = forgotten.flatMap { text -> [[UInt8]] in
            let words = text.utf8.withContiguousStorageIfAvailable { UUIDWords(lowercaseText: UnsafeRawBufferPointer($0)) }!!
            return [Array(text.utf8), UUIDWords.bytes(words)]
        }
        for name in try FileManager.default.contentsOfDirectory(atPath: data.columnsDirectory) {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: data.columnsDirectory + "/" + name)))
            for pattern in patterns { #expect(!Self.contains(bytes, pattern), "\(name) holds a deleted id") }
        }
    }

    @Test("a damaged chunk is refused with the file's name and a stable code, never a crash")
    func damagedChunkNamesTheFile() throws {
        let data = try SimulatedStore(installs: 10, days: 2, seed: 9)
        defer { try? FileManager.default.removeItem(at: data.directory) }
        let store = try ColumnStore(directory: data.columnsDirectory)
        let entry = try #require(store.manifest.chunks.max { $0.bytes < $1.bytes })
        let path = data.columnsDirectory + "/" + entry.file
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        bytes[bytes.count - 3] ^= 0xFF
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        do {
            _ = try store.chunk(entry).allColumns()
            Issue.record("a damaged block was read")
        } catch let error as ChunkFormatError {
            #expect(error == .checksumMismatch)
        }
        let funnel = try #require(catalog.funnels.first { $0.id == "F0" })
        let query = FunnelQuery(funnel: funnel, fromMs: SimulatedStore.fromMs, toMs: SimulatedStore.fromMs + 2 * 86_400_000)
        try Data(bytes.prefix(20)).write(to: URL(fileURLWithPath: path))
        #expect(throws: ColumnStoreError(.corruptFile, file: entry.file, reason: "truncated")) {
            _ = try ColumnFunnel(store: store, catalog: catalog).run(FunnelQuery(funnel: FunnelDefinition(
                id: "x", title: "x", spec: "x", windowSeconds: 3_600, success: "", steps: [FunnelStep(events: [entry.event]), FunnelStep(events: ["app_open"])]),
                fromMs: query.fromMs, toMs: query.toMs))
        }
        try Data("{\"format\": 1".utf8).write(to: URL(fileURLWithPath: data.columnsDirectory + "/" + ColumnManifest.fileName))
        #expect(throws: ColumnStoreError(.corruptFile, file: ColumnManifest.fileName, reason: "not a column-store manifest")) {
            _ = try ColumnStore(directory: data.columnsDirectory)
        }
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard needle.count <= haystack.count, let first = needle.first else { return false }
        var index = 0
        while index + needle.count <= haystack.count {
            if haystack[index] == first, haystack[index..<(index + needle.count)].elementsEqual(needle) { return true }
            index += 1
        }
        return false
    }
}

extension UUIDWords {
    static func bytes(_ words: UUIDWords) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: words.high >> UInt64(56 - 8 * $0)) } + (0..<8).map { UInt8(truncatingIfNeeded: words.low >> UInt64(56 - 8 * $0)) }
    }
}
