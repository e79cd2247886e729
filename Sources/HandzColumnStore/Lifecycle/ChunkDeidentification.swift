import HandzAnalyticsCore
import HandzStore

/// De-identifies a deleted user's past in the chunks (the segment engine's store step, issue 34
/// §3), with exactly the semantics HandzStore's `Deidentification` writes down and the SQLite
/// engine applies to its `events` table:
///
/// - the installs the user was signed in on are every install of a row carrying the user id
///   (compared as the SQLite engine does: `lower(user_id)`);
/// - each of those installs' rows **received up to the request** that is signed out or the
///   user's, and has a session, moves to the past: no user id, one fresh install id per old
///   install, one fresh session id per old (install, session);
/// - a moved row's ``Deidentification/sessionReferenceProperties`` naming a session that moved
///   with that install's past name its fresh id;
/// - any other row carrying the user id (sent late from an offline queue) loses it and keeps
///   its ids; another account's signed-in rows on the install keep everything.
///
/// Reads the live chunks of `writer` (every acknowledged event, once the caller sealed the
/// segments), and hands `ChunkRewrites` the changed rows as new versions of themselves, so
/// the chunks, the session rollup and the UUID dictionary change as for the SQLite engine's
/// journaled rewrites; the caller publishes. Nothing is written when no row carries the id.
struct ChunkDeidentification {
    let writer: ColumnStoreWriter
    /// The user id in canonical lower case.
    let userText: String
    /// The request's receive time: rows received up to it are the past.
    let cutoffMs: Int64

    struct Outcome {
        var result = DeidentifyResult()
        var firstSeen: [FirstSeenMove] = []
        var rewrittenChunks = 0
    }

    /// What becomes of one row.
    private enum Change {
        case none
        /// To the install's past: fresh ids, no user id.
        case moved
        /// Only the user id goes.
        case userCleared
    }

    /// A session of an install, by its cells (``ChunkBuilder``'s: a flagged UUID code or a string code).
    private struct SessionKey: Hashable {
        var install: UInt64
        var session: UInt64
    }

