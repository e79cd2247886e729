import ArgumentParser
import HandzSynthetic

extension JSONText {
    /// `"key": {"code": count, …}` with codes in sorted order (the `rejected_by_code` of
    /// `import` and `stats`): codes and counts only, never a value.
    mutating func counts(_ key: String, _ byCode: [String: Int]) {
        self.key(key)
        beginObject()
        for code in byCode.keys.sorted() { field(code, byCode[code]!) }
        endObject()
    }
}

/// `--store` takes a PostgreSQL URL only (`serve`, `export lake`).
func checkPostgresURL(_ store: String?) throws {
    if let store, !(store.hasPrefix("postgres://") || store.hasPrefix("postgresql://")) {
        throw ValidationError("--store must be a postgres:// URL")
    }
}
