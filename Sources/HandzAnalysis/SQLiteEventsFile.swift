import Foundation
import HandzAnalyticsCore
import HandzQuery
import HandzSQLite
import HandzStore

/// A standalone SQLite file holding the analyst's tables, `events` and `install_first_seen`,
/// created by `EventsDDL` (what `handz-analytics sql ddl --dialect sqlite` prints) and filled
/// from a store: what `handz-analytics export sqlite` writes.
///
/// Why it exists (issue 34 §5): a store of the segment engine keeps its events in segment files
/// and column chunks, not in an `events` table, so the SQL the builders print for SQLite has
/// nothing to run on inside it. This file is that table, with the same rows, types and indexes as
/// the SQLite log's, so `sql --dialect sqlite` runs on it as on a store of the SQLite log, and
/// `scripts/check-engines.sh` holds the SQLite dialect to the column engine on the same events.
///
/// The file is written in one transaction into a new path (an existing file is refused, so an
/// export never mixes two stores' rows), and the indexes are built after the rows go in.
public struct SQLiteEventsFile {
    public let path: String

    public init(path: String) {
        self.path = path
    }

    /// How many rows each table received.
    public struct Summary: Sendable, Equatable {
        public var events = 0
        public var installs = 0
    }

    /// Writes every event `source` received in `[fromMs, toMs)` and the first-seen rows
    /// `firstSeen` gives (`(install_id, first_app_open_ms, last_received_ms)`).
    public func write(from source: any EventStore, receivedFromMs fromMs: Int64, toMs: Int64,
                      firstSeen: [(installID: String, firstAppOpenMs: Int64, lastReceivedMs: Int64)]) async throws -> Summary {
        let database = try SQLiteDatabase(path: path)
        let ddl = EventsDDL.createTable(.sqlite)
        // The tables first, their indexes after the rows: building an index once is faster than
        // keeping it in order row by row.
        let statements = ddl.split(separator: ";").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
        let (indexes, tables) = (statements.filter { $0.hasPrefix("CREATE") && $0.contains("INDEX") },
                                 statements.filter { !($0.hasPrefix("CREATE") && $0.contains("INDEX")) })
        try database.execute("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF")
        try database.execute("BEGIN")
        let rows: RowSink
        do {
            for table in tables { try database.execute(table) }
            rows = RowSink(try database.prepare("""
                INSERT INTO \(EventsTable.name) (\(EventColumn.allCases.map(\.name).joined(separator: ", ")))
                VALUES (\(EventColumn.allCases.indices.map { "?\($0 + 1)" }.joined(separator: ", ")))
                """))
            try await source.exportEvents(receivedFromMs: fromMs, toMs: toMs) { event in try rows.add(event) }
            let firstSeenInsert = try database.prepare("INSERT INTO \(InstallFirstSeenTable.name) VALUES (?1, ?2, ?3)")
            for row in firstSeen {
                try firstSeenInsert.run([.text(row.installID), .integer(row.firstAppOpenMs), .integer(row.lastReceivedMs)])
            }
            for index in indexes { try database.execute(index) }
            try database.execute("COMMIT")
        } catch {
            try? database.execute("ROLLBACK")
            throw error
        }
        return Summary(events: rows.count, installs: firstSeen.count)
    }

    /// One event's cells in table order; the id as the 16 bytes the SQLite log stores.
    static func bind(_ event: ExportedEvent, to statement: SQLiteStatement) throws {
        for column in EventColumn.allCases {
            let index = Int32(column.rawValue + 1)
            switch event[column] {
            case .integer(let value):
                try statement.bindInt(value, at: index)
            case .text(nil):
                try statement.bindNull(at: index)
            case .text(let text?) where column == .eventID:
                guard let words = UUIDWords(lowercaseString: text) else { throw SQLiteEventsFileError.unreadableEventID }
                try statement.bind(.blob(withUnsafeBytes(of: (words.high.bigEndian, words.low.bigEndian)) { Array($0) }), at: index)
            case .text(let text?):
                try statement.bind(.text(text), at: index)
            }
        }
    }
}

/// Why an export stopped. The message never holds a value from an event.
public enum SQLiteEventsFileError: Error, CustomStringConvertible {
    /// The store handed back an event id that is not canonical UUID text.
    case unreadableEventID

    public var description: String {
        switch self {
        case .unreadableEventID: "a stored event id is not canonical UUID text"
        }
    }
}

/// The insert and its count, handed to the export's `@Sendable` callback. Unchecked: every
/// store calls that callback on one thread at a time, in order, and `write` reads the count
/// only after the export returned.
private final class RowSink: @unchecked Sendable {
    private let insert: SQLiteStatement
    private(set) var count = 0

    init(_ insert: SQLiteStatement) {
        self.insert = insert
    }

    func add(_ event: ExportedEvent) throws {
        try SQLiteEventsFile.bind(event, to: insert)
        try insert.run()
        count += 1
    }
}
