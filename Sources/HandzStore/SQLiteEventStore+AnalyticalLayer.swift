import Foundation
import HandzSQLite

/// How far the analytical layer is behind the log (issue 15: "report its lag").
public struct AnalyticalLayerStatus: Sendable, Equatable {
    /// Log rows folded by this call.
    public var folded = 0
    /// Log rows still to fold after it (by rowid).
    public var lagRows: Int64 = 0

    public init(folded: Int = 0, lagRows: Int64 = 0) {
        self.folded = folded
        self.lagRows = lagRows
    }
}

extension SQLiteEventStore {
    /// Folds new log rows into the analytical layer, one short transaction per batch, until it has
    /// caught up or `maxBatches` ran. Safe beside the writer and other catch-ups (from this process
    /// or another): each batch reads the watermark inside its write transaction.
    @discardableResult
    public func catchUpAnalyticalLayerNow(maxBatches: Int = .max, batchRows: Int = AnalyticalLayer.defaultBatchRows,
                                          beforeCommit: ((_ batch: Int) -> Void)? = nil) throws -> AnalyticalLayerStatus {
        try withConnection { try Self.catchUp($0, maxBatches: maxBatches, batchRows: batchRows, beforeCommit: beforeCommit) }
    }

    /// Stored rows not yet in the analytical layer (the writer folds them while it is idle).
    public func analyticalLayerLag() async throws -> Int64 {
        try await Task.detached { try self.withConnection { try AnalyticalLayer.lag($0) } }.value
    }

    /// The writers' catch-up: migrates the file at `path` if it is older (issue 15 §4: stores
    /// upgrade in place) and folds every log row into the layer. `serve` runs it before it draws a
    /// page, `import` when it has stored its lines; analysis never does (it opens the file
    /// read-only, ``openForReading(path:)``). Nothing happens for a missing file.
    @discardableResult
    public static func prepareForQueries(path: String) throws -> AnalyticalLayerStatus {
        guard FileManager.default.fileExists(atPath: path) else { return AnalyticalLayerStatus() }
        let database = try open(path: path, configuration: StoreConfiguration())
        try StoreSchema.migrate(database, nowMs: nowMs())
        return try catchUp(database, maxBatches: .max, batchRows: AnalyticalLayer.defaultBatchRows)
    }

    /// A read-only connection whose unqualified `events` is the analytical layer: with `catchUp`,
    /// after ``prepareForQueries(path:)`` (which writes: `qa --db`); without, exactly
    /// ``openLayerForReading(path:)``, which never writes and refuses an older schema.
    public static func openForQueries(path: String, catchUp: Bool = true) throws -> SQLiteDatabase {
        if catchUp { try prepareForQueries(path: path) }
        return try openLayerForReading(path: path)
    }

    /// The settings of a connection that analyses (it sorts millions of rows): temporary b-trees
    /// in memory, a 256 MiB page cache, the file mapped. Set before any temporary object is made,
    /// since changing `temp_store` deletes them all.
    public static let analysisSettings = "PRAGMA temp_store = MEMORY; PRAGMA cache_size = -262144; PRAGMA mmap_size = 1073741824"

    /// `beforeCommit` runs inside each batch's transaction, after its rows are written (the fault
    /// tests kill the process there).
    static func catchUp(_ database: SQLiteDatabase, maxBatches: Int, batchRows: Int, beforeCommit: ((Int) -> Void)? = nil) throws -> AnalyticalLayerStatus {
        // Events imported from history arrive install by install, so one batch inserts all over
        // the layer's (name, time) order: a cache the size of the analysis connections' keeps
        // those pages in memory (BENCHMARKS.md, "The store split").
        try database.execute("PRAGMA cache_size = -262144")
        var status = AnalyticalLayerStatus()
        var batches = 0
        while batches < maxBatches {
            let folded = try database.transaction {
                let folded = try AnalyticalLayer.foldBatch(database, maxRows: batchRows)
                beforeCommit?(batches + 1)
                return folded
            }
            batches += 1
            status.folded += folded
            if try AnalyticalLayer.lag(database) == 0 { break }
        }
        status.lagRows = try AnalyticalLayer.lag(database)
        return status
    }

    /// Empties the analytical layer; the next catch-up folds it again from the log.
    public func emptyAnalyticalLayerNow() throws {
        try withConnection { database in try database.transaction { try AnalyticalLayer.empty(database) } }
    }
}
