/// The ingestion endpoint's request signature (CH33 §10 "signed ingestion keys"), the one
/// definition the server, the client and the load generator share.
///
///     Authorization: HZ2-HMAC-SHA256 key=<key id>, ts=<unix seconds>, sig=<hex>
///     sig = hex(HMAC-SHA256(secret, "HZ2\n" + METHOD + "\n" + path + "\n" + query + "\n" + ts + "\n" + body))
///
/// `path` and `query` are the request target exactly as sent (percent-encoded, the query without
/// its `?`, empty when there is none); the body is signed as sent — compressed when
/// `Content-Encoding: gzip` — so the server checks the signature before spending any work on the
/// body. Signing the method and target means a captured signature authorises only the request it
/// was made for: a `POST /v1/admin/reload` header cannot be reused for `DELETE /v1/users/…`.
///
/// `HZ1-HMAC-SHA256` (`sig = HMAC(secret, "<ts>." + body)`, no method or target) is what app builds
/// before this version send. The server accepts it on `POST /v1/batch` only, where a replay can only
/// re-send the same events and `event_id` dedupe makes that harmless; every admin route requires
/// HZ2 and refuses a signature it has already seen (HandzServer docs, "Threat model").
///
/// A request whose `ts` is more than ``maxClockSkewSeconds`` from the server clock is refused with
/// the error code `clock_skew` and the server's time, so a client with a wrong clock can correct
/// its offset and sign again.
///
/// This file holds the scheme and the header's parsing, which need no cryptography (so the fuzz
/// target for the header, `fuzz/Targets/authorization.swift`, builds without swift-crypto);
/// `RequestSignature+HMAC.swift` computes and checks signatures.
public enum RequestSignature {
    /// The schemes, newest first.
    public enum Scheme: String, Sendable, CaseIterable {
        /// Method, path, query, timestamp and body.
        case hz2 = "HZ2-HMAC-SHA256"
        /// Timestamp and body only (app builds before HZ2; `POST /v1/batch` only).
        case hz1 = "HZ1-HMAC-SHA256"
    }

    /// The scheme clients sign with.
    public static let scheme = Scheme.hz2.rawValue
    public static let maxClockSkewSeconds: Int64 = 300

    /// What an HZ2 signature covers besides the timestamp and body: the request line.
    public struct Target: Sendable, Equatable {
        public var method: String
        /// The path as sent, percent-encoded (`/v1/users/0190a5e2-…`).
        public var path: String
        /// The query as sent, without `?`; empty when there is none.
        public var query: String

        public init(method: String, path: String, query: String = "") {
            self.method = method.uppercased()
            self.path = path
            self.query = query
        }

        /// `POST /v1/batch`, the ingestion route.
        public static let batch = Target(method: "POST", path: "/v1/batch")
    }

    /// A parsed `Authorization` header.
    public struct Header: Sendable, Equatable {
        public var scheme: Scheme
        public var keyID: String
        public var timestamp: Int64
        public var signature: [UInt8]

        public init(scheme: Scheme = .hz2, keyID: String, timestamp: Int64, signature: [UInt8]) {
            self.scheme = scheme
            self.keyID = keyID
            self.timestamp = timestamp
            self.signature = signature
        }
    }

    /// Parses an `Authorization` value; nil when it is not one of the schemes or not well formed.
    /// A `ts` that does not fit in 64 bits is malformed.
    public static func parse(_ value: String) -> Header? {
        guard let scheme = Scheme.allCases.first(where: { value.hasPrefix($0.rawValue + " ") }) else { return nil }
        var keyID: String?
        var timestamp: Int64?
        var signature: [UInt8]?
        for part in value.dropFirst(scheme.rawValue.count + 1).split(separator: ",") {
            let pair = part.trimmingSpaces.split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2 else { return nil }
            switch pair[0] {
            case "key" where IngestionKey.isValidID(pair[1]): keyID = pair[1]
            case "ts" where pair[1].utf8.count <= 20: timestamp = Int64(pair[1])
            case "sig" where pair[1].utf8.count == 64: signature = Hex.decode(pair[1])
            default: return nil
            }
        }
        guard let keyID, let timestamp, let signature else { return nil }
        return Header(scheme: scheme, keyID: keyID, timestamp: timestamp, signature: signature)
    }

    /// Whether `timestamp` is within the allowed skew of `now`. Overflow-safe for any two values:
    /// a `ts` near `Int64.min` or `Int64.max` is simply not fresh.
    public static func isFresh(_ timestamp: Int64, now: Int64) -> Bool {
        let (difference, overflow) = now.subtractingReportingOverflow(timestamp)
        return !overflow && difference.magnitude <= UInt64(maxClockSkewSeconds)
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
