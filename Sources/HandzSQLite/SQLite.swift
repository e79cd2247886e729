#if canImport(SQLite3)
import SQLite3
#else
import CSQLite
#endif

/// A thin, Foundation-free wrapper over the SQLite C API (the system `libsqlite3` on Linux, the
/// SDK's `SQLite3` on Apple platforms), shared by the ingestion store and the on-device queue.
///
/// Errors carry SQLite's result code and its message; SQLite's messages name tables and
/// constraints, never bound values, so they are safe to log.
public struct SQLiteError: Error, CustomStringConvertible, Sendable {
    public let code: Int32
    public let message: String

    public init(code: Int32, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "SQLite error \(code): \(message)" }

    /// True for errors that mean "try again later" (busy, locked, full disk, I/O).
    public var isTransient: Bool {
        let primary = code & 0xFF
        return primary == SQLITE_BUSY || primary == SQLITE_LOCKED || primary == SQLITE_FULL || primary == SQLITE_IOERR
    }

    /// True when the file is not a database or is damaged.
    public var isCorruption: Bool {
        let primary = code & 0xFF
        return primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB
    }
}

/// `SQLITE_TRANSIENT`: SQLite copies bound bytes before the call returns (the C macro is not imported).
let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// One SQLite connection. Not thread-safe: keep each connection on one thread or actor.
public final class SQLiteDatabase {
    public let path: String
    let handle: OpaquePointer

    /// Opens (creating if needed) the database at `path`.
    public init(path: String, readOnly: Bool = false) throws {
        var handle: OpaquePointer?
        let flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) | SQLITE_OPEN_NOMUTEX
        let result = sqlite3_open_v2(path, &handle, flags, nil)
        guard result == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            if let handle { sqlite3_close_v2(handle) }
            throw SQLiteError(code: result, message: message)
        }
        self.path = path
        self.handle = handle
        sqlite3_busy_timeout(handle, 5_000)
        sqlite3_extended_result_codes(handle, 1)
    }

    deinit { sqlite3_close_v2(handle) }

    func error(_ code: Int32) -> SQLiteError {
        SQLiteError(code: code, message: String(cString: sqlite3_errmsg(handle)))
    }

    /// Runs one or more statements without results.
    public func execute(_ sql: String) throws {
        let result = sqlite3_exec(handle, sql, nil, nil, nil)
        guard result == SQLITE_OK else { throw error(result) }
    }

    /// Prepares a statement for repeated use.
    public func prepare(_ sql: String) throws -> SQLiteStatement {
        var statement: OpaquePointer?
        let result = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard result == SQLITE_OK, let statement else { throw error(result) }
        return SQLiteStatement(database: self, handle: statement)
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    public func transaction<T>(_ kind: String = "IMMEDIATE", _ body: () throws -> T) throws -> T {
        try execute("BEGIN \(kind)")
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// Rows changed by the last statement.
    public var changes: Int { Int(sqlite3_changes(handle)) }

    /// The first column of the first row of `sql` as an integer (for `PRAGMA`s and counts).
    public func scalar(_ sql: String, _ arguments: [SQLiteValue] = []) throws -> Int64? {
        let statement = try prepare(sql)
        try statement.bind(arguments)
        return try statement.step() ? statement.int64(0) : nil
    }

    public static var libraryVersion: String { String(cString: sqlite3_libversion()) }

    /// Copies this database, as one consistent snapshot, into the database at `destination`
    /// (replacing what it held), with SQLite's online backup API: one `sqlite3_backup_step(-1)`
    /// copies every page inside a single read transaction, so writers in other connections and
    /// processes go on (under WAL they are not blocked) and none of their commits is half in the
    /// copy. A step that finds the source or destination busy is retried, at most `attempts`
    /// times, 50 ms apart.
    public func copy(to destination: SQLiteDatabase, attempts: Int = 200) throws {
        guard let backup = sqlite3_backup_init(destination.handle, "main", handle, "main") else {
            throw destination.error(sqlite3_errcode(destination.handle))
        }
        var result = SQLITE_OK
        for _ in 0..<max(1, attempts) {
            result = sqlite3_backup_step(backup, -1)
            guard result == SQLITE_BUSY || result == SQLITE_LOCKED else { break }
            sqlite3_sleep(50)
        }
        let finished = sqlite3_backup_finish(backup)
        guard result == SQLITE_DONE else { throw SQLiteError(code: result, message: String(cString: sqlite3_errstr(result))) }
        guard finished == SQLITE_OK else { throw destination.error(finished) }
    }

    /// `PRAGMA quick_check`: true when the file's structure is intact (pages, indexes' order,
    /// records' shape; not each index against its table, which `integrity_check` adds).
    public func isIntact() throws -> Bool {
        let statement = try prepare("PRAGMA quick_check")
        return try statement.step() && statement.text(0) == "ok"
    }
}

/// A value to bind or read.
public enum SQLiteValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case text(String)
    case blob([UInt8])
}

