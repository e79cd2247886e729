import HandzAnalyticsCore
import HandzStore

extension SegmentEventStore {
    /// Every distinct user id the store's events carry, in lower case, as the SQLite engine's
    /// `SELECT DISTINCT lower(user_id) FROM events` gives them. A restore hashes each to find the
    /// users forgotten after its backup was taken (HandzStore's `adoptDeletionLedgerNow`, CH34 §8).
    /// Seals what waits in segments first, so every acknowledged event is read.
    public func storedUserIDsNow() throws -> Set<String> {
        let found = try columns.withWriter(lockWait: Self.lifecycleLockWait) { writer, _ -> Set<String> in
            try seal(into: writer)
            let reader = ChunkReading(directory: writer.directory)
            var ids = Set<String>()
            for entry in writer.manifest.chunks {
                let chunk = try reader.chunk(entry)
                guard let column = chunk.entry(ColumnName.userID), case .codes(let codes)? = try chunk.column(ColumnName.userID) else { continue }
                for code in Set(codes) where code != 0 {
                    let text = column.type == .uuid ? writer.dictionaries.uuid(code)?.canonicalText : writer.dictionaries.string(code)
                    if let text { ids.insert(text.lowercased()) }
                }
            }
            return ids
        }
        guard let found else { throw StoreError.unavailable("the column store stayed busy") }
        return found
    }
}
