import HandzAnalyticsCore

/// The rewrites of live chunks that deletions share (CH34; copy on write, issue 33 §4), whoever
/// computed the rows: the SQLite log's journaled changes (`LogRewriteApplier`) or the segment
/// engine's own de-identification and retention (``SegmentEventStore``). Inside one writer's
/// session, published by the caller's next ``ColumnStoreWriter/publish(sealedThroughRowID:logChanges:sealedThroughSegment:)``:
///
/// 1. **Retention** (rows received before a cutoff go): a chunk none of whose rows is that old
///    stays; one all of whose rows are goes whole; any other is written again without them.
/// 2. **Replaced rows** (rows changed in place): the chunks of those rows' (event, day) are written
///    again without the old version of each row, and the new versions are written beside them.
/// 3. The per-session rollup of every day whose chunks changed is built again from them.
/// 4. The UUIDs the old rows held that no live chunk refers to any more are tombstoned in a new
///    UUID dictionary file (``Dictionaries/tombstone``): no byte of them stays in the store once
///    the manifest is swapped and the old files removed.
struct ChunkRewrites {
    let writer: ColumnStoreWriter

    /// Applies retention before `cutoff` (nil: none) and replaces the rows `replacedIDs` names by
    /// `replacements` (keyed by the chunk the new rows belong to, which is the old rows' too:
    /// a rewrite never moves a row to another event or day). `dirtyInstalls` are the install cells
    /// the new rows carry; the installs of every row removed join them. Returns how many chunks
    /// were rewritten or dropped.
    func apply(replacements: [ChunkKey: ChunkBuilder], replacedIDs: Set<UUIDWords>, dirtyInstalls: InstallCells, receivedBefore cutoff: Int64?) throws -> Int {
        let reader = ChunkReading(directory: writer.directory)
        var changedDays = Set<Int64>()
        var candidates = Set<UInt32>()
        // Installs with a row removed or replaced: their session rollup rows are computed again.
        var dirty = dirtyInstalls
        var rewritten = 0
        for entry in writer.manifest.chunks {
            let key = ChunkKey(event: entry.event, day: entry.day)
            let replaced = replacements[key] != nil
            guard replaced || cutoff != nil else { continue }
            let chunk = try reader.chunk(entry)
            var kept: [Int] = []
            do {
                let received = try Self.times(chunk, ColumnName.receivedTime)
                let ids = try Self.ids(chunk)
                kept.reserveCapacity(chunk.rows)
                for row in 0..<chunk.rows where (cutoff.map { received[row] >= $0 } ?? true) && !(replaced && replacedIDs.contains(ids[row])) {
                    kept.append(row)
                }
            } catch { throw ColumnStoreError(error, file: entry.file) }
            guard kept.count < chunk.rows else { continue }
            let columns: [Column]
            do { columns = try chunk.allColumns() } catch { throw ColumnStoreError(error, file: entry.file) }
            candidates.formUnion(Self.uuidCodes(columns, exceptRows: kept))
            let installs: [UInt64]
            do { installs = try Self.textCells(chunk, ColumnName.installID) } catch { throw ColumnStoreError(error, file: entry.file) }
            var next = 0
            for row in 0..<chunk.rows {
                if next < kept.count && kept[next] == row { next += 1 } else { dirty.insert(installs[row]) }
            }
            writer.retire(entry)
            if !kept.isEmpty {
                // A column none of the kept rows has goes, as a seal of only those rows would leave it out.
                let filtered = columns.map { Column(name: $0.name, type: $0.type, values: $0.values.gathered(kept)) }
                try writer.write(eventName: entry.event, day: entry.day, columns: filtered.filter { !$0.values.isAllAbsent })
            }
            changedDays.insert(entry.day)
            rewritten += 1
        }
        for key in replacements.keys.sorted() {
            try writer.write(replacements[key]!)
            changedDays.insert(key.day)
        }
        try rebuildSessionRollup(days: changedDays, installs: dirty, reader: reader)
        try forgetUnreferenced(candidates, reader: reader)
        return rewritten
    }

    /// Computes the session rollup rows of `installs` on each of `days` again from the day's
    /// event chunks as they now stand; the rows of other installs stay (none of their events
    /// changed). A rollup chunk with such rows is written again without them, beside the new rows.
    func rebuildSessionRollup(days: Set<Int64>, installs dirty: InstallCells, reader: ChunkReading) throws {
        guard !days.isEmpty else { return }
        for entry in writer.manifest.sessionChunks where days.contains(entry.day) {
            let chunk = try reader.chunk(entry)
            let columns: [Column]
            var kept: [Int] = []
            do {
                let installs = try Self.textCells(chunk, ColumnName.installID)
                kept = (0..<chunk.rows).filter { !dirty.contains(installs[$0]) }
                guard kept.count < chunk.rows else { continue }
                columns = try chunk.allColumns()
            } catch { throw ColumnStoreError(error, file: entry.file) }
            writer.retire(entry)
            if !kept.isEmpty {
                try writer.write(eventName: entry.event, day: entry.day,
                                 columns: columns.map { Column(name: $0.name, type: $0.type, values: $0.values.gathered(kept)) })
            }
        }
        var sessions = SessionRollup.Builder()
        for entry in writer.liveChunks where entry.event != SessionRollup.eventName && days.contains(entry.day) {
            let chunk = try reader.chunk(entry)
            do {
                let installs = try Self.textCells(chunk, ColumnName.installID)
                let rows = (0..<chunk.rows).filter { dirty.contains(installs[$0]) }
                guard !rows.isEmpty else { continue }
                let sessionCells = try Self.textCells(chunk, ColumnName.sessionID)
                let times = try Self.times(chunk, ColumnName.eventTime)
                let ids = try Self.ids(chunk)
                for row in rows {
                    sessions.note(day: entry.day, install: installs[row], session: sessionCells[row], timeMs: times[row], eventID: ids[row])
                }
            } catch { throw ColumnStoreError(error, file: entry.file) }
        }
        for builder in sessions.takeBuilders() { try writer.write(builder) }
    }

