import Foundation

/// What a key may do (CH33 §10 "least privilege"): `ingest` sends events, `admin` reloads the
/// catalog and deletes users, `analyst` reads the dashboards `serve` hosts (issue 16) and nothing
/// else. An analyst key is never combined with another scope (``allowsCombination(_:)``): the
/// secret an analyst pastes into a browser must not also be able to send or delete data.
public enum KeyScope: String, Codable, Sendable, CaseIterable {
    case ingest
    case admin
    case analyst

    /// Whether one key may hold all of `scopes`: `ingest` and `admin` together, `analyst` alone.
    public static func allowsCombination(_ scopes: Set<KeyScope>) -> Bool {
        !scopes.isEmpty && (!scopes.contains(.analyst) || scopes == [.analyst])
    }
}

/// One signed ingestion key. The secret never appears in logs, errors or descriptions.
public struct IngestionKey: Codable, Sendable, Equatable, CustomStringConvertible {
    public enum Status: String, Codable, Sendable { case active, revoked }

    public var id: String
    /// The HMAC secret, hex in the file.
    public var secretHex: String
    public var scopes: [KeyScope]
    public var status: Status
    public var createdAt: String
    public var revokedAt: String?

    enum CodingKeys: String, CodingKey {
        case id, secretHex = "secret", scopes, status, createdAt = "created_at", revokedAt = "revoked_at"
    }

    /// The secret's bytes. Empty when `secretHex` is not a valid secret — which the keys file
    /// never lets through (``KeysFile/load(path:)``) and the endpoint refuses anyway
    /// (``hasValidSecret``): an empty HMAC key would be a key anyone can sign with.
    public var secret: [UInt8] { hasValidSecret ? Hex.decode(secretHex) ?? [] : [] }

    /// The documented secret form: exactly 64 hex digits (256 bits), as `generate` writes them.
    public static let secretHexLength = 64

    /// Whether `secretHex` is exactly ``secretHexLength`` hex digits (`0-9`, `a-f`, `A-F`).
    public var hasValidSecret: Bool { Self.isValidSecretHex(secretHex) }

    /// Whether `hex` is a secret's documented form: exactly ``secretHexLength`` hex digits.
    public static func isValidSecretHex(_ hex: String) -> Bool {
        hex.utf8.count == secretHexLength && hex.utf8.allSatisfy {
            ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) || ($0 >= 0x41 && $0 <= 0x46)
        }
    }

    /// The secret's bytes when `hex` is a valid secret (``isValidSecretHex(_:)``), else nil.
    public static func secret(fromHex hex: String) -> [UInt8]? {
        isValidSecretHex(hex) ? Hex.decode(hex) : nil
    }
    public var isActive: Bool { status == .active }

    public var description: String { "key \(id) [\(scopes.map(\.rawValue).joined(separator: ","))] \(status.rawValue)" }

    /// A new key with a random id and a 256-bit random secret.
    public static func generate(scopes: [KeyScope], now: Date = Date()) -> IngestionKey {
        var random = SystemRandomNumberGenerator()
        let idBytes = (0..<6).map { _ in UInt8.random(in: 0...255, using: &random) }
        let secret = (0..<32).map { _ in UInt8.random(in: 0...255, using: &random) }
        return IngestionKey(id: "hzk_" + Hex.encode(idBytes), secretHex: Hex.encode(secret), scopes: scopes,
                            status: .active, createdAt: ISO8601DateFormatter().string(from: now), revokedAt: nil)
    }

    /// Key ids are short tokens: `[A-Za-z0-9_-]{1,64}`.
    public static func isValidID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 64 && id.utf8.allSatisfy {
            ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x5F || $0 == 0x2D
        }
    }
}

/// The keys file: every key the endpoint knows, active and revoked (several may be active at once,
/// for rotation). Written with mode 0600; the endpoint re-reads it when it changes.
public struct KeysFile: Codable, Sendable, Equatable {
    public var version: Int = 1
    public var keys: [IngestionKey]

    public init(keys: [IngestionKey] = []) { self.keys = keys }

    public enum Failure: Error, CustomStringConvertible, Equatable {
        case unreadable(String)
        case invalid(String)
        /// A key whose id or secret is not of the documented form; names the key, never the secret.
        case invalidKey(path: String, keyID: String)
        public var description: String {
            switch self {
            case .unreadable(let path): "cannot read the keys file \(path)"
            case .invalid(let path): "the keys file \(path) is not valid"
            case .invalidKey(let path, let keyID):
                // The id's first 12 characters only: should id and secret have been swapped by hand,
                // a whole secret must not reach a log.
                "the keys file \(path) has a key whose id or secret is not valid (key \(IngestionKey.isValidID(keyID) ? keyID.prefix(12) + "…" : "with an invalid id")): a secret is exactly \(IngestionKey.secretHexLength) hex digits; fix or remove that entry (handz-analytics keys list shows it), or create keys with handz-analytics keys create"
            }
        }
    }

    /// Reads and checks the keys file: every key must have a valid id and a secret of exactly
    /// ``IngestionKey/secretHexLength`` hex digits. A hand-edited placeholder (`"secret": "CHANGE_ME"`)
    /// refuses the whole file rather than becoming a key with an empty secret. `checked: false` is
    /// for the `keys` commands only, so a key can still be listed and revoked in a file that a bad
    /// entry keeps the server from loading.
    public static func load(path: String, checked: Bool = true) throws -> KeysFile {
        guard let data = FileManager.default.contents(atPath: path) else { throw Failure.unreadable(path) }
        let file: KeysFile
        do {
            file = try JSONDecoder().decode(KeysFile.self, from: data)
        } catch {
            throw Failure.invalid(path)
        }
        if checked, let bad = file.keys.first(where: { !IngestionKey.isValidID($0.id) || !$0.hasValidSecret }) {
            throw Failure.invalidKey(path: path, keyID: bad.id)
        }
        return file
    }

    /// Writes atomically with permissions 0600 (the file holds secrets).
    public func save(path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let temporary = path + ".tmp-\(getpid())"
        guard FileManager.default.createFile(atPath: temporary, contents: try encoder.encode(self), attributes: [.posixPermissions: 0o600]),
              rename(temporary, path) == 0 else {
            try? FileManager.default.removeItem(atPath: temporary)
            throw Failure.unreadable(path)
        }
    }

    public func key(id: String) -> IngestionKey? { keys.first { $0.id == id } }
}
