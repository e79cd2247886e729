#if canImport(CryptoKit)
import CryptoKit
#else
import Crypto
#endif

/// SHA-256 over bytes given in pieces (the lake manifest's checksum of each data file).
public struct SHA256Stream {
    private var hasher = SHA256()

    public init() {}

    public mutating func update(_ bytes: [UInt8]) { hasher.update(data: bytes) }

    /// Lowercase hex of the digest.
    public func hex() -> String { Hex.encode(Array(hasher.finalize())) }
}