    func run() throws -> Outcome {
        let reader = ChunkReading(directory: writer.directory)
        var cells = CellNormalizer(userText: userText, dictionaries: writer.dictionaries)
        let chunks = writer.manifest.chunks

        // 1. The installs the user was signed in on, and the receive hours of the user's rows.
        var installs = InstallCells()
        var installOrder: [UInt64] = []
        var hours = Set<Int64>()
        for entry in chunks {
            let chunk = try reader.chunk(entry)
            do {
                guard let users = try cells.userRows(chunk) else { continue }
                let installCells = try cells.cells(chunk, ColumnName.installID)
                let received = try ChunkRewrites.times(chunk, ColumnName.receivedTime)
                for row in 0..<chunk.rows where users[row] {
                    if !installs.contains(installCells[row]) && installCells[row] != 0 {
                        installs.insert(installCells[row])
                        installOrder.append(installCells[row])
                    }
                    hours.insert(Deidentification.hour(received[row]))
                }
            } catch { throw ColumnStoreError(error, file: entry.file) }
        }
        var outcome = Outcome()
        guard !installOrder.isEmpty else { return outcome }

        // 2. Which rows move, the sessions they take along, and each install's app_open facts.
        var touched: [ColumnManifest.ChunkEntry] = []
        var renamed: [SessionKey: String] = [:]
        var pastFirstAppOpen: [UInt64: Int64] = [:]
        var keptLastAppOpen: [UInt64: Int64] = [:]
        for entry in chunks {
            let chunk = try reader.chunk(entry)
            do {
                let installCells = try cells.cells(chunk, ColumnName.installID)
                guard installCells.contains(where: { installs.contains($0) }) else { continue }
                touched.append(entry)
                let sessions = try cells.cells(chunk, ColumnName.sessionID)
                let users = try cells.userRows(chunk) ?? Array(repeating: false, count: chunk.rows)
                let absentUsers = try cells.absentRows(chunk, ColumnName.userID)
                let received = try ChunkRewrites.times(chunk, ColumnName.receivedTime)
                let times = try ChunkRewrites.times(chunk, ColumnName.eventTime)
                for row in 0..<chunk.rows where installs.contains(installCells[row]) {
                    let past = received[row] <= cutoffMs && (absentUsers[row] || users[row])
                    if past { hours.insert(Deidentification.hour(received[row])) }
                    let moves = past && sessions[row] != 0
                    if moves {
                        let key = SessionKey(install: installCells[row], session: sessions[row])
                        if renamed[key] == nil { renamed[key] = Deidentification.freshID() }
                    }
                    guard entry.event == "app_open" else { continue }
                    if moves {
                        pastFirstAppOpen[installCells[row]] = min(pastFirstAppOpen[installCells[row]] ?? .max, times[row])
                    } else {
                        keptLastAppOpen[installCells[row]] = max(keptLastAppOpen[installCells[row]] ?? .min, received[row])
                    }
                }
            } catch { throw ColumnStoreError(error, file: entry.file) }
        }
        var pastInstall: [UInt64: String] = [:]
        for key in renamed.keys where pastInstall[key.install] == nil { pastInstall[key.install] = Deidentification.freshID() }

        // 3. The changed rows' new versions.
        var replacements: [ChunkKey: ChunkBuilder] = [:]
        var replacedIDs = Set<UUIDWords>()
        var dirty = InstallCells()
        let referenceColumns = Set(Deidentification.sessionReferenceProperties.map(ColumnName.property))
        for entry in touched {
            let chunk = try reader.chunk(entry)
            let key = ChunkKey(event: entry.event, day: entry.day)
            var builder = replacements.removeValue(forKey: key) ?? ChunkBuilder(eventName: entry.event, day: entry.day)
            do {
                let installCells = try cells.cells(chunk, ColumnName.installID)
                let sessions = try cells.cells(chunk, ColumnName.sessionID)
                let users = try cells.userRows(chunk) ?? Array(repeating: false, count: chunk.rows)
                let absentUsers = try cells.absentRows(chunk, ColumnName.userID)
                let received = try ChunkRewrites.times(chunk, ColumnName.receivedTime)
                let times = try ChunkRewrites.times(chunk, ColumnName.eventTime)
                let ids = try ChunkRewrites.ids(chunk)
                let columns = try chunk.allColumns().filter { ![ColumnName.eventTime, ColumnName.eventID, ColumnName.receivedTime].contains($0.name) }
                var references: [String: [UInt64]] = [:]
                for name in referenceColumns where chunk.entry(name) != nil { references[name] = try cells.cells(chunk, name) }
                for row in 0..<chunk.rows {
                    let install = installCells[row]
                    let inPast = installs.contains(install) && received[row] <= cutoffMs && (absentUsers[row] || users[row]) && sessions[row] != 0
                    let change: Change = inPast ? .moved : (users[row] ? .userCleared : .none)
                    guard change != .none else { continue }
                    replacedIDs.insert(ids[row])
                    builder.addRow(timeMs: times[row], receivedMs: received[row], eventID: ids[row])
                    for column in columns {
                        switch (column.name, change) {
                        case (ColumnName.userID, _):
                            continue
                        case (ColumnName.installID, .moved):
                            builder.setText(column.name, pastInstall[install]!, &writer.dictionaries)
                        case (ColumnName.sessionID, .moved):
                            builder.setText(column.name, renamed[SessionKey(install: install, session: sessions[row])]!, &writer.dictionaries)
                        case (let name, .moved) where references[name].map({ renamed[SessionKey(install: install, session: $0[row])] != nil }) == true:
                            builder.setText(name, renamed[SessionKey(install: install, session: references[name]![row])]!, &writer.dictionaries)
                        default:
                            builder.copyCell(of: column, row: row, &writer.dictionaries)
                        }
                    }
                    dirty.insert(builder.textCell(ColumnName.installID))
                    outcome.result.events += 1
                }
            } catch { throw ColumnStoreError(error, file: entry.file) }
            if builder.rowCount > 0 { replacements[key] = builder }
        }
        outcome.rewrittenChunks = try ChunkRewrites(writer: writer).apply(replacements: replacements, replacedIDs: replacedIDs, dirtyInstalls: dirty,
                                                                           receivedBefore: nil)

        outcome.result.installs = installOrder.count
        outcome.result.sessions = renamed.count
        outcome.result.hours = hours.sorted()
        for install in installOrder {
            guard let past = pastInstall[install], let text = cells.text(install) else { continue }
            outcome.firstSeen.append(FirstSeenMove(install: text, past: past, pastFirstAppOpenMs: pastFirstAppOpen[install],
                                                   installLastReceivedMs: keptLastAppOpen[install]))
        }
        return outcome
    }
}