/// A prepared statement, reset after each use.
public final class SQLiteStatement {
    let database: SQLiteDatabase
    let handle: OpaquePointer

    init(database: SQLiteDatabase, handle: OpaquePointer) {
        self.database = database
        self.handle = handle
    }

    deinit { sqlite3_finalize(handle) }

    public func bind(_ values: [SQLiteValue]) throws {
        for (index, value) in values.enumerated() { try bind(value, at: Int32(index + 1)) }
    }

    public func bind(_ value: SQLiteValue, at index: Int32) throws {
        let result: Int32
        switch value {
        case .null: result = sqlite3_bind_null(handle, index)
        case .integer(let integer): result = sqlite3_bind_int64(handle, index, integer)
        case .text(let text): result = sqlite3_bind_text(handle, index, text, -1, transient)
        case .blob(let bytes): result = bytes.withUnsafeBytes { sqlite3_bind_blob(handle, index, $0.baseAddress, Int32($0.count), transient) }
        }
        guard result == SQLITE_OK else { throw database.error(result) }
    }

    /// Binds text straight from bytes (UTF-8), without making a `String`. SQLite does not copy
    /// them: they must stay valid until the statement is stepped and reset.
    public func bindText(_ bytes: UnsafeRawBufferPointer, at index: Int32) throws {
        let pointer = bytes.baseAddress?.assumingMemoryBound(to: CChar.self) ?? UnsafePointer(bitPattern: 1)
        let result = sqlite3_bind_text(handle, index, pointer, Int32(bytes.count), nil)
        guard result == SQLITE_OK else { throw database.error(result) }
    }

    /// Binds a blob straight from bytes, without a copy (same rule as `bindText`).
    public func bindBlob(_ bytes: UnsafeRawBufferPointer, at index: Int32) throws {
        let result = sqlite3_bind_blob(handle, index, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(bytes.count), nil)
        guard result == SQLITE_OK else { throw database.error(result) }
    }

    public func bindInt(_ value: Int64, at index: Int32) throws {
        let result = sqlite3_bind_int64(handle, index, value)
        guard result == SQLITE_OK else { throw database.error(result) }
    }

    public func bindNull(at index: Int32) throws {
        let result = sqlite3_bind_null(handle, index)
        guard result == SQLITE_OK else { throw database.error(result) }
    }

    /// Advances; true when a row is available, false when done.
    @discardableResult
    public func step() throws -> Bool {
        let result = sqlite3_step(handle)
        if result == SQLITE_ROW { return true }
        if result == SQLITE_DONE { return false }
        throw database.error(result)
    }

    /// Resets for reuse, keeping the bound values (for columns constant across rows).
    public func resetKeepingBindings() {
        sqlite3_reset(handle)
    }

    /// Resets for reuse and clears bindings.
    public func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Runs the statement once with `values`, then resets it.
    public func run(_ values: [SQLiteValue] = []) throws {
        defer { reset() }
        try bind(values)
        while try step() {}
    }

    /// All rows of the statement with `values`, each mapped by `row`.
    public func query<T>(_ values: [SQLiteValue] = [], _ row: (SQLiteStatement) throws -> T) throws -> [T] {
        defer { reset() }
        try bind(values)
        var rows: [T] = []
        while try step() { rows.append(try row(self)) }
        return rows
    }

    public func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
    public var columnCount: Int32 { sqlite3_column_count(handle) }
    public func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    public func text(_ column: Int32) -> String? {
        guard let pointer = sqlite3_column_text(handle, column) else { return nil }
        return String(cString: pointer)
    }

    /// The column's bytes (a blob's, or a text's UTF-8), valid until the next step or reset: no copy.
    public func bytes(_ column: Int32) -> UnsafeRawBufferPointer {
        let pointer = sqlite3_column_blob(handle, column)
        return UnsafeRawBufferPointer(start: pointer, count: pointer == nil ? 0 : Int(sqlite3_column_bytes(handle, column)))
    }

    /// Whether the column holds a blob (not text, a number or NULL).
    public func isBlob(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_BLOB }

    public func blob(_ column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let pointer = sqlite3_column_blob(handle, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }
}
