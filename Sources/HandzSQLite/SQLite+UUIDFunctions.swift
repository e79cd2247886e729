#if canImport(SQLite3)
import SQLite3
#else
import CSQLite
#endif

/// Two SQL functions every store connection registers, made for issue 15's analytical layer
/// (which kept UUIDs as 16 bytes instead of 36 characters of text; migration 9 removed it) and
/// kept for operators and tests reading or rebuilding a file of those schemas:
///
/// - `uuid_blob(x)`: a canonical UUID text (either case) as its 16 bytes; anything else unchanged.
/// - `uuid_text(x)`: 16 bytes as canonical lower-case UUID text; anything else unchanged.
///
/// Both are deterministic and the exact inverse of each other on canonical lower-case text, which
/// is how the store keeps every id (store migration 2), so a query that reads ids through
/// `uuid_text` sees the same values, in the same order (hex digits sort as the bytes they
/// encode), as one that reads the text columns of the log. Non-UUID values pass through both
/// unchanged, so nothing is lost if a value is not a UUID.
extension SQLiteDatabase {
    public func registerUUIDFunctions() throws {
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS
        var result = sqlite3_create_function_v2(handle, "uuid_blob", 1, flags, nil, { context, _, arguments in
            guard let argument = arguments?[0] else { return sqlite3_result_null(context) }
            guard sqlite3_value_type(argument) == SQLITE_TEXT, sqlite3_value_bytes(argument) == 36,
                  let text = sqlite3_value_text(argument) else {
                return sqlite3_result_value(context, argument)
            }
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 16) { bytes in
                if UUIDBytes.parse(text, into: bytes) {
                    sqlite3_result_blob(context, bytes.baseAddress, 16, transient)
                } else {
                    sqlite3_result_value(context, argument)
                }
            }
        }, nil, nil, nil)
        guard result == SQLITE_OK else { throw error(result) }
        result = sqlite3_create_function_v2(handle, "uuid_text", 1, flags, nil, { context, _, arguments in
            guard let argument = arguments?[0] else { return sqlite3_result_null(context) }
            guard sqlite3_value_type(argument) == SQLITE_BLOB, sqlite3_value_bytes(argument) == 16,
                  let blob = sqlite3_value_blob(argument) else {
                return sqlite3_result_value(context, argument)
            }
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 36) { text in
                UUIDBytes.format(UnsafeRawBufferPointer(start: blob, count: 16), into: text)
                text.withMemoryRebound(to: CChar.self) { sqlite3_result_text(context, $0.baseAddress, 36, transient) }
            }
        }, nil, nil, nil)
        guard result == SQLITE_OK else { throw error(result) }
    }
}

/// Byte-level UUID text ⇄ 16 bytes, without Foundation.
enum UUIDBytes {
    /// Writes the 16 bytes of a canonical UUID (8-4-4-4-12 hex digits, either case) into
    /// `bytes`; false when `text` is not one. No allocation.
    static func parse(_ text: UnsafePointer<UInt8>, into bytes: UnsafeMutableBufferPointer<UInt8>) -> Bool {
        var out = 0
        var index = 0
        while index < 36 {
            if index == 8 || index == 13 || index == 18 || index == 23 {
                guard text[index] == UInt8(ascii: "-") else { return false }
                index += 1
                continue
            }
            guard let high = nibble(text[index]), let low = nibble(text[index + 1]) else { return false }
            bytes[out] = high << 4 | low
            out += 1
            index += 2
        }
        return true
    }

    static func nibble(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Writes the canonical lower-case text of 16 bytes into `text` (36 UTF-8 code units). No
    /// allocation.
    static func format(_ bytes: UnsafeRawBufferPointer, into text: UnsafeMutableBufferPointer<UInt8>) {
        var out = 0
        for offset in 0..<16 {
            if offset == 4 || offset == 6 || offset == 8 || offset == 10 {
                text[out] = UInt8(ascii: "-")
                out += 1
            }
            text[out] = hexDigit(bytes[offset] >> 4)
            text[out + 1] = hexDigit(bytes[offset] & 0x0F)
            out += 2
        }
    }

    static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
    }
}

