import CZlib
import CZstd

/// Each column block is compressed once, when its chunk is sealed, with Zstandard (level 3: the
/// library's default, measured against lz4 in BENCHMARKS.md, "The column store"), and carries a
/// CRC-32 of its compressed bytes, checked on every read of that block only.
enum BlockCompression {
    static let level: Int32 = 3

    /// The largest block a reader will expand: a chunk holds one event name for one day, far
    /// below this; a header claiming more is damaged (or hostile), and is refused before any
    /// allocation.
    static let maxRawBytes = 1 << 30

    static func compress(_ raw: [UInt8]) -> [UInt8] {
        let bound = ZSTD_compressBound(raw.count)
        var out = [UInt8](repeating: 0, count: bound)
        let written = raw.withUnsafeBytes { input in
            out.withUnsafeMutableBytes { output in
                ZSTD_compress(output.baseAddress, bound, input.baseAddress, input.count, level)
            }
        }
        // With a buffer of ZSTD_compressBound bytes compression cannot fail.
        precondition(ZSTD_isError(written) == 0, "ZSTD_compress failed with a bound-sized buffer")
        out.removeSubrange(written...)
        return out
    }

    /// Expands `compressed` into exactly `rawLength` bytes, or throws.
    static func decompress(_ compressed: UnsafeRawBufferPointer, rawLength: Int) throws(ChunkFormatError) -> [UInt8] {
        guard rawLength >= 0, rawLength <= maxRawBytes else { throw .malformed("a block larger than the format allows") }
        guard rawLength > 0 else {
            // An empty block compresses to a frame of its own; accept it only if it says 0 bytes.
            guard compressed.count > 0, ZSTD_getFrameContentSize(compressed.baseAddress, compressed.count) == 0 else {
                throw .malformed("an empty block with content")
            }
            return []
        }
        var out = [UInt8](repeating: 0, count: rawLength)
        let produced = out.withUnsafeMutableBytes { output in
            ZSTD_decompress(output.baseAddress, rawLength, compressed.baseAddress, compressed.count)
        }
        guard ZSTD_isError(produced) == 0 else { throw .malformed("a block that does not decompress") }
        guard produced == rawLength else { throw .malformed("a block whose size differs from its header") }
        return out
    }

    static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return 0 }
        var crc: UInt = 0
        var offset = 0
        // zlib takes a 32-bit length.
        while offset < bytes.count {
            let length = min(bytes.count - offset, Int(Int32.max))
            crc = crc32(crc, base.advanced(by: offset).assumingMemoryBound(to: Bytef.self), uInt(length))
            offset += length
        }
        return UInt32(truncatingIfNeeded: crc)
    }

    static func checksum(_ bytes: [UInt8]) -> UInt32 { bytes.withUnsafeBytes { checksum($0) } }
}
