import HandzSigning
import HandzSQLite

/// The salted hash the privacy audit keeps instead of a user_id: HMAC-SHA256 under a random
/// per-store salt, so the audit shows that a user was forgotten without holding their id, and
/// hashes cannot be matched across stores.
enum AuditHash {
    static func hash(_ userID: String, database: SQLiteDatabase) throws -> String {
        Hex.encode(HMACSHA256.code(key: try salt(database), data: Array(userID.utf8)))
    }

    static func salt(_ database: SQLiteDatabase) throws -> [UInt8] {
        let select = try database.prepare("SELECT value FROM store_meta WHERE key = 'audit_salt'")
        let existing: [String?] = try select.query { $0.text(0) }
        if let text = existing.first ?? nil, let bytes = Hex.decode(text) { return bytes }
        var random = SystemRandomNumberGenerator()
        let salt = (0..<32).map { _ in UInt8.random(in: 0...255, using: &random) }
        try database.prepare("INSERT INTO store_meta(key, value) VALUES ('audit_salt', ?1)").run([.text(Hex.encode(salt))])
        return salt
    }
}