/// Reads text columns as cells comparable across chunks: a chunk whose column holds one value
/// that is not a lower-case UUID keeps its UUIDs as strings (``ChunkBuilder``), so a string cell
/// whose text is a UUID the dictionary knows reads as that UUID's cell. Also finds the deleted
/// user's rows, by `lower(user_id)` as the SQLite engine does.
private struct CellNormalizer {
    let userText: String
    let dictionaries: Dictionaries
    let userUUIDCode: UInt32?
    private var stringCells: [UInt32: UInt64] = [:]
    private var userStrings: [UInt32: Bool] = [:]

    init(userText: String, dictionaries: Dictionaries) {
        self.userText = userText
        self.dictionaries = dictionaries
        userUUIDCode = UUIDWords(lowercaseString: userText).flatMap { dictionaries.existingCode(uuid: $0) }
    }

    /// `name`'s cells (0 absent), every row.
    mutating func cells(_ chunk: ChunkFile, _ name: String) throws(ChunkFormatError) -> [UInt64] {
        guard let entry = chunk.entry(name), case .codes(let codes)? = try chunk.column(name) else { return Array(repeating: 0, count: chunk.rows) }
        guard entry.type == .string else { return codes.map { $0 == 0 ? 0 : ChunkBuilder.uuidFlag | UInt64($0) } }
        return codes.map { code in
            guard code != 0 else { return 0 }
            if let cell = stringCells[code] { return cell }
            let text = dictionaries.string(code) ?? ""
            let cell = UUIDWords(lowercaseString: text).flatMap { dictionaries.existingCode(uuid: $0) }.map { ChunkBuilder.uuidFlag | UInt64($0) } ?? UInt64(code)
            stringCells[code] = cell
            return cell
        }
    }

    /// Whether each row's `name` is absent.
    func absentRows(_ chunk: ChunkFile, _ name: String) throws(ChunkFormatError) -> [Bool] {
        guard case .codes(let codes)? = try chunk.column(name) else { return Array(repeating: true, count: chunk.rows) }
        return codes.map { $0 == 0 }
    }

    /// Whether each row carries the user id; nil when no row of the chunk does.
    mutating func userRows(_ chunk: ChunkFile) throws(ChunkFormatError) -> [Bool]? {
        guard let entry = chunk.entry(ColumnName.userID), case .codes(let codes)? = try chunk.column(ColumnName.userID) else { return nil }
        let rows: [Bool]
        if entry.type == .uuid {
            guard let target = userUUIDCode else { return nil }
            rows = codes.map { $0 == target }
        } else {
            rows = codes.map { code in
                guard code != 0 else { return false }
                if let known = userStrings[code] { return known }
                let matches = dictionaries.string(code)?.lowercased() == userText
                userStrings[code] = matches
                return matches
            }
        }
        return rows.contains(true) ? rows : nil
    }

    /// A cell's text.
    func text(_ cell: UInt64) -> String? {
        cell & ChunkBuilder.uuidFlag != 0
            ? dictionaries.uuid(UInt32(truncatingIfNeeded: cell & ~ChunkBuilder.uuidFlag))?.canonicalText
            : dictionaries.string(UInt32(truncatingIfNeeded: cell))
    }
}

extension ChunkBuilder {
    /// Sets the current row's `column` to `row`'s value in a decoded column (a row copied unchanged).
    mutating func copyCell(of column: Column, row: Int, _ dictionaries: inout Dictionaries) {
        switch (column.type, column.values) {
        case (.uuid, .codes(let codes)):
            guard codes[row] != 0, let id = dictionaries.uuid(codes[row]) else { return }
            setText(column.name, id.canonicalText, &dictionaries)
        case (.string, .codes(let codes)):
            guard codes[row] != 0, let text = dictionaries.string(codes[row]) else { return }
            setText(column.name, text, &dictionaries)
        case (.boolean, .codes(let codes)):
            guard codes[row] != 0 else { return }
            setBoolean(column.name, codes[row] == 2, &dictionaries)
        case (.integer, .integers(let words)):
            guard let value = IntegerCell.value(words[row]) else { return }
            setInteger(column.name, value, &dictionaries)
        default:
            return
        }
    }
}