    /// Tombstones the UUID codes among `candidates` that no live chunk refers to.
    func forgetUnreferenced(_ candidates: Set<UInt32>, reader: ChunkReading) throws {
        guard !candidates.isEmpty else { return }
        // One bit per dictionary code (a quarter of a MiB per two million ids): a scan of every
        // chunk's UUID columns clears the candidates it meets, without a hash per row.
        var pending = CodeBits()
        for code in candidates { pending.insert(Int(code)) }
        var left = candidates.count
        for entry in writer.liveChunks {
            let chunk = try reader.chunk(entry)
            for column in chunk.entries where column.type == .uuid {
                do {
                    guard case .codes(let codes)? = try chunk.column(column.name) else { continue }
                    for code in codes where pending.remove(Int(code)) { left -= 1 }
                } catch { throw ColumnStoreError(error, file: entry.file) }
                if left == 0 { return }
            }
        }
        writer.forgetUUIDs(candidates.filter { pending.contains(Int($0)) })
    }

    /// The UUID codes of `columns` on the rows not in `kept` (sorted).
    static func uuidCodes(_ columns: [Column], exceptRows kept: [Int]) -> Set<UInt32> {
        var codes = Set<UInt32>()
        for column in columns where column.type == .uuid {
            guard case .codes(let values) = column.values else { continue }
            var next = 0
            for (row, code) in values.enumerated() {
                if next < kept.count && kept[next] == row { next += 1; continue }
                if code != 0 { codes.insert(code) }
            }
        }
        return codes
    }

    static func times(_ chunk: ChunkFile, _ name: String) throws(ChunkFormatError) -> [Int64] {
        guard case .times(let values)? = try chunk.column(name) else { throw .malformed("no \(name) column") }
        return values
    }

    static func ids(_ chunk: ChunkFile) throws(ChunkFormatError) -> [UUIDWords] {
        guard case .ids(let values)? = try chunk.column(ColumnName.eventID) else { throw .malformed("no event id column") }
        return values
    }

    /// A text column as ``ChunkBuilder``'s cells (a flagged UUID code, a string code, 0 absent).
    static func textCells(_ chunk: ChunkFile, _ name: String) throws(ChunkFormatError) -> [UInt64] {
        guard let entry = chunk.entry(name), case .codes(let codes)? = try chunk.column(name) else {
            return Array(repeating: 0, count: chunk.rows)
        }
        let flag = entry.type == .uuid ? ChunkBuilder.uuidFlag : 0
        return codes.map { $0 == 0 ? 0 : flag | UInt64($0) }
    }
}

/// A set of install cells (``ChunkBuilder``'s: a flagged UUID code, or a string code) with one
/// bit per UUID code, so testing every row of a day costs no hash.
struct InstallCells {
    private var uuidCodes = CodeBits()
    private var others = Set<UInt64>()

    mutating func insert(_ cell: UInt64) {
        guard cell != 0 else { return }
        if cell & ChunkBuilder.uuidFlag != 0 { uuidCodes.insert(Int(cell & ~ChunkBuilder.uuidFlag)) } else { others.insert(cell) }
    }

    func contains(_ cell: UInt64) -> Bool {
        if cell & ChunkBuilder.uuidFlag != 0 { return uuidCodes.contains(Int(cell & ~ChunkBuilder.uuidFlag)) }
        return cell != 0 && others.contains(cell)
    }
}

/// A set of dense dictionary codes as one bit each, growing as codes are added.
struct CodeBits {
    private var words: [UInt64] = []

    mutating func insert(_ code: Int) {
        if code >> 6 >= words.count { words += repeatElement(0, count: code >> 6 - words.count + 1) }
        words[code >> 6] |= 1 << UInt64(code & 63)
    }

    func contains(_ code: Int) -> Bool {
        code >> 6 < words.count && words[code >> 6] & (1 << UInt64(code & 63)) != 0
    }

    /// Removes `code`; true when it was there.
    mutating func remove(_ code: Int) -> Bool {
        guard contains(code) else { return false }
        words[code >> 6] &= ~(1 << UInt64(code & 63))
        return true
    }
}
