import Foundation
#if canImport(CryptoKit)
import CryptoKit
#else
import Crypto
#endif

/// The ingestion endpoint's request signature (CH33 §10 "signed ingestion keys"), the one
/// definition the server, the client and the load generator share.
///
///     Authorization: HZ1-HMAC-SHA256 key=<key id>, ts=<unix seconds>, sig=<hex>
///     sig = hex(HMAC-SHA256(secret, "<ts>." + <the exact body bytes sent>))
///
/// The body is signed as sent — compressed when `Content-Encoding: gzip` — so the server checks
/// the signature before spending any work on the body. A request whose `ts` is more than
/// `maxClockSkewSeconds` from the server clock is refused. Within that window a captured request
/// can be replayed, but it can only re-send the same events, which `event_id` dedupe makes harmless.
public enum RequestSignature {
    public static let scheme = "HZ1-HMAC-SHA256"
    public static let maxClockSkewSeconds: Int64 = 300

    /// A parsed `Authorization` header.
    public struct Header: Sendable, Equatable {
        public var keyID: String
        public var timestamp: Int64
        public var signature: [UInt8]

        public init(keyID: String, timestamp: Int64, signature: [UInt8]) {
            self.keyID = keyID
            self.timestamp = timestamp
            self.signature = signature
        }
    }

    /// The HMAC of `"<timestamp>." + body` under `secret`.
    public static func signature(secret: [UInt8], timestamp: Int64, body: UnsafeRawBufferPointer) -> [UInt8] {
        var hmac = HMAC<SHA256>(key: SymmetricKey(data: secret))
        hmac.update(data: Array("\(timestamp).".utf8))
        hmac.update(data: body)
        return Array(hmac.finalize())
    }

    /// The complete `Authorization` header value for a body.
    public static func authorization(keyID: String, secret: [UInt8], timestamp: Int64, body: UnsafeRawBufferPointer) -> String {
        "\(scheme) key=\(keyID), ts=\(timestamp), sig=\(Hex.encode(signature(secret: secret, timestamp: timestamp, body: body)))"
    }

    public static func authorization(keyID: String, secret: [UInt8], timestamp: Int64, body: [UInt8]) -> String {
        body.withUnsafeBytes { authorization(keyID: keyID, secret: secret, timestamp: timestamp, body: $0) }
    }

    /// Parses an `Authorization` value; nil when it is not this scheme or not well formed.
    public static func parse(_ value: String) -> Header? {
        guard value.hasPrefix(scheme + " ") else { return nil }
        var keyID: String?
        var timestamp: Int64?
        var signature: [UInt8]?
        for part in value.dropFirst(scheme.count + 1).split(separator: ",") {
            let pair = part.trimmingSpaces.split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2 else { return nil }
            switch pair[0] {
            case "key" where IngestionKey.isValidID(pair[1]): keyID = pair[1]
            case "ts": timestamp = Int64(pair[1])
            case "sig" where pair[1].utf8.count == 64: signature = Hex.decode(pair[1])
            default: return nil
            }
        }
        guard let keyID, let timestamp, let signature else { return nil }
        return Header(keyID: keyID, timestamp: timestamp, signature: signature)
    }

    /// Whether `header` signs `body` under `secret`, compared in constant time.
    public static func isValid(_ header: Header, secret: [UInt8], body: UnsafeRawBufferPointer) -> Bool {
        let expected = signature(secret: secret, timestamp: header.timestamp, body: body)
        guard expected.count == header.signature.count else { return false }
        var difference: UInt8 = 0
        for index in expected.indices { difference |= expected[index] ^ header.signature[index] }
        return difference == 0
    }

    /// Whether `timestamp` is within the allowed skew of `now`.
    public static func isFresh(_ timestamp: Int64, now: Int64) -> Bool {
        abs(now - timestamp) <= maxClockSkewSeconds
    }
}

extension Substring {
    var trimmingSpaces: Substring {
        var slice = self
        while slice.first == " " { slice = slice.dropFirst() }
        while slice.last == " " { slice = slice.dropLast() }
        return slice
    }
}

/// Lowercase hex.
public enum Hex {
    public static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    public static func decode(_ text: String) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count % 2 == 0 else { return nil }
        func value(_ c: UInt8) -> UInt8? {
            switch c {
            case 0x30...0x39: c - 0x30
            case 0x61...0x66: c - 0x61 + 10
            case 0x41...0x46: c - 0x41 + 10
            default: nil
            }
        }
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count / 2)
        var index = 0
        while index < utf8.count {
            guard let high = value(utf8[index]), let low = value(utf8[index + 1]) else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }
}

/// HMAC-SHA256 for other uses than request signing (the audit's salted hashes).
public enum HMACSHA256 {
    public static func code(key: [UInt8], data: [UInt8]) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: data, using: SymmetricKey(data: key)))
    }
}
