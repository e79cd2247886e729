import Foundation

/// What is live in a column store: its chunks, how much of each dictionary file counts, and how
/// far into the log it is sealed. The manifest is the store's one commit point: a seal, merge or
/// rewrite writes its new files first (each flushed), then replaces `manifest.json` atomically
/// (written, flushed, renamed, directory flushed), then removes what the old manifest listed and the new
/// one does not. A crash at any step leaves a manifest that lists only complete files.
public struct ColumnManifest: Encodable, Equatable, Sendable {
    public static let fileName = "manifest.json"
    /// 2: with the per-session rollup (``sessionChunks``). A store of format 1 is read (its
    /// crash-free sessions from every event) and resealed by its next writer.
    public static let currentFormat = 2
    static let readableFormats = 1...currentFormat

    public var format: Int
    /// Bumped by every publish; new files carry it in their names, so no two publishes write the
    /// same file name.
    public var generation: Int
    /// The log's last `rowid` sealed into the chunks (the SQLite log is append-only by rowid;
    /// deletions there are applied to the chunks by the same step, CH34).
    public var sealedThroughRowID: Int64
    /// The log's change counter (`HandzStore.LogChanges`) when it was sealed: a different one
    /// now means rows under the watermark changed or went, and the next seal starts over.
    public var logChanges: Int64
    /// The segment log's last segment sealed into the chunks (issue 34): a sealer after a crash
    /// seals only the segments after it, and removes the ones up to it. 0 when none was; absent
    /// from a manifest written before the segment log, which reads as 0.
    public var sealedThroughSegment: UInt64 = 0
    public var uuids: DictionaryFile
    public var strings: DictionaryFile
    /// The event chunks: one event name and UTC day each.
    public var chunks: [ChunkEntry]
    /// The per-session rollup, a chunk per UTC day (merged like the event chunks' parts): each
    /// (install, session) seen that day with the time and id of its last event there
    /// (``SessionRollup``). Written at sealing; empty in a format-1 store.
    public var sessionChunks: [ChunkEntry]

    /// Whether ``sessionChunks`` covers every event chunk (format 2 on).
    public var hasSessionRollup: Bool { format >= 2 }

    /// Every chunk file the manifest lists, events' and rollup's.
    public var allChunks: [ChunkEntry] { chunks + sessionChunks }

    /// Lists `entries`, the rollup's by its event name apart, each list in (event, day, file) order.
    mutating func setChunks(_ entries: [ChunkEntry]) {
        let sorted = entries.sorted { ($0.event, $0.day, $0.file) < ($1.event, $1.day, $1.file) }
        chunks = sorted.filter { $0.event != SessionRollup.eventName }
        sessionChunks = sorted.filter { $0.event == SessionRollup.eventName }
    }

    enum CodingKeys: String, CodingKey {
        case format, generation, uuids, strings, chunks
        case sessionChunks = "session_chunks"
        case sealedThroughRowID = "sealed_through_rowid"
        case logChanges = "log_changes"
        case sealedThroughSegment = "sealed_through_segment"
    }

    init(format: Int, generation: Int, sealedThroughRowID: Int64, logChanges: Int64, sealedThroughSegment: UInt64 = 0, uuids: DictionaryFile,
         strings: DictionaryFile, chunks: [ChunkEntry], sessionChunks: [ChunkEntry] = []) {
        (self.format, self.generation, self.sealedThroughRowID, self.logChanges) = (format, generation, sealedThroughRowID, logChanges)
        self.sealedThroughSegment = sealedThroughSegment
        (self.uuids, self.strings, self.chunks, self.sessionChunks) = (uuids, strings, chunks, sessionChunks)
    }

    public struct DictionaryFile: Encodable, Equatable, Sendable {
        public var file: String
        /// Entries that count; the file may hold more (a crashed seal's), which are cut.
        public var count: Int
        public var bytes: Int
    }

    public struct ChunkEntry: Encodable, Equatable, Sendable {
        public var file: String
        public var event: String
        /// Days since 1970-01-01 UTC.
        public var day: Int64
        public var rows: Int
        public var bytes: Int
        public var minTimeMs: Int64
        public var maxTimeMs: Int64
        /// The distinct `catalog_version`s of its rows, sorted: a rollup made at sealing, so the
        /// versions of a range (the notes beside a funnel, docs/catalog-releases.md) need no read.
        public var catalogVersions: [String]

        enum CodingKeys: String, CodingKey {
            case file, event, day, rows, bytes
            case minTimeMs = "min_time_ms"
            case maxTimeMs = "max_time_ms"
            case catalogVersions = "catalog_versions"
        }
    }

    /// The manifest of a store nothing was sealed into.
    public static let empty = ColumnManifest(
        format: currentFormat, generation: 0, sealedThroughRowID: 0, logChanges: 0,
        uuids: DictionaryFile(file: "uuids.dict", count: 0, bytes: 0),
        strings: DictionaryFile(file: "strings.dict", count: 0, bytes: 0), chunks: [])

    static func decode(_ bytes: [UInt8]) throws(ColumnStoreError) -> ColumnManifest {
        guard let manifest = bytes.withUnsafeBytes({ ManifestReader.read($0) }) else {
            throw ColumnStoreError(.corruptFile, file: fileName, reason: "not a column-store manifest")
        }
        guard readableFormats.contains(manifest.format) else {
            throw ColumnStoreError(.corruptFile, file: fileName, reason: "format \(manifest.format) is not one this build reads")
        }
        let names = [manifest.uuids.file, manifest.strings.file] + manifest.allChunks.map(\.file)
        guard names.allSatisfy(isPlainName), Set(names).count == names.count else {
            throw ColumnStoreError(.corruptFile, file: fileName, reason: "a file name that is not a plain name, or listed twice")
        }
        let counts = [manifest.uuids.count, manifest.uuids.bytes, manifest.strings.count, manifest.strings.bytes] + manifest.allChunks.flatMap { [$0.rows, $0.bytes] }
        guard counts.allSatisfy({ $0 >= 0 }), manifest.uuids.bytes == manifest.uuids.count * 16 else {
            throw ColumnStoreError(.corruptFile, file: fileName, reason: "a negative count, or a dictionary size that does not match its count")
        }
        guard manifest.chunks.allSatisfy({ $0.event != SessionRollup.eventName }),
              manifest.sessionChunks.allSatisfy({ $0.event == SessionRollup.eventName }) else {
            throw ColumnStoreError(.corruptFile, file: fileName, reason: "a chunk listed as the other kind")
        }
        return manifest
    }

    func encoded() -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        // Encoding plain values cannot fail.
        return Array(try! encoder.encode(self)) + [0x0A]
    }

    /// A file name the store writes: letters, digits, `_`, `-` and `.`, not starting with `.`.
    static func isPlainName(_ name: String) -> Bool {
        guard let first = name.utf8.first, first != UInt8(ascii: "."), name.utf8.count <= 255 else { return false }
        return name.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
        }
    }
}
