import HandzAnalyticsCore
import HandzStore

/// Turns segment records' rows (``BatchRecord``) into chunks, as ``LogRows`` does for the SQLite
/// log's: each row into the chunk of its (event name, UTC day), the same columns from the same
/// bytes, its session noted for the rollup. The chunks hold the rows and values the log would
/// give for the same events (`SegmentSealingTests`); the dictionaries number them in another
/// order.
///
/// Chunk at a time, not row at a time: ``add(_:)`` only sorts each row's reference into the list
/// of its chunk; ``flush(sessions:into:)`` then builds each chunk from its rows, one chunk per
/// core at a time.
/// Building every chunk of a seal at once, a row at a time, kept about a thousand builders (an
/// event name and day each, twenty columns apiece) in play, and each cell's append missed the
/// cache: half of a seal's time (perf, issue 34). One builder's columns fit in the cache, and
/// consecutive rows of a chunk mostly come from one request, so a column's last value is mostly
/// the next one's too (``ChunkBuilder``'s last-value check saves the lookup).
struct SegmentRows {
    /// Property keys already turned into column names: each chunk's build starts from them and
    /// hands back the ones it added.
    private var propertyNames: [String: String] = [:]
    /// The envelope's text columns the event carries, in ``LogSealer/envelopeTextColumns`` order:
    /// a builder's text slots 0, 1, … (``ChunkBuilder/init(eventName:day:textColumns:)``).
    fileprivate static let eventColumns = EventColumn.textColumns.filter { $0 != .eventName }
    fileprivate static let columnNames = eventColumns.map(\.name)

    /// A row of a record held: which record, which row.
    private struct RowReference {
        var record: UInt32
        var row: UInt32
    }

    /// The records whose rows wait to be built.
    private var records: [BatchRecord] = []
    /// Each waiting row, under its chunk's key, in the order the log holds them.
    private var rowsByChunk: [ChunkKey: [RowReference]] = [:]
    /// Rows waiting.
    private(set) var count = 0

    /// Chunks built ahead of the one being written, a few per core: they are held together, so
    /// this bounds what a flush holds beyond its rows (``SegmentSealer/rowsPerPart``).
    static let chunksAhead = 4 * ParallelWork.workers

    /// Holds every row of `record` until the next ``flush(sessions:into:)``.
    mutating func add(_ record: BatchRecord) {
        let index = UInt32(records.count)
        records.append(record)
        let rows = record.rows
        // The rows of a request name few events: the last name's text is reused while the bytes match.
        var lastName: (bytes: [UInt8], text: String) = ([], "")
        for row in 0..<rows.count {
            let name = rows.withField(row, .eventName) { bytes -> String in
                guard let bytes else { return "" }
                if !bytes.elementsEqual(lastName.bytes) { lastName = (Array(bytes), String(decoding: bytes, as: UTF8.self)) }
                return lastName.text
            }
            rowsByChunk[ChunkKey(event: name, day: LogSealer.day(of: rows.eventTimes[row])), default: []]
                .append(RowReference(record: index, row: UInt32(row)))
        }
        count += rows.count
    }

    /// Builds the waiting rows' chunks in key order, writes each as a part of `writer`, and lets
    /// the rows go.
    ///
    /// On every core (perf, issue 36: putting rows into their chunks was most of a seal, on one
    /// core while the other waited): workers build the chunks, each interning its text in a
    /// dictionary of its own (``LocalChunk``), while this thread takes them in key order, adds
    /// each one's entries to the store's dictionaries, recodes its cells and writes it
    /// (``ParallelWork/pipeline(count:window:build:consume:)``). A chunk's local entries are
    /// numbered in the order its rows first name them, so the store's dictionaries number new
    /// values exactly as interning cell by cell, chunk after chunk, would: the same codes and the
    /// same chunk bytes, whatever the threads do (`SegmentSealingTests`).
    mutating func flush(sessions: inout SessionRollup.Builder, into writer: ColumnStoreWriter) throws {
        let keys = rowsByChunk.keys.sorted()
        let references = keys.map { rowsByChunk[$0]! }
        let (records, known) = (records, propertyNames)
        try ParallelWork.pipeline(count: keys.count, window: Self.chunksAhead, build: { index in
            var chunk = LocalChunk(key: keys[index], propertyNames: known)
            for reference in references[index] { try chunk.add(Int(reference.row), of: records[Int(reference.record)]) }
            return chunk
        }, consume: { _, built in
            var chunk = built
            chunk.adopt(into: &writer.dictionaries, sessions: &sessions)
            propertyNames.merge(chunk.propertyNames) { known, _ in known }
            try writer.write(chunk.builder)
        })
        self.records = []
        rowsByChunk = [:]
        count = 0
    }
}

