/// The canonical text of a UUID held as 16 bytes (how the embedded store keeps `event_id`).
public enum UUIDText {
    /// Lowercase 8-4-4-4-12 text of 16 bytes; byte order equals the text's order.
    public static func canonical(_ bytes: [UInt8]) -> String {
        precondition(bytes.count == 16, "a UUID is 16 bytes")
        var high: UInt64 = 0, low: UInt64 = 0
        for index in 0..<8 { high = high << 8 | UInt64(bytes[index]) }
        for index in 8..<16 { low = low << 8 | UInt64(bytes[index]) }
        return UUIDv7.format(high: high, low: low)
    }
}
