import Foundation

/// Streams NDJSON input line by line without loading the whole file: reads large chunks and
/// hands each line to the caller as a buffer into the chunk (no copy). A final line without a
/// newline is still a line; a trailing `\r` is dropped.
struct LineReader {
    let handle: FileHandle
    var chunkSize = 4 << 20

    init(path: String) throws {
        if path == "-" {
            handle = FileHandle.standardInput
        } else {
            guard let handle = FileHandle(forReadingAtPath: path) else {
                throw CleanFailure("cannot read \(path)")
            }
            self.handle = handle
        }
    }

    /// Calls `body` with each line's 1-based number and bytes.
    func forEachLine(_ body: (Int, UnsafeRawBufferPointer) throws -> Void) throws {
        var carry: [UInt8] = []
        var lineNumber = 0
        while true {
            let chunk = handle.readData(ofLength: chunkSize)
            if chunk.isEmpty { break }
            var buffer = carry
            buffer.append(contentsOf: chunk)
            carry = []
            try buffer.withUnsafeBytes { bytes in
                var start = 0
                while let newline = Self.index(of: 0x0A, in: bytes, from: start) {
                    lineNumber += 1
                    try body(lineNumber, Self.trimmed(UnsafeRawBufferPointer(rebasing: bytes[start..<newline])))
                    start = newline + 1
                }
                carry = Array(bytes[start...])
            }
        }
        if !carry.isEmpty {
            lineNumber += 1
            try carry.withUnsafeBytes { try body(lineNumber, Self.trimmed($0)) }
        }
    }

    static func index(of byte: UInt8, in bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        guard start < bytes.count, let base = bytes.baseAddress else { return nil }
        guard let found = memchr(base + start, Int32(byte), bytes.count - start) else { return nil }
        return UnsafeRawPointer(found) - base
    }

    static func trimmed(_ line: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        if line.count > 0, line[line.count - 1] == 0x0D { return UnsafeRawBufferPointer(rebasing: line[0..<(line.count - 1)]) }
        return line
    }

    /// Whether a line holds only JSON whitespace (skipped: NDJSON allows blank lines between records).
    static func isBlank(_ line: UnsafeRawBufferPointer) -> Bool {
        line.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
    }
}