/// One chunk's rows, built on a worker of ``SegmentRows/flush(sessions:into:)`` with a dictionary
/// of its own: cells hold its local codes until ``adopt(into:sessions:)`` gives them the store's.
private struct LocalChunk: Sendable {
    let key: ChunkKey
    var builder: ChunkBuilder
    var dictionaries = Dictionaries()
    /// The chunk's sessions, in local codes.
    var sessions = SessionRollup.Builder()
    /// Property keys turned into column names (the flush's, and those this chunk added).
    var propertyNames: [String: String]
    /// The property columns of this chunk, by their key's bytes, with the text slot once the
    /// column holds text: a chunk's rows carry few keys, so a search by bytes costs less than
    /// making a `String` of every key and hashing it twice (`LogSealer.addProperties`, a row at a
    /// time, was 15 % of a seal: perf, issue 34).
    private var chunkProperties: [(key: [UInt8], column: String, textSlot: Int?)] = []

    init(key: ChunkKey, propertyNames: [String: String]) {
        self.key = key
        self.propertyNames = propertyNames
        builder = ChunkBuilder(eventName: key.event, day: key.day, textColumns: SegmentRows.columnNames)
    }

    /// Adds one row of `record`.
    mutating func add(_ row: Int, of record: BatchRecord) throws {
        let rows = record.rows
        let time = rows.eventTimes[row]
        let eventID = rows.eventID(row).withUnsafeBytes { UUIDWords(orderingBytes: $0) }
        builder.addRow(timeMs: time, receivedMs: record.receivedTimeMs, eventID: eventID)
        for (slot, field) in SegmentRows.eventColumns.enumerated() {
            switch field {
            case .keyID: builder.setText(slot: slot, record.keyID, &dictionaries)
            case .catalogVersion: builder.setText(slot: slot, record.catalogVersion, &dictionaries)
            default: rows.withField(row, field) { value in if let value { builder.setText(slot: slot, value, &dictionaries) } }
            }
        }
        try rows.withField(row, .properties) { json in
            if let json { try addProperties(json) }
        }
        sessions.note(day: key.day, install: builder.textCell(ColumnName.installID), session: builder.textCell(ColumnName.sessionID),
                      timeMs: time, eventID: eventID)
    }

    /// The row's properties into their columns, as `LogSealer.addProperties` puts them (the same
    /// types, the same promotion to text), with each key looked up in ``chunkProperties``.
    private mutating func addProperties(_ json: UnsafeRawBufferPointer) throws {
        var reader = JSONObjectReader(json)
        var first = try reader.beginObject()
        while let keyBytes = try reader.nextKey(&first) {
            let index = chunkProperties.firstIndex { $0.key.elementsEqual(keyBytes) } ?? addChunkProperty(keyBytes)
            switch try reader.value() {
            case .string(let text):
                let slot = chunkProperties[index].textSlot ?? builder.textSlot(chunkProperties[index].column, &dictionaries)
                chunkProperties[index].textSlot = slot
                builder.setText(slot: slot, text, &dictionaries)
            case .integer(let value): builder.setInteger(chunkProperties[index].column, value, &dictionaries)
            case .bool(let value): builder.setBoolean(chunkProperties[index].column, value, &dictionaries)
            case .null, .other: break
            }
        }
    }

    /// A key new to the chunk being built; its index in ``chunkProperties``.
    private mutating func addChunkProperty(_ keyBytes: UnsafeRawBufferPointer) -> Int {
        let key = String(decoding: keyBytes, as: UTF8.self)
        let column: String
        if let known = propertyNames[key] { column = known } else { column = ColumnName.property(key); propertyNames[key] = column }
        chunkProperties.append((Array(keyBytes), column, nil))
        return chunkProperties.count - 1
    }

    /// Adds the chunk's local entries to the store's `global` dictionaries in their local order
    /// (so new values are numbered as if interned one cell at a time), recodes the builder's
    /// cells, and notes the chunk's sessions in the store's codes.
    mutating func adopt(into global: inout Dictionaries, sessions rollup: inout SessionRollup.Builder) {
        let codes = ChunkBuilder.Recoding(adopting: dictionaries, into: &global)
        builder.recode(codes)
        for (session, last) in sessions.sessions {
            rollup.note(day: session.day, install: codes.cell(session.install), session: codes.cell(session.session),
                        timeMs: last.timeMs, eventID: last.eventID)
        }
        dictionaries = Dictionaries()
        sessions = SessionRollup.Builder()
    }
}
