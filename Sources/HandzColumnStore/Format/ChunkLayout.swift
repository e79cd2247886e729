/// The byte layout of a chunk file (format 1). A chunk holds the events of one name and one UTC
/// day, rows ordered by install, then event time, then event id, one compressed block per column:
///
/// ```
/// magic      8 bytes   "HZCHUNK" then the format version (1)
/// header    u32 length, u32 CRC-32 of the header, then:
///              event name (string), day (signed: days since 1970-01-01 UTC), rows,
///              min and max event time (signed), column count, and per column:
///              name (string), type (byte, ColumnType), encoding (byte, BlockEncoding),
///              offset from the end of the header, stored bytes, raw bytes, u32 CRC-32 of the
///              stored bytes
/// blocks     each column's block: its encoded values (varints, deltas or fixed bytes), zstd-compressed
/// ```
/// Integers in the header are LEB128 varints (signed ones zigzag first); fixed-width ones are
/// little-endian. Every count and length is checked against the bytes that remain before it is
/// used, so a reader of a damaged file throws ``ChunkFormatError``.
public enum ChunkLayout {
    static let magic: [UInt8] = Array("HZCHUNK".utf8) + [1]
    static let version = 1
    /// Columns a chunk may have: the fixed ones plus the properties of one event (CH33 §2.1 keeps
    /// events flat and small).
    static let maxColumns = 512
    /// Rows a chunk may claim (one event name, one day).
    static let maxRows = 1 << 28

    /// One entry of the column directory.
    public struct Entry: Equatable, Sendable {
        public var name: String
        public var type: ColumnType
        var encoding: BlockEncoding
        var offset: Int
        var storedBytes: Int
        var rawBytes: Int
        var checksum: UInt32
    }
}

/// How a block's values are laid out before compression.
enum BlockEncoding: UInt8, Sendable {
    /// One LEB128 varint per row (codes, integer words).
    case varint = 1
    /// One zigzag varint per row: the difference from the previous row (the first from 0).
    /// Codes of a non-decreasing column (the install, the chunk's sort key) and times.
    case delta = 2
    /// 16 bytes per row, big-endian words (event ids).
    case fixed16 = 3
    /// One byte per row (booleans).
    case byte = 4
}
