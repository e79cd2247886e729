import HandzSQLite

/// Small named values the store keeps for its services in `store_meta` (an analysis node's
/// place in the shared store it follows, issue 36). Keys are fixed by the code; values hold no
/// event value.
extension SQLiteEventStore {
    public func metaValue(_ key: String) throws -> String? {
        try withConnection { database in
            try database.prepare("SELECT value FROM store_meta WHERE key = ?1").query([.text(key)]) { $0.text(0) }.first ?? nil
        }
    }

    public func setMetaValue(_ key: String, _ value: String) throws {
        try withConnection { database in
            try database.prepare("INSERT INTO store_meta(key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = excluded.value")
                .run([.text(key), .text(value)])
        }
    }
}
