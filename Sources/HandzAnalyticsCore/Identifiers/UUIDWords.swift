/// A UUID's 16 bytes as two words, most significant first: ordered and compared like the bytes
/// (`memcmp`, which is how SQLite orders the stored 16-byte `event_id` blob and how CH33 analysis
/// breaks a same-millisecond tie, CH33 §5.1), hashed without allocating. The one two-word form of
/// an id in the package: the funnel walk, the store analyses and the session rollups use it.
@frozen
public struct UUIDWords: Hashable, Comparable, Sendable {
    public var high: UInt64
    public var low: UInt64

    @inlinable
    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// The words of exactly 16 bytes; nil for any other length.
    @inlinable
    public init?(bytes: UnsafeRawBufferPointer) {
        guard bytes.count == 16 else { return nil }
        self.init(orderingBytes: bytes)
    }

    /// The words of the first 16 bytes, a shorter id padded with zeros: the same order as the
    /// bytes for ids of any length (the funnel evaluator takes ids from callers, not only the store).
    @inlinable
    public init(orderingBytes bytes: UnsafeRawBufferPointer) {
        var high: UInt64 = 0, low: UInt64 = 0
        for offset in 0..<16 {
            let byte = UInt64(offset < bytes.count ? bytes[offset] : 0)
            if offset < 8 { high = high << 8 | byte } else { low = low << 8 | byte }
        }
        self.init(high: high, low: low)
    }

    /// The words of canonical lower-case UUID text (8-4-4-4-12 hex digits, what the store's
    /// `uuid_text` writes); nil for anything else, upper case included, so that equal words mean
    /// equal text. Any version: this reads ids already stored, it does not validate new ones
    /// (that is `UUIDFormat`).
    /// ``init(lowercaseText:)`` on a string's UTF-8.
    public init?(lowercaseString text: String) {
        var text = text
        guard let words = text.withUTF8({ UUIDWords(lowercaseText: UnsafeRawBufferPointer($0)) }) else { return nil }
        self = words
    }

    @inlinable
    public init?(lowercaseText text: UnsafeRawBufferPointer) {
        guard text.count == 36 else { return nil }
        var high: UInt64 = 0, low: UInt64 = 0, nibbles = 0
        for index in 0..<36 {
            let byte = text[index]
            if index == 8 || index == 13 || index == 18 || index == 23 {
                guard byte == UInt8(ascii: "-") else { return nil }
                continue
            }
            let value: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = byte &- UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = byte &- UInt8(ascii: "a") &+ 10
            default: return nil
            }
            if nibbles < 16 { high = high << 4 | UInt64(value) } else { low = low << 4 | UInt64(value) }
            nibbles += 1
        }
        self.init(high: high, low: low)
    }

    @inlinable
    public static func < (lhs: UUIDWords, rhs: UUIDWords) -> Bool {
        (lhs.high, lhs.low) < (rhs.high, rhs.low)
    }
}
