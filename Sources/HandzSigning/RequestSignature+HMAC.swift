#if canImport(CryptoKit)
import CryptoKit
#else
import Crypto
#endif

/// Computing and checking request signatures (the scheme and the header: `RequestSignature.swift`).
extension RequestSignature {
    /// The HMAC of the scheme's string to sign under `secret`.
    public static func signature(scheme: Scheme = .hz2, secret: [UInt8], timestamp: Int64, target: Target,
                                 body: UnsafeRawBufferPointer) -> [UInt8] {
        var hmac = HMAC<SHA256>(key: SymmetricKey(data: secret))
        switch scheme {
        case .hz2:
            hmac.update(data: Array("HZ2\n\(target.method)\n\(target.path)\n\(target.query)\n\(timestamp)\n".utf8))
        case .hz1:
            hmac.update(data: Array("\(timestamp).".utf8))
        }
        hmac.update(data: body)
        return Array(hmac.finalize())
    }

    /// The complete `Authorization` header value for a request.
    public static func authorization(scheme: Scheme = .hz2, keyID: String, secret: [UInt8], timestamp: Int64,
                                     target: Target = .batch, body: UnsafeRawBufferPointer) -> String {
        let sig = signature(scheme: scheme, secret: secret, timestamp: timestamp, target: target, body: body)
        return "\(scheme.rawValue) key=\(keyID), ts=\(timestamp), sig=\(Hex.encode(sig))"
    }

    public static func authorization(scheme: Scheme = .hz2, keyID: String, secret: [UInt8], timestamp: Int64,
                                     target: Target = .batch, body: [UInt8]) -> String {
        body.withUnsafeBytes { authorization(scheme: scheme, keyID: keyID, secret: secret, timestamp: timestamp, target: target, body: $0) }
    }

    /// Whether `header` signs this request under `secret`, compared in constant time.
    public static func isValid(_ header: Header, secret: [UInt8], target: Target, body: UnsafeRawBufferPointer) -> Bool {
        ConstantTime.equal(signature(scheme: header.scheme, secret: secret, timestamp: header.timestamp, target: target, body: body), header.signature)
    }
}

/// HMAC-SHA256 for other uses than request signing (the audit's salted hashes).
public enum HMACSHA256 {
    public static func code(key: [UInt8], data: [UInt8]) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: data, using: SymmetricKey(data: key)))
    }
}
