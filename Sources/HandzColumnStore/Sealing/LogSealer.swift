import HandzAnalyticsCore
import HandzQuery
import HandzSQLite
import HandzStore

/// Seals the SQLite log's events into the column store: every log row past the manifest's
/// watermark is read once, in rowid order, into one ``ChunkBuilder`` per (event name, UTC day),
/// written as chunk parts every ``rowsPerPart`` rows (memory stays bounded on a large import),
/// then each day's parts are merged and everything is published in one manifest swap. The
/// per-session rollup (``SessionRollup``) is collected from the same rows and written beside them.
///
/// Deletions and rewrites in the log (retention, forget-user, de-identification, CH34) reach the
/// chunks at the next seal. When the log's journal (`LogRewrites`) covers every change since the
/// counter the manifest records, only the chunks they touch are rewritten (copy on write,
/// `LogRewriteApplier`) in the same publish as the new rows. Otherwise (a repair by hand, a
/// journal already purged) the seal starts again from nothing: the new chunks and dictionary
/// files replace the old ones in one publish, and the old files, with every id they held, are
/// removed (``ColumnStoreWriter/startOver()``). Both are exact.
public struct LogSealer {
    /// Rows held in builders before they are written as parts.
    public var rowsPerPart = 1_000_000

    /// The text columns a chunk keeps (`EventColumn.textColumns` but the event name, which
    /// names the chunk), by column name.
    static let envelopeTextColumns = EventColumn.textColumns.filter { $0 != .eventName }.map(\.name)

    public struct Outcome: Sendable, Equatable {
        public var sealedRows: Int
        public var startedOver: Bool
        public var watermark: Int64
        /// The log was changed (a deletion) while the rows were read: nothing was published, and
        /// the writer, which holds the abandoned seal's state, is dropped.
        public var abandoned = false
        /// Chunks rewritten for the log's journaled deletions and rewrites (`LogRewriteApplier`).
        public var rewrittenChunks = 0
    }

    /// Chunks an (event, day) may keep before they are merged (``ColumnStoreWriter/mergeParts(maxParts:)``):
    /// 1 for a bulk seal; `serve`, which seals every few seconds, keeps up to 8.
    public var maxPartsPerDay = 1

    public init() {}

    /// Seals what the log holds past the watermark. `progress` gets the rows read so far.
    @discardableResult
    public func seal(_ database: SQLiteDatabase, into writer: ColumnStoreWriter, progress: (Int) -> Void = { _ in }) throws -> Outcome {
        let watermark = writer.manifest.sealedThroughRowID
        // One read snapshot for the counter and the rows (WAL): a change committed meanwhile is
        // seen by the next seal.
        try database.execute("BEGIN DEFERRED")
        var inSnapshot = true
        defer { if inSnapshot { try? database.execute("COMMIT") } }
        let changes = try LogChanges.current(database)
        var rewrites: [LogRewrites.Entry]?
        if changes != writer.manifest.logChanges, writer.manifest.hasSessionRollup, writer.manifest.generation > 0 {
            rewrites = try LogRewrites.chain(database, from: writer.manifest.logChanges, to: changes)
        }
        // A format-1 store has no session rollup: sealing it again from the start writes one. A
        // log changed in a way its journal does not cover (a repair by hand) is sealed again too.
        let startedOver = ((changes != writer.manifest.logChanges && rewrites == nil) || !writer.manifest.hasSessionRollup)
            && writer.manifest.generation > 0
        if startedOver { writer.startOver() }

        var from = startedOver ? 0 : watermark
        var rewritten = 0
        if let rewrites {
            // Copy on write: only the chunks the journaled changes touch (issue 33 §4).
            (from, rewritten) = try LogRewriteApplier(database: database, writer: writer).apply(rewrites, watermark: watermark)
            SealFault.reached("rewritten")
        }

        let statement = try database.prepare("SELECT \(Self.selectList) FROM main.events WHERE rowid > ?1 ORDER BY rowid")
        defer { statement.reset() }
        try statement.bind([.integer(from)])
        var builders: [ChunkKey: ChunkBuilder] = [:]
        var sessions = SessionRollup.Builder()
        var held = 0
        var read = 0
        var last = from
        var rows = LogRows()
        while try statement.step() {
            last = try rows.add(statement, to: &builders, sessions: &sessions, &writer.dictionaries)
            held += 1
            read += 1
            if held >= rowsPerPart {
                for key in builders.keys.sorted() { try writer.write(builders[key]!) }
                for builder in sessions.takeBuilders() { try writer.write(builder) }
                builders = [:]
                held = 0
                progress(read)
            }
        }
        guard read > 0 || startedOver || rewrites != nil || writer.manifest.generation == 0 else {
            return Outcome(sealedRows: 0, startedOver: false, watermark: watermark)
        }
        for key in builders.keys.sorted() { try writer.write(builders[key]!) }
        for builder in sessions.takeBuilders() { try writer.write(builder) }
        progress(read)
        // A deletion committed while the rows were read (CH34): publishing rows it removed would
        // put them back. The counter, read again outside the snapshot, says so; nothing is
        // published, the next seal applies the deletion, and the files written here are left for
        // the next writer to tidy.
        try database.execute("COMMIT")
        inSnapshot = false
        guard try LogChanges.current(database) == changes else {
            return Outcome(sealedRows: 0, startedOver: startedOver, watermark: writer.manifest.sealedThroughRowID, abandoned: true)
        }
        try writer.mergeParts(maxParts: maxPartsPerDay)
        SealFault.reached("merged")
        try writer.publish(sealedThroughRowID: max(last, from), logChanges: changes)
        return Outcome(sealedRows: read, startedOver: startedOver, watermark: writer.manifest.sealedThroughRowID, rewrittenChunks: rewritten)
    }

    /// The log's columns a seal reads, in ``LogRows``' order.
    static let selectList = (["rowid"] + [EventColumn.eventID, .eventName, .eventTimeMs, .receivedTimeMs].map(\.name)
                             + envelopeTextColumns + [EventColumn.properties.name])
        .joined(separator: ", ")

    /// The stored properties object: each scalar member into its column (`properties.KEY`);
    /// null and non-integer numbers (which no catalogued property has) are left absent.
    static func addProperties(_ json: UnsafeRawBufferPointer, to builder: inout ChunkBuilder, names: inout [String: String],
                              _ dictionaries: inout Dictionaries) throws {
        var reader = JSONObjectReader(json)
        var first = try reader.beginObject()
        while let keyBytes = try reader.nextKey(&first) {
            let key = String(decoding: keyBytes, as: UTF8.self)
            let column: String
            if let known = names[key] { column = known } else { column = ColumnName.property(key); names[key] = column }
            switch try reader.value() {
            case .string(let text): builder.setText(column, text, &dictionaries)
            case .integer(let value): builder.setInteger(column, value, &dictionaries)
            case .bool(let value): builder.setBoolean(column, value, &dictionaries)
            case .null, .other: break
            }
        }
    }

    /// Days since 1970-01-01 UTC of an epoch-millisecond time (floor, so times before 1970 too).
    public static func day(of timeMs: Int64) -> Int64 {
        let (quotient, remainder) = timeMs.quotientAndRemainder(dividingBy: 86_400_000)
        return remainder < 0 ? quotient - 1 : quotient
    }
}

/// A chunk's identity while sealing.
struct ChunkKey: Hashable, Comparable, Sendable {
    var event: String
    var day: Int64

    static func < (a: ChunkKey, b: ChunkKey) -> Bool { (a.event, a.day) < (b.event, b.day) }
}
